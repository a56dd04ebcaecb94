//! Telemetry events of failure handling (the herder's reconfiguration retries and automatic
//! restarts, a task's tolerated records and dead letter queue): one type per event, each
//! emitting its log line and its metric, so names and labels live in one place.
//!
//! Metrics go through the `metrics` facade only; the process's recorder
//! ([`prometheus`](super::prometheus)) serves them at `GET /metrics` under these names.
//!
//! | metric | labels | counts |
//! |---|---|---|
//! | `wasm_connect_reconfiguration_attempts_total` | `connector` | every request of task configs, first tries and retries |
//! | `wasm_connect_reconfiguration_failures_total` | `connector` | failed attempts |
//! | `wasm_connect_automatic_restarts_total` | `connector`, `instance` (`connector` or `task`) | restarts made by a restart policy |
//! | `wasm_connect_record_errors_tolerated_total` | `connector`, `stage` | failed records skipped under `errors.tolerance=all` |
//! | `wasm_connect_deadletterqueue_records_total` | `connector` | records written to a dead letter queue |
//! | `wasm_connect_guest_output_dropped_bytes_total` | `connector`, `task`, `stream` (`stdout`, `stderr` or `log`) | guest output past the instance's budget (`wasm.output.max.bytes`), dropped |

use std::time::Duration;

use crate::model::InstanceId;

/// Metric: requests of task configs.
pub const RECONFIGURATION_ATTEMPTS: &str = "wasm_connect_reconfiguration_attempts_total";
/// Metric: failed requests of task configs.
pub const RECONFIGURATION_FAILURES: &str = "wasm_connect_reconfiguration_failures_total";
/// Metric: restarts made by a restart policy.
pub const AUTOMATIC_RESTARTS: &str = "wasm_connect_automatic_restarts_total";
/// Metric: failed records skipped under `errors.tolerance=all`.
pub const RECORD_ERRORS_TOLERATED: &str = "wasm_connect_record_errors_tolerated_total";
/// Metric: records written to a dead letter queue.
pub const DEAD_LETTER_QUEUE_RECORDS: &str = "wasm_connect_deadletterqueue_records_total";
/// Metric: guest output dropped past the instance's budget, in bytes.
pub const GUEST_OUTPUT_DROPPED: &str = "wasm_connect_guest_output_dropped_bytes_total";

/// The herder asked a connector for its task configs.
pub struct ReconfigurationAttempted<'a> {
    /// The connector.
    pub connector: &'a str,
}

impl ReconfigurationAttempted<'_> {
    /// Counts the attempt.
    pub fn emit(&self) {
        tracing::debug!(connector = %self.connector, "Requesting task configs");
        metrics::counter!(RECONFIGURATION_ATTEMPTS, "connector" => self.connector.to_owned())
            .increment(1);
    }
}

/// A task reconfiguration attempt failed: one log line per attempt.
pub struct ReconfigurationFailed<'a> {
    /// The connector.
    pub connector: &'a str,
    /// The number of the failed attempt, from 1.
    pub attempt: u32,
    /// The delay before the next attempt; `None` when the limit is reached.
    pub next_delay: Option<Duration>,
    /// What went wrong.
    pub error: &'a str,
}

impl ReconfigurationFailed<'_> {
    /// Logs the line and counts the failure.
    pub fn emit(&self) {
        match self.next_delay {
            Some(delay) => tracing::error!(
                connector = %self.connector,
                attempt = self.attempt,
                next_delay_ms = delay.as_millis() as u64,
                error = %self.error,
                "Failed to reconfigure connector's tasks, retrying after backoff"
            ),
            None => tracing::error!(
                connector = %self.connector,
                attempt = self.attempt,
                error = %self.error,
                "Failed to reconfigure connector's tasks, giving up: the retry limit is reached"
            ),
        }
        metrics::counter!(RECONFIGURATION_FAILURES, "connector" => self.connector.to_owned())
            .increment(1);
    }
}

/// A restart policy restarted a FAILED instance.
pub struct AutomaticRestart<'a> {
    /// The instance.
    pub instance: &'a InstanceId,
    /// The restart's number since the count last reset, from 1.
    pub attempt: u32,
}

impl AutomaticRestart<'_> {
    /// Logs and counts the restart.
    pub fn emit(&self) {
        let kind = match self.instance {
            InstanceId::Connector(_) => "connector",
            InstanceId::Task(..) => "task",
        };
        tracing::info!(
            instance = %self.instance,
            attempt = self.attempt,
            "Restarting a failed instance automatically"
        );
        metrics::counter!(
            AUTOMATIC_RESTARTS,
            "connector" => self.instance.connector().to_owned(),
            "instance" => kind
        )
        .increment(1);
    }
}

/// A task skipped failed records of one stage (`errors.tolerance=all`). The errors log
/// line of each record is `errors.log.enable`'s, written by `worker::errors`.
pub struct RecordErrorsTolerated<'a> {
    /// The connector.
    pub connector: &'a str,
    /// Kafka Connect's stage name, e.g. `VALUE_CONVERTER`.
    pub stage: &'a str,
    /// Records skipped (or failed operations without records).
    pub records: u64,
    /// Of those, records written to the dead letter queue.
    pub dead_lettered: u64,
}

impl RecordErrorsTolerated<'_> {
    /// Counts the skipped and dead-lettered records.
    pub fn emit(&self) {
        tracing::debug!(
            connector = %self.connector,
            stage = %self.stage,
            records = self.records,
            dead_lettered = self.dead_lettered,
            "Skipped failed records, as errors.tolerance=all allows"
        );
        let connector = self.connector.to_owned();
        metrics::counter!(
            RECORD_ERRORS_TOLERATED,
            "connector" => connector.clone(),
            "stage" => self.stage.to_owned()
        )
        .increment(self.records);
        if self.dead_lettered > 0 {
            metrics::counter!(DEAD_LETTER_QUEUE_RECORDS, "connector" => connector)
                .increment(self.dead_lettered);
        }
    }
}

/// An instance's stdout, stderr or log calls went past their budget: the bytes were
/// dropped. Logged once per instance and stream (`first`; for log calls, whose budget
/// refills, once per gap), counted every time.
pub struct GuestOutputDropped<'a> {
    /// The connector.
    pub connector: &'a str,
    /// The task, or `None` for the connector instance.
    pub task: Option<u32>,
    /// `stdout`, `stderr` or `log`.
    pub stream: &'static str,
    /// The budget, in bytes.
    pub budget: usize,
    /// Bytes dropped by this write or call.
    pub bytes: usize,
    /// Whether these are the first bytes this stream of this instance dropped (for log
    /// calls: the first of a gap).
    pub first: bool,
}

impl GuestOutputDropped<'_> {
    /// Counts the dropped bytes, and says so once.
    pub fn emit(&self) {
        let task = self.task.map_or(-1, i64::from);
        if self.first {
            tracing::warn!(
                connector = %self.connector,
                task,
                stream = self.stream,
                budget_bytes = self.budget,
                "Guest output over its budget (wasm.output.max.bytes): this stream's output \
                 is dropped (stdout and stderr for the instance's life, log calls until \
                 their budget refills)"
            );
        }
        metrics::counter!(
            GUEST_OUTPUT_DROPPED,
            "connector" => self.connector.to_owned(),
            "task" => task.to_string(),
            "stream" => self.stream
        )
        .increment(self.bytes as u64);
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::{Arc, Mutex};

    use metrics::{
        Counter, Gauge, Histogram, Key, KeyName, Metadata, Recorder, SharedString, Unit,
    };

    use super::*;

    /// Keeps counters by their rendered key (`name{label=value,...}`).
    #[derive(Default)]
    struct Counters(Mutex<BTreeMap<String, Arc<AtomicU64>>>);

    impl Counters {
        fn get(&self, key: &str) -> u64 {
            let map = self.0.lock().unwrap();
            map.get(key).map_or(0, |c| c.load(Ordering::Relaxed))
        }
    }

    impl Recorder for Counters {
        fn describe_counter(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}
        fn describe_gauge(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}
        fn describe_histogram(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}
        fn register_counter(&self, key: &Key, _: &Metadata<'_>) -> Counter {
            let labels: Vec<String> =
                key.labels().map(|l| format!("{}={}", l.key(), l.value())).collect();
            let name = format!("{}{{{}}}", key.name(), labels.join(","));
            Counter::from_arc(self.0.lock().unwrap().entry(name).or_default().clone())
        }
        fn register_gauge(&self, _: &Key, _: &Metadata<'_>) -> Gauge {
            Gauge::noop()
        }
        fn register_histogram(&self, _: &Key, _: &Metadata<'_>) -> Histogram {
            Histogram::noop()
        }
    }

    #[test]
    fn events_count_under_their_names_and_labels() {
        let counters = Counters::default();
        metrics::with_local_recorder(&counters, || {
            ReconfigurationAttempted { connector: "c" }.emit();
            ReconfigurationAttempted { connector: "c" }.emit();
            let failed = |next_delay| ReconfigurationFailed {
                connector: "c",
                attempt: 1,
                next_delay,
                error: "boom",
            };
            failed(Some(Duration::from_millis(250))).emit();
            failed(None).emit();
            AutomaticRestart { instance: &InstanceId::Task("c".into(), 2), attempt: 1 }.emit();
            AutomaticRestart { instance: &InstanceId::Connector("c".into()), attempt: 1 }.emit();
            let tolerated = |records, dead_lettered| RecordErrorsTolerated {
                connector: "c",
                stage: "TASK_PUT",
                records,
                dead_lettered,
            };
            tolerated(3, 2).emit();
            tolerated(1, 0).emit();
        });
        assert_eq!(
            counters.get("wasm_connect_record_errors_tolerated_total{connector=c,stage=TASK_PUT}"),
            4
        );
        assert_eq!(counters.get("wasm_connect_deadletterqueue_records_total{connector=c}"), 2);
        assert_eq!(counters.get("wasm_connect_reconfiguration_attempts_total{connector=c}"), 2);
        assert_eq!(counters.get("wasm_connect_reconfiguration_failures_total{connector=c}"), 2);
        assert_eq!(
            counters.get("wasm_connect_automatic_restarts_total{connector=c,instance=task}"),
            1
        );
        assert_eq!(
            counters.get("wasm_connect_automatic_restarts_total{connector=c,instance=connector}"),
            1
        );
    }
}
