//! [`PluginWatch`]: the task that rescans the plugin path while the worker runs, at an
//! interval and on request, and hands each result to the herder as a [`PluginsScanned`].
//!
//! Polling, not file-system notifications: a `plugin.path` may sit on a network or
//! container file system where notifications are not delivered, a file being copied
//! raises several of them before it is whole, and a scan of an unchanged path costs a walk
//! and a `stat` per file ([`PluginScan`]). Compiling a new file happens here, on this task
//! (and the runtime's blocking pool), never on the herder's loop.
//!
//! The worker does not wait for the first scan: it starts with an empty registry that says
//! the plugin path is loading, and the watch scans at once. A scan that loads files hands
//! the herder a registry after each file is done (the plugins loaded so far beside the
//! ones before, and the files still loading), and logs each file with its size and time,
//! so a connector starts as soon as its own plugin is ready and a big component does not
//! hold up the others or the REST API.
//!
//! It owns the scan state and nothing else: the herder decides what a new registry means
//! for connectors, and answers the requests that asked for the scan once it has applied
//! it, so an answer is never ahead of what requests see.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use tokio::sync::{mpsc, oneshot};

use super::plugins::PluginRegistry;
use crate::runtime::{FileLoaded, Plugin, PluginScan, ScanProgress, Scanned};

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

/// The installed plugins as the worker starts, and the watch that finds them.
pub struct Plugins {
    /// What is installed at first: with [`Plugins::watch`], nothing yet, and the plugin
    /// path loading.
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

    /// Watches `scan`: the first scan starts at once, in the background, and the registry
    /// starts empty, loading.
    pub fn watch(scan: PluginScan, interval: Option<Duration>) -> Self {
        let registry = PluginRegistry::default().with_loading(Some(Vec::new()));
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
    /// Starts the watch over `scan`, whose first scan starts at once; `current` is what the
    /// herder has before it. With an `interval`, it scans that often; it scans whenever
    /// asked.
    fn start(
        scan: PluginScan,
        current: PluginRegistry,
        interval: Option<Duration>,
    ) -> (Self, mpsc::UnboundedReceiver<PluginsScanned>) {
        let (requests, asked) = mpsc::unbounded_channel();
        let (results, scanned) = mpsc::unbounded_channel();
        let (progress, told) = mpsc::unbounded_channel();
        let scan = scan.with_progress(progress);
        tokio::spawn(run(scan, current, interval, asked, told, results));
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
    mut told: mpsc::UnboundedReceiver<ScanProgress>,
    results: mpsc::UnboundedSender<PluginsScanned>,
) {
    let mut ticks = interval.map(|every| {
        let mut t = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
        t.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        t
    });
    let mut first = true;
    loop {
        let tick = async {
            match ticks.as_mut() {
                Some(t) => drop(t.tick().await),
                None => std::future::pending().await,
            }
        };
        let mut waiters = Vec::new();
        let first_scan = std::mem::take(&mut first);
        if !first_scan {
            tokio::select! {
                request = asked.recv() => match request {
                    Some(w) => waiters.push(w),
                    None => return,
                },
                () = tick => {}
            }
        }
        // Requests that came while waiting join this scan.
        while let Ok(w) = asked.try_recv() {
            waiters.push(w);
        }
        let started = Instant::now();
        let mut progress = Progress::new(&current);
        let found = {
            let scanning = scan.scan();
            tokio::pin!(scanning);
            loop {
                tokio::select! {
                    biased;
                    found = &mut scanning => break found,
                    Some(told) = told.recv() => {
                        if results.send(progress.told(told)).is_err() {
                            return;
                        }
                    }
                }
            }
        };
        while let Ok(told) = told.try_recv() {
            let _ = results.send(progress.told(told));
        }
        for failure in &found.fresh {
            tracing::warn!(error = %failure, "Skipping a plugin that did not load");
        }
        // The walk meets the same repeats at every scan: they are named once.
        for repeat in found.repeats.iter().filter(|_| first_scan) {
            tracing::info!(path = %repeat.path.display(), first = %repeat.first.display(), "Skipping a plugin path met before");
        }
        let published = progress.total > 0 || current.loading().is_some();
        if first_scan || progress.total > 0 {
            let loaded = found.plugins.len();
            let failed = found.failures.len();
            tracing::info!(
                loaded,
                failed,
                seconds = started.elapsed().as_secs_f64(),
                "Plugin path loaded"
            );
        }
        let (registry, report) = compare(&current, found, published);
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

/// A scan under way as the herder sees it: the registry before it, what it loaded so far
/// and what it still loads.
struct Progress {
    before: PluginRegistry,
    loaded: Vec<Plugin>,
    pending: Vec<PathBuf>,
    total: usize,
}

impl Progress {
    fn new(before: &PluginRegistry) -> Self {
        Self { before: before.clone(), loaded: Vec::new(), pending: Vec::new(), total: 0 }
    }

    /// Logs what the scan told; the registry for the herder: the plugins before the scan,
    /// those it loaded so far, and the files it still loads.
    fn told(&mut self, told: ScanProgress) -> PluginsScanned {
        let added = match told {
            ScanProgress::Loading(files) => {
                self.total = files.len();
                let bytes = files.iter().map(|(_, b)| b).sum();
                tracing::info!(
                    files = self.total,
                    megabytes = mb(bytes),
                    "Loading plugin files (compiling those not in the artifact cache), smallest first; connectors start as their plugin is ready"
                );
                self.pending = files.into_iter().map(|(p, _)| p).collect();
                None
            }
            ScanProgress::Loaded(FileLoaded { path, bytes, took, outcome, done, total }) => {
                self.pending.retain(|p| *p != path);
                let progress = format!("{done}/{total}");
                let (file, ms) =
                    (path.display(), u64::try_from(took.as_millis()).unwrap_or(u64::MAX));
                match outcome {
                    Ok(p) => {
                        let i = p.info();
                        tracing::info!(plugin = %i.name, version = %i.version, kind = %i.kind, file = %file, megabytes = mb(bytes), ms, progress = %progress, "Loaded plugin");
                        let before = self.before.plugins().chain(self.before.transforms());
                        let installed = before.chain(&self.loaded).any(|q| q.same_version(&p));
                        (!installed).then(|| {
                            self.loaded.push(p.clone());
                            PluginRef::of(&p)
                        })
                    }
                    Err(e) => {
                        tracing::debug!(file = %file, ms, progress = %progress, error = %e, "A plugin file did not load");
                        None
                    }
                }
            }
        };
        let plugins = self.before.plugins().chain(self.before.transforms()).cloned();
        let registry = PluginRegistry::new(plugins.chain(self.loaded.iter().cloned()).collect())
            .with_failures(self.before.failures().to_vec())
            .with_loading(Some(self.pending.iter().map(|p| name(p)).collect()));
        let report = RescanReport { added: added.into_iter().collect(), ..RescanReport::default() };
        PluginsScanned { registry: Some(registry), report, waiters: Vec::new() }
    }
}

/// A file's name, as the API shows files.
fn name(path: &Path) -> String {
    path.file_name().map_or_else(|| path.display().to_string(), |f| f.to_string_lossy().into())
}

/// Bytes as megabytes, one decimal.
fn mb(bytes: u64) -> f64 {
    (bytes as f64 / 1e5).round() / 10.0
}

/// The registry `found` makes, if it differs from `current` or `published` (the scan
/// published registries while it loaded), and what changed against `current`.
fn compare(
    current: &PluginRegistry,
    found: Scanned,
    published: bool,
) -> (Option<PluginRegistry>, RescanReport) {
    let failures: Vec<String> = found.failures.iter().map(|f| f.to_string()).collect();
    if !found.changed {
        let registry = (published || current.failures() != failures.as_slice())
            .then(|| current.clone().with_failures(failures.clone()).with_loading(None));
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
