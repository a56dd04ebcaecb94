//! Secrets among client properties: [`Secret`], a string whose `Debug` hides it, which keys
//! hold one ([`is_secret_key`]), and [`RedactedProps`], a property map's `Debug` with those
//! values hidden.
//!
//! This module decides what is secret; it never logs or prints a value itself.

use std::collections::BTreeMap;
use std::fmt;

/// What `Debug` prints instead of a secret.
pub const HIDDEN: &str = "[hidden]";

/// A password or key: `Debug` prints [`HIDDEN`].
#[derive(Clone, PartialEq, Eq, Default)]
pub struct Secret(String);

impl Secret {
    /// Wraps `value`.
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// The secret itself, for the code that must hand it on.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(HIDDEN)
    }
}

/// Key endings whose values are secret, whatever the prefix (`producer.`,
/// `producer.override.`, `listeners.https.` …): Kafka's and librdkafka's names.
const SECRET_ENDINGS: &[&str] = &[
    "password",
    "sasl.jaas.config",
    "ssl.keystore.key",
    "ssl.key.pem",
    "secret",
    "passphrase",
    "private.key.pem",
    // The Schema Registry converters' credentials (`value.converter.basic.auth.user.info`).
    "basic.auth.user.info",
    "bearer.auth.token",
];

/// Whether the value of `key` is a secret that must not be printed.
pub fn is_secret_key(key: &str) -> bool {
    SECRET_ENDINGS.iter().any(|end| key.ends_with(end))
}

/// A property map whose `Debug` hides the values of secret keys.
pub struct RedactedProps<'a, I>(pub &'a I);

impl fmt::Debug for RedactedProps<'_, BTreeMap<String, String>> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.0.iter().map(|(k, v)| (k, redacted(k, v)))).finish()
    }
}

impl fmt::Debug for RedactedProps<'_, Vec<(String, String)>> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.0.iter().map(|(k, v)| (k, redacted(k, v)))).finish()
    }
}

/// `value`, or [`HIDDEN`] when `key` is secret.
fn redacted<'v>(key: &str, value: &'v str) -> &'v str {
    if is_secret_key(key) { HIDDEN } else { value }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_keys_with_any_prefix() {
        for key in [
            "sasl.jaas.config",
            "producer.override.sasl.jaas.config",
            "ssl.truststore.password",
            "listeners.https.ssl.key.password",
            "ssl.keystore.key",
            "ssl.key.pem",
            "sasl.password",
            "sasl.oauthbearer.client.secret",
        ] {
            assert!(is_secret_key(key), "{key}");
        }
        for key in ["ssl.truststore.location", "sasl.mechanism", "ssl.keystore.certificate.chain"] {
            assert!(!is_secret_key(key), "{key}");
        }
    }

    #[test]
    fn debug_hides_secret_values() {
        let map = BTreeMap::from([
            ("sasl.jaas.config".to_owned(), "Module required password=\"p4ss\";".to_owned()),
            ("security.protocol".to_owned(), "SASL_SSL".to_owned()),
        ]);
        let shown = format!("{:?}", RedactedProps(&map));
        assert!(!shown.contains("p4ss"), "{shown}");
        assert!(shown.contains("SASL_SSL") && shown.contains(HIDDEN), "{shown}");
        let list: Vec<_> = map.into_iter().collect();
        assert!(!format!("{:?}", RedactedProps(&list)).contains("p4ss"));
        assert_eq!(format!("{:?}", Secret::new("p4ss")), HIDDEN);
    }
}
