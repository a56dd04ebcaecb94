//! Sandbox limits of one instance, and the `ResourceLimiter` that enforces the memory cap
//! summed over every linear memory (and table) of a Store.
//!
//! wasmtime's own `StoreLimits` caps each memory separately, so a component with several
//! core modules (every Python or JavaScript guest) could use a multiple of its cap. The
//! [`Limiter`] here counts them all. It must stay cheap: it runs on every `memory.grow`.

use std::time::Duration;

use wasmtime::ResourceLimiter;

use crate::model::Language;

/// The limits one instance runs under. Defaults come from the guest language; a connector
/// config may override each (`wasm.memory.max.bytes`, `wasm.call.timeout.ms`, …).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SandboxLimits {
    /// Bytes of linear memory, summed over all memories of the instance.
    pub memory_bytes: usize,
    /// Table elements, summed over all tables.
    pub table_elements: usize,
    /// Wall-clock budget of one guest call, enforced by epoch interruption.
    pub call_deadline: Duration,
    /// Largest record batch a `poll` may return, in bytes.
    pub max_batch_bytes: usize,
    /// Bytes of stdout and stderr a guest may write into the worker log over its life (half
    /// each; its log calls may write half as much again); the rest is dropped (and
    /// counted).
    pub max_output_bytes: usize,
}

/// 1 MiB.
const MIB: usize = 1 << 20;

impl SandboxLimits {
    /// Defaults for a guest language. Interpreted guests carry their runtime's heap: a
    /// JavaScript guest measured here exceeded 64 MiB after a few 1,000-record batches.
    pub fn for_language(language: Language) -> Self {
        let (memory_mib, tables) = match language {
            Language::Rust => (64, 20_000),
            Language::Python => (256, 100_000),
            Language::JavaScript => (384, 100_000),
            Language::Other => (256, 100_000),
        };
        Self {
            memory_bytes: memory_mib * MIB,
            table_elements: tables,
            call_deadline: Duration::from_secs(10),
            max_batch_bytes: 16 * MIB,
            max_output_bytes: 4 * MIB,
        }
    }

    /// Applies the `wasm.*` overrides of a connector config. Unknown `wasm.` keys and
    /// unparsable values are reported with the key's name.
    pub fn with_overrides(mut self, config: &[(String, String)]) -> Result<Self, String> {
        for (k, v) in config {
            let num = || {
                v.trim()
                    .parse::<u64>()
                    .map_err(|_| format!("{k}: expected a non-negative integer, got {v:?}"))
            };
            match k.as_str() {
                "wasm.memory.max.bytes" => self.memory_bytes = num()? as usize,
                "wasm.call.timeout.ms" => self.call_deadline = Duration::from_millis(num()?.max(1)),
                "wasm.batch.max.bytes" => self.max_batch_bytes = num()? as usize,
                "wasm.output.max.bytes" => self.max_output_bytes = num()? as usize,
                k if k.starts_with("wasm.env.") => {}
                // A source task's rates: the worker's data path reads them (worker/source_flow.rs).
                "wasm.poll.bytes.per.second" | "wasm.poll.records.per.second" => {}
                k if k.starts_with("wasm.") => return Err(format!("{k}: unknown sandbox setting")),
                _ => {}
            }
        }
        Ok(self)
    }
}

/// Which limit a Store ran into, remembered so a following trap can be explained.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LimitHit {
    /// A memory grow was refused.
    Memory {
        /// The cap in bytes.
        cap: usize,
        /// The total the grow asked for.
        wanted: usize,
    },
    /// A table grow was refused.
    Table {
        /// The cap in elements.
        cap: usize,
    },
}

/// Sums memories and tables of one Store against its caps.
#[derive(Debug)]
pub struct Limiter {
    memory_cap: usize,
    table_cap: usize,
    memory_used: usize,
    table_used: usize,
    last_memory_delta: usize,
    last_table_delta: usize,
    hit: Option<LimitHit>,
}

impl Limiter {
    /// A limiter for `limits`.
    pub fn new(limits: &SandboxLimits) -> Self {
        Self {
            memory_cap: limits.memory_bytes,
            table_cap: limits.table_elements,
            memory_used: 0,
            table_used: 0,
            last_memory_delta: 0,
            last_table_delta: 0,
            hit: None,
        }
    }

    /// The first limit this Store ran into, if any.
    pub fn hit(&self) -> Option<LimitHit> {
        self.hit
    }

    /// Bytes of linear memory in use, summed.
    pub fn memory_used(&self) -> usize {
        self.memory_used
    }
}

impl ResourceLimiter for Limiter {
    fn memory_growing(
        &mut self,
        current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        let delta = desired.saturating_sub(current);
        let wanted = self.memory_used.saturating_add(delta);
        if wanted > self.memory_cap {
            self.hit.get_or_insert(LimitHit::Memory { cap: self.memory_cap, wanted });
            return Ok(false);
        }
        self.memory_used = wanted;
        self.last_memory_delta = delta;
        Ok(true)
    }

    fn memory_grow_failed(&mut self, _error: wasmtime::Error) -> wasmtime::Result<()> {
        self.memory_used -= std::mem::take(&mut self.last_memory_delta);
        Ok(())
    }

    fn table_growing(
        &mut self,
        current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        let delta = desired.saturating_sub(current);
        let wanted = self.table_used.saturating_add(delta);
        if wanted > self.table_cap {
            self.hit.get_or_insert(LimitHit::Table { cap: self.table_cap });
            return Ok(false);
        }
        self.table_used = wanted;
        self.last_table_delta = delta;
        Ok(true)
    }

    fn table_grow_failed(&mut self, _error: wasmtime::Error) -> wasmtime::Result<()> {
        self.table_used -= std::mem::take(&mut self.last_table_delta);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(memory: usize) -> SandboxLimits {
        SandboxLimits { memory_bytes: memory, ..SandboxLimits::for_language(Language::Rust) }
    }

    #[test]
    fn memories_are_summed_against_one_cap() {
        let mut l = Limiter::new(&limits(100));
        assert!(l.memory_growing(0, 60, None).unwrap());
        // A second memory of the same Store: alone it would fit, summed it does not.
        assert!(!l.memory_growing(0, 60, None).unwrap());
        assert_eq!(l.hit(), Some(LimitHit::Memory { cap: 100, wanted: 120 }));
        assert!(l.memory_growing(0, 40, None).unwrap());
        assert_eq!(l.memory_used(), 100);
    }

    #[test]
    fn a_failed_grow_is_given_back() {
        let mut l = Limiter::new(&limits(100));
        assert!(l.memory_growing(0, 50, None).unwrap());
        l.memory_grow_failed(wasmtime::format_err!("os said no")).unwrap();
        assert_eq!(l.memory_used(), 0);
    }

    #[test]
    fn overrides_name_the_bad_key() {
        let base = SandboxLimits::for_language(Language::Rust);
        let ok =
            base.clone().with_overrides(&[("wasm.call.timeout.ms".into(), "250".into())]).unwrap();
        assert_eq!(ok.call_deadline, Duration::from_millis(250));
        let err = base
            .clone()
            .with_overrides(&[("wasm.memory.max.bytes".into(), "lots".into())])
            .unwrap_err();
        assert!(err.starts_with("wasm.memory.max.bytes"), "{err}");
        let err = base.with_overrides(&[("wasm.frobnicate".into(), "1".into())]).unwrap_err();
        assert!(err.contains("unknown sandbox setting"), "{err}");
    }

    #[test]
    fn interpreted_guests_get_more_memory() {
        let rust = SandboxLimits::for_language(Language::Rust).memory_bytes;
        assert!(SandboxLimits::for_language(Language::Python).memory_bytes > rust);
        assert!(SandboxLimits::for_language(Language::JavaScript).memory_bytes > rust);
    }
}
