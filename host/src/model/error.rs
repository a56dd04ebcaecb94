//! The errors a plugin returns through the contract, and what the worker makes of them.

/// An error a plugin returned (not a trap). The variant tells the worker what to do.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConnectorError {
    /// Transient: retry the same call after a back-off, keeping the instance.
    #[error("retriable error: {0}")]
    Retriable(String),
    /// The configuration cannot work: fail the instance until the config changes.
    #[error("configuration error: {0}")]
    Config(String),
    /// Anything else: fail the instance.
    #[error("fatal error: {0}")]
    Fatal(String),
}

impl ConnectorError {
    /// Whether the worker should retry the call with the same instance.
    pub fn is_retriable(&self) -> bool {
        matches!(self, Self::Retriable(_))
    }
}
