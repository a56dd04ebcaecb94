//! The wasmtime `Engine` the worker runs every plugin on: one per process, one comment per
//! knob. Nothing else in the worker sets engine options.

use std::num::NonZeroUsize;

use wasmtime::{Config, Engine, InstanceAllocationStrategy, PoolingAllocationConfig};

/// How many instances the engine's pooling allocator has room for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PoolSize {
    /// Concurrent component instances (connectors, tasks and short-lived validation
    /// instances together).
    pub instances: u32,
    /// Largest linear memory of one core module, in bytes: the backstop behind the
    /// per-instance limiter, so it must be at least the largest per-language cap.
    pub max_memory_bytes: usize,
}

impl Default for PoolSize {
    fn default() -> Self {
        Self { instances: 1_000, max_memory_bytes: 1 << 30 }
    }
}

/// Builds the engine. `pool: None` selects on-demand allocation.
pub fn build(pool: Option<PoolSize>) -> wasmtime::Result<Engine> {
    let mut c = Config::new();
    // Every guest call gets a deadline in epoch ticks (see `epoch.rs`); the check is a
    // load and compare at loop back-edges and function entries, measured as free.
    c.epoch_interruption(true);
    // The worker calls guests synchronously on their own threads; the component-model
    // async machinery would make every call ~3x more expensive (measured 950 vs 300 ns).
    c.concurrency_support(false);
    // Deep recursion traps with `StackOverflow` well before the instance thread's native
    // stack (see `instance.rs`) is at risk.
    c.max_wasm_stack(1 << 20);
    // Compile functions of big (Python, JavaScript) components on all cores.
    c.parallel_compilation(true);
    // A trace needs the innermost frames, not thousands of recursive ones.
    c.wasm_backtrace_max_frames(NonZeroUsize::new(32));
    if let Some(pool) = pool {
        let mut p = PoolingAllocationConfig::new();
        p.total_component_instances(pool.instances);
        // Interpreted guests are made of many core instances, memories and tables each.
        p.total_core_instances(pool.instances.saturating_mul(4));
        p.total_memories(pool.instances.saturating_mul(2));
        p.total_tables(pool.instances.saturating_mul(4));
        p.max_core_instances_per_component(64);
        p.max_memories_per_component(8);
        p.max_tables_per_component(16);
        // Interpreter guests have large function tables (measured: CPython ~70k entries).
        p.table_elements(100_000);
        p.max_memory_size(pool.max_memory_bytes);
        // Component instance metadata of interpreter guests exceeds the 1 MiB default.
        p.max_component_instance_size(8 << 20);
        p.max_core_instance_size(8 << 20);
        c.allocation_strategy(InstanceAllocationStrategy::Pooling(p));
    }
    Engine::new(&c)
}
