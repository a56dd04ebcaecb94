//! A connector's failure handling, read from its config over the worker's defaults: how
//! failed task reconfigurations are retried (the `task.reconfiguration.*` keys, which
//! override the worker's), and whether its FAILED instances are restarted automatically
//! (`restart.policy` and the `restart.*` keys, connector config only).
//!
//! Pure parsing: the typed connector config (`worker::connector_config`) reads them once
//! when a config is accepted; validation reports the same problems before a write.

use std::time::Duration;

use super::{ConfigProblem, Properties, RECONFIGURATION_KEYS, RESTART_KEYS, RetryPolicy};

/// `none` (default) or `on-failure`.
pub const RESTART_POLICY: &str = "restart.policy";
/// How long an instance must have run before its restart count starts over.
pub const RESTART_HEALTHY_AFTER_MS: &str = "restart.healthy.after.ms";
/// Default of [`RESTART_HEALTHY_AFTER_MS`]: as long as the longest default back-off, so
/// an instance that fails about once a minute or more often never resets its count.
pub const DEFAULT_RESTART_HEALTHY_AFTER: Duration = Duration::from_secs(60);

/// How a connector's FAILED instances are restarted (`restart.policy=on-failure`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RestartPolicy {
    /// The delays and the limit (`restart.backoff.*`, `restart.retries.max`); the defaults
    /// are the reconfiguration defaults: 250 ms doubling to 60 s, no limit.
    pub retry: RetryPolicy,
    /// Running this long resets the count (`restart.healthy.after.ms`).
    pub healthy_after: Duration,
}

/// The failure handling of one connector.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConnectorPolicies {
    /// Task reconfiguration retries.
    pub reconfiguration: RetryPolicy,
    /// Automatic restarts, when opted in.
    pub restart: Option<RestartPolicy>,
}

impl ConnectorPolicies {
    /// Reads `config` over the worker's reconfiguration policy. Returns every problem.
    pub fn read(config: &Properties, worker: &RetryPolicy) -> Result<Self, Vec<ConfigProblem>> {
        let get = |k: &'static str| config.get(k).map(String::as_str);
        let mut problems = Vec::new();
        let mut take = |r: Result<RetryPolicy, Vec<ConfigProblem>>| {
            r.unwrap_or_else(|p| {
                problems.extend(p);
                RetryPolicy::default()
            })
        };
        let reconfiguration = take(RECONFIGURATION_KEYS.read(get, worker));
        let retry = take(RESTART_KEYS.read(get, &RetryPolicy::default()));
        let value = |k| get(k).map(str::trim).filter(|v| !v.is_empty());
        let enabled = match value(RESTART_POLICY).map(str::to_ascii_lowercase).as_deref() {
            None | Some("none") => false,
            Some("on-failure") => true,
            Some(other) => {
                problems.push(problem(RESTART_POLICY, "none or on-failure", other));
                false
            }
        };
        let healthy_after = match value(RESTART_HEALTHY_AFTER_MS) {
            None => DEFAULT_RESTART_HEALTHY_AFTER,
            Some(v) => v.parse().map(Duration::from_millis).unwrap_or_else(|_| {
                let expected = "a non-negative integer (milliseconds)";
                problems.push(problem(RESTART_HEALTHY_AFTER_MS, expected, v));
                DEFAULT_RESTART_HEALTHY_AFTER
            }),
        };
        if !problems.is_empty() {
            return Err(problems);
        }
        let restart = enabled.then_some(RestartPolicy { retry, healthy_after });
        Ok(Self { reconfiguration, restart })
    }
}

fn problem(key: &str, expected: &str, got: &str) -> ConfigProblem {
    ConfigProblem { key: key.to_owned(), message: format!("expected {expected}, got {got:?}") }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(pairs: &[(&str, &str)]) -> Properties {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn defaults_come_from_the_worker_and_restarts_are_opt_in() {
        let worker = RetryPolicy { max_retries: Some(9), ..RetryPolicy::default() };
        let p = ConnectorPolicies::read(&config(&[("tasks.max", "2")]), &worker).unwrap();
        assert_eq!(p.reconfiguration, worker);
        assert_eq!(p.restart, None);
    }

    #[test]
    fn connector_keys_override_and_enable() {
        let p = ConnectorPolicies::read(
            &config(&[
                ("task.reconfiguration.retries.max", "2"),
                ("task.reconfiguration.backoff.initial.ms", "50"),
                ("restart.policy", "On-Failure"),
                ("restart.backoff.initial.ms", "100"),
                ("restart.backoff.max.ms", "400"),
                ("restart.retries.max", "5"),
                ("restart.healthy.after.ms", "0"),
            ]),
            &RetryPolicy::default(),
        )
        .unwrap();
        assert_eq!(p.reconfiguration.max_retries, Some(2));
        assert_eq!(p.reconfiguration.backoff.initial, Duration::from_millis(50));
        let r = p.restart.unwrap();
        assert_eq!(r.retry.backoff.initial, Duration::from_millis(100));
        assert_eq!(r.retry.backoff.max, Duration::from_millis(400));
        assert_eq!(r.retry.backoff.multiplier, 2.0);
        assert_eq!((r.retry.max_retries, r.healthy_after), (Some(5), Duration::ZERO));
        let defaults = ConnectorPolicies::read(
            &config(&[("restart.policy", "on-failure")]),
            &RetryPolicy::default(),
        )
        .unwrap();
        let r = defaults.restart.unwrap();
        assert_eq!(r.retry, RetryPolicy::default());
        assert_eq!(r.healthy_after, DEFAULT_RESTART_HEALTHY_AFTER);
    }

    #[test]
    fn every_problem_is_named() {
        let problems = ConnectorPolicies::read(
            &config(&[
                ("task.reconfiguration.backoff.multiplier", "half"),
                ("restart.policy", "always"),
                ("restart.retries.max", "-3"),
                ("restart.healthy.after.ms", "-1"),
            ]),
            &RetryPolicy::default(),
        )
        .unwrap_err();
        let keys: Vec<&str> = problems.iter().map(|p| p.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "task.reconfiguration.backoff.multiplier",
                "restart.retries.max",
                "restart.policy",
                "restart.healthy.after.ms"
            ]
        );
        assert_eq!(problems[2].message, "expected none or on-failure, got \"always\"");
    }
}
