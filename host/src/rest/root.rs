//! `GET /` (version and cluster) and `GET /health` (KIP-1017), whose body is a worker
//! status rather than an error body.

use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::json;

use super::RestState;

/// How long `/health` waits for the herder (Kafka Connect: 10 s).
const HEALTH_TIMEOUT: Duration = Duration::from_secs(10);

/// The routes of this file.
pub fn routes() -> Router<RestState> {
    Router::new().route("/", get(root)).route("/health", get(health))
}

async fn root(State(s): State<RestState>) -> Response {
    axum::Json(json!({
        "version": env!("CARGO_PKG_VERSION"),
        "commit": option_env!("WASM_CONNECT_COMMIT").unwrap_or("unknown"),
        "kafka_cluster_id": s.kafka_cluster_id,
    }))
    .into_response()
}

async fn health(State(s): State<RestState>) -> Response {
    match tokio::time::timeout(HEALTH_TIMEOUT, s.herder.connectors()).await {
        Ok(Ok(_)) => (
            StatusCode::OK,
            axum::Json(json!({"status": "healthy", "message": "Worker has completed startup and is ready to handle requests."})),
        )
            .into_response(),
        Ok(Err(e)) => (
            StatusCode::SERVICE_UNAVAILABLE,
            axum::Json(json!({"status": "unhealthy", "message": format!("Worker is unable to handle requests: {e}")})),
        )
            .into_response(),
        Err(_) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            axum::Json(json!({"status": "unhealthy", "message": "Worker was unable to handle this request and may be unable to handle other requests. The herder did not answer within 10 seconds."})),
        )
            .into_response(),
    }
}
