//! Where guest code runs: [`GuestExecutor`], a small tokio runtime of the engine's own
//! with one thread per core, shared by every instance. Plugin code never runs on the
//! worker's runtime, so a busy guest cannot delay the herder loop or a REST answer; a
//! guest that computes for long yields every epoch tick (see `instance.rs`), so it
//! cannot starve the other instances either.
//!
//! Measured against running guest calls inline in the caller's task (`cargo bench
//! --bench runtime`, 2 cores): a no-op call costs 3.9 µs through the pool and 0.5 µs
//! inline, against 2.4 µs for the thread per instance this replaced; a 1,000-record poll
//! costs the same either way. The pool was kept: the hop is small against a batch, and
//! it keeps guest CPU off the threads that answer REST and run the herder.
//!
//! Every call it runs holds a [`Busy`] guard of the epoch ticker (`epoch.rs`) until it
//! ends, so the ticker ticks only while guest code may run.
//!
//! It owns threads and nothing else: no Store, no instance state.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use tokio::runtime::{Builder, Handle, Runtime};
use tokio::task::JoinHandle;

use super::epoch::{Busy, Ticker};

/// Blocking threads of the guest runtime (WASI file I/O runs there), at most.
const MAX_BLOCKING_THREADS: usize = 8;

/// Runs guest calls on the guest runtime; cheap to clone.
#[derive(Clone)]
pub(crate) struct GuestExecutor(Arc<GuestPool>);

/// The guest runtime. Dropping it lets its threads end in the background (a runtime
/// cannot be dropped in place from inside another one).
struct GuestPool {
    runtime: Option<Runtime>,
    handle: Handle,
    ticker: Ticker,
}

impl Drop for GuestPool {
    fn drop(&mut self) {
        if let Some(rt) = self.runtime.take() {
            rt.shutdown_background();
        }
    }
}

impl GuestExecutor {
    /// The guest runtime with `threads` workers; its calls keep `ticker` ticking.
    pub fn new(threads: usize, ticker: Ticker) -> std::io::Result<Self> {
        let runtime = Builder::new_multi_thread()
            .worker_threads(threads)
            .max_blocking_threads(MAX_BLOCKING_THREADS)
            .thread_name("wasm-guest")
            .enable_all()
            .build()?;
        let handle = runtime.handle().clone();
        Ok(Self(Arc::new(GuestPool { runtime: Some(runtime), handle, ticker })))
    }

    /// One thread per core (what `available_parallelism` reports).
    pub fn per_core(ticker: Ticker) -> std::io::Result<Self> {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        Self::new(cores, ticker)
    }

    /// Runs `work` to completion, at most `timeout` (then it is dropped where it stands
    /// and `None` is returned). A panic in `work` is resumed in the caller. The epoch
    /// ticks until `work` ends or is dropped.
    pub async fn run<T: Send + 'static>(
        &self,
        timeout: Duration,
        work: impl Future<Output = T> + Send + 'static,
    ) -> Option<T> {
        let deadline = tokio::time::Instant::now() + timeout;
        finish(self.start(work), deadline).await
    }

    /// Starts `work` on the guest runtime at once; [`finish`] waits for it. Dropping the
    /// handle lets the work run to its end.
    pub fn start<T: Send + 'static>(
        &self,
        work: impl Future<Output = T> + Send + 'static,
    ) -> JoinHandle<T> {
        // The epoch ticker runs while a call is in progress (it parks otherwise).
        let busy: Busy = self.0.ticker.busy();
        self.0.handle.spawn(async move {
            let _busy = busy;
            work.await
        })
    }
}

/// Waits for work [`GuestExecutor::start`]ed, until `deadline` (then it is dropped where
/// it stands and `None` is returned). Work that has already ended is taken whatever the
/// time: its answer may have waited past the deadline (a poll started ahead and taken
/// after a pause). A panic in the work is resumed in the caller.
pub async fn finish<T>(mut task: JoinHandle<T>, deadline: tokio::time::Instant) -> Option<T> {
    let outcome = if task.is_finished() {
        Ok((&mut task).await)
    } else {
        tokio::time::timeout_at(deadline, &mut task).await
    };
    match outcome {
        Ok(Ok(t)) => Some(t),
        Ok(Err(e)) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
        Ok(Err(_)) => None,
        Err(_) => {
            task.abort();
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::{GuestExecutor, finish};

    #[tokio::test]
    async fn ended_work_is_taken_after_its_deadline_and_late_work_is_dropped() {
        let engine = wasmtime::Engine::default();
        let executor = GuestExecutor::new(1, super::super::epoch::start(&engine).unwrap()).unwrap();
        let past = tokio::time::Instant::now();
        let ended = executor.start(async { 7 });
        while !ended.is_finished() {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        assert_eq!(finish(ended, past).await, Some(7));
        let (mut tx, rx) = tokio::sync::oneshot::channel::<()>();
        let late = executor.start(async move {
            let _ = rx.await;
            8
        });
        assert_eq!(finish(late, tokio::time::Instant::now()).await, None);
        // The late work was dropped where it stood: nobody receives any more.
        let dropped = tokio::time::timeout(Duration::from_secs(60), tx.closed()).await;
        assert!(dropped.is_ok(), "the late work still runs");
    }
}
