//! Logging through the worker: [`log`], [`Level`] and the [`info!`](crate::info)-style
//! macros.
//!
//! This module owns the guest side of the `host.log` import. Lines land in the worker's
//! log tagged with the connector name and task id. Natively (outside wasm, for unit tests)
//! they go to stderr (captured by `cargo test`) and to the thread-local record that
//! [`testing`](crate::testing) reads. It must not buffer: a line is written when it is logged.

use std::fmt;

/// The level of a log line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// Very detailed tracing.
    Trace,
    /// Debugging detail.
    Debug,
    /// Normal operation.
    Info,
    /// Something unexpected that the plugin handled.
    Warn,
    /// Something failed.
    Error,
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Trace => "TRACE",
            Self::Debug => "DEBUG",
            Self::Info => "INFO",
            Self::Warn => "WARN",
            Self::Error => "ERROR",
        })
    }
}

/// Writes one structured line to the worker's log. `fields` are extra key/value pairs,
/// e.g. `&[("file", path)]`. Write messages as capitalised sentences.
pub fn log(level: Level, message: &str, fields: &[(&str, &str)]) {
    imp::log(level, message, fields);
}

#[cfg(target_arch = "wasm32")]
mod imp {
    use super::Level;
    use crate::bindings::source::wasm_connect::connector::host::{self, LogLevel};

    pub(super) fn log(level: Level, message: &str, fields: &[(&str, &str)]) {
        let level = match level {
            Level::Trace => LogLevel::Trace,
            Level::Debug => LogLevel::Debug,
            Level::Info => LogLevel::Info,
            Level::Warn => LogLevel::Warn,
            Level::Error => LogLevel::Error,
        };
        let fields: Vec<(String, String)> =
            fields.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
        host::log(level, message, &fields);
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod imp {
    use super::Level;

    use crate::mock_host::{self, LogLine};

    pub(super) fn log(level: Level, message: &str, fields: &[(&str, &str)]) {
        let text: String = fields.iter().map(|(k, v)| format!(" {k}={v}")).collect();
        eprintln!("{level} {message}{text}");
        let fields = fields.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
        mock_host::with(|h| h.logs.push(LogLine { level, message: message.to_owned(), fields }));
    }
}

/// Logs a formatted message at [`Level::Trace`]: `trace!("Read {n} bytes")`.
#[macro_export]
macro_rules! trace {
    ($($arg:tt)+) => {
        $crate::log($crate::Level::Trace, &::std::format!($($arg)+), &[])
    };
}

/// Logs a formatted message at [`Level::Debug`]: `debug!("Read {n} bytes")`.
#[macro_export]
macro_rules! debug {
    ($($arg:tt)+) => {
        $crate::log($crate::Level::Debug, &::std::format!($($arg)+), &[])
    };
}

/// Logs a formatted message at [`Level::Info`]: `info!("Opened {path}")`.
#[macro_export]
macro_rules! info {
    ($($arg:tt)+) => {
        $crate::log($crate::Level::Info, &::std::format!($($arg)+), &[])
    };
}

/// Logs a formatted message at [`Level::Warn`]: `warn!("File {path} is missing")`.
#[macro_export]
macro_rules! warn {
    ($($arg:tt)+) => {
        $crate::log($crate::Level::Warn, &::std::format!($($arg)+), &[])
    };
}

/// Logs a formatted message at [`Level::Error`]: `error!("Write failed: {e}")`.
#[macro_export]
macro_rules! error {
    ($($arg:tt)+) => {
        $crate::log($crate::Level::Error, &::std::format!($($arg)+), &[])
    };
}
