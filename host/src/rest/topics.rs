//! `/connectors/{name}/topics` (KIP-558): the topics a connector's tasks have produced to
//! or consumed from, and their reset. Topics are recorded by the data path.

use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, put};
use serde_json::json;

use super::RestState;
use super::extract::Path;

/// The routes of this file.
pub fn routes() -> Router<RestState> {
    Router::new()
        .route("/connectors/{name}/topics", get(topics))
        .route("/connectors/{name}/topics/reset", put(reset))
}

async fn topics(State(s): State<RestState>, Path(name): Path<String>) -> Response {
    let topics = s.herder.connector_topics(&name);
    axum::Json(json!({ name: { "topics": topics } })).into_response()
}

async fn reset(State(s): State<RestState>, Path(name): Path<String>) -> StatusCode {
    s.herder.reset_connector_topics(&name);
    StatusCode::ACCEPTED
}
