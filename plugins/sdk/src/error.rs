//! [`Error`]: how a plugin call fails without trapping, and what the worker does about it;
//! [`ResultExt`]: turning any other error into one with `?`.
//!
//! This module owns the three failure kinds of the WIT `error` variant and nothing else;
//! the conversion to the generated WIT type lives in `glue`. A panic is not an `Error`: it
//! traps, and the worker discards the whole instance.

use std::fmt::{self, Display};

/// A failed plugin call. The variant tells the worker what to do next.
///
/// What the worker does with each kind, by call:
///
/// | call | [`Retriable`](Self::Retriable) | [`Config`](Self::Config) / [`Fatal`](Self::Fatal) |
/// |---|---|---|
/// | `SourceTask::poll`, `SinkTask::put` | calls again with the same input after a back-off (300 ms, doubling, capped at `errors.retry.delay.max.ms`), for at most `errors.retry.timeout` (`0`, the default, and `-1`: without end); past it the batch counts as failed under `errors.tolerance` | the task is FAILED |
/// | `Connector::task_configs` | the request is retried under the connector's reconfiguration retry policy | the same |
/// | `Connector::start`, `SourceTask::start`, `SinkTask::{start, open, close}` | the instance is FAILED | the instance is FAILED |
/// | `SinkTask::pre_commit` | logged; no offset is committed this time | the same |
/// | `SourceTask::{commit_record, commit}` | ignored: the offsets are already stored | the same |
///
/// A FAILED connector or task shows the message in its status trace and stays FAILED
/// until it is restarted (by REST, or by `restart.policy=on-failure`). The worker treats
/// `Config` like `Fatal` today; the kind tells users that only a config change helps.
///
/// Build one with [`Error::retriable`] / [`Error::config`] / [`Error::fatal`] from a
/// message, the `*_from` constructors from another error, or [`ResultExt`] on a `Result`.
/// `?` on an [`std::io::Error`] gives `Fatal`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// A transient condition (a remote system is down, a rate limit): trying the same
    /// call again later may succeed.
    Retriable(String),
    /// The configuration cannot work (a bad value, a missing key).
    Config(String),
    /// Anything else.
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

    /// A transient failure caused by `error` (any error type): its text is the message.
    pub fn retriable_from(error: impl Display) -> Self {
        Self::Retriable(error.to_string())
    }

    /// A configuration problem caused by `error`: its text is the message.
    pub fn config_from(error: impl Display) -> Self {
        Self::Config(error.to_string())
    }

    /// A permanent failure caused by `error`: its text is the message.
    pub fn fatal_from(error: impl Display) -> Self {
        Self::Fatal(error.to_string())
    }

    /// The same kind of error, its message prefixed with `context` and `: `.
    ///
    /// ```
    /// use wasm_connect_sdk::Error;
    ///
    /// let e = Error::retriable("connection refused").context("cannot reach db:5432");
    /// assert_eq!(e, Error::retriable("cannot reach db:5432: connection refused"));
    /// ```
    pub fn context(self, context: impl Display) -> Self {
        let with = |m: String| format!("{context}: {m}");
        match self {
            Self::Retriable(m) => Self::Retriable(with(m)),
            Self::Config(m) => Self::Config(with(m)),
            Self::Fatal(m) => Self::Fatal(with(m)),
        }
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

/// Classifies the error of any `Result` whose error is `Display` as an [`Error`] kind, so
/// `?` works in plugin calls:
///
/// ```
/// use wasm_connect_sdk::{Error, Result, ResultExt};
///
/// fn port(text: &str) -> Result<u16> {
///     text.parse::<u16>().config_error_with(format_args!("`{text}` is not a port"))
/// }
///
/// assert_eq!(port("8080"), Ok(8080));
/// assert_eq!(
///     port("http"),
///     Err(Error::config("`http` is not a port: invalid digit found in string"))
/// );
/// let refused: std::result::Result<(), &str> = Err("connection refused");
/// assert!(refused.retriable().unwrap_err().is_retriable());
/// ```
///
/// On a `Result<T, Error>` the methods change the kind, keeping the message.
pub trait ResultExt<T> {
    /// The error as [`Error::Retriable`]: the worker calls again after a back-off.
    fn retriable(self) -> Result<T>;
    /// The error as [`Error::Config`]: the configuration cannot work.
    fn config_error(self) -> Result<T>;
    /// The error as [`Error::Fatal`]: the instance fails.
    fn fatal(self) -> Result<T>;
    /// As [`retriable`](Self::retriable), the message prefixed with `context` and `: `.
    fn retriable_with(self, context: impl Display) -> Result<T>;
    /// As [`config_error`](Self::config_error), the message prefixed with `context`.
    fn config_error_with(self, context: impl Display) -> Result<T>;
    /// As [`fatal`](Self::fatal), the message prefixed with `context` and `: `.
    fn fatal_with(self, context: impl Display) -> Result<T>;
}

impl<T, E: Display> ResultExt<T> for std::result::Result<T, E> {
    fn retriable(self) -> Result<T> {
        self.map_err(Error::retriable_from)
    }

    fn config_error(self) -> Result<T> {
        self.map_err(Error::config_from)
    }

    fn fatal(self) -> Result<T> {
        self.map_err(Error::fatal_from)
    }

    fn retriable_with(self, context: impl Display) -> Result<T> {
        self.map_err(|e| Error::Retriable(format!("{context}: {e}")))
    }

    fn config_error_with(self, context: impl Display) -> Result<T> {
        self.map_err(|e| Error::Config(format!("{context}: {e}")))
    }

    fn fatal_with(self, context: impl Display) -> Result<T> {
        self.map_err(|e| Error::Fatal(format!("{context}: {e}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn result_ext_sets_the_kind_and_keeps_the_text() {
        let io: std::io::Result<()> =
            Err(std::io::Error::new(std::io::ErrorKind::TimedOut, "timed out"));
        assert_eq!(io.retriable(), Err(Error::retriable("timed out")));
        let parsed = "x".parse::<i32>().fatal_with("reading the count");
        assert_eq!(parsed, Err(Error::fatal("reading the count: invalid digit found in string")));
        let reclassified: Result<()> = Err(Error::retriable("busy"));
        assert_eq!(reclassified.config_error(), Err(Error::config("busy")));
        assert_eq!(Ok::<_, String>(3).fatal(), Ok(3));
    }

    #[test]
    fn context_keeps_the_kind() {
        assert_eq!(Error::fatal("b").context("a"), Error::fatal("a: b"));
        assert_eq!(Error::config_from(1.5), Error::config("1.5"));
        assert!(Error::retriable_from("x").context("y").is_retriable());
    }
}
