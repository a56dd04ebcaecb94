//! The on-disk cache of compiled components, so that a worker restart does not compile
//! every plugin again (a Python component takes ~11 s to compile, ~4 ms to load).
//!
//! An artifact is named by the SHA-256 of the component bytes and the engine's
//! compatibility hash (wasmtime version and the codegen-relevant config), so an upgraded
//! worker never loads a stale artifact. Artifacts are native code, so the cache trusts
//! nothing it reads:
//! - the directory must be this user's and writable by nobody else ([`dir`]); otherwise
//!   [`ArtifactCache::open`] refuses it and the worker compiles in memory;
//! - every artifact is sealed with a keyed MAC over the component's digest, the engine and
//!   the artifact ([`seal`]), under a key kept beside the directory, mode 0600 ([`key`]).
//!   An artifact whose seal does not open (copied from another component, crafted, from
//!   another cache) is never deserialized: it is logged, compiled again and replaced.
//!
//! Writes go to a temporary file and are renamed into place, so a crash never leaves a
//! half-written artifact under a real name.
//!
//! Layout: this file ([`ArtifactCache`]), `dir` (who may write the directory), `key` (the
//! secret key), `seal` (an artifact's seal and its check).

mod dir;
mod key;
mod seal;

use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use wasmtime::Engine;
use wasmtime::component::Component;

use key::CacheKey;
use seal::Binding;

/// Where a component came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CacheOutcome {
    /// Loaded from a cached artifact.
    Hit,
    /// Compiled now (and stored, if a cache directory is set).
    Compiled,
}

/// A directory of sealed precompiled artifacts.
#[derive(Clone, Debug)]
pub struct ArtifactCache {
    dir: PathBuf,
    key: CacheKey,
}

impl ArtifactCache {
    /// A cache in `dir` (created mode 0700 if missing), with its key in `<dir>.key`.
    /// Refused, with the reason, when the directory or the key file could be written or
    /// read by another user.
    pub fn open(dir: impl Into<PathBuf>) -> Result<Self, String> {
        let dir = dir.into();
        dir::private_dir(&dir)
            .map_err(|why| format!("cache directory {}: {why}", dir.display()))?;
        let key_path = CacheKey::path_for(&dir);
        let key = CacheKey::load_or_create(&key_path)
            .map_err(|why| format!("cache key file {}: {why}", key_path.display()))?;
        Ok(Self { dir, key })
    }

    /// [`open`](Self::open), or no cache: a refusal is logged once, with its reason, and
    /// components are compiled in memory.
    pub fn open_or_warn(dir: PathBuf) -> Option<Self> {
        Self::open(dir)
            .inspect_err(|why| {
                tracing::warn!("Not using the compiled-component cache, compiling in memory: {why}")
            })
            .ok()
    }

    /// The cache directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The artifact path for a component digest on `engine`.
    pub fn path_for(&self, engine: &Engine, digest: &str) -> PathBuf {
        self.artifact_path(&Binding { digest, engine: engine_hash(engine) })
    }

    fn artifact_path(&self, binding: &Binding<'_>) -> PathBuf {
        self.dir.join(format!("{}-{:016x}.cwasm", binding.digest, binding.engine))
    }

    /// Loads the artifact for `digest`, or compiles `bytes` and stores the artifact.
    /// An artifact that is not sealed for this component, or fails to load, is replaced.
    pub fn load_or_compile(
        &self,
        engine: &Engine,
        digest: &str,
        bytes: &[u8],
    ) -> wasmtime::Result<(Component, CacheOutcome)> {
        let binding = Binding { digest, engine: engine_hash(engine) };
        let path = self.artifact_path(&binding);
        match std::fs::read(&path) {
            Ok(sealed) => match seal::open(&self.key, &binding, &sealed) {
                Some(artifact) => match load_artifact(engine, artifact) {
                    Ok(c) => return Ok((c, CacheOutcome::Hit)),
                    Err(e) => {
                        tracing::warn!(path = %path.display(), error = %e, "Discarding an unloadable cached artifact")
                    }
                },
                None => tracing::warn!(
                    path = %path.display(),
                    "Cached artifact does not belong to component {digest} (its seal does not match): compiling again"
                ),
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                tracing::warn!(path = %path.display(), error = %e, "Cannot read a cached artifact")
            }
        }
        let component = Component::new(engine, bytes)?;
        if let Err(e) = self.store_artifact(&component, &binding, &path) {
            tracing::warn!(path = %path.display(), error = %e, "Could not cache a compiled component");
        }
        Ok((component, CacheOutcome::Compiled))
    }

    fn store_artifact(
        &self,
        component: &Component,
        binding: &Binding<'_>,
        path: &Path,
    ) -> anyhow::Result<()> {
        // A temporary name unique in this process too: two runtimes of one process (tests
        // sharing a cache directory) may compile the same component at the same time.
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let sealed = seal::seal(&self.key, binding, &component.serialize()?);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let tmp = path.with_extension(format!("tmp{}-{n}", std::process::id()));
        std::fs::write(&tmp, sealed)?;
        std::fs::rename(&tmp, path)?;
        Ok(())
    }
}

fn engine_hash(engine: &Engine) -> u64 {
    let mut h = DefaultHasher::new();
    engine.precompile_compatibility_hash().hash(&mut h);
    h.finish()
}

#[allow(unsafe_code)]
fn load_artifact(engine: &Engine, artifact: &[u8]) -> wasmtime::Result<Component> {
    // SAFETY: `deserialize` trusts the bytes to be an artifact wasmtime produced. These
    // bytes passed the seal's check: they were written by a worker holding this cache's
    // secret key, for this very component digest and engine, from `Component::serialize`.
    // The directory and the key file are this user's alone (checked at open), and wasmtime
    // itself rejects artifacts from another version or config.
    unsafe { Component::deserialize(engine, artifact) }
}

#[cfg(test)]
mod tests;
