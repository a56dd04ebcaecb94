//! Tests of the task reconfiguration keys of [`WorkerConfig`]: KAFKA-14732's defaults,
//! every key read, and problems named by key.

use std::time::Duration;

use super::tests::{ok, problems};
use super::*;
use crate::model::KAFKA_14732;

#[test]
fn defaults_are_kafka_14732_without_a_limit() {
    let c = ok("plugin.path=p", Mode::Standalone);
    assert_eq!(c.task_reconfiguration.backoff, KAFKA_14732);
    assert_eq!(c.task_reconfiguration.backoff.initial, Duration::from_millis(250));
    assert_eq!(c.task_reconfiguration.backoff.max, Duration::from_secs(60));
    assert_eq!(c.task_reconfiguration.max_retries, None);
}

#[test]
fn every_key_is_read() {
    let c = ok(
        "plugin.path=p\ntask.reconfiguration.backoff.initial.ms=100\n\
         task.reconfiguration.backoff.max.ms=10000\ntask.reconfiguration.backoff.multiplier=3\n\
         task.reconfiguration.backoff.jitter=0.1\ntask.reconfiguration.retries.max=4\n",
        Mode::Standalone,
    );
    let p = &c.task_reconfiguration;
    assert_eq!(
        (p.backoff.initial, p.backoff.max),
        (Duration::from_millis(100), Duration::from_secs(10))
    );
    assert_eq!((p.backoff.multiplier, p.backoff.jitter, p.max_retries), (3.0, 0.1, Some(4)));
    assert!(c.ignored_keys.is_empty());
}

#[test]
fn bad_values_and_typos_name_their_keys() {
    let got = problems(
        "plugin.path=p\ntask.reconfiguration.backoff.jitter=2\ntask.reconfiguration.retries.max=x\n\
         task.reconfiguration.backof.max.ms=5\nrestart.policy=on-failure\n",
        Mode::Standalone,
    );
    assert_eq!(
        got,
        [
            (
                "task.reconfiguration.backoff.jitter".into(),
                "expected a fraction from 0 to 1, got \"2\"".into()
            ),
            (
                "task.reconfiguration.retries.max".into(),
                "expected -1 (no limit) or a non-negative integer, got \"x\"".into()
            ),
            (
                "task.reconfiguration.backof.max.ms".into(),
                "unknown key; did you mean \"task.reconfiguration.backoff.max.ms\"?".into()
            ),
            (
                "restart.policy".into(),
                "a connector key, not a worker key: give each connector its own file".into()
            ),
        ]
    );
}
