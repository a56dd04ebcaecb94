//! [`Retention`]: how long a data topic of the embedded store keeps its records, with
//! Kafka's topic config names and defaults: `retention.ms` (7 days; `-1` keeps records
//! forever), `retention.bytes` (per partition; `-1`, the default, is unlimited) and
//! `cleanup.policy` (`delete`, `compact` or both). [`RetentionOverrides`] is what one topic
//! sets (through a source connector's `topic.creation.*` keys); what it leaves unset comes
//! from the worker's default (`log.retention.ms`, `log.retention.bytes`,
//! `log.cleanup.policy`, as a broker names them).
//!
//! Plain values and their parsing; deleting records is the embedded store's business.

use std::fmt;

/// Kafka's `retention.ms` default: 7 days.
pub const DEFAULT_RETENTION_MS: i64 = 604_800_000;
/// Kafka's `retention.bytes` default: unlimited.
pub const DEFAULT_RETENTION_BYTES: i64 = -1;

/// `retention.ms`.
pub const RETENTION_MS: &str = "retention.ms";
/// `retention.bytes`.
pub const RETENTION_BYTES: &str = "retention.bytes";
/// `cleanup.policy`.
pub const CLEANUP_POLICY: &str = "cleanup.policy";

/// `cleanup.policy`: what the cleaner does to a topic's old records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CleanupPolicy {
    /// `delete`: records past `retention.ms` or beyond `retention.bytes` are deleted.
    pub delete: bool,
    /// `compact`: a record whose key has a newer record in its partition is deleted.
    pub compact: bool,
}

impl CleanupPolicy {
    /// `delete`, Kafka's default.
    pub const DELETE: Self = Self { delete: true, compact: false };
    /// `compact`.
    pub const COMPACT: Self = Self { delete: false, compact: true };

    /// Parses Kafka's list form: `delete`, `compact`, `compact,delete` (any order).
    pub fn parse(value: &str) -> Result<Self, String> {
        let mut policy = Self { delete: false, compact: false };
        for item in value.split(',').map(str::trim) {
            match item {
                "delete" => policy.delete = true,
                "compact" => policy.compact = true,
                _ => {
                    return Err(format!(
                        "Invalid value {value} for configuration {CLEANUP_POLICY}: String must \
                         be one of: compact, delete"
                    ));
                }
            }
        }
        Ok(policy)
    }
}

impl Default for CleanupPolicy {
    fn default() -> Self {
        Self::DELETE
    }
}

impl fmt::Display for CleanupPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match (self.compact, self.delete) {
            (true, true) => "compact,delete",
            (true, false) => "compact",
            _ => "delete",
        })
    }
}

/// The retention of one topic, every setting resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Retention {
    /// `retention.ms`: records older than this (by timestamp) are deleted; `-1`: never.
    pub ms: i64,
    /// `retention.bytes`: a partition's records beyond this many bytes (keys, values and
    /// headers), oldest first, are deleted; `-1`: no bound.
    pub bytes: i64,
    /// `cleanup.policy`.
    pub policy: CleanupPolicy,
}

impl Default for Retention {
    fn default() -> Self {
        Self {
            ms: DEFAULT_RETENTION_MS,
            bytes: DEFAULT_RETENTION_BYTES,
            policy: CleanupPolicy::DELETE,
        }
    }
}

impl Retention {
    /// The oldest timestamp (ms) a record may have to stay at `now_ms`, if time bounds it.
    pub fn cutoff_ms(&self, now_ms: i64) -> Option<i64> {
        (self.policy.delete && self.ms >= 0).then(|| now_ms.saturating_sub(self.ms))
    }

    /// The most bytes a partition may keep, if size bounds it.
    pub fn max_bytes(&self) -> Option<i64> {
        (self.policy.delete && self.bytes >= 0).then_some(self.bytes)
    }
}

/// What one topic sets of its retention; `None` follows the worker's default.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RetentionOverrides {
    /// `retention.ms`.
    pub ms: Option<i64>,
    /// `retention.bytes`.
    pub bytes: Option<i64>,
    /// `cleanup.policy`.
    pub policy: Option<CleanupPolicy>,
}

impl RetentionOverrides {
    /// Reads `retention.ms`, `retention.bytes` and `cleanup.policy` from a topic's configs
    /// (other keys are not retention's and are ignored); an error names the key, in Kafka's
    /// words.
    pub fn from_configs(configs: &[(String, String)]) -> Result<Self, String> {
        let mut overrides = Self::default();
        for (key, value) in configs {
            let value = value.trim();
            match key.as_str() {
                RETENTION_MS => overrides.ms = Some(parse_limit(key, value)?),
                RETENTION_BYTES => overrides.bytes = Some(parse_limit(key, value)?),
                CLEANUP_POLICY => overrides.policy = Some(CleanupPolicy::parse(value)?),
                _ => {}
            }
        }
        Ok(overrides)
    }

    /// These settings over `defaults`.
    pub fn over(&self, defaults: &Retention) -> Retention {
        Retention {
            ms: self.ms.unwrap_or(defaults.ms),
            bytes: self.bytes.unwrap_or(defaults.bytes),
            policy: self.policy.unwrap_or(defaults.policy),
        }
    }
}

/// A long of at least -1, as Kafka's validators take `retention.ms` and `retention.bytes`.
pub fn parse_limit(key: &str, value: &str) -> Result<i64, String> {
    match value.parse::<i64>() {
        Ok(n) if n >= -1 => Ok(n),
        _ => Err(format!(
            "Invalid value {value} for configuration {key}: must be -1 (no limit) or a \
             non-negative integer"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn configs(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
    }

    #[test]
    fn kafka_defaults_and_overrides() {
        let defaults = Retention::default();
        assert_eq!((defaults.ms, defaults.bytes), (604_800_000, -1));
        assert_eq!(defaults.policy.to_string(), "delete");
        let set = RetentionOverrides::from_configs(&configs(&[
            ("retention.ms", "120000"),
            ("cleanup.policy", "delete, compact"),
            ("segment.bytes", "1"),
        ]))
        .unwrap();
        let resolved = set.over(&defaults);
        assert_eq!((resolved.ms, resolved.bytes), (120_000, -1));
        assert_eq!(resolved.policy.to_string(), "compact,delete");
        assert_eq!(resolved.cutoff_ms(1_000_000), Some(880_000));
        assert_eq!(resolved.max_bytes(), None);
        let compact = Retention { policy: CleanupPolicy::COMPACT, bytes: 10, ..defaults };
        assert_eq!((compact.cutoff_ms(5), compact.max_bytes()), (None, None));
    }

    #[test]
    fn bad_values_name_their_key() {
        for (key, value) in
            [("retention.ms", "-2"), ("retention.bytes", "lots"), ("cleanup.policy", "keep")]
        {
            let e = RetentionOverrides::from_configs(&configs(&[(key, value)])).unwrap_err();
            assert!(e.contains(key) && e.contains(value), "{e}");
        }
    }
}
