//! [`OffsetReset`]: what an embedded consumer does when it has no valid position in a
//! partition (no committed offset, or one below the log start offset because retention
//! deleted those records), as Kafka's consumer does with `auto.offset.reset`: `earliest`
//! (Kafka Connect's default for sink tasks) starts at the log start, `latest` at the log
//! end, `none` fails. Set per connector with `consumer.override.auto.offset.reset`.
//!
//! A plain value and its parsing; the consumer applies it.

use super::super::TopicError;

/// The consumer key.
pub(super) const AUTO_OFFSET_RESET: &str = "auto.offset.reset";

/// `auto.offset.reset`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum OffsetReset {
    /// `earliest`: the log start offset.
    #[default]
    Earliest,
    /// `latest`: the log end offset.
    Latest,
    /// `none`: the consumer fails.
    None,
}

impl OffsetReset {
    /// Reads `auto.offset.reset` from consumer `overrides` (Kafka Connect's sink default,
    /// `earliest`, when absent).
    pub(super) fn from_overrides(overrides: &[(String, String)]) -> Result<Self, TopicError> {
        let Some((_, value)) = overrides.iter().rev().find(|(k, _)| k == AUTO_OFFSET_RESET) else {
            return Ok(Self::default());
        };
        match value.trim() {
            "earliest" => Ok(Self::Earliest),
            "latest" => Ok(Self::Latest),
            "none" => Ok(Self::None),
            other => Err(TopicError::Config(format!(
                "Invalid value {other} for configuration {AUTO_OFFSET_RESET}: String must be one \
                 of: latest, earliest, none"
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_kafkas_values() {
        let set = |v: &str| vec![(AUTO_OFFSET_RESET.to_owned(), v.to_owned())];
        assert_eq!(OffsetReset::from_overrides(&[]).unwrap(), OffsetReset::Earliest);
        assert_eq!(OffsetReset::from_overrides(&set("latest")).unwrap(), OffsetReset::Latest);
        assert_eq!(OffsetReset::from_overrides(&set("none")).unwrap(), OffsetReset::None);
        let e = OffsetReset::from_overrides(&set("oldest")).unwrap_err().to_string();
        assert!(e.contains("auto.offset.reset") && e.contains("oldest"), "{e}");
    }
}
