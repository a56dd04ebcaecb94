//! The `wasm-connect` binary: parses the command line, sets up logging, runs the command.

use std::process::ExitCode;

use clap::Parser;

/// The process's allocator: jemalloc, whose background thread returns freed pages to the
/// OS after `dirty_decay_ms` (10 s by default; `MALLOC_CONF` tunes it). glibc's malloc
/// kept the buffers of huge record batches resident after their source was gone: 310 MB
/// against 43 MB before it ran (BENCHMARKS.md, "Memory after large batches").
#[cfg(all(target_os = "linux", not(target_env = "musl")))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// Most blocking threads per core. Blocking work (embedded-store transactions, Kafka
/// metadata requests) queues for these instead of taking a thread per waiting task: with
/// 10,000 tasks writing to one SQLite writer, tokio's default of 512 threads were all in
/// use, each waiting for the same lock.
const BLOCKING_THREADS_PER_CORE: usize = 8;

/// The worker's runtime: one async thread per core and a bounded blocking pool. Guest
/// code runs on the runtime's own small pool (`runtime::GuestExecutor`), not here.
fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .max_blocking_threads(BLOCKING_THREADS_PER_CORE * cores)
        .build()
}

/// How long, after the worker has stopped, the runtime waits for blocking work still under
/// way (a client call that waits for a broker that is gone) before the process exits anyway.
/// The worker's own shutdown is bounded already; this only keeps a stuck call from holding
/// the exit.
const RUNTIME_STOP_GRACE: std::time::Duration = std::time::Duration::from_secs(1);

fn main() -> ExitCode {
    let cli = wasm_connect::cli::Cli::parse();
    wasm_connect::cli::init_logging(cli.log_format);
    let rt = match runtime() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match rt.block_on(cli.run()) {
        Ok(code) => {
            rt.shutdown_timeout(RUNTIME_STOP_GRACE);
            code
        }
        Err(e) => {
            eprintln!("error: {e:#}");
            // A request still blocked in a client library (a Kafka metadata request waiting
            // for a cluster that refused the credentials) must not hold the exit.
            rt.shutdown_background();
            ExitCode::FAILURE
        }
    }
}
