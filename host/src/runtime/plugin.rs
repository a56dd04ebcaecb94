//! A loaded plugin: its compiled component, pre-linked once (`InstancePre`), its export
//! indices, and the [`PluginInfo`] it gave about itself. Creating an instance from it
//! costs tens of microseconds for a Rust guest.
//!
//! Loading checks the file step by step so that each kind of bad file gets its own clear
//! reason: no valid signature by a trusted key (when the runtime requires one), not wasm, a core module instead of a component, invalid bytes, a component of
//! another world, or a plugin that fails while describing itself.

use std::path::Path;
use std::sync::Arc;

use sha2::{Digest, Sha256};
use wasmtime::Store;

use super::Runtime;
use super::bindings::{connector, exactly_once, sink_task, source_task, transformation};
use super::cache::CacheOutcome;
use super::error::{InstanceError, LoadError, guest_detail};
use super::grants::{self, Grants};
use super::instance::{Instance, Live};
use super::limits::{Limiter, SandboxLimits};
use super::log_budget::LogBudget;
use super::plugin_file;
use super::pre::{self, Pre};
use super::producers;
use super::state::{Identity, InstanceHost, InstanceState, NoHost};
use super::stdio::{GuestOutput, Stream};
use super::{ConnectorInstance, SinkTaskInstance, SourceTaskInstance, TransformInstance};
use crate::model::{Config, ConfigDef, ConfigProblem, PluginInfo, PluginKind};

/// The WIT package version this worker implements.
pub const CONTRACT: &str = "wasm-connect:connector@0.1.2";

/// What one connector instance is sandboxed by, computed once from its config.
#[derive(Clone, Debug)]
pub struct Sandbox {
    /// The config the instance is created and started with: file paths made absolute, so
    /// that the guest sees the paths its grants cover.
    pub config: Config,
    /// Its grants and limits, or why it could not be sandboxed (a bad grant or limit).
    pub capabilities: Result<(Grants, SandboxLimits), String>,
}

/// A plugin ready to instantiate. Cheap to clone.
#[derive(Clone)]
pub struct Plugin {
    inner: Arc<Inner>,
}

struct Inner {
    info: PluginInfo,
    pre: Pre,
    runtime: Runtime,
    cache: CacheOutcome,
}

impl std::fmt::Debug for Plugin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Plugin").field("info", &self.inner.info).finish()
    }
}

impl Plugin {
    /// What the plugin said about itself.
    pub fn info(&self) -> &PluginInfo {
        &self.inner.info
    }

    /// Whether `other` is this very load of a plugin (not another load of the same file).
    pub fn same(&self, other: &Plugin) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// Whether `other` is the same plugin name and version (KIP-891: versions compare as
    /// Maven's, so `1.0` is `1.0.0`), whichever file either came from.
    pub fn same_version(&self, other: &Plugin) -> bool {
        let version = |p: &Plugin| crate::model::PluginVersion::parse(&p.info().version);
        self.info().name == other.info().name && version(self) == version(other)
    }

    /// Whether the compiled artifact came from the on-disk cache.
    pub fn cache_outcome(&self) -> CacheOutcome {
        self.inner.cache
    }

    /// The limits an instance gets for `config`: the language defaults, then the
    /// config's `wasm.*` overrides.
    pub fn limits_for(&self, config: &[(String, String)]) -> Result<SandboxLimits, String> {
        SandboxLimits::for_language(self.inner.info.language).with_overrides(config)
    }

    /// `config` with every relative file path made absolute against the worker's working
    /// directory (see [`grants::resolve_paths`]): what an instance must be created and
    /// started with, so that the guest sees the path its grant covers.
    pub fn resolve_paths(&self, config: &[(String, String)]) -> Result<Config, String> {
        let cwd = std::env::current_dir().map_err(|e| {
            format!("the worker's working directory, against which relative paths resolve: {e}")
        })?;
        grants::resolve_paths(&self.inner.info.config_def, config, &cwd)
            .map_err(|p| grants::problems_line(&p))
    }

    /// Every reason why an instance could not be sandboxed for `config` (a file path
    /// whose directory is missing, a bad address, a bad `wasm.*` limit), each naming its
    /// key: what creating the instance would fail with, checked up front.
    pub fn sandbox_problems(&self, config: &[(String, String)]) -> Vec<ConfigProblem> {
        let mut problems = Vec::new();
        let resolved = match std::env::current_dir() {
            Ok(cwd) => grants::resolve_paths(&self.inner.info.config_def, config, &cwd),
            Err(e) => Err(vec![ConfigProblem {
                key: String::new(),
                message: format!("the worker's working directory is unavailable: {e}"),
            }]),
        };
        match resolved {
            Ok(resolved) => {
                if let Err(p) = Grants::from_config(&self.inner.info.config_def, &resolved) {
                    problems.extend(p);
                }
            }
            Err(p) => problems.extend(p),
        }
        if let Err(e) = self.limits_for(config) {
            let key = e.split(':').next().unwrap_or("wasm").to_owned();
            problems.push(ConfigProblem { key, message: e });
        }
        problems
    }

    /// A connector instance for running connector `ident`, sandboxed by `config` (whose
    /// file paths are absolute: [`Plugin::resolve_paths`]).
    pub async fn connector(
        &self,
        ident: Identity,
        config: &[(String, String)],
        host: Arc<dyn InstanceHost>,
    ) -> Result<ConnectorInstance, InstanceError> {
        let (grants, limits) = self.sandbox_for(config)?;
        Ok(ConnectorInstance(self.instance(ident, grants, limits, host).await?))
    }

    /// The sandbox a connector instance of this plugin gets for `config`: the config with
    /// absolute paths, and the grants and limits it carries. `Err` when a path cannot be
    /// resolved (the message [`Plugin::resolve_paths`] gives).
    pub fn connector_sandbox(&self, config: &[(String, String)]) -> Result<Sandbox, String> {
        let config = self.resolve_paths(config)?;
        let capabilities = self.sandbox_for(&config).map_err(|e| match e {
            InstanceError::Instantiate(message) => message,
            other => other.to_string(),
        });
        Ok(Sandbox { config, capabilities })
    }

    /// A connector instance for running connector `ident` in `sandbox`
    /// ([`Plugin::connector_sandbox`]).
    pub async fn connector_in(
        &self,
        ident: Identity,
        sandbox: &Sandbox,
        host: Arc<dyn InstanceHost>,
    ) -> Result<ConnectorInstance, InstanceError> {
        let (grants, limits) = sandbox.capabilities.clone().map_err(InstanceError::Instantiate)?;
        Ok(ConnectorInstance(self.instance(ident, grants, limits, host).await?))
    }

    /// A connector instance with no grants, for `validate` and metadata calls.
    pub async fn validator(&self) -> Result<ConnectorInstance, InstanceError> {
        self.kind_is(PluginKind::Source, PluginKind::Sink)?;
        Ok(ConnectorInstance(self.bare_instance().await?))
    }

    /// A transform instance with no grants, for `validate` and metadata calls.
    pub async fn transform_validator(&self) -> Result<TransformInstance, InstanceError> {
        self.kind_is(PluginKind::Transform, PluginKind::Transform)?;
        Ok(TransformInstance(self.bare_instance().await?))
    }

    /// A transform instance for one task's chain, sandboxed by the transform's own
    /// config (its keys without the `transforms.<alias>.` prefix, file paths absolute).
    pub async fn transform(
        &self,
        ident: Identity,
        config: &[(String, String)],
        host: Arc<dyn InstanceHost>,
    ) -> Result<TransformInstance, InstanceError> {
        self.kind_is(PluginKind::Transform, PluginKind::Transform)?;
        let (grants, limits) = self.sandbox_for(config)?;
        Ok(TransformInstance(self.instance(ident, grants, limits, host).await?))
    }

    async fn bare_instance(&self) -> Result<Instance, InstanceError> {
        let limits = SandboxLimits::for_language(self.inner.info.language);
        let ident = Identity::connector(format!("validate:{}", self.inner.info.name));
        self.instance(ident, Grants::none(), limits, Arc::new(NoHost)).await
    }

    fn kind_is(&self, a: PluginKind, b: PluginKind) -> Result<(), InstanceError> {
        let kind = self.inner.info.kind;
        if kind == a || kind == b {
            return Ok(());
        }
        Err(InstanceError::Instantiate(format!("{} is a {kind} plugin", self.inner.info.name)))
    }

    /// A source task instance.
    pub async fn source_task(
        &self,
        ident: Identity,
        config: &[(String, String)],
        host: Arc<dyn InstanceHost>,
    ) -> Result<SourceTaskInstance, InstanceError> {
        if self.inner.info.kind != PluginKind::Source {
            return Err(InstanceError::Instantiate(format!(
                "{} is not a source plugin",
                self.inner.info.name
            )));
        }
        let (grants, limits) = self.sandbox_for(config)?;
        Ok(SourceTaskInstance(self.instance(ident, grants, limits, host).await?))
    }

    /// A sink task instance.
    pub async fn sink_task(
        &self,
        ident: Identity,
        config: &[(String, String)],
        host: Arc<dyn InstanceHost>,
    ) -> Result<SinkTaskInstance, InstanceError> {
        if self.inner.info.kind != PluginKind::Sink {
            return Err(InstanceError::Instantiate(format!(
                "{} is not a sink plugin",
                self.inner.info.name
            )));
        }
        let (grants, limits) = self.sandbox_for(config)?;
        Ok(SinkTaskInstance(self.instance(ident, grants, limits, host).await?))
    }

    fn sandbox_for(
        &self,
        config: &[(String, String)],
    ) -> Result<(Grants, SandboxLimits), InstanceError> {
        let grants = Grants::from_config(&self.inner.info.config_def, config)
            .map_err(|p| InstanceError::Instantiate(grants::problems_line(&p)))?;
        let limits = self.limits_for(config).map_err(InstanceError::Instantiate)?;
        Ok((grants, limits))
    }

    async fn instance(
        &self,
        ident: Identity,
        grants: Grants,
        limits: SandboxLimits,
        host: Arc<dyn InstanceHost>,
    ) -> Result<Instance, InstanceError> {
        let plugin = self.clone();
        let id = ident.clone();
        let lim = limits.clone();
        let stderr = GuestOutput::new(ident.clone(), Stream::Stderr, limits.max_output_bytes / 2);
        let pipe = stderr.clone();
        let executor = self.inner.runtime.executor().clone();
        Instance::spawn(ident, limits, stderr, executor, async move {
            plugin.make_live(id, grants, lim, host, pipe).await
        })
        .await
    }

    /// Builds the Store and instantiates; runs on the guest executor.
    async fn make_live(
        &self,
        ident: Identity,
        grants: Grants,
        limits: SandboxLimits,
        host: Arc<dyn InstanceHost>,
        stderr: GuestOutput,
    ) -> Result<Live, InstanceError> {
        let stdout = GuestOutput::new(ident.clone(), Stream::Stdout, limits.max_output_bytes / 2);
        let wasi = grants.build_wasi(stdout, stderr.clone()).map_err(InstanceError::Instantiate)?;
        let http = grants.build_http(&ident.to_string()).map_err(InstanceError::Instantiate)?;
        let state = InstanceState {
            ident,
            wasi,
            http,
            table: wasmtime::component::ResourceTable::new(),
            limiter: Limiter::new(&limits),
            host,
            // As much as each of stdout and stderr.
            log: LogBudget::new(limits.max_output_bytes / 2, std::time::Instant::now()),
            deadline: std::time::Instant::now(),
            transactions: Default::default(),
        };
        let mut store = Store::new(self.inner.runtime.engine(), state);
        store.limiter(|s| &mut s.limiter);
        match pre::instantiate(&mut store, &self.inner.pre, &limits).await {
            Ok((_instance, exports)) => Ok(Live { store, exports, stderr, limits }),
            Err(e) if pool_full(&e) => Err(InstanceError::Instantiate(format!(
                "the instance pool is full ({e}): raise wasm.pool.instances in the worker \
                 config (every connector, task, transform and validation instance takes a slot)"
            ))),
            Err(e) => {
                let kind = super::instance::classify(&e, store.data().limiter.hit());
                Err(InstanceError::Trap {
                    call: "instantiate",
                    kind,
                    detail: guest_detail(&e),
                    stderr: stderr.tail(),
                })
            }
        }
    }
}

/// Whether instantiating failed because a pool of the allocator is exhausted.
fn pool_full(e: &wasmtime::Error) -> bool {
    e.chain().any(|c| c.downcast_ref::<wasmtime::PoolConcurrencyLimitError>().is_some())
}

/// Loads the plugin in `path` with `runtime`.
pub(crate) async fn load(runtime: &Runtime, path: &Path) -> Result<Plugin, LoadError> {
    let path = path.to_path_buf();
    let bytes = {
        let file = path.clone();
        let trust = runtime.trust().cloned();
        // The signature is checked on the bytes read, before anything else looks at them
        // (the artifact cache included): what is verified is what is compiled.
        let read = move || -> Result<Vec<u8>, LoadError> {
            let bytes = plugin_file::read(&file)?;
            if let Some(trust) = trust {
                trust.check(&file, &bytes)?;
            }
            Ok(bytes)
        };
        tokio::task::spawn_blocking(read).await.map_err(|e| LoadError::Read {
            path: path.clone(),
            source: std::io::Error::other(e.to_string()),
        })??
    };
    let not_component = |reason: String| LoadError::NotAComponent { path: path.clone(), reason };
    check_header(&bytes).map_err(not_component)?;
    let digest = hex::encode(Sha256::digest(&bytes));

    let rt = runtime.clone();
    let (component, cache, language, bytes) = {
        let digest = digest.clone();
        tokio::task::spawn_blocking(move || {
            let compiled = match rt.cache() {
                Some(cache) => cache.load_or_compile(rt.engine(), &digest, &bytes),
                None => wasmtime::component::Component::new(rt.engine(), &bytes)
                    .map(|c| (c, CacheOutcome::Compiled)),
            };
            let language = producers::language(&bytes);
            compiled.map(|(c, o)| (c, o, language, bytes))
        })
        .await
        .map_err(|e| not_component(format!("compilation panicked: {e}")))?
        .map_err(|e| not_component(first_line(&e)))?
    };
    drop(bytes);

    let wrong_world = |reason: String| LoadError::WrongWorld { path: path.clone(), reason };
    let instance_pre = runtime.linker().instantiate_pre(&component).map_err(|e| {
        wrong_world(format!("{} (the worker provides WASI 0.2 and {CONTRACT})", first_line(&e)))
    })?;
    let connector = connector::GuestIndices::new(&instance_pre);
    let transform = transformation::GuestIndices::new(&instance_pre).ok();
    let source = source_task::GuestIndices::new(&instance_pre).ok();
    let sink = sink_task::GuestIndices::new(&instance_pre).ok();
    // Optional: a source plugin built against 0.1.0 or 0.1.1 does not export it.
    let exactly_once = exactly_once::GuestIndices::new(&instance_pre).ok();
    let (connector, kind) = match (connector, transform.is_some()) {
        (Err(_), true) if source.is_none() && sink.is_none() => (None, PluginKind::Transform),
        (Ok(_), true) => {
            return Err(wrong_world(
                "it exports both `connector` and `transformation`; a plugin is a connector or \
                 a transform"
                    .into(),
            ));
        }
        (Err(e), _) => {
            return Err(wrong_world(format!(
                "it exports neither `wasm-connect:connector/connector@0.1.2` nor \
                 `wasm-connect:connector/transformation@0.1.2`: {}",
                first_line(&e)
            )));
        }
        (Ok(c), false) => match (&source, &sink) {
            (Some(_), None) => (Some(c), PluginKind::Source),
            (None, Some(_)) => (Some(c), PluginKind::Sink),
            (None, None) => {
                return Err(wrong_world(format!(
                    "it exports neither `source-task` nor `sink-task` of {CONTRACT}"
                )));
            }
            (Some(_), Some(_)) => {
                return Err(wrong_world(
                    "it exports both `source-task` and `sink-task`; a plugin is one or the other"
                        .into(),
                ));
            }
        },
    };
    let engine = runtime.engine();
    let imports =
        component.component_type().imports(engine).map(|(name, _)| name.to_owned()).collect();

    let placeholder = PluginInfo {
        name: String::new(),
        version: String::new(),
        kind,
        language,
        file: path.clone(),
        digest,
        config_def: ConfigDef::default(),
        imports,
    };
    let mut plugin = Plugin {
        inner: Arc::new(Inner {
            info: placeholder,
            pre: Pre {
                instance_pre,
                connector,
                source,
                exactly_once: exactly_once.filter(|_| kind == PluginKind::Source),
                sink,
                transform,
            },
            runtime: runtime.clone(),
            cache,
        }),
    };
    let describe = |source| LoadError::Describe { path: path.clone(), source };
    let (name, version, config_def) = if kind == PluginKind::Transform {
        let probe = plugin.transform_validator().await.map_err(describe)?;
        probe.describe().await.map_err(describe)?
    } else {
        let probe = plugin.validator().await.map_err(describe)?;
        probe.describe().await.map_err(describe)?
    };
    if name.trim().is_empty() {
        return Err(describe(InstanceError::Instantiate("the plugin's name is empty".into())));
    }
    let inner = Arc::get_mut(&mut plugin.inner).expect("the probe instance was dropped");
    inner.info.name = name;
    inner.info.version = version;
    inner.info.config_def = config_def;
    Ok(plugin)
}

/// Tells wasm from other files and components from core modules, before compiling.
fn check_header(bytes: &[u8]) -> Result<(), String> {
    if bytes.len() < 8 || &bytes[..4] != b"\0asm" {
        return Err("the file does not start with the WebAssembly magic number".into());
    }
    match &bytes[4..8] {
        [1, 0, 0, 0] => Err("it is a core WebAssembly module; a plugin must be a component \
                             (build for wasm32-wasip2, or wrap it with `wasm-tools component new`)"
            .into()),
        [_, _, 1, 0] => Ok(()),
        v => Err(format!("unknown WebAssembly version/layer {v:?}")),
    }
}

/// The first line of an error chain, for one-line messages.
fn first_line(e: &wasmtime::Error) -> String {
    let s = format!("{e:#}");
    s.lines().next().unwrap_or_default().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_are_told_apart() {
        assert!(check_header(b"hello world").unwrap_err().contains("magic"));
        assert!(check_header(b"\0asm\x01\0\0\0").unwrap_err().contains("core WebAssembly module"));
        assert!(check_header(b"\0asm\x0d\0\x01\0").is_ok());
        assert!(check_header(b"\0asm").is_err());
    }
}
