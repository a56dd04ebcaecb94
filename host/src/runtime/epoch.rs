//! The epoch ticker: one OS thread per engine that advances the engine's epoch every
//! tick while a guest call is in progress. At each tick a running guest call enters its
//! deadline callback (see `instance.rs`): it yields to the executor, or traps once its
//! budget is spent.
//!
//! While no guest call is in progress the ticker parks, so an idle worker is not woken a
//! hundred times a second: the executor (`executor.rs`) holds a [`Busy`] guard for each
//! call, and the first one wakes the ticker. A call's deadline is set when it starts (the
//! epoch then plus one), so the first tick after it starts interrupts it, parked or not.
//! Parked, the ticker still looks once a second whether its engine is gone.
//!
//! It is an OS thread, not a tokio task, so a stalled executor cannot stop it, and it
//! holds only a weak reference: it ends by itself when the engine is dropped.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::Duration;

use wasmtime::Engine;

/// The tick period: how long a guest runs before it yields, and the granularity of every
/// guest call deadline.
pub const TICK: Duration = Duration::from_millis(10);

/// How often a parked ticker looks whether its engine was dropped.
const PARKED_CHECK: Duration = Duration::from_secs(1);

/// The ticker's handle: hands out [`Busy`] guards. Cheap to clone.
#[derive(Clone)]
pub(crate) struct Ticker(Arc<Calls>);

/// Guest calls in progress, and the ticker's wake-up.
struct Calls {
    running: AtomicUsize,
    lock: Mutex<()>,
    wake: Condvar,
    /// Ticks so far, and whether the ticker is parked (tests look at them).
    ticks: AtomicU64,
    parked: AtomicBool,
}

/// One guest call in progress: the ticker ticks while one exists.
pub(crate) struct Busy(Arc<Calls>);

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.running.fetch_sub(1, Ordering::AcqRel);
    }
}

impl Ticker {
    /// Marks a guest call in progress until the guard is dropped.
    pub fn busy(&self) -> Busy {
        if self.0.running.fetch_add(1, Ordering::AcqRel) == 0 {
            // The ticker checks `running` under the lock before it waits, so taking the
            // lock here means it either saw this call or is waiting for this notification.
            let _held = self.0.lock.lock().unwrap_or_else(|p| p.into_inner());
            self.0.wake.notify_one();
        }
        Busy(self.0.clone())
    }

    /// Ticks so far.
    #[cfg(test)]
    fn ticks(&self) -> u64 {
        self.0.ticks.load(Ordering::Acquire)
    }

    /// Whether the ticker is parked (waiting for a call).
    #[cfg(test)]
    fn parked(&self) -> bool {
        self.0.parked.load(Ordering::Acquire)
    }
}

/// Starts the ticker for `engine`.
pub(crate) fn start(engine: &Engine) -> std::io::Result<Ticker> {
    let weak = engine.weak();
    let calls = Arc::new(Calls {
        running: AtomicUsize::new(0),
        lock: Mutex::new(()),
        wake: Condvar::new(),
        ticks: AtomicU64::new(0),
        parked: AtomicBool::new(false),
    });
    let shared = calls.clone();
    thread::Builder::new().name("wasm-epoch".into()).spawn(move || {
        loop {
            {
                let mut held = shared.lock.lock().unwrap_or_else(|p| p.into_inner());
                while shared.running.load(Ordering::Acquire) == 0 {
                    if weak.upgrade().is_none() {
                        return;
                    }
                    shared.parked.store(true, Ordering::Release);
                    held = match shared.wake.wait_timeout(held, PARKED_CHECK) {
                        Ok((held, _)) => held,
                        Err(p) => p.into_inner().0,
                    };
                }
                shared.parked.store(false, Ordering::Release);
            }
            thread::sleep(TICK);
            match weak.upgrade() {
                Some(engine) => engine.increment_epoch(),
                None => return,
            }
            shared.ticks.fetch_add(1, Ordering::AcqRel);
        }
    })?;
    Ok(Ticker(calls))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_only_while_a_call_is_in_progress() {
        let engine = Engine::default();
        let ticker = start(&engine).unwrap();
        // Idle from the start: it parks, and parked it never ticks.
        until(|| ticker.parked(), "the ticker to park");
        thread::sleep(TICK * 5);
        assert_eq!(ticker.ticks(), 0, "a parked ticker ticked");

        let busy = ticker.busy();
        until(|| ticker.ticks() >= 2, "ticks while a call is in progress");
        drop(busy);
        // The tick under way when the call ended may follow; then it parks again.
        until(|| ticker.parked(), "the ticker to park again");
        let parked = ticker.ticks();
        thread::sleep(TICK * 5);
        assert_eq!(ticker.ticks(), parked, "the ticker went on ticking after the call ended");
    }

    /// Waits until `f` holds (at most 30 s).
    fn until(f: impl Fn() -> bool, what: &str) {
        let mut waited = Duration::ZERO;
        while !f() {
            assert!(waited < Duration::from_secs(30), "waited 30 s for {what}");
            thread::sleep(TICK);
            waited += TICK;
        }
    }
}
