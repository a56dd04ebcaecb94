//! `/connectors/{name}/offsets` (KIP-875): read committed offsets, and alter or reset
//! them while the connector is STOPPED (the herder checks the preconditions).

use axum::Router;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde::Deserialize;
use serde_json::{Value, json};

use super::RestState;
use super::error::ApiError;
use super::extract::{Body, Object, Path};

type Result<T> = std::result::Result<T, ApiError>;

/// The routes of this file.
pub fn routes() -> Router<RestState> {
    Router::new().route("/connectors/{name}/offsets", get(read).patch(alter).delete(reset))
}

/// `PATCH` body: `{"offsets": [{"partition": {...}, "offset": {...} | null}]}`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct AlterRequest {
    offsets: Option<Vec<Object<Entry>>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    partition: Value,
    #[serde(default)]
    offset: Option<Value>,
}

async fn read(State(s): State<RestState>, Path(name): Path<String>) -> Result<Response> {
    let offsets = s.within(s.herder.connector_offsets(&name)).await?;
    Ok(axum::Json(offsets).into_response())
}

async fn alter(
    State(s): State<RestState>,
    Path(name): Path<String>,
    Body(req): Body<AlterRequest>,
) -> Result<Response> {
    let entries = req.offsets.filter(|o| !o.is_empty()).ok_or_else(|| {
        ApiError::bad_request(
            "Partitions / offsets need to be provided for an alter offsets request",
        )
    })?;
    let offsets = entries
        .into_iter()
        .map(|Object(e)| (e.partition, e.offset.filter(|o| !o.is_null())))
        .collect();
    let message = s.within(s.herder.alter_offsets(&name, offsets)).await?;
    Ok(axum::Json(json!({ "message": message })).into_response())
}

async fn reset(State(s): State<RestState>, Path(name): Path<String>) -> Result<Response> {
    let message = s.within(s.herder.reset_offsets(&name)).await?;
    Ok(axum::Json(json!({ "message": message })).into_response())
}
