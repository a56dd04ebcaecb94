//! Errors the herder answers requests with. Each variant maps to one HTTP status in the
//! REST layer; the messages are Kafka Connect's where it has one.

use crate::store::StoreError;

/// Why a herder request failed.
#[derive(Clone, Debug, thiserror::Error)]
pub enum HerderError {
    /// Unknown connector, task or plugin (404).
    #[error("{0}")]
    NotFound(String),
    /// A connector of that name exists (409).
    #[error("Connector {0} already exists")]
    AlreadyExists(String),
    /// The request conflicts with the cluster's state (409).
    #[error("{0}")]
    Conflict(String),
    /// Another worker must execute this request: the leader, or the worker that runs the
    /// instance. REST forwards it to `url` when known, and answers 409 when not.
    #[error("{message}")]
    NotHere {
        /// Why this worker cannot.
        message: String,
        /// The advertised REST URL of the worker that can, when known.
        url: Option<String>,
    },
    /// A config change is waiting for a rebalance (409).
    #[error(
        "Cannot complete request momentarily due to stale configuration (typically caused by a concurrent config change)"
    )]
    RebalanceNeeded,
    /// The config is invalid (400); one message per problem.
    #[error(
        "Connector configuration is invalid and contains the following {} error(s):\n{}\nYou can also find the above list of errors at the endpoint `/connector-plugins/{{connectorType}}/config/validate`",
        .0.len(),
        .0.join("\n")
    )]
    InvalidConfig(Vec<String>),
    /// The request itself is malformed (400).
    #[error("{0}")]
    BadRequest(String),
    /// A store write failed or could not be confirmed (500).
    #[error("{context}: {source}")]
    Store {
        /// What was being written.
        context: String,
        /// Why it failed.
        source: StoreError,
    },
    /// An instance failed to start or the operation failed (500).
    #[error("{0}")]
    Failed(String),
    /// The herder is shutting down (503 / 500).
    #[error("The worker is shutting down")]
    ShuttingDown,
}

impl HerderError {
    /// Kafka Connect's 404 for a connector that does not exist.
    pub(super) fn connector_not_found(name: &str) -> Self {
        HerderError::NotFound(format!("Connector {name} not found"))
    }
}
