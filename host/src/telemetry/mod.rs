//! Telemetry: the worker's `tracing` subscriber and the handle that changes its log levels
//! at run time.
//!
//! Layout: `loggers` ([`Loggers`]: subscriber set-up and KIP-495 admin loggers).

mod loggers;

pub use loggers::{LoggerError, LoggerLevel, Loggers, ROOT};
