//! `/admin/loggers` (KIP-495): read and change log levels while the worker runs.
//! `scope=cluster` (KIP-976) is not supported yet and answers 400 rather than acting on
//! this worker only.

use axum::Router;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde::Deserialize;

use super::RestState;
use super::error::ApiError;
use super::extract::{Body, QueryParams};
use crate::telemetry::LoggerError;

type Result<T> = std::result::Result<T, ApiError>;

/// The routes of this file.
pub fn routes() -> Router<RestState> {
    Router::new()
        .route("/admin/loggers", get(list))
        .route("/admin/loggers/{logger}", get(one).put(set))
}

#[derive(Debug, Deserialize)]
struct LevelRequest {
    level: Option<String>,
}

async fn list(State(s): State<RestState>) -> Response {
    axum::Json(s.loggers.list()).into_response()
}

async fn one(State(s): State<RestState>, Path(logger): Path<String>) -> Result<Response> {
    let level = s
        .loggers
        .get(&logger)
        .ok_or_else(|| ApiError::not_found(format!("Logger {logger} not found.")))?;
    Ok(axum::Json(level).into_response())
}

async fn set(
    State(s): State<RestState>,
    Path(logger): Path<String>,
    q: QueryParams,
    Body(req): Body<LevelRequest>,
) -> Result<Response> {
    let level = req.level.ok_or_else(|| {
        ApiError::bad_request("Desired 'level' parameter was not specified in request.")
    })?;
    match q.get("scope").map(str::to_ascii_lowercase).as_deref() {
        None | Some("worker") => {}
        Some("cluster") => {
            return Err(ApiError::bad_request(
                "scope=cluster is not supported by this worker yet; use scope=worker",
            ));
        }
        Some(other) => tracing::warn!(scope = %other, "Unknown logger scope, using worker"),
    }
    match s.loggers.set(&logger, &level) {
        Ok(changed) => Ok((StatusCode::OK, axum::Json(changed)).into_response()),
        Err(e @ LoggerError::InvalidLevel(_)) => Err(ApiError::not_found(e.to_string())),
        Err(e @ LoggerError::InvalidName(_)) => Err(ApiError::bad_request(e.to_string())),
        Err(e) => Err(ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string())),
    }
}
