//! The REST API's one error type. Every error answer has Kafka Connect's body,
//! `{"error_code": <http status>, "message": "..."}`; internal causes are logged here and
//! never echoed beyond their message.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;

use crate::herder::HerderError;

/// An error answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApiError {
    /// HTTP status.
    pub status: StatusCode,
    /// The message.
    pub message: String,
}

impl ApiError {
    /// An answer with `status` and `message`.
    pub fn new(status: StatusCode, message: impl Into<String>) -> Self {
        Self { status, message: message.into() }
    }

    /// 400.
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, message)
    }

    /// 404.
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, message)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        if self.status.is_server_error() {
            tracing::error!(status = self.status.as_u16(), error = %self.message, "Request failed");
        }
        let body = json!({ "error_code": self.status.as_u16(), "message": self.message });
        (self.status, Json(body)).into_response()
    }
}

impl From<HerderError> for ApiError {
    fn from(e: HerderError) -> Self {
        let status = match &e {
            HerderError::NotFound(_) => StatusCode::NOT_FOUND,
            HerderError::AlreadyExists(_)
            | HerderError::Conflict(_)
            | HerderError::NotHere { .. }
            | HerderError::RebalanceNeeded => StatusCode::CONFLICT,
            HerderError::InvalidConfig(_) | HerderError::BadRequest(_) => StatusCode::BAD_REQUEST,
            HerderError::Store { .. } | HerderError::Failed(_) => StatusCode::INTERNAL_SERVER_ERROR,
            HerderError::ShuttingDown => StatusCode::SERVICE_UNAVAILABLE,
        };
        Self::new(status, e.to_string())
    }
}
