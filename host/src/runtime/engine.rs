//! The wasmtime `Engine` the worker runs every plugin on: one per process, one comment per
//! knob. Nothing else in the worker sets engine options.
//!
//! The pool's address space, per instance slot, with the defaults below: one linear
//! memory slot (4 GiB reservation + 32 MiB guard, so 32-bit guests need no bounds
//! checks) for each of [`MEMORIES_PER_INSTANCE`], a 2 MiB async stack (+ a guard page),
//! and [`TABLES_PER_INSTANCE`] tables of 100,000 elements (800 KiB each). 10,500
//! instances reserve about 54 TiB of the 128 TiB a Linux process may address; none of
//! it is resident until a guest touches it. Linux counts mappings too: the stack pool
//! makes two per slot up front (stack and guard page), and each running instance about
//! four more (measured: 62,190 mappings with 9,495 instances), against a default
//! `vm.max_map_count` of 65,530; [`warn_if_map_count_low`] says so at start.

use std::num::NonZeroUsize;

use wasmtime::{
    Config, Engine, InstanceAllocationStrategy, PoolingAllocationConfig, ProfilingStrategy,
};

/// Linear memories per instance on average: every shipped guest (Rust, Python through
/// componentize-py, JavaScript through ComponentizeJS) defines one; the rest is room.
const MEMORIES_PER_INSTANCE: f64 = 1.25;
/// Tables per instance on average (measured: two in every shipped guest).
const TABLES_PER_INSTANCE: u32 = 4;
/// Core instances per instance on average: a JavaScript guest has 14 core modules, a
/// Rust or Python guest 3 or 4, most of them small shims.
const CORE_INSTANCES_PER_INSTANCE: u32 = 8;
/// Native stack of one guest call: wasm uses up to `max_wasm_stack` (1 MiB), the host
/// functions it calls get the rest.
const ASYNC_STACK: usize = 2 << 20;

/// The environment variable that turns on the perf map for profiling guests (see [`build`]).
pub const PERFMAP_ENV: &str = "WASM_CONNECT_PERF_MAP";

/// How many instances the engine's pooling allocator has room for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PoolSize {
    /// Concurrent component instances (connectors, tasks, transforms and short-lived
    /// validation instances together): `wasm.pool.instances`.
    pub instances: u32,
    /// Largest linear memory of one core module, in bytes: the backstop behind the
    /// per-instance limiter, so it must be at least the largest per-language cap.
    pub max_memory_bytes: usize,
}

impl Default for PoolSize {
    /// 10,000 tasks with their connectors and validation instances, within the default
    /// `vm.max_map_count` (10,500 x 6 mappings < 65,530).
    fn default() -> Self {
        Self { instances: 10_500, max_memory_bytes: 1 << 30 }
    }
}

/// Mappings the kernel must allow per pool slot (see the module doc).
const MAPPINGS_PER_INSTANCE: u64 = 6;

/// Warns when `vm.max_map_count` is too low for `pool` to fill up: instantiation would
/// then fail with "Cannot allocate memory" before `wasm.pool.instances` is reached.
pub fn warn_if_map_count_low(pool: &PoolSize) {
    let Some(max) = std::fs::read_to_string("/proc/sys/vm/max_map_count")
        .ok()
        .and_then(|s| s.trim().parse::<u64>().ok())
    else {
        return;
    };
    let needed = u64::from(pool.instances) * MAPPINGS_PER_INSTANCE;
    if max < needed {
        tracing::warn!(
            vm_max_map_count = max,
            needed,
            instances = pool.instances,
            "vm.max_map_count is too low for wasm.pool.instances: instances may fail to start \
             before the pool is full; raise it (sysctl vm.max_map_count={needed}) or lower \
             wasm.pool.instances"
        );
    }
}

/// Builds the engine. `pool: None` selects on-demand allocation.
pub fn build(pool: Option<PoolSize>) -> wasmtime::Result<Engine> {
    let mut c = Config::new();
    // Every guest call gets a budget checked at epoch ticks (see `epoch.rs`); the check is
    // a load and compare at loop back-edges and function entries, measured as free. At
    // each tick a running guest yields to the executor (see `instance.rs`).
    c.epoch_interruption(true);
    // Guest calls are plain async calls (`call_async` on a fiber); the component-model
    // async machinery on top would make every call ~3x more expensive (measured 950 vs
    // 300 ns) and no contract function is `async` in WIT.
    c.concurrency_support(false);
    // Deep recursion traps with `StackOverflow` well before the fiber stack is at risk.
    c.max_wasm_stack(1 << 20);
    c.async_stack_size(ASYNC_STACK);
    // Compile functions of big (Python, JavaScript) components on all cores.
    c.parallel_compilation(true);
    // A trace needs the innermost frames, not thousands of recursive ones.
    c.wasm_backtrace_max_frames(NonZeroUsize::new(32));
    // `WASM_CONNECT_PERF_MAP=1` writes `/tmp/perf-PID.map` as modules load, so `perf report`
    // names guest functions (SpiderMonkey's and CPython's own, from their name sections).
    // For profiling guests only: nothing changes in the compiled code.
    if std::env::var_os(PERFMAP_ENV).is_some_and(|v| v == "1") {
        c.profiler(ProfilingStrategy::PerfMap);
    }
    if let Some(pool) = pool {
        let n = pool.instances;
        let mut p = PoolingAllocationConfig::new();
        p.total_component_instances(n);
        p.total_core_instances(n.saturating_mul(CORE_INSTANCES_PER_INSTANCE));
        p.total_memories((f64::from(n) * MEMORIES_PER_INSTANCE).ceil() as u32);
        p.total_tables(n.saturating_mul(TABLES_PER_INSTANCE));
        // A Store keeps its fiber stack between calls, so every live instance holds one.
        p.total_stacks(n);
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
