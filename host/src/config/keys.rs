//! What the worker does with a key that no typed field reads: pass it through to a client
//! or converter, accept and ignore it (a Kafka Connect key we do not act on yet), or reject
//! it as unknown, with a spelling suggestion when a known key is close.
//!
//! This module owns the lists; it parses no values.

/// Prefixes whose keys are kept, prefix stripped, as settings of a Kafka client or a
/// converter: the target map and the prefix.
pub const PASS_THROUGH: &[(PassThrough, &str)] = &[
    (PassThrough::Producer, "producer."),
    (PassThrough::Consumer, "consumer."),
    (PassThrough::Admin, "admin."),
    (PassThrough::KeyConverter, "key.converter."),
    (PassThrough::ValueConverter, "value.converter."),
];

/// Kafka client security settings that Kafka Connect gives every client it creates; kept
/// with their full names.
const CLIENT_EXACT: &[&str] = &["security.protocol"];
const CLIENT_PREFIXES: &[&str] = &["ssl.", "sasl."];

/// Kafka Connect worker keys accepted but not acted on yet.
pub const IGNORED: &[&str] = &[
    "access.control.allow.methods",
    "access.control.allow.origin",
    "admin.listeners",
    "auto.include.jmx.reporter",
    "client.dns.lookup",
    "connections.max.idle.ms",
    "header.converter",
    "metadata.max.age.ms",
    "metric.reporters",
    "plugin.discovery",
    "receive.buffer.bytes",
    "reconnect.backoff.max.ms",
    "reconnect.backoff.ms",
    "request.timeout.ms",
    "response.http.headers.config",
    "rest.extension.classes",
    "retry.backoff.max.ms",
    "retry.backoff.ms",
    "send.buffer.bytes",
    "socket.connection.setup.timeout.max.ms",
    "socket.connection.setup.timeout.ms",
    "topic.creation.enable",
    "topic.tracking.allow.reset",
    "topic.tracking.enable",
    "worker.unsync.backoff.ms",
];

/// Prefixes of Kafka Connect keys accepted but not acted on yet. Checked before
/// [`PASS_THROUGH`], so `admin.listeners.https.*` is not taken for an admin client setting.
const IGNORED_PREFIXES: &[&str] = &[
    "access.control.",
    "admin.listeners.https.",
    "header.converter.",
    "internal.key.converter",
    "internal.value.converter",
    "metrics.",
];

/// The HTTPS listener's TLS settings (`listeners.https.ssl.keystore.location` …), kept
/// with their full names.
const HTTPS_LISTENER_PREFIX: &str = "listeners.https.ssl.";

/// Prefixes of Kafka Connect keys ignored for now that sit next to keys we read: topic-level
/// settings for the internal topics (`config.storage.cleanup.policy` …) and the HTTPS
/// listener's other settings. A key here that is close to a known key is taken for a typo.
const TYPO_CHECKED_PREFIXES: &[&str] =
    &["config.storage.", "offset.storage.", "status.storage.", "listeners.https."];

/// Connector keys, which belong in connector files, not in the worker file.
const CONNECTOR_KEYS: &[&str] = &["name", "connector.class", "tasks.max", "topics", "transforms"];
/// Prefix of the connector-only automatic restart keys (`restart.policy` …).
const CONNECTOR_PREFIX: &str = "restart.";

/// A map of pass-through settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PassThrough {
    /// `producer.*`
    Producer,
    /// `consumer.*`
    Consumer,
    /// `admin.*`
    Admin,
    /// `key.converter.*`
    KeyConverter,
    /// `value.converter.*`
    ValueConverter,
}

/// What to do with a key no typed field read.
#[derive(Debug, PartialEq, Eq)]
pub enum KeyClass<'k> {
    /// Keep under the stripped name (never empty) in the given map.
    PassThrough(PassThrough, &'k str),
    /// Keep in `client_props` under the full name.
    Client,
    /// Keep in `listeners_https_props` under the full name.
    HttpsListener,
    /// Accept and list in `ignored_keys`.
    Ignored,
    /// Reject; the message says why and may suggest a key.
    Unknown(String),
}

/// Classifies `key`; `known` are the keys the typed fields read (for suggestions).
pub fn classify<'k>(key: &'k str, known: &[&str]) -> KeyClass<'k> {
    let suggestion = || suggest(key, known.iter().chain(IGNORED).copied());
    if IGNORED.contains(&key) || IGNORED_PREFIXES.iter().any(|p| key.starts_with(p)) {
        return KeyClass::Ignored;
    }
    if key.starts_with(HTTPS_LISTENER_PREFIX) {
        return KeyClass::HttpsListener;
    }
    if TYPO_CHECKED_PREFIXES.iter().any(|p| key.starts_with(p)) {
        return match suggestion() {
            Some(s) => KeyClass::Unknown(format!("unknown key; did you mean {s:?}?")),
            None => KeyClass::Ignored,
        };
    }
    if CLIENT_EXACT.contains(&key) || CLIENT_PREFIXES.iter().any(|p| key.starts_with(p)) {
        return KeyClass::Client;
    }
    for &(target, prefix) in PASS_THROUGH {
        if let Some(rest) = key.strip_prefix(prefix) {
            if rest.is_empty() {
                return KeyClass::Unknown(format!("expected a setting name after {prefix:?}"));
            }
            return KeyClass::PassThrough(target, rest);
        }
    }
    if CONNECTOR_KEYS.contains(&key) || key.starts_with(CONNECTOR_PREFIX) {
        return KeyClass::Unknown(
            "a connector key, not a worker key: give each connector its own file".to_owned(),
        );
    }
    KeyClass::Unknown(match suggestion() {
        Some(s) => format!("unknown key; did you mean {s:?}?"),
        None => "unknown key".to_owned(),
    })
}

/// The closest candidate within a small edit distance (at most 2, and less than a third
/// of the key's length, so short keys get no far-fetched suggestions).
fn suggest<'c>(key: &str, candidates: impl Iterator<Item = &'c str>) -> Option<&'c str> {
    let limit = 2.min(key.len() / 3);
    candidates
        .filter(|c| *c != key)
        .map(|c| (edit_distance(key, c), c))
        .filter(|&(d, _)| d <= limit)
        .min()
        .map(|(_, c)| c)
}

/// Levenshtein distance over bytes (keys are ASCII).
fn edit_distance(a: &str, b: &str) -> usize {
    let b = b.as_bytes();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.bytes().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1).min(row[j] + 1).min(diagonal + usize::from(ca != cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    const KNOWN: &[&str] = &["group.id", "config.storage.topic", "plugin.path", "config.providers"];

    #[test]
    fn pass_through_strips_the_prefix() {
        assert_eq!(
            classify("producer.acks", KNOWN),
            KeyClass::PassThrough(PassThrough::Producer, "acks")
        );
        assert_eq!(
            classify("value.converter.schemas.enable", KNOWN),
            KeyClass::PassThrough(PassThrough::ValueConverter, "schemas.enable")
        );
        let empty = classify("consumer.", KNOWN);
        assert!(matches!(empty, KeyClass::Unknown(m) if m.contains("setting name")));
    }

    #[test]
    fn client_security_settings() {
        for key in ["security.protocol", "ssl.truststore.location", "sasl.mechanism"] {
            assert_eq!(classify(key, KNOWN), KeyClass::Client, "{key}");
        }
    }

    #[test]
    fn https_listener_settings() {
        for key in ["listeners.https.ssl.keystore.location", "listeners.https.ssl.client.auth"] {
            assert_eq!(classify(key, KNOWN), KeyClass::HttpsListener, "{key}");
        }
        assert_eq!(classify("listeners.https.other", KNOWN), KeyClass::Ignored);
        // The admin listener's are not ours.
        assert_eq!(classify("admin.listeners.https.ssl.keystore.type", KNOWN), KeyClass::Ignored);
    }

    #[test]
    fn ignored_exact_and_prefixed_before_pass_through() {
        for key in [
            "admin.listeners",
            "admin.listeners.https.ssl.key.password",
            "metrics.num.samples",
            "metric.reporters",
            "header.converter",
            "config.storage.min.insync.replicas",
        ] {
            assert_eq!(classify(key, KNOWN), KeyClass::Ignored, "{key}");
        }
    }

    #[test]
    fn typos_get_suggestions() {
        let unknown = |key| match classify(key, KNOWN) {
            KeyClass::Unknown(m) => m,
            other => panic!("{key}: {other:?}"),
        };
        assert_eq!(unknown("grop.id"), "unknown key; did you mean \"group.id\"?");
        assert_eq!(
            unknown("config.storage.topik"),
            "unknown key; did you mean \"config.storage.topic\"?"
        );
        assert_eq!(unknown("plugin_path"), "unknown key; did you mean \"plugin.path\"?");
        assert_eq!(unknown("confg.provider"), "unknown key; did you mean \"config.providers\"?");
        assert_eq!(unknown("something.else"), "unknown key");
        assert!(unknown("connector.class").contains("connector key"));
        assert!(unknown("restart.policy").contains("connector key"));
    }

    #[test]
    fn edit_distances() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("same", "same"), 0);
    }
}
