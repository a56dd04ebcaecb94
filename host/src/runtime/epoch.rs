//! The epoch ticker: one OS thread per engine that advances the engine's epoch every
//! tick. At each tick a running guest call enters its deadline callback (see
//! `instance.rs`): it yields to the executor, or traps once its budget is spent.
//!
//! It is an OS thread, not a tokio task, so a stalled executor cannot stop it, and it
//! holds only a weak reference: it ends by itself when the engine is dropped.

use std::thread;
use std::time::Duration;

use wasmtime::Engine;

/// The tick period: how long a guest runs before it yields, and the granularity of every
/// guest call deadline.
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
