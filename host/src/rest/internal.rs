//! The inter-worker endpoints (reference §1.5), which Kafka Connect hides from its API
//! documentation and so does `openapi.json`:
//! - `POST /connectors/{name}/tasks`: task configs a worker generated, for the leader to
//!   write (204). A follower forwards it to the leader (`forward.rs`).
//! - `PUT /connectors/{name}/fence`: one zombie fencing round for an exactly-once source
//!   connector (KIP-618), run by the leader (204; the body is ignored): 404 for an unknown
//!   connector, 400 for one that is not a source or when exactly-once source support is not
//!   enabled. A follower forwards it to the leader (`forward.rs`).
//!
//! In distributed mode both require a signature (KIP-507) by the current session key, and
//! are exempt from basic authentication (`auth.rs`), as in Kafka Connect. In standalone mode
//! both answer 500 with Kafka Connect's standalone messages. Handlers hold no state.

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::{post, put};

use super::RestState;
use super::error::ApiError;
use super::extract::{Path, RawBody};
use crate::cluster::{HMAC_SHA256, KeyRing, verify};
use crate::config::ModeConfig;
use crate::model::Properties;

/// Standalone's answer to `POST /connectors/{name}/tasks` (Kafka Connect's).
pub const STANDALONE_TASKS: &str =
    "Kafka Connect in standalone mode does not support externally setting task configurations.";
/// Standalone's answer to `PUT /connectors/{name}/fence` (Kafka Connect's).
pub const STANDALONE_FENCE: &str =
    "Kafka Connect in standalone mode does not support exactly-once source connectors.";

/// How the internal endpoints treat requests.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InternalRequests {
    /// Standalone mode: there are no other workers; every request answers 500.
    Refused,
    /// Distributed mode (`connect.protocol=sessioned`): a request must be signed with the
    /// current session key by one of these algorithms
    /// (`inter.worker.verification.algorithms`).
    Signed {
        /// Accepted signature algorithms.
        accepted_algorithms: Vec<String>,
    },
}

impl From<&ModeConfig> for InternalRequests {
    fn from(mode: &ModeConfig) -> Self {
        match mode {
            ModeConfig::Standalone(_) => Self::Refused,
            ModeConfig::Distributed(d) => {
                Self::Signed { accepted_algorithms: d.inter_worker_verification_algorithms.clone() }
            }
        }
    }
}

impl InternalRequests {
    /// Signed requests accepting only `HmacSHA256` (the default).
    pub fn signed() -> Self {
        Self::Signed { accepted_algorithms: vec![HMAC_SHA256.to_owned()] }
    }

    /// Lets a request through, or answers: `refused` in standalone mode, the signature
    /// error in distributed mode.
    fn check(
        &self,
        keyring: &KeyRing,
        headers: &HeaderMap,
        body: &[u8],
        refused: &str,
    ) -> Result<(), ApiError> {
        match self {
            Self::Refused => Err(ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, refused)),
            Self::Signed { accepted_algorithms } => {
                let key = keyring.current();
                Ok(verify(headers, body, key.as_ref(), accepted_algorithms)?)
            }
        }
    }
}

/// The routes of this file.
pub fn routes() -> Router<RestState> {
    Router::new()
        .route("/connectors/{name}/tasks", post(task_configs))
        .route("/connectors/{name}/fence", put(fence))
}

async fn task_configs(
    State(s): State<RestState>,
    Path(name): Path<String>,
    headers: HeaderMap,
    RawBody(body): RawBody,
) -> Result<StatusCode, ApiError> {
    s.internal.check(&s.keyring, &headers, &body, STANDALONE_TASKS)?;
    let configs = parse_task_configs(&body)?;
    s.within(s.herder.submit_task_configs(&name, configs)).await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn fence(
    State(s): State<RestState>,
    Path(name): Path<String>,
    headers: HeaderMap,
    RawBody(body): RawBody,
) -> Result<StatusCode, ApiError> {
    s.internal.check(&s.keyring, &headers, &body, STANDALONE_FENCE)?;
    s.within(s.herder.fence_zombies(&name)).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// A JSON array of string-to-string maps.
fn parse_task_configs(body: &[u8]) -> Result<Vec<Properties>, ApiError> {
    let de = &mut serde_json::Deserializer::from_slice(body);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let at = if path == "." { String::new() } else { format!(" at `{path}`") };
        ApiError::bad_request(format!(
            "Invalid task configs{at}: expected a JSON array of objects with string values: {}",
            e.inner()
        ))
    })
}

#[cfg(test)]
#[path = "internal_tests.rs"]
mod tests;
