//! [`PluginWatch`]: the task that rescans the plugin path while the worker runs, at an
//! interval and on request, and hands each result to the herder as a [`PluginsScanned`].
//!
//! Polling, not file-system notifications: a `plugin.path` may sit on a network or
//! container file system where notifications are not delivered, a file being copied
//! raises several of them before it is whole, and a scan of an unchanged path costs a walk
//! and a `stat` per file ([`PluginScan`]). Compiling a new file happens here, on this task
//! (and the runtime's blocking pool), never on the herder's loop.
//!
//! It owns the scan state and nothing else: the herder decides what a new registry means
//! for connectors, and answers the requests that asked for the scan once it has applied
//! it, so an answer is never ahead of what requests see.

use std::time::Duration;

use tokio::sync::{mpsc, oneshot};

use super::plugins::PluginRegistry;
use crate::runtime::{Plugin, PluginScan, Scanned};

/// One plugin as a scan reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PluginRef {
    /// Its name (class).
    pub name: String,
    /// Its version.
    pub version: String,
    /// `source`, `sink` or `transform`.
    pub kind: String,
    /// The file it came from.
    pub file: String,
}

impl PluginRef {
    fn of(p: &Plugin) -> Self {
        let i = p.info();
        Self {
            name: i.name.clone(),
            version: i.version.clone(),
            kind: i.kind.to_string(),
            file: i.file.display().to_string(),
        }
    }
}

/// What a rescan changed: the answer of `POST /wasm-connect/plugins/rescan`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RescanReport {
    /// Plugins now installed that were not (a new file, or a changed one loaded again).
    pub added: Vec<PluginRef>,
    /// Plugins no longer installed (their file removed or changed). Running instances
    /// keep the one they started with.
    pub removed: Vec<PluginRef>,
    /// Every file on the plugin path that did not load, with why.
    pub failures: Vec<String>,
}

/// A scan's result for the herder.
pub struct PluginsScanned {
    /// The registry of what the scan found; `None` when neither the plugins nor the
    /// failures changed.
    pub registry: Option<PluginRegistry>,
    /// What changed against the registry before it.
    pub report: RescanReport,
    /// The requests that asked for this scan: answer them once it is applied.
    pub waiters: Vec<oneshot::Sender<RescanReport>>,
}

/// The installed plugins as the first scan found them, and the watch that finds the next.
pub struct Plugins {
    /// What the first scan found.
    pub registry: PluginRegistry,
    /// Asks for scans.
    pub watch: PluginWatch,
    /// The scans' results, for the herder.
    pub scans: mpsc::UnboundedReceiver<PluginsScanned>,
}

impl Plugins {
    /// `registry` for good: no scan ever runs (tests, tools).
    pub fn fixed(registry: PluginRegistry) -> Self {
        let (watch, scans) = PluginWatch::none();
        Self { registry, watch, scans }
    }

    /// Scans `scan` once (logging what loaded and what did not), then watches it.
    pub async fn watch(mut scan: PluginScan, interval: Option<Duration>) -> Self {
        let found = scan.scan().await;
        for failure in &found.failures {
            tracing::warn!(error = %failure, "Skipping a plugin that did not load");
        }
        for repeat in &found.repeats {
            tracing::info!(path = %repeat.path.display(), first = %repeat.first.display(), "Skipping a plugin path met before");
        }
        for p in &found.plugins {
            let i = p.info();
            tracing::info!(plugin = %i.name, version = %i.version, kind = %i.kind, file = %i.file.display(), "Loaded plugin");
        }
        let failures = found.failures.iter().map(|f| f.to_string()).collect();
        let registry = PluginRegistry::new(found.plugins).with_failures(failures);
        let (watch, scans) = PluginWatch::start(scan, registry.clone(), interval);
        Self { registry, watch, scans }
    }
}

/// Asks the watch for a scan. Cheap to clone.
#[derive(Clone)]
pub struct PluginWatch {
    requests: mpsc::UnboundedSender<oneshot::Sender<RescanReport>>,
}

impl PluginWatch {
    /// Starts the watch over `scan`, which has run once and found `current`. With an
    /// `interval`, it scans that often; it scans whenever asked.
    fn start(
        scan: PluginScan,
        current: PluginRegistry,
        interval: Option<Duration>,
    ) -> (Self, mpsc::UnboundedReceiver<PluginsScanned>) {
        let (requests, asked) = mpsc::unbounded_channel();
        let (results, scanned) = mpsc::unbounded_channel();
        tokio::spawn(run(scan, current, interval, asked, results));
        (Self { requests }, scanned)
    }

    /// A watch that never scans: requests see `None`.
    fn none() -> (Self, mpsc::UnboundedReceiver<PluginsScanned>) {
        let (requests, _) = mpsc::unbounded_channel();
        let (_, scanned) = mpsc::unbounded_channel();
        (Self { requests }, scanned)
    }

    /// Asks for a scan now and waits for its result, applied by the herder; `None` once
    /// the worker is stopping.
    pub async fn rescan(&self) -> Option<RescanReport> {
        let (tx, rx) = oneshot::channel();
        self.requests.send(tx).ok()?;
        rx.await.ok()
    }
}

async fn run(
    mut scan: PluginScan,
    mut current: PluginRegistry,
    interval: Option<Duration>,
    mut asked: mpsc::UnboundedReceiver<oneshot::Sender<RescanReport>>,
    results: mpsc::UnboundedSender<PluginsScanned>,
) {
    let mut ticks = interval.map(|every| {
        let mut t = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
        t.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        t
    });
    loop {
        let tick = async {
            match ticks.as_mut() {
                Some(t) => drop(t.tick().await),
                None => std::future::pending().await,
            }
        };
        let mut waiters = Vec::new();
        tokio::select! {
            request = asked.recv() => match request {
                Some(w) => waiters.push(w),
                None => return,
            },
            () = tick => {}
        }
        // Requests that came while waiting join this scan.
        while let Ok(w) = asked.try_recv() {
            waiters.push(w);
        }
        let found = scan.scan().await;
        for failure in &found.fresh {
            tracing::warn!(error = %failure, "A plugin file did not load; nothing changed for it");
        }
        let (registry, report) = compare(&current, found);
        for p in &report.added {
            tracing::info!(plugin = %p.name, version = %p.version, kind = %p.kind, file = %p.file, "Loaded plugin");
        }
        for p in &report.removed {
            tracing::info!(plugin = %p.name, version = %p.version, kind = %p.kind, file = %p.file, "Plugin no longer installed; running instances keep it");
        }
        if let Some(r) = &registry {
            current = r.clone();
        }
        if results.send(PluginsScanned { registry, report, waiters }).is_err() {
            return;
        }
    }
}

/// The registry `found` makes, if it differs from `current`, and what changed.
fn compare(current: &PluginRegistry, found: Scanned) -> (Option<PluginRegistry>, RescanReport) {
    let failures: Vec<String> = found.failures.iter().map(|f| f.to_string()).collect();
    if !found.changed {
        let registry = (current.failures() != failures.as_slice())
            .then(|| current.clone().with_failures(failures.clone()));
        return (registry, RescanReport { failures, ..RescanReport::default() });
    }
    let before: Vec<&Plugin> = current.plugins().chain(current.transforms()).collect();
    let added =
        found.plugins.iter().filter(|p| !before.iter().any(|b| b.same(p))).map(PluginRef::of);
    let removed = before.iter().filter(|b| !found.plugins.iter().any(|p| p.same(b)));
    let report = RescanReport {
        added: added.collect(),
        removed: removed.map(|p| PluginRef::of(p)).collect(),
        failures: failures.clone(),
    };
    let registry = PluginRegistry::new(found.plugins).with_failures(failures);
    (Some(registry), report)
}
