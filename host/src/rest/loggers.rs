//! `/admin/loggers` (KIP-495): read and change log levels while the worker runs, with the
//! herder's [`Loggers`](crate::telemetry::Loggers). `scope=worker` (the default, and what
//! an unknown scope means) changes this worker's levels and answers the loggers changed;
//! `scope=cluster` (KIP-976) hands the level to the herder, which sets it on every worker
//! of the group through the config topic (standalone: on this worker), and answers 204.
//! Both check the level and the name first, with Kafka Connect's answers.

use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde::Deserialize;

use super::RestState;
use super::error::ApiError;
use super::extract::{Body, Path, QueryParams};
use crate::telemetry::{LoggerError, Loggers};

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
    axum::Json(s.herder.loggers().list()).into_response()
}

async fn one(State(s): State<RestState>, Path(logger): Path<String>) -> Result<Response> {
    let level = s
        .herder
        .loggers()
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
    Loggers::check(&logger, &level).map_err(logger_error)?;
    match q.get("scope").map(str::to_ascii_lowercase).as_deref() {
        None | Some("worker") => {}
        Some("cluster") => {
            s.within(s.herder.set_cluster_logger_level(&logger, &level)).await?;
            return Ok(StatusCode::NO_CONTENT.into_response());
        }
        Some(other) => tracing::warn!(scope = %other, "Unknown logger scope, using worker"),
    }
    let changed = s.herder.loggers().set(&logger, &level).map_err(logger_error)?;
    Ok((StatusCode::OK, axum::Json(changed)).into_response())
}

fn logger_error(e: LoggerError) -> ApiError {
    match e {
        LoggerError::InvalidLevel(_) => ApiError::not_found(e.to_string()),
        LoggerError::InvalidName(_) => ApiError::bad_request(e.to_string()),
        LoggerError::Reload(_) => ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
    }
}
