//! The epoch ticker: one OS thread per engine that advances the engine's epoch every
//! tick, so per-call deadlines (in ticks) interrupt runaway guests.
//!
//! It is an OS thread, not a tokio task, so a stalled executor cannot stop it, and it
//! holds only a weak reference: it ends by itself when the engine is dropped.

use std::thread;
use std::time::Duration;

use wasmtime::Engine;

/// The tick period: the granularity of every guest call deadline.
pub const TICK: Duration = Duration::from_millis(10);

/// Starts the ticker for `engine`.
pub fn start(engine: &Engine) -> std::io::Result<()> {
    let weak = engine.weak();
    thread::Builder::new().name("wasm-epoch".into()).spawn(move || {
        loop {
            thread::sleep(TICK);
            match weak.upgrade() {
                Some(engine) => engine.increment_epoch(),
                None => return,
            }
        }
    })?;
    Ok(())
}

/// The number of ticks that covers `budget` (at least one).
pub fn ticks(budget: Duration) -> u64 {
    (budget.as_millis().div_ceil(TICK.as_millis()) as u64).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budgets_round_up_to_whole_ticks() {
        assert_eq!(ticks(Duration::from_millis(1)), 1);
        assert_eq!(ticks(Duration::from_millis(10)), 1);
        assert_eq!(ticks(Duration::from_millis(11)), 2);
        assert_eq!(ticks(Duration::from_secs(10)), 1000);
    }
}
