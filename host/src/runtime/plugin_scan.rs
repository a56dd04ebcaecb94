//! [`PluginScan`]: a plugin path scanned again and again, loading only what changed.
//!
//! It remembers every candidate file it met by its stamp (device, inode, size, change and
//! modification times, and those of its `.sig` file, which signed plugins need): a file
//! whose stamp is the same as at the last scan keeps its
//! outcome (the loaded [`Plugin`], or why it did not load) and is neither read nor
//! compiled again; a new or changed file is loaded; a file gone is forgotten. So a scan of
//! an unchanged path costs one walk and one `stat` per file, and a failure is
//! [`fresh`](Scanned::fresh) once: in the first scan that meets it, not in the next ones
//! that meet it again.
//!
//! New and changed files are loaded smallest first, as many at a time as the machine has
//! cores (each compile is parallel too): the small components, most connectors, are ready
//! in seconds while a 20 MB interpreter still compiles. With [`PluginScan::with_progress`]
//! the scan tells as it goes ([`ScanProgress`]): the files it is about to load, then each
//! file as it is done, with its plugin, so callers can offer a plugin before the whole
//! path is loaded.
//!
//! A plugin that was loaded stays alive for as long as someone holds it: forgetting a
//! file here drops only this scan's reference, never a running instance's.
//!
//! It must not decide what a change means for connectors: it reports what it found.

use std::collections::{HashMap, HashSet};
use std::os::unix::fs::MetadataExt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::mpsc;
use tokio::task::JoinSet;

use super::error::LoadError;
use super::plugin_path::{self, Repeat};
use super::{Plugin, Runtime};
use crate::model::PluginVersion;

/// What identifies one state of a file: if any of it changes, the file is loaded again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Stamp {
    dev: u64,
    ino: u64,
    len: u64,
    mtime_ns: i128,
    ctime_ns: i128,
    /// The signature file beside it: inode, size, modification time.
    sig: Option<(u64, u64, i128)>,
}

impl Stamp {
    fn of(path: &std::path::Path) -> Option<Self> {
        let m = std::fs::metadata(path).ok()?;
        let ns = |s: i64, n: i64| i128::from(s) * 1_000_000_000 + i128::from(n);
        let sig = std::fs::metadata(super::signature_path(path))
            .ok()
            .map(|s| (s.ino(), s.len(), ns(s.mtime(), s.mtime_nsec())));
        Some(Self {
            sig,
            dev: m.dev(),
            ino: m.ino(),
            len: m.len(),
            mtime_ns: ns(m.mtime(), m.mtime_nsec()),
            ctime_ns: ns(m.ctime(), m.ctime_nsec()),
        })
    }
}

/// One file's outcome, as of its stamp.
struct Seen {
    stamp: Option<Stamp>,
    outcome: Result<Plugin, Arc<LoadError>>,
}

/// What one scan found.
#[derive(Debug, Default)]
pub struct Scanned {
    /// The plugins that loaded, sorted by name then version; a second file with a name
    /// and version already found (in path order) is among the failures instead.
    pub plugins: Vec<Plugin>,
    /// Every file that did not load, with why (also those reported at earlier scans).
    pub failures: Vec<Arc<LoadError>>,
    /// The failures the last scan did not meet (by their message).
    pub fresh: Vec<Arc<LoadError>>,
    /// Paths skipped because they lead to a file or directory found before.
    pub repeats: Vec<Repeat>,
    /// Whether the loaded plugins differ from the last scan's (a file added, changed or
    /// removed). True at the first scan.
    pub changed: bool,
}

/// What a scan tells while it runs (see [`PluginScan::with_progress`]).
#[derive(Debug)]
pub enum ScanProgress {
    /// The new and changed files the scan is about to load, in the order it starts them,
    /// with their sizes. Not sent when there is none.
    Loading(Vec<(PathBuf, u64)>),
    /// One of them is done.
    Loaded(FileLoaded),
}

/// One file a scan loaded, or failed to.
#[derive(Debug)]
pub struct FileLoaded {
    /// The file.
    pub path: PathBuf,
    /// Its size.
    pub bytes: u64,
    /// How long reading, checking and compiling (or taking it from the cache) took.
    pub took: Duration,
    /// Its plugin; why not, when it did not load.
    pub outcome: Result<Plugin, Arc<LoadError>>,
    /// Files of this scan done so far, this one included.
    pub done: usize,
    /// Files this scan loads in all.
    pub total: usize,
}

/// A plugin path and what its files held at the last scan.
pub struct PluginScan {
    runtime: Runtime,
    paths: Vec<PathBuf>,
    files: HashMap<PathBuf, Seen>,
    /// The loaded plugins' files and stamps at the last scan, in order; `None` before the
    /// first.
    last: Option<Vec<(PathBuf, Option<Stamp>)>>,
    /// The last scan's failures, by message.
    reported: HashSet<String>,
    /// Where to tell the progress of each scan, if anywhere.
    progress: Option<mpsc::UnboundedSender<ScanProgress>>,
}

impl PluginScan {
    /// A scan of `paths` (files or directories) that has not run yet.
    pub fn new(runtime: Runtime, paths: Vec<PathBuf>) -> Self {
        let (files, reported) = (HashMap::new(), HashSet::new());
        Self { runtime, paths, files, last: None, reported, progress: None }
    }

    /// This scan, telling `progress` what each scan loads as it goes.
    pub fn with_progress(mut self, progress: mpsc::UnboundedSender<ScanProgress>) -> Self {
        self.progress = Some(progress);
        self
    }

    /// The paths scanned.
    pub fn paths(&self) -> &[PathBuf] {
        &self.paths
    }

    /// Walks the paths again and loads what is new or changed (compiling off the caller's
    /// thread).
    pub async fn scan(&mut self) -> Scanned {
        let walked = {
            let paths = self.paths.clone();
            tokio::task::spawn_blocking(move || {
                let walked = plugin_path::candidates(&paths);
                let stamps: Vec<Option<Stamp>> =
                    walked.files.iter().map(|f| Stamp::of(f)).collect();
                (walked, stamps)
            })
            .await
            .unwrap_or_default()
        };
        let (walked, stamps) = walked;
        let mut files = HashMap::with_capacity(walked.files.len());
        let mut new = Vec::new();
        for (path, stamp) in walked.files.iter().zip(stamps) {
            let known = self.files.remove(path).filter(|s| s.stamp.is_some() && s.stamp == stamp);
            match known {
                Some(seen) => drop(files.insert(path.clone(), seen)),
                None => new.push((path.clone(), stamp)),
            }
        }
        for (path, seen) in self.load(new).await {
            files.insert(path, seen);
        }
        self.files = files;

        let mut plugins: Vec<Plugin> = Vec::new();
        let mut failures: Vec<Arc<LoadError>> = walked.failures.into_iter().map(Arc::new).collect();
        let mut loaded = Vec::new();
        for path in &walked.files {
            let seen = &self.files[path];
            match &seen.outcome {
                Ok(p) => match plugins.iter().find(|q| q.same_version(p)) {
                    Some(first) => failures.push(Arc::new(LoadError::DuplicateName {
                        path: path.clone(),
                        name: p.info().name.clone(),
                        version: p.info().version.clone(),
                        first: first.info().file.clone(),
                    })),
                    None => {
                        plugins.push(p.clone());
                        loaded.push((path.clone(), seen.stamp));
                    }
                },
                Err(e) => failures.push(e.clone()),
            }
        }
        plugins.sort_by(|a, b| {
            let version = |p: &Plugin| PluginVersion::parse(&p.info().version);
            a.info().name.cmp(&b.info().name).then_with(|| version(a).cmp(&version(b)))
        });
        let changed = self.last.as_ref() != Some(&loaded);
        self.last = Some(loaded);
        let reported: HashSet<String> = failures.iter().map(|f| f.to_string()).collect();
        let fresh =
            failures.iter().filter(|f| !self.reported.contains(&f.to_string())).cloned().collect();
        self.reported = reported;
        Scanned { plugins, failures, fresh, repeats: walked.repeats, changed }
    }
}

impl PluginScan {
    /// Loads `new` files, smallest first, [`parallel_loads`] at a time, telling the
    /// progress as each is done.
    async fn load(&self, mut new: Vec<(PathBuf, Option<Stamp>)>) -> Vec<(PathBuf, Seen)> {
        new.sort_by_key(|(_, stamp)| stamp.map_or(0, |s| s.len));
        let tell = |p: ScanProgress| {
            if let Some(tx) = &self.progress {
                let _ = tx.send(p);
            }
        };
        if !new.is_empty() {
            let sizes = new.iter().map(|(p, s)| (p.clone(), s.map_or(0, |s| s.len))).collect();
            tell(ScanProgress::Loading(sizes));
        }
        let total = new.len();
        let mut queue = new.into_iter();
        let mut running = JoinSet::new();
        let mut started = HashMap::new();
        let mut loaded = Vec::with_capacity(total);
        loop {
            while running.len() < parallel_loads() {
                let Some((path, stamp)) = queue.next() else { break };
                let runtime = self.runtime.clone();
                let file = path.clone();
                let task = running.spawn(async move {
                    let t0 = Instant::now();
                    (runtime.load(&file).await.map_err(Arc::new), t0.elapsed())
                });
                started.insert(task.id(), (path, stamp, Instant::now()));
            }
            let Some(joined) = running.join_next_with_id().await else { break };
            let id = joined.as_ref().map_or_else(|e| e.id(), |(id, _)| *id);
            let Some((path, stamp, t0)) = started.remove(&id) else { continue };
            let (stamp, outcome, took) = match joined {
                Ok((_, (outcome, took))) => (stamp, outcome, took),
                // A load that panicked is a bug in the worker: the file is reported, and
                // loaded again at the next scan (no stamp is remembered for it).
                Err(e) => {
                    let source = std::io::Error::other(format!("loading it failed: {e}"));
                    (
                        None,
                        Err(Arc::new(LoadError::Read { path: path.clone(), source })),
                        t0.elapsed(),
                    )
                }
            };
            let bytes = stamp.map_or(0, |s| s.len);
            let done = loaded.len() + 1;
            let file = FileLoaded { path: path.clone(), bytes, took, outcome, done, total };
            let outcome = file.outcome.clone();
            tell(ScanProgress::Loaded(file));
            loaded.push((path, Seen { stamp, outcome }));
        }
        loaded
    }
}

/// How many files a scan loads at once: one per core, at most four (a compile uses
/// every core already; a second one overlaps the reads and the single-threaded parts).
fn parallel_loads() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get()).clamp(1, 4)
}

#[cfg(test)]
#[path = "plugin_scan_tests.rs"]
mod tests;
