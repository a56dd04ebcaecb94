//! [`FetchSize`]: how many bytes one fetch of an embedded consumer may hand its sink task,
//! with the Kafka consumer's keys and defaults: `fetch.max.bytes` (50 MiB) in all, and
//! `max.partition.fetch.bytes` (1 MiB) from each partition. As in Kafka, both are soft:
//! the first record of a fetch is returned whatever its size, so a consumer always makes
//! progress. `max.poll.records` bounds the count on top.
//!
//! A plain value and its parsing; the consumer applies it.

use super::super::TopicError;

/// The consumer key of the bound on a whole fetch.
pub(super) const FETCH_MAX_BYTES: &str = "fetch.max.bytes";

/// The consumer key of the bound on what one partition contributes to a fetch.
pub(super) const MAX_PARTITION_FETCH_BYTES: &str = "max.partition.fetch.bytes";

/// Kafka's default `fetch.max.bytes`.
const DEFAULT_FETCH_MAX_BYTES: usize = 52_428_800;

/// Kafka's default `max.partition.fetch.bytes`.
const DEFAULT_MAX_PARTITION_FETCH_BYTES: usize = 1_048_576;

/// The byte bounds of one fetch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct FetchSize {
    /// `fetch.max.bytes`.
    pub bytes: usize,
    /// `max.partition.fetch.bytes`.
    pub partition_bytes: usize,
}

impl Default for FetchSize {
    fn default() -> Self {
        Self { bytes: DEFAULT_FETCH_MAX_BYTES, partition_bytes: DEFAULT_MAX_PARTITION_FETCH_BYTES }
    }
}

impl FetchSize {
    /// Reads both keys from consumer settings (the last value of a key wins), Kafka's
    /// defaults when absent.
    pub(super) fn from_overrides(overrides: &[(String, String)]) -> Result<Self, TopicError> {
        let defaults = Self::default();
        Ok(Self {
            bytes: bytes(overrides, FETCH_MAX_BYTES)?.unwrap_or(defaults.bytes),
            partition_bytes: bytes(overrides, MAX_PARTITION_FETCH_BYTES)?
                .unwrap_or(defaults.partition_bytes),
        })
    }
}

/// The value of `key`, a non-negative INT as Kafka's consumer takes it.
fn bytes(overrides: &[(String, String)], key: &str) -> Result<Option<usize>, TopicError> {
    let Some((_, value)) = overrides.iter().rev().find(|(k, _)| k == key) else {
        return Ok(None);
    };
    let invalid = |why: &str| {
        TopicError::Config(format!("Invalid value {value} for configuration {key}: {why}"))
    };
    let n: i32 = value.trim().parse().map_err(|_| invalid("Not a number of type INT"))?;
    let n = usize::try_from(n).map_err(|_| invalid("Value must be at least 0"))?;
    Ok(Some(n))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn kafkas_defaults_and_the_last_value_of_each_key() {
        assert_eq!(FetchSize::from_overrides(&[]).unwrap(), FetchSize::default());
        let size = FetchSize::from_overrides(&set(&[
            (FETCH_MAX_BYTES, "1000"),
            (MAX_PARTITION_FETCH_BYTES, "10"),
            (FETCH_MAX_BYTES, " 2000 "),
        ]))
        .unwrap();
        assert_eq!(size, FetchSize { bytes: 2000, partition_bytes: 10 });
    }

    #[test]
    fn a_value_that_is_not_an_int_names_the_key() {
        for bad in ["lots", "-1", "4294967296"] {
            let e = FetchSize::from_overrides(&set(&[(MAX_PARTITION_FETCH_BYTES, bad)]))
                .unwrap_err()
                .to_string();
            assert!(e.contains(MAX_PARTITION_FETCH_BYTES) && e.contains(bad), "{e}");
        }
    }
}
