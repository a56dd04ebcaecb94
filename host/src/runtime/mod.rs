//! The WebAssembly runtime: loads plugin components, compiles each once (with an on-disk
//! cache), and runs every connector and task instance in its own sandboxed Store, with
//! guest calls on a small shared pool of threads (no thread per instance).
//!
//! Other modules use [`Runtime`] (load and discover plugins), [`Plugin`] (create
//! instances) and the typed instance handles ([`ConnectorInstance`],
//! [`SourceTaskInstance`], [`SinkTaskInstance`], [`TransformInstance`]). Host imports reach the rest of the
//! worker only through the injected [`InstanceHost`]. This module knows nothing of Kafka,
//! stores, REST or the herder, and never decides what happens after a failure: it reports.
//!
//! Layout: `engine` (engine knobs, pool sizing), `epoch` (ticker: yields and deadlines;
//! parked while no guest call runs),
//! `executor` (the guest thread pool), `cache/` (sealed compiled artifacts), `bindings` +
//! `convert` (the one `bindgen!` and its conversions), `plugin_path` (which files of a plugin
//! path to load: regular files, each once, in a finite walk), `plugin_scan` (a plugin path
//! scanned again, loading only new and changed files, smallest first, telling its
//! progress), `plugin_file` (reading one,
//! bounded), `signature` (trusted keys and the signature check, before a file is
//! compiled or its cached artifact used), `plugin` (load, check, describe),
//! `pre` (a component pre-linked once, and its instantiation), `instance` (Store + async
//! calls + deadlines), `state` (the data of one Store), the typed handles
//! `connector_instance`, `source_instance`, `sink_instance` and `transform_instance`,
//! `polled_record` (a source batch decoded without copies), `limits`, `grants`,
//! `endpoint`, `http/` (outgoing `wasi:http` to granted origins), `stdio` (the sandbox),
//! `log_budget` (what the guest's log calls may still write), `host/` (import
//! implementations), `producers` (language), `error`.

mod bindings;
mod cache;
mod connector_instance;
mod convert;
mod endpoint;
mod engine;
mod epoch;
mod error;
mod executor;
mod grants;
mod host;
mod http;
mod instance;
mod limits;
mod log_budget;
mod plugin;
mod plugin_file;
mod plugin_path;
mod plugin_scan;
mod polled_record;
mod pre;
mod producers;
mod signature;
mod sink_instance;
mod source_instance;
mod state;
mod stdio;
mod transform_instance;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use wasmtime::Engine;
use wasmtime::component::{HasSelf, Linker};

pub use cache::{ArtifactCache, CacheOutcome};
pub use connector_instance::ConnectorInstance;
pub use engine::PoolSize;
pub use error::{InstanceError, LoadError, TrapKind};
pub use grants::Grants;
pub use instance::Instance;
pub use limits::SandboxLimits;
pub use plugin::{CONTRACT, Plugin, Sandbox};
pub use plugin_file::MAX_PLUGIN_BYTES;
pub use plugin_path::Repeat;
pub use plugin_scan::{FileLoaded, PluginScan, ScanProgress, Scanned};
pub use polled_record::{PolledRecord, decode_polled};
pub use signature::{
    SIGNATURE_HEADER, SignatureFile, Trust, digest, key_text, parse_public_key, signature_path,
};
pub use sink_instance::SinkTaskInstance;
pub use source_instance::{PendingPoll, SourceTaskInstance};
pub use state::{Identity, InstanceHost, NoHost};
pub use transform_instance::{TransformInstance, Transformed};

/// How to build a [`Runtime`].
#[derive(Clone, Debug, Default)]
pub struct RuntimeOptions {
    /// Where compiled artifacts are cached; `None` compiles on every load. A directory
    /// another user could write to is refused with a warning (see [`ArtifactCache::open`]),
    /// and components are then compiled on every load too.
    pub cache_dir: Option<PathBuf>,
    /// Pooling allocator size; `None` allocates on demand.
    pub pool: Option<PoolSize>,
    /// The keys plugins must be signed by (`plugin.signature.required`); `None` loads
    /// unsigned plugins.
    pub trust: Option<Trust>,
}

/// The engine, linker and artifact cache. Cheap to clone; one per worker.
#[derive(Clone)]
pub struct Runtime {
    inner: Arc<Inner>,
}

struct Inner {
    engine: Engine,
    linker: Linker<state::InstanceState>,
    cache: Option<ArtifactCache>,
    executor: executor::GuestExecutor,
    trust: Option<Trust>,
}

/// The outcome of scanning plugin directories.
#[derive(Debug, Default)]
pub struct Discovery {
    /// Plugins that loaded, sorted by name.
    pub plugins: Vec<Plugin>,
    /// Files that did not, each with its reason: refused entries (not a regular file, too
    /// large, unreadable) and files that are no plugin, each once.
    pub failures: Vec<Arc<LoadError>>,
    /// Paths skipped because they lead to a file or directory found before under another
    /// path (a symbolic link loop, a second link to one file), each once.
    pub repeats: Vec<Repeat>,
}

impl Runtime {
    /// Builds the engine, starts its epoch ticker and links WASI 0.2 plus the contract's
    /// host interfaces.
    pub fn new(options: RuntimeOptions) -> anyhow::Result<Self> {
        if let Some(pool) = &options.pool {
            engine::warn_if_map_count_low(pool);
        }
        // wasmtime's errors capture a host backtrace when RUST_BACKTRACE or
        // RUST_LIB_BACKTRACE is set. Traces shown to users are the guest's (see
        // `error::guest_detail`), so the capture is only a cost, paid at every trap: turn it
        // off for the process. (Equivalent to building wasmtime without its `backtrace`
        // feature; panics keep their backtraces.)
        wasmtime::error::disable_backtrace();
        let engine = engine::build(options.pool)?;
        let ticker = epoch::start(&engine)?;
        let mut linker = Linker::new(&engine);
        wasmtime_wasi::p2::add_to_linker_async(&mut linker)?;
        // Every instance may import wasi:http; only granted origins answer (see `http`).
        wasmtime_wasi_http::p2::add_only_http_to_linker_async(&mut linker)?;
        bindings::Plugin::add_to_linker::<_, HasSelf<_>>(&mut linker, |s| s)?;
        let cache = options.cache_dir.and_then(ArtifactCache::open_or_warn);
        let executor = executor::GuestExecutor::per_core(ticker)?;
        let trust = options.trust;
        Ok(Self { inner: Arc::new(Inner { engine, linker, cache, executor, trust }) })
    }

    /// The engine.
    pub fn engine(&self) -> &Engine {
        &self.inner.engine
    }

    pub(crate) fn executor(&self) -> &executor::GuestExecutor {
        &self.inner.executor
    }

    pub(crate) fn linker(&self) -> &Linker<state::InstanceState> {
        &self.inner.linker
    }

    /// The keys plugins must be signed by, if signatures are required.
    pub fn trust(&self) -> Option<&Trust> {
        self.inner.trust.as_ref()
    }

    /// The artifact cache, if any.
    pub fn cache(&self) -> Option<&ArtifactCache> {
        self.inner.cache.as_ref()
    }

    /// Loads one plugin file.
    pub async fn load(&self, path: impl AsRef<Path>) -> Result<Plugin, LoadError> {
        plugin::load(self, path.as_ref()).await
    }

    /// Loads every `.wasm` file under the given paths (files or directories, searched
    /// recursively, in path order and each directory's entries in name order). Only
    /// regular files are read, each real file once and at most [`MAX_PLUGIN_BYTES`] of it;
    /// a walk through symbolic link loops ends (see `plugin_path`). A file that fails is
    /// reported, never fatal to the others; so is a plugin whose name and version an
    /// earlier file (in path order) already has. Plugins come sorted by name, then version.
    pub async fn discover(&self, paths: &[PathBuf]) -> Discovery {
        let found = PluginScan::new(self.clone(), paths.to_vec()).scan().await;
        Discovery { plugins: found.plugins, failures: found.failures, repeats: found.repeats }
    }
}
