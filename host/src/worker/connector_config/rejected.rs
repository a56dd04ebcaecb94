//! [`Rejected`]: a connector config no plugin can run, and why.

use super::Framework;

/// Why no plugin runs a config.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RejectedReason {
    /// The config has no `connector.class`.
    NoClass,
    /// No installed plugin serves `connector.class`.
    UnknownClass,
}

/// A connector config no plugin serves. The connector instance fails at start with
/// [`Rejected::trace`]; the framework keys still apply (the restart policy).
#[derive(Clone, Debug)]
pub struct Rejected {
    /// The keys read without the plugin.
    pub framework: Framework,
    /// Why.
    pub reason: RejectedReason,
    /// Kafka Connect's message for the class (the registry's, with the installed plugins).
    pub trace: String,
}

impl std::fmt::Display for Rejected {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.trace)
    }
}

impl std::error::Error for Rejected {}
