//! `GET /metrics`: the worker's metrics in Prometheus text format (a wasm-connect
//! addition; Kafka Connect exposes JMX instead).

use axum::Router;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use super::RestState;
use super::error::ApiError;
use crate::telemetry::prometheus;

/// The routes of this file.
pub fn routes() -> Router<RestState> {
    Router::new().route("/metrics", get(metrics))
}

async fn metrics(State(s): State<RestState>) -> Response {
    match &s.metrics {
        Some(h) => ([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], prometheus::render(h))
            .into_response(),
        None => ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "Metrics are not exported by this process",
        )
        .into_response(),
    }
}
