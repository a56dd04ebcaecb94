//! Telemetry: the worker's `tracing` subscriber, the handle that changes its log levels
//! at run time, and the events (log line, metric) that the herder and the task loops emit.
//!
//! Layout: `loggers` ([`Loggers`]: subscriber set-up and KIP-495 admin loggers), `levels`
//! (the level table behind it, log4j level names), `escape` (the text log's field
//! formatter: control characters in values escaped, so one event is one line), `events`
//! (failure handling's events: reconfiguration retries, automatic restarts, tolerated
//! records, the dead letter queue) and `data` (the data path's: records, batches, offset
//! commits, task starts and failures), one type per event with its metric through the
//! metrics facade, `registry` (the Schema Registry converters' lookups: requests and
//! subjects), `prometheus` (the recorder behind `GET /metrics`), `client_log` (every
//! Kafka client's log lines and errors, each repeated message once per change of state
//! with a count).

pub mod client_log;
pub mod data;
mod escape;
pub mod events;
mod levels;
mod loggers;
pub mod prometheus;
pub mod registry;

pub use levels::{LoggerError, LoggerLevel, ROOT};
pub use loggers::Loggers;

use std::sync::OnceLock;

static INSTALLED: OnceLock<Loggers> = OnceLock::new();

/// Remembers the handle of the installed subscriber, for the REST API.
pub fn set_installed(loggers: Loggers) {
    let _ = INSTALLED.set(loggers);
}

/// The handle of the installed subscriber, if the process installed one through the CLI.
pub fn installed() -> Option<Loggers> {
    INSTALLED.get().cloned()
}
