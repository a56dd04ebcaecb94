//! Telemetry events of the data path: one type per event, each recording its metric (and
//! its log line where one is useful), labelled by connector and task.
//!
//! | metric | labels | what |
//! |---|---|---|
//! | `wasm_connect_source_records_polled_total` | `connector`, `task` | records returned by `poll` |
//! | `wasm_connect_source_records_produced_total` | `connector`, `task` | records durably written |
//! | `wasm_connect_sink_records_consumed_total` | `connector`, `task` | records read for a sink |
//! | `wasm_connect_sink_records_put_total` | `connector`, `task` | records handed to `put` |
//! | `wasm_connect_batch_latency_seconds` | `connector`, `task`, `path` (`source`: poll to written; `sink`: read to put) | one sample per batch (a summary) |
//! | `wasm_connect_offset_commits_total` | `connector`, `task`, `result` (`success`, `failure`) | offset commits |
//! | `wasm_connect_task_starts_total` | `connector`, `task` | task instances started (restarts are starts after the first) |
//! | `wasm_connect_task_failures_total` | `connector`, `task` | task instances failed |
//!
//! Record errors are counted by the error reporter (`worker/errors`).

use std::time::Duration;

/// Metric: records returned by source `poll`.
pub const SOURCE_RECORDS_POLLED: &str = "wasm_connect_source_records_polled_total";
/// Metric: source records durably written.
pub const SOURCE_RECORDS_PRODUCED: &str = "wasm_connect_source_records_produced_total";
/// Metric: records consumed for a sink.
pub const SINK_RECORDS_CONSUMED: &str = "wasm_connect_sink_records_consumed_total";
/// Metric: records handed to sink `put`.
pub const SINK_RECORDS_PUT: &str = "wasm_connect_sink_records_put_total";
/// Metric: batch latency.
pub const BATCH_LATENCY: &str = "wasm_connect_batch_latency_seconds";
/// Metric: offset commits.
pub const OFFSET_COMMITS: &str = "wasm_connect_offset_commits_total";
/// Metric: task starts.
pub const TASK_STARTS: &str = "wasm_connect_task_starts_total";
/// Metric: task failures.
pub const TASK_FAILURES: &str = "wasm_connect_task_failures_total";

fn labels(connector: &str, task: u32) -> [(&'static str, String); 2] {
    [("connector", connector.to_owned()), ("task", task.to_string())]
}

/// A source `poll` returned records.
pub struct RecordsPolled<'a> {
    /// Connector.
    pub connector: &'a str,
    /// Task.
    pub task: u32,
    /// Records polled.
    pub count: usize,
}

impl RecordsPolled<'_> {
    /// Records the metric.
    pub fn emit(&self) {
        metrics::counter!(SOURCE_RECORDS_POLLED, &labels(self.connector, self.task))
            .increment(self.count as u64);
    }
}

/// A polled batch was durably written.
pub struct RecordsProduced<'a> {
    /// Connector.
    pub connector: &'a str,
    /// Task.
    pub task: u32,
    /// Records written.
    pub count: usize,
    /// From the start of the poll to the last acknowledgement.
    pub latency: Duration,
}

impl RecordsProduced<'_> {
    /// Records the metrics.
    pub fn emit(&self) {
        let labels = labels(self.connector, self.task);
        metrics::counter!(SOURCE_RECORDS_PRODUCED, &labels).increment(self.count as u64);
        let [c, t] = labels;
        metrics::histogram!(BATCH_LATENCY, &[c, t, ("path", "source".to_owned())])
            .record(self.latency.as_secs_f64());
    }
}

/// Records were read for a sink task.
pub struct RecordsConsumed<'a> {
    /// Connector.
    pub connector: &'a str,
    /// Task.
    pub task: u32,
    /// Records read.
    pub count: usize,
}

impl RecordsConsumed<'_> {
    /// Records the metric.
    pub fn emit(&self) {
        metrics::counter!(SINK_RECORDS_CONSUMED, &labels(self.connector, self.task))
            .increment(self.count as u64);
    }
}

/// A batch was put to a sink plugin.
pub struct RecordsPut<'a> {
    /// Connector.
    pub connector: &'a str,
    /// Task.
    pub task: u32,
    /// Records put.
    pub count: usize,
    /// From receiving the batch to `put` returning.
    pub latency: Duration,
}

impl RecordsPut<'_> {
    /// Records the metrics.
    pub fn emit(&self) {
        let labels = labels(self.connector, self.task);
        metrics::counter!(SINK_RECORDS_PUT, &labels).increment(self.count as u64);
        let [c, t] = labels;
        metrics::histogram!(BATCH_LATENCY, &[c, t, ("path", "sink".to_owned())])
            .record(self.latency.as_secs_f64());
    }
}

/// Offsets were committed (source offsets to the offsets store, sink offsets to the group).
pub struct OffsetsCommitted<'a> {
    /// Connector.
    pub connector: &'a str,
    /// Task.
    pub task: u32,
    /// Partitions in the commit.
    pub partitions: usize,
    /// Whether it succeeded.
    pub ok: bool,
}

impl OffsetsCommitted<'_> {
    /// Records the metric.
    pub fn emit(&self) {
        tracing::debug!(connector = %self.connector, task = self.task, partitions = self.partitions, ok = self.ok, "Offsets committed");
        let [c, t] = labels(self.connector, self.task);
        let result = if self.ok { "success" } else { "failure" };
        metrics::counter!(OFFSET_COMMITS, &[c, t, ("result", result.to_owned())]).increment(1);
    }
}

/// A task instance started, or failed.
pub struct TaskLifecycle<'a> {
    /// Connector.
    pub connector: &'a str,
    /// Task.
    pub task: u32,
    /// `true`: it failed; `false`: it started.
    pub failed: bool,
}

impl TaskLifecycle<'_> {
    /// Records the metric.
    pub fn emit(&self) {
        let name = if self.failed { TASK_FAILURES } else { TASK_STARTS };
        metrics::counter!(name, &labels(self.connector, self.task)).increment(1);
    }
}
