//! [`Levels`]: the table behind [`Loggers`](super::Loggers), the root level plus one level
//! per namespace that has one of its own, and the [`EnvFilter`] it stands for; with the
//! log4j level names and the logger-name checks and forms (`tracing`'s `::`, Kafka's `.`)
//! of the admin API.

use std::collections::BTreeMap;

use tracing_subscriber::filter::{Directive, EnvFilter, LevelFilter};

use serde::Serialize;

/// The name of the default level.
pub const ROOT: &str = "root";

/// One logger's level, as `GET /admin/loggers` shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LoggerLevel {
    /// `OFF`, `ERROR`, `WARN`, `INFO`, `DEBUG` or `TRACE`.
    pub level: String,
    /// When the level was last changed through [`Loggers::set`](super::Loggers::set), in ms since the epoch.
    pub last_modified: Option<i64>,
}

/// Why a level could not be set.
#[derive(Debug, thiserror::Error)]
pub enum LoggerError {
    /// Not a log4j level (Kafka Connect's message, answered with 404).
    #[error("invalid log level '{0}'.")]
    InvalidLevel(String),
    /// Empty, or a character a filter directive cannot hold.
    #[error("invalid logger name '{0}': use ASCII letters, digits, '_', '-', ':' and '.'")]
    InvalidName(String),
    /// The filter could not be swapped (the subscriber was dropped or never installed).
    #[error("cannot apply the new log levels: {0}")]
    Reload(String),
}

/// One logger's level.
#[derive(Clone, Copy)]
pub(super) struct Entry {
    pub level: LevelFilter,
    /// Set when [`Loggers::set`](super::Loggers::set) changed the level (ms since the epoch).
    pub last_modified: Option<i64>,
}

/// The levels; the filter is `root`, the extras, then one `name=level` per named entry.
pub(super) struct Levels {
    pub root: Entry,
    /// Namespaces with a level of their own, by `tracing` target prefix.
    pub explicit: BTreeMap<String, Entry>,
    /// Start-up directives with span or field conditions, verbatim.
    pub extra: Vec<String>,
}

impl Entry {
    pub fn show(&self) -> LoggerLevel {
        LoggerLevel { level: level_name(self.level).to_owned(), last_modified: self.last_modified }
    }

    pub fn update(&mut self, level: LevelFilter, now: i64) {
        if self.level != level {
            *self = Entry { level, last_modified: Some(now) };
        }
    }
}

impl Levels {
    /// Splits a `RUST_LOG`-style spec; returns the directives that do not parse.
    pub fn parse(spec: &str) -> (Levels, Vec<String>) {
        let root = Entry { level: LevelFilter::OFF, last_modified: None };
        let mut state = Levels { root, explicit: BTreeMap::new(), extra: Vec::new() };
        let mut rejected = Vec::new();
        for d in spec.split(',').map(str::trim).filter(|d| !d.is_empty()) {
            let entry = |level| Entry { level, last_modified: None };
            if d.contains('[') && d.parse::<Directive>().is_ok() {
                state.extra.push(d.to_owned());
            } else if let Ok(level) = d.parse::<LevelFilter>() {
                state.root = entry(level);
            } else {
                let (target, level) = d.split_once('=').unwrap_or((d, "trace"));
                match (normalise(target), level.parse::<LevelFilter>()) {
                    (Ok(t), Ok(level)) if t != ROOT => drop(state.explicit.insert(t, entry(level))),
                    _ => rejected.push(d.to_owned()),
                }
            }
        }
        (state, rejected)
    }

    /// The level of the longest set name that `name` starts with, else root's.
    pub fn effective(&self, name: &str) -> LevelFilter {
        let covering = self.explicit.iter().filter(|(n, _)| name.starts_with(n.as_str()));
        covering.max_by_key(|(n, _)| n.len()).map_or(self.root.level, |(_, e)| e.level)
    }

    pub fn filter(&self) -> EnvFilter {
        let mut spec = level_name(self.root.level).to_ascii_lowercase();
        for d in &self.extra {
            spec = format!("{spec},{d}");
        }
        for (name, e) in &self.explicit {
            spec = format!("{spec},{name}={}", level_name(e.level).to_ascii_lowercase());
        }
        EnvFilter::builder().parse(&spec).expect("names and levels were checked")
    }
}

/// Maps `.` to `::` and checks the characters (ASCII letters and digits, `_`, `-`, `:` and
/// `.`, not first; openapi.json's pattern); `root` stays `root`.
pub(super) fn normalise(name: &str) -> Result<String, LoggerError> {
    let ok = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ':' | '.');
    if name.is_empty() || !name.chars().all(ok) || !name.starts_with(|c: char| c != '.') {
        return Err(LoggerError::InvalidName(name.to_owned()));
    }
    Ok(name.replace('.', "::"))
}

/// The dotted name Kafka Connect shows for a `tracing` target prefix (the inverse of
/// [`normalise`]).
pub(super) fn dotted(name: &str) -> String {
    name.replace("::", ".")
}

pub(super) fn parse_level(level: &str) -> Result<LevelFilter, LoggerError> {
    Ok(match level.to_ascii_uppercase().as_str() {
        "ALL" | "TRACE" => LevelFilter::TRACE,
        "DEBUG" => LevelFilter::DEBUG,
        "INFO" => LevelFilter::INFO,
        "WARN" => LevelFilter::WARN,
        "ERROR" | "FATAL" => LevelFilter::ERROR,
        "OFF" => LevelFilter::OFF,
        _ => return Err(LoggerError::InvalidLevel(level.to_owned())),
    })
}

pub(super) fn level_name(level: LevelFilter) -> &'static str {
    match level.into_level() {
        None => "OFF",
        Some(tracing::Level::ERROR) => "ERROR",
        Some(tracing::Level::WARN) => "WARN",
        Some(tracing::Level::INFO) => "INFO",
        Some(tracing::Level::DEBUG) => "DEBUG",
        Some(tracing::Level::TRACE) => "TRACE",
    }
}
