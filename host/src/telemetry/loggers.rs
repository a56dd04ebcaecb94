//! [`Loggers`]: log levels that change at run time, for KIP-495's `/admin/loggers`.
//!
//! The worker's subscriber filters through an [`EnvFilter`] inside a
//! [`reload`](tracing_subscriber::reload) layer; [`Loggers`] keeps the levels as data
//! (the root level plus one level per namespace that has one of its own) and rebuilds
//! the filter from them on every change.
//!
//! Names. A logger is a `tracing` target prefix (module paths such as
//! `wasm_connect::herder`); `root` is the default level. Either form is accepted, Kafka's
//! dotted one or `tracing`'s: `wasm_connect.herder` is `wasm_connect::herder`. Levels are
//! kept and filtered by `tracing` target, but every name this type answers with (the
//! names [`Loggers::set`] changed, the keys of [`Loggers::list`]) is shown dotted, as Kafka
//! Connect shows its logger names, so a name read back from `GET /admin/loggers` is one a
//! Kafka Connect tool can send again. A name covers every target that starts with it,
//! which is how `tracing`'s filters and Kafka's `Loggers` both match, so
//! `wasm_connect::herder` also covers `wasm_connect::herder::actor`.
//! A logger "exists" (for `GET /admin/loggers/{name}`) when it is `root`, was set, or
//! covers the target of a log statement that has run since start-up, at any level.
//!
//! Directives of the start-up filter (`RUST_LOG` syntax) that carry span or field
//! conditions are kept verbatim and not listed.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use tracing::subscriber::Interest;
use tracing::{Dispatch, Metadata, Subscriber};
use tracing_subscriber::filter::{EnvFilter, LevelFilter};
use tracing_subscriber::layer::{Layer, SubscriberExt};
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{Registry, fmt as tfmt, reload};

use super::escape::EscapedFields;
use super::levels::{
    Entry, Levels, LoggerError, LoggerLevel, ROOT, dotted, level_name, normalise, parse_level,
};

type FilterLayer = reload::Layer<EnvFilter, Registry>;

/// A cheap-to-clone handle on the levels of the subscriber it was built with.
#[derive(Clone)]
pub struct Loggers {
    inner: Arc<Inner>,
}

struct Inner {
    levels: Mutex<Levels>,
    seen: Arc<Mutex<BTreeSet<String>>>,
    reload: reload::Handle<EnvFilter, Registry>,
    /// [`Loggers::for_tests`]: the subscriber, kept alive here instead of installed.
    dispatch: Option<Dispatch>,
}

impl Loggers {
    /// Installs the global subscriber (stderr, text or one JSON object per line; in text,
    /// control characters inside values are escaped, so an event is one line) filtered
    /// by `default_filter` (`RUST_LOG` syntax: a bare level such as `info` sets `root`;
    /// without one `root` is `OFF`, as in `EnvFilter`). Invalid directives are skipped
    /// with a warning. If a global subscriber is already installed, that one stays and
    /// [`Loggers::set`] on the returned handle fails.
    pub fn init(default_filter: &str, json: bool) -> Loggers {
        let (loggers, filter, seen, rejected) = Self::build(default_filter);
        // Colours only on a terminal: a log file or a collector gets plain text.
        let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
        let text = (!json).then(|| {
            tfmt::layer().fmt_fields(EscapedFields).with_ansi(ansi).with_writer(std::io::stderr)
        });
        let json = json.then(|| tfmt::layer().json().with_writer(std::io::stderr));
        let stack = Registry::default().with(filter).with(seen).with(text).with(json);
        if stack.try_init().is_err() {
            tracing::warn!("A log subscriber was already installed; log levels cannot change");
        }
        for directive in rejected {
            tracing::warn!(directive = %directive, "Ignoring an invalid log filter directive");
        }
        loggers
    }

    /// A handle on a subscriber of its own that is not installed anywhere (tests).
    pub fn for_tests() -> Loggers {
        let (mut loggers, filter, seen, _) = Self::build("info");
        let dispatch = Dispatch::new(Registry::default().with(filter).with(seen));
        Arc::get_mut(&mut loggers.inner).expect("not shared yet").dispatch = Some(dispatch);
        loggers
    }

    fn build(spec: &str) -> (Loggers, FilterLayer, SeenTargets, Vec<String>) {
        let (state, rejected) = Levels::parse(spec);
        let (filter, reload) = reload::Layer::new(state.filter());
        let seen = Arc::new(Mutex::new(BTreeSet::new()));
        let inner = Inner { levels: Mutex::new(state), seen: seen.clone(), reload, dispatch: None };
        (Loggers { inner: Arc::new(inner) }, filter, SeenTargets(seen), rejected)
    }

    /// Checks a level and a logger name as [`Loggers::set`] does, without setting anything
    /// (for a level another worker applies, or this one applies later).
    pub fn check(name: &str, level: &str) -> Result<(), LoggerError> {
        parse_level(level)?;
        normalise(name).map(drop)
    }

    /// `root` and every logger with a level of its own, by dotted name.
    pub fn list(&self) -> BTreeMap<String, LoggerLevel> {
        let state = lock(&self.inner.levels);
        let named = state.explicit.iter().map(|(n, e)| (dotted(n), e.show()));
        named.chain([(ROOT.to_owned(), state.root.show())]).collect()
    }

    /// The effective level of `name`, or `None` if no such logger exists (see the module
    /// docs).
    pub fn get(&self, name: &str) -> Option<LoggerLevel> {
        let name = normalise(name).ok()?;
        let state = lock(&self.inner.levels);
        if let Some(entry) = state.explicit.get(&name) {
            return Some(entry.show());
        }
        let exists =
            name == ROOT || lock(&self.inner.seen).iter().any(|t| t.starts_with(name.as_str()));
        exists.then(|| Entry { level: state.effective(&name), last_modified: None }.show())
    }

    /// Sets `name` and every logger under it with a level of its own to `level` (log4j
    /// names, any case; `FATAL` is `ERROR`, `ALL` is `TRACE`). `root` sets every logger.
    /// Returns those names, dotted and sorted; `last_modified` moves only where the level
    /// changed.
    pub fn set(&self, name: &str, level: &str) -> Result<Vec<String>, LoggerError> {
        let parsed = parse_level(level)?;
        let name = normalise(name)?;
        let now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis());
        let now = i64::try_from(now).unwrap_or(i64::MAX);
        let mut state = lock(&self.inner.levels);
        let mut names = vec![name.clone()];
        if name == ROOT {
            state.root.update(parsed, now);
            for (n, e) in &mut state.explicit {
                e.update(parsed, now);
                names.push(n.clone());
            }
        } else {
            lock(&self.inner.seen).insert(name.clone());
            if !state.explicit.contains_key(&name) && state.effective(&name) != parsed {
                let entry = Entry { level: parsed, last_modified: Some(now) };
                state.explicit.insert(name.clone(), entry);
            }
            let under = state.explicit.range_mut(name.clone()..);
            for (n, e) in under.take_while(|(n, _)| n.starts_with(name.as_str())) {
                e.update(parsed, now);
                if *n != name {
                    names.push(n.clone());
                }
            }
        }
        let mut names: Vec<String> = names.into_iter().map(|n| dotted(&n)).collect();
        names.sort();
        let reload = || self.inner.reload.reload(state.filter());
        // Callsite interest is rebuilt against the current dispatcher when only one is
        // registered: make that the unshared test subscriber.
        let reloaded = match &self.inner.dispatch {
            Some(dispatch) => tracing::dispatcher::with_default(dispatch, reload),
            None => reload(),
        };
        reloaded.map_err(|e| LoggerError::Reload(e.to_string()))?;
        drop(state);
        tracing::info!(logger = %name, level = level_name(parsed), "Set a log level");
        Ok(names)
    }
}

impl fmt::Debug for Loggers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Loggers").field("levels", &self.list()).finish_non_exhaustive()
    }
}

/// Records the target of every callsite the subscriber is asked about.
struct SeenTargets(Arc<Mutex<BTreeSet<String>>>);

impl<S: Subscriber> Layer<S> for SeenTargets {
    /// `TRACE`, so that callsites below the current levels still register (and are seen)
    /// the first time they run. They are then cached as disabled: each later call costs
    /// one atomic load more than a call stopped by the global level hint.
    fn max_level_hint(&self) -> Option<LevelFilter> {
        Some(LevelFilter::TRACE)
    }

    fn register_callsite(&self, metadata: &'static Metadata<'static>) -> Interest {
        let mut seen = lock(&self.0);
        if !seen.contains(metadata.target()) {
            seen.insert(metadata.target().to_owned());
        }
        Interest::always()
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
#[path = "loggers_tests.rs"]
mod tests;
