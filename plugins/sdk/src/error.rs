//! [`Error`]: how a plugin call fails without trapping, and what the worker does about it.
//!
//! This module owns the three failure kinds of the WIT `error` variant and nothing else;
//! the conversion to the generated WIT type lives in `glue`. A panic is not an `Error`: it
//! traps, and the worker discards the whole instance.

use std::fmt;

/// A failed plugin call. The variant tells the worker what to do next.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// A transient condition (a remote system is down, a rate limit). The worker keeps the
    /// instance and calls again after a back-off, with the same input.
    Retriable(String),
    /// The configuration cannot work (a bad value, a missing key). The worker marks the
    /// connector or task FAILED and does not retry until the config changes.
    Config(String),
    /// Anything else. The worker marks the connector or task FAILED with this message.
    Fatal(String),
}

impl Error {
    /// A transient failure: the worker retries the call after a back-off.
    pub fn retriable(message: impl Into<String>) -> Self {
        Self::Retriable(message.into())
    }

    /// A configuration problem: the worker fails the instance until the config changes.
    pub fn config(message: impl Into<String>) -> Self {
        Self::Config(message.into())
    }

    /// A permanent failure: the worker fails the instance.
    pub fn fatal(message: impl Into<String>) -> Self {
        Self::Fatal(message.into())
    }

    /// The message, without the kind.
    pub fn message(&self) -> &str {
        match self {
            Self::Retriable(m) | Self::Config(m) | Self::Fatal(m) => m,
        }
    }

    /// Whether the worker retries after this error.
    pub fn is_retriable(&self) -> bool {
        matches!(self, Self::Retriable(_))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

impl std::error::Error for Error {}

/// An I/O error is [`Error::Fatal`], so `?` works on file and socket calls; map it yourself
/// when a retry can help.
impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Self::Fatal(e.to_string())
    }
}

/// The result of a plugin call.
pub type Result<T, E = Error> = std::result::Result<T, E>;
