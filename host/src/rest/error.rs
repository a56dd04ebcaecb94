//! The REST API's one error type. Every error answer has Kafka Connect's body,
//! `{"error_code": <http status>, "message": "..."}`; internal causes are logged here and
//! never echoed beyond their message.
//!
//! An error answer relayed from another worker keeps that worker's status and
//! `error_code`. A [`HerderError::NotHere`] answer also carries a marker for `forward`,
//! which sends the request on to the worker that can execute it (see `forward.rs`).

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;

use crate::cluster::{ClientError, VerifyError};
use crate::herder::HerderError;

/// The 409 message when the worker that can execute a request is not known.
pub const NO_LEADER: &str = "Cannot complete request momentarily due to no known leader URL, likely because a rebalance was underway.";

/// Response extension of an [`ApiError`] made from `HerderError::NotHere`: the worker
/// that can execute the request, when known. Read and removed by `forward`'s middleware.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotHere {
    /// The advertised REST URL of that worker.
    pub url: Option<String>,
}

/// An error answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApiError {
    /// HTTP status.
    pub status: StatusCode,
    /// The message.
    pub message: String,
    /// The body's `error_code` when it differs from the status (answers relayed from
    /// another worker).
    pub error_code: Option<i64>,
    /// Where a request this worker cannot execute may go (from [`HerderError::NotHere`]).
    not_here: Option<NotHere>,
}

impl ApiError {
    /// An answer with `status` and `message`.
    pub fn new(status: StatusCode, message: impl Into<String>) -> Self {
        Self { status, message: message.into(), error_code: None, not_here: None }
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
        let code = self.error_code.unwrap_or(i64::from(self.status.as_u16()));
        let body = json!({ "error_code": code, "message": self.message });
        let mut response = (self.status, Json(body)).into_response();
        if let Some(marker) = self.not_here {
            response.extensions_mut().insert(marker);
        }
        response
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
        match e {
            HerderError::NotHere { url: None, .. } => {
                Self { not_here: Some(NotHere { url: None }), ..Self::new(status, NO_LEADER) }
            }
            HerderError::NotHere { message, url } => {
                Self { not_here: Some(NotHere { url }), ..Self::new(status, message) }
            }
            e => Self::new(status, e.to_string()),
        }
    }
}

impl From<ClientError> for ApiError {
    fn from(e: ClientError) -> Self {
        let status = StatusCode::from_u16(e.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        match e {
            ClientError::Remote { error_code, message, .. } => {
                Self { error_code: Some(error_code), ..Self::new(status, message) }
            }
            e => Self::new(status, e.to_string()),
        }
    }
}

impl From<VerifyError> for ApiError {
    fn from(e: VerifyError) -> Self {
        let status = StatusCode::from_u16(e.status()).unwrap_or(StatusCode::BAD_REQUEST);
        Self::new(status, e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn body(e: ApiError) -> (StatusCode, serde_json::Value, Option<NotHere>) {
        let r = e.into_response();
        let marker = r.extensions().get::<NotHere>().cloned();
        let status = r.status();
        let bytes = axum::body::to_bytes(r.into_body(), 4096).await.unwrap();
        (status, serde_json::from_slice(&bytes).unwrap(), marker)
    }

    #[tokio::test]
    async fn herder_errors_that_name_another_worker_carry_a_marker() {
        let e = HerderError::NotHere {
            message: "Only the leader".into(),
            url: Some("http://b".into()),
        };
        let (status, b, marker) = body(e.into()).await;
        assert_eq!(status, StatusCode::CONFLICT);
        assert_eq!(b, json!({"error_code": 409, "message": "Only the leader"}));
        assert_eq!(marker, Some(NotHere { url: Some("http://b".into()) }));
        let e = HerderError::NotHere { message: "Only the leader".into(), url: None };
        let (_, b, marker) = body(e.into()).await;
        assert_eq!(b["message"], NO_LEADER);
        assert_eq!(marker, Some(NotHere { url: None }));
        let (status, b, marker) = body(HerderError::RebalanceNeeded.into()).await;
        assert_eq!((status, marker), (StatusCode::CONFLICT, None));
        assert_eq!(
            b["message"],
            "Cannot complete request momentarily due to stale configuration (typically caused by a concurrent config change)"
        );
    }

    #[tokio::test]
    async fn relayed_errors_keep_their_code() {
        let e = ClientError::Remote { status: 404, error_code: 40401, message: "gone".into() };
        let (status, b, _) = body(e.into()).await;
        assert_eq!(status, StatusCode::NOT_FOUND);
        assert_eq!(b, json!({"error_code": 40401, "message": "gone"}));
        let (status, b, _) = body(ClientError::UnexpectedStatus(302).into()).await;
        assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR);
        assert_eq!(b["message"], "Unexpected status code when handling forwarded request: 302");
        let (status, _, _) = body(VerifyError::Invalid.into()).await;
        assert_eq!(status, StatusCode::FORBIDDEN);
    }
}
