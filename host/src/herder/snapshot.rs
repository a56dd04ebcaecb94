//! The read side of the herder: an immutable [`Snapshot`] of every connector's config and
//! committed task configs, which the loop publishes and [`HerderHandle`](super::HerderHandle)
//! reads, so connector lists, configs and tasks are answered without a round trip through
//! the loop (and cannot queue behind it).
//!
//! The loop republishes at the end of a turn only when something a read can see has
//! changed: the config topic position (every applied record moves it), whether a rebalance
//! is under way, whether the herder is shutting down. Config replies are sent in a later
//! turn than the records they wait for are applied in (the follower's sync marker is its
//! own message), so a client that got an answer to a write reads it back here. Unchanged
//! connectors keep their entry from one snapshot to the next. Statuses are not copied
//! here: they are read from the status store's own view, which other workers' records
//! reach without the loop.
//!
//! The snapshot answers only what the loop would answer at once: while a rebalance is under
//! way reads that need a settled assignment, and every read once shutdown has begun, go to
//! the loop as before (and wait, or get 409, or `ShuttingDown`). This module decides no
//! state and never blocks the loop: building a snapshot is a copy of what changed.

use std::collections::BTreeMap;
use std::sync::Arc;

use tokio::sync::watch;

use super::ConnectorInfo;
use super::typed::Typed;
use crate::model::Properties;
use crate::store::ConfigState;

/// One connector as reads show it.
#[derive(Debug, PartialEq, Eq)]
pub struct Entry {
    /// Its config, task ids, kind and version.
    pub info: ConnectorInfo,
    /// Its committed task configs, by task id.
    pub task_configs: Vec<Properties>,
}

/// Every connector, as of the end of one loop turn. Cheap to clone behind an `Arc`.
#[derive(Debug, Default)]
pub struct Snapshot {
    /// Moves whenever a connector's entry, or the set of connectors, changes.
    generation: u64,
    /// False once shutdown has begun: every read goes to the loop.
    accepting: bool,
    /// False while a rebalance is under way (distributed mode): reads that need a settled
    /// assignment go to the loop.
    settled: bool,
    connectors: Arc<BTreeMap<String, Arc<Entry>>>,
}

/// What a read needs before a snapshot may answer it (the gate's `Needs`, for reads).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Read {
    /// Nothing: connector names.
    Any,
    /// A settled assignment: a connector's config and tasks.
    Settled,
}

impl Snapshot {
    /// Whether this snapshot may answer a read that needs `read`, as the loop would answer
    /// it at once.
    pub fn answers(&self, read: Read) -> bool {
        self.accepting && (read == Read::Any || self.settled)
    }

    /// Moves whenever an entry, or the set of connectors, changes: equal generations,
    /// equal connectors.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Names of all connectors, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.connectors.keys().map(String::as_str)
    }

    /// How many connectors there are.
    pub fn len(&self) -> usize {
        self.connectors.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.connectors.is_empty()
    }

    /// One connector; `None` when it does not exist.
    pub fn get(&self, name: &str) -> Option<&Entry> {
        self.connectors.get(name).map(Arc::as_ref)
    }

    /// Every connector, sorted by name.
    pub fn entries(&self) -> impl Iterator<Item = &Entry> {
        self.connectors.values().map(Arc::as_ref)
    }
}

/// A connector's info from the config state: its plugin's kind and version when the
/// plugin is installed here. `None` when the connector does not exist.
pub(super) fn info(config: &ConfigState, typed: &Typed, name: &str) -> Option<ConnectorInfo> {
    let props = config.connector_config(name)?.clone();
    let plugin = typed.get(name).and_then(|p| p.as_ref().ok()).map(|c| &c.plugin);
    let kind = plugin.map(|p| p.info().kind);
    let version = plugin.map(|p| p.info().version.clone());
    let tasks = (0..config.task_configs(name).len() as u32).collect();
    Some(ConnectorInfo { name: name.to_owned(), config: props, tasks, kind, version })
}

/// What a snapshot was made from: a change of any part means a new snapshot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Made {
    /// The config-topic offset the config state had reached.
    pub config_offset: i64,
    pub accepting: bool,
    pub settled: bool,
    /// How many times the installed plugins changed: the versions entries show may have.
    pub plugins: u64,
}

/// The loop's side: publishes snapshots to every [`HerderHandle`](super::HerderHandle).
pub(super) struct Publisher {
    tx: watch::Sender<Arc<Snapshot>>,
    made: Option<Made>,
}

impl Publisher {
    /// A publisher of an empty snapshot that answers nothing, until the first
    /// [`Publisher::publish`].
    pub fn new() -> (Self, watch::Receiver<Arc<Snapshot>>) {
        let (tx, rx) = watch::channel(Arc::new(Snapshot::default()));
        (Self { tx, made: None }, rx)
    }

    /// Publishes a snapshot of `config` unless the last one was made from the same `made`.
    /// Entries of connectors whose config and task configs are unchanged are kept.
    pub fn publish(&mut self, made: Made, config: &ConfigState, typed: &Typed) {
        if self.made == Some(made) {
            return;
        }
        let old = self.tx.borrow().clone();
        let (mut connectors, mut generation) = (old.connectors.clone(), old.generation);
        let last = self.made.map(|m| (m.config_offset, m.plugins));
        if last != Some((made.config_offset, made.plugins)) {
            let reuse = self.made.is_some_and(|m| m.plugins == made.plugins);
            let fresh = entries(&old, config, typed, reuse);
            if !same(&fresh, &old.connectors) {
                connectors = Arc::new(fresh);
                generation += 1;
            }
        }
        let snapshot =
            Snapshot { generation, accepting: made.accepting, settled: made.settled, connectors };
        self.tx.send_replace(Arc::new(snapshot));
        self.made = Some(made);
    }
}

/// Whether `a` and `b` hold the same entries.
fn same(a: &BTreeMap<String, Arc<Entry>>, b: &BTreeMap<String, Arc<Entry>>) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|((n, e), (m, f))| n == m && Arc::ptr_eq(e, f))
}

/// The entries of `config`, reusing those of `old` that are unchanged (when `reuse`: the
/// installed plugins are the same).
fn entries(
    old: &Snapshot,
    config: &ConfigState,
    typed: &Typed,
    reuse: bool,
) -> BTreeMap<String, Arc<Entry>> {
    config
        .connectors()
        .filter_map(|name| {
            let props = config.connector_config(name)?;
            let task_configs = config.task_configs(name);
            if let Some(e) = old.connectors.get(name).filter(|_| reuse)
                && e.info.config == *props
                && e.task_configs == task_configs
            {
                return Some((name.to_owned(), e.clone()));
            }
            let entry =
                Entry { info: info(config, typed, name)?, task_configs: task_configs.to_vec() };
            Some((name.to_owned(), Arc::new(entry)))
        })
        .collect()
}
