//! [`Rejected`]: a connector config no plugin can run, and why.

use super::Framework;
use crate::model::Properties;

/// The 400 message for a config without `connector.class`, Kafka Connect's words with the
/// config's keys only: its values may be secrets, and an error answer must not echo them.
pub fn no_connector_type(config: &Properties) -> String {
    let keys: Vec<&str> = config.keys().map(String::as_str).collect();
    format!("Connector config with keys [{}] contains no connector type", keys.join(", "))
}

/// Why no plugin runs a config.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RejectedReason {
    /// The config has no `connector.class`.
    NoClass,
    /// No installed plugin serves `connector.class`.
    UnknownClass,
    /// `connector.plugin.version` is not a version or range, or no installed version of
    /// the plugin matches it.
    Version,
}

/// A connector config no plugin serves. The connector instance fails at start with
/// [`Rejected::trace`]; the framework keys still apply (the restart policy).
#[derive(Clone, Debug)]
pub struct Rejected {
    /// The keys read without the plugin.
    pub framework: Framework,
    /// Why.
    pub reason: RejectedReason,
    /// Kafka Connect's message for the class (the registry's, with the installed plugins),
    /// or what is wrong with the version asked for (with the installed versions).
    pub trace: String,
}

impl std::fmt::Display for Rejected {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.trace)
    }
}

impl std::error::Error for Rejected {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_no_type_message_names_keys_not_values() {
        let config = Properties::from([
            ("name".to_string(), "c".to_string()),
            ("connection.password".to_string(), "hunter2".to_string()),
        ]);
        let message = no_connector_type(&config);
        assert_eq!(
            message,
            "Connector config with keys [connection.password, name] contains no connector type"
        );
        assert!(!message.contains("hunter2"));
    }
}
