//! The TLS settings of the REST API over HTTPS, with Kafka Connect's keys: the `https://`
//! listeners' keystore and client authentication (`ssl.client.auth`), and the trust store
//! and client certificate of this worker's requests to other workers. They are the
//! `listeners.https.ssl.*` keys when any is set, else the worker's top-level `ssl.*` keys
//! (which the Kafka clients use too): all or nothing, as Kafka Connect reads them.
//!
//! This file owns which keys apply and the checks made when the config is read. It reads
//! no key or certificate file: [`SslSettings`] builds the rustls configs when asked.

use crate::config::WorkerConfig;
use crate::config::listener::Scheme;
use crate::config::security::{SecurityError, SslSettings};
use crate::model::ConfigProblem;

/// The prefix of the HTTPS listener's own settings.
pub const LISTENER_PREFIX: &str = "listeners.https.";

/// Keys of earlier versions of this worker, not Kafka Connect's, refused with a pointer to
/// the keys that replace them.
const REPLACED: [&str; 2] =
    ["listeners.https.ssl.certificate.location", "listeners.https.ssl.key.location"];

/// What a [`REPLACED`] key's problem says.
const USE_KEYSTORE: &str = "not a Kafka Connect key: use listeners.https.ssl.keystore.type=PEM \
                            and listeners.https.ssl.keystore.location (one PEM file with the \
                            private key and the certificate chain)";

impl WorkerConfig {
    /// The HTTPS settings: `listeners.https.ssl.*` if any is set, else `ssl.*`. Errors
    /// name the key as written in the file.
    pub fn https_ssl(&self) -> Result<SslSettings, SecurityError> {
        if self.listeners_https_props.is_empty() {
            SslSettings::from_props(&self.client_props, "")
        } else {
            SslSettings::from_props(&self.listeners_https_props, LISTENER_PREFIX)
        }
    }

    /// Whether one of the listeners is `https://`.
    pub fn has_https_listener(&self) -> bool {
        self.listeners.iter().any(|l| l.scheme == Scheme::Https)
    }

    /// The problems of the HTTPS settings: checked when an `https://` listener is
    /// configured (it needs a keystore) or `listeners.https.ssl.*` keys are set.
    pub(super) fn https_problems(&self) -> Vec<ConfigProblem> {
        let problem = |key: &str, message: &str| ConfigProblem {
            key: key.to_owned(),
            message: message.to_owned(),
        };
        let mut problems: Vec<ConfigProblem> = REPLACED
            .iter()
            .filter(|key| self.listeners_https_props.contains_key(**key))
            .map(|key| problem(key, USE_KEYSTORE))
            .collect();
        let checked = self.has_https_listener() || !self.listeners_https_props.is_empty();
        if !problems.is_empty() || !checked {
            return problems;
        }
        if let Err(e) = self.https_ssl() {
            problems.push(problem(e.key(), &e.message()));
            return problems;
        }
        let top_level = self.listeners_https_props.is_empty()
            && self.client_props.keys().any(|k| k.starts_with("ssl."));
        let prefix = if top_level { "" } else { LISTENER_PREFIX };
        let set = |name: &str| {
            let key = format!("{prefix}{name}");
            let props = if top_level { &self.client_props } else { &self.listeners_https_props };
            props.get(&key).is_some_and(|v| !v.trim().is_empty())
        };
        if self.has_https_listener() && !set("ssl.keystore.location") && !set("ssl.keystore.key") {
            problems.push(problem(
                &format!("{prefix}ssl.keystore.location"),
                "missing: an https:// listener needs a keystore",
            ));
        }
        problems
    }
}

#[cfg(test)]
#[path = "https_tests.rs"]
mod tests;
