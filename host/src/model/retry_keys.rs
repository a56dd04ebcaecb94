//! The config keys that set a [`RetryPolicy`], and their parsing. One parser serves the
//! worker config (the defaults) and connector configs (overrides over those defaults), so
//! both accept and refuse exactly the same values.
//!
//! Values are trimmed; an empty value counts as absent (UIs send empty strings).

use std::time::Duration;

use super::{Backoff, ConfigProblem, RetryPolicy};

/// The names of the five keys of one retry policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RetryKeys {
    /// Delay after the first failure, in milliseconds.
    pub initial_ms: &'static str,
    /// The cap, in milliseconds.
    pub max_ms: &'static str,
    /// Growth per failure.
    pub multiplier: &'static str,
    /// Jitter fraction.
    pub jitter: &'static str,
    /// Retry limit; `-1` or absent: none.
    pub retries_max: &'static str,
}

/// Task reconfiguration retries (KAFKA-14732): worker defaults, per-connector overrides.
pub const RECONFIGURATION_KEYS: RetryKeys = RetryKeys {
    initial_ms: "task.reconfiguration.backoff.initial.ms",
    max_ms: "task.reconfiguration.backoff.max.ms",
    multiplier: "task.reconfiguration.backoff.multiplier",
    jitter: "task.reconfiguration.backoff.jitter",
    retries_max: "task.reconfiguration.retries.max",
};

/// Automatic restarts of failed instances (connector keys, with `restart.policy`).
pub const RESTART_KEYS: RetryKeys = RetryKeys {
    initial_ms: "restart.backoff.initial.ms",
    max_ms: "restart.backoff.max.ms",
    multiplier: "restart.backoff.multiplier",
    jitter: "restart.backoff.jitter",
    retries_max: "restart.retries.max",
};

impl RetryKeys {
    /// Every key name.
    pub fn all(&self) -> [&'static str; 5] {
        [self.initial_ms, self.max_ms, self.multiplier, self.jitter, self.retries_max]
    }

    /// Reads the keys through `get` over `base`: an absent key keeps the base's value.
    /// Returns every problem, each naming its key.
    pub fn read<'v>(
        &self,
        get: impl Fn(&'static str) -> Option<&'v str>,
        base: &RetryPolicy,
    ) -> Result<RetryPolicy, Vec<ConfigProblem>> {
        let mut problems = Vec::new();
        let mut value = |key: &'static str, expected: &str, parse: &dyn Fn(&str) -> Option<f64>| {
            let raw = get(key).map(str::trim).filter(|v| !v.is_empty())?;
            let parsed = parse(raw);
            if parsed.is_none() {
                problems.push(ConfigProblem {
                    key: key.to_owned(),
                    message: format!("expected {expected}, got {raw:?}"),
                });
            }
            parsed
        };
        let integer = |min: i64| move |s: &str| s.parse::<i64>().ok().filter(|v| *v >= min);
        let millis = |s: &str| integer(1)(s).map(|v| v as f64);
        let initial = value(self.initial_ms, "a positive integer (milliseconds)", &millis);
        let max = value(self.max_ms, "a positive integer (milliseconds)", &millis);
        let multiplier = value(self.multiplier, "a number of at least 1", &|s| {
            s.parse::<f64>().ok().filter(|m| m.is_finite() && *m >= 1.0)
        });
        let jitter = value(self.jitter, "a fraction from 0 to 1", &|s| {
            s.parse::<f64>().ok().filter(|j| (0.0..=1.0).contains(j))
        });
        let retries = value(self.retries_max, "-1 (no limit) or a non-negative integer", &|s| {
            integer(-1)(s).filter(|v| *v <= i64::from(u32::MAX)).map(|v| v as f64)
        });
        let b = &base.backoff;
        let from_ms = |v: f64| Duration::from_millis(v as u64);
        let policy = RetryPolicy {
            backoff: Backoff {
                initial: initial.map_or(b.initial, from_ms),
                max: max.map_or(b.max, from_ms),
                multiplier: multiplier.unwrap_or(b.multiplier),
                jitter: jitter.unwrap_or(b.jitter),
            },
            max_retries: match retries {
                None => base.max_retries,
                Some(r) if r < 0.0 => None,
                Some(r) => Some(r as u32),
            },
        };
        if problems.is_empty() && policy.backoff.max < policy.backoff.initial {
            let key = if max.is_some() { self.max_ms } else { self.initial_ms };
            problems.push(ConfigProblem {
                key: key.to_owned(),
                message: format!(
                    "{} ({} ms) must not be less than {} ({} ms)",
                    self.max_ms,
                    policy.backoff.max.as_millis(),
                    self.initial_ms,
                    policy.backoff.initial.as_millis()
                ),
            });
        }
        if problems.is_empty() { Ok(policy) } else { Err(problems) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(pairs: &[(&str, &str)], base: &RetryPolicy) -> Result<RetryPolicy, Vec<String>> {
        RECONFIGURATION_KEYS
            .read(|k| pairs.iter().find(|(key, _)| *key == k).map(|(_, v)| *v), base)
            .map_err(|ps| ps.into_iter().map(|p| format!("{}: {}", p.key, p.message)).collect())
    }

    #[test]
    fn absent_keys_keep_the_base() {
        let base = RetryPolicy::default();
        assert_eq!(read(&[], &base), Ok(base.clone()));
        assert_eq!(read(&[("task.reconfiguration.backoff.jitter", " ")], &base), Ok(base));
    }

    #[test]
    fn every_key_is_read() {
        let p = read(
            &[
                ("task.reconfiguration.backoff.initial.ms", "100"),
                ("task.reconfiguration.backoff.max.ms", " 5000 "),
                ("task.reconfiguration.backoff.multiplier", "1.5"),
                ("task.reconfiguration.backoff.jitter", "0.25"),
                ("task.reconfiguration.retries.max", "7"),
            ],
            &RetryPolicy::default(),
        )
        .unwrap();
        assert_eq!(p.backoff.initial, Duration::from_millis(100));
        assert_eq!(p.backoff.max, Duration::from_millis(5000));
        assert_eq!((p.backoff.multiplier, p.backoff.jitter), (1.5, 0.25));
        assert_eq!(p.max_retries, Some(7));
    }

    #[test]
    fn minus_one_lifts_a_base_limit() {
        let base = RetryPolicy { max_retries: Some(3), ..RetryPolicy::default() };
        let p = read(&[("task.reconfiguration.retries.max", "-1")], &base).unwrap();
        assert_eq!(p.max_retries, None);
        let p = read(&[("task.reconfiguration.retries.max", "0")], &base).unwrap();
        assert_eq!(p.max_retries, Some(0));
    }

    #[test]
    fn bad_values_name_their_keys() {
        let problems = read(
            &[
                ("task.reconfiguration.backoff.initial.ms", "0"),
                ("task.reconfiguration.backoff.max.ms", "soon"),
                ("task.reconfiguration.backoff.multiplier", "0.5"),
                ("task.reconfiguration.backoff.jitter", "1.5"),
                ("task.reconfiguration.retries.max", "-2"),
            ],
            &RetryPolicy::default(),
        )
        .unwrap_err();
        assert_eq!(
            problems,
            [
                "task.reconfiguration.backoff.initial.ms: expected a positive integer (milliseconds), got \"0\"",
                "task.reconfiguration.backoff.max.ms: expected a positive integer (milliseconds), got \"soon\"",
                "task.reconfiguration.backoff.multiplier: expected a number of at least 1, got \"0.5\"",
                "task.reconfiguration.backoff.jitter: expected a fraction from 0 to 1, got \"1.5\"",
                "task.reconfiguration.retries.max: expected -1 (no limit) or a non-negative integer, got \"-2\"",
            ]
        );
        assert!(
            read(&[("task.reconfiguration.backoff.jitter", "NaN")], &RetryPolicy::default())
                .is_err()
        );
    }

    #[test]
    fn the_cap_must_not_be_below_the_initial_delay_even_against_the_base() {
        let p =
            read(&[("task.reconfiguration.backoff.initial.ms", "90000")], &RetryPolicy::default());
        assert_eq!(
            p.unwrap_err(),
            [
                "task.reconfiguration.backoff.initial.ms: task.reconfiguration.backoff.max.ms (60000 ms) must not be less than task.reconfiguration.backoff.initial.ms (90000 ms)"
            ]
        );
        let p = read(&[("task.reconfiguration.backoff.max.ms", "100")], &RetryPolicy::default());
        assert!(p.unwrap_err()[0].starts_with("task.reconfiguration.backoff.max.ms: "));
    }

    #[test]
    fn restart_keys_share_the_rules() {
        assert_eq!(RESTART_KEYS.all()[4], "restart.retries.max");
        let p = RESTART_KEYS
            .read(|k| (k == "restart.retries.max").then_some("5"), &RetryPolicy::default())
            .unwrap();
        assert_eq!(p.max_retries, Some(5));
    }
}
