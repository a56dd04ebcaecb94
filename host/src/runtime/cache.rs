//! The on-disk cache of compiled components, so that a worker restart does not compile
//! every plugin again (a Python component takes ~11 s to compile, ~4 ms to load).
//!
//! An artifact is keyed by the SHA-256 of the component bytes and by the engine's
//! compatibility hash (wasmtime version and the codegen-relevant config), so an upgraded
//! worker never loads a stale artifact. Writes go to a temporary file and are renamed into
//! place, so a crash never leaves a half-written artifact under a real key. The cache
//! directory must be writable by the worker only: artifacts are native code.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use wasmtime::Engine;
use wasmtime::component::Component;

/// Where a component came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CacheOutcome {
    /// Loaded from a cached artifact.
    Hit,
    /// Compiled now (and stored, if a cache directory is set).
    Compiled,
}

/// A directory of precompiled artifacts.
#[derive(Clone, Debug)]
pub struct ArtifactCache {
    dir: PathBuf,
}

impl ArtifactCache {
    /// A cache in `dir`, created if missing.
    pub fn open(dir: impl Into<PathBuf>) -> std::io::Result<Self> {
        let dir = dir.into();
        std::fs::create_dir_all(&dir)?;
        Ok(Self { dir })
    }

    /// The cache directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The artifact path for a component digest on `engine`.
    pub fn path_for(&self, engine: &Engine, digest: &str) -> PathBuf {
        let mut h = DefaultHasher::new();
        engine.precompile_compatibility_hash().hash(&mut h);
        self.dir.join(format!("{digest}-{:016x}.cwasm", h.finish()))
    }

    /// Loads the artifact for `digest`, or compiles `bytes` and stores the artifact.
    /// A cached artifact that fails to load (truncated, from another build) is replaced.
    pub fn load_or_compile(
        &self,
        engine: &Engine,
        digest: &str,
        bytes: &[u8],
    ) -> wasmtime::Result<(Component, CacheOutcome)> {
        let path = self.path_for(engine, digest);
        if path.exists() {
            match load_artifact(engine, &path) {
                Ok(c) => return Ok((c, CacheOutcome::Hit)),
                Err(e) => {
                    tracing::warn!(path = %path.display(), error = %e, "Discarding an unloadable cached artifact")
                }
            }
        }
        let component = Component::new(engine, bytes)?;
        if let Err(e) = store_artifact(&component, &path) {
            tracing::warn!(path = %path.display(), error = %e, "Could not cache a compiled component");
        }
        Ok((component, CacheOutcome::Compiled))
    }
}

#[allow(unsafe_code)]
fn load_artifact(engine: &Engine, path: &Path) -> wasmtime::Result<Component> {
    // SAFETY: `deserialize_file` trusts the file to be an artifact wasmtime produced. Only
    // the worker writes this directory (see the module docs), under a name that includes
    // the content digest and the engine's compatibility hash, and wasmtime itself rejects
    // artifacts from another version or config.
    unsafe { Component::deserialize_file(engine, path) }
}

fn store_artifact(component: &Component, path: &Path) -> anyhow::Result<()> {
    // A temporary name unique in this process too: two runtimes of one process (tests
    // sharing a cache directory) may compile the same component at the same time.
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let bytes = component.serialize()?;
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let tmp = path.with_extension(format!("tmp{}-{n}", std::process::id()));
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path)?;
    Ok(())
}
