//! One running instance: a Store on its own OS thread, and the async handle the rest of
//! the worker calls it through.
//!
//! Plugin code runs only on the instance's thread, never on a tokio worker or the herder
//! loop. Each call carries two bounds: an epoch deadline inside wasmtime (stops a guest
//! that computes forever) and a wall-clock timeout around the reply (covers a host-side
//! wait). A trap, a timeout, an oversized or malformed result discards the instance: its
//! Store is dropped and every later call answers [`InstanceError::Discarded`] at once.
//! Nothing here decides what happens next; the caller reports the failure.

use std::sync::{Arc, Mutex, mpsc};
use std::thread;
use std::time::Duration;

use tokio::sync::oneshot;
use wasmtime::Store;

use super::bindings::{connector, sink_task, source_task, transformation};
use super::epoch;
use super::error::{InstanceError, TrapKind};
use super::limits::{LimitHit, SandboxLimits};
use super::state::{Identity, InstanceState};
use super::stdio::GuestOutput;

/// Native stack of an instance thread: wasm runs on it (up to the engine's 1 MiB
/// `max_wasm_stack`), plus the host functions it calls.
const THREAD_STACK: usize = 4 << 20;
/// Extra wall-clock time beyond the CPU deadline before a call counts as hung.
const TIMEOUT_GRACE: Duration = Duration::from_secs(2);

/// The exports of one instance, resolved once.
pub(crate) struct Exports {
    pub connector: Option<connector::Guest>,
    pub source: Option<source_task::Guest>,
    pub sink: Option<sink_task::Guest>,
    pub transform: Option<transformation::Guest>,
}

impl Exports {
    /// The connector exports; the plugin's kind was checked at load.
    pub fn connector(&self) -> &connector::Guest {
        self.connector.as_ref().expect("a connector plugin exports connector")
    }

    /// The transformation exports; the plugin's kind was checked at load.
    pub fn transform(&self) -> &transformation::Guest {
        self.transform.as_ref().expect("a transform plugin exports transformation")
    }

    /// The source-task exports; the plugin's kind was checked at load.
    pub fn source(&self) -> &source_task::Guest {
        self.source.as_ref().expect("a source plugin exports source-task")
    }

    /// The sink-task exports; the plugin's kind was checked at load.
    pub fn sink(&self) -> &sink_task::Guest {
        self.sink.as_ref().expect("a sink plugin exports sink-task")
    }
}

/// What lives on the instance thread.
pub(crate) struct Live {
    pub store: Store<InstanceState>,
    pub exports: Exports,
    pub stderr: GuestOutput,
    pub limits: SandboxLimits,
}

impl Live {
    /// Runs one guest call under the deadline and classifies a trap.
    pub fn run<R>(
        &mut self,
        call: &'static str,
        f: impl FnOnce(&mut Store<InstanceState>, &Exports) -> wasmtime::Result<R>,
    ) -> Result<R, InstanceError> {
        self.store.set_epoch_deadline(epoch::ticks(self.limits.call_deadline));
        f(&mut self.store, &self.exports).map_err(|e| self.trap(call, e))
    }

    fn trap(&self, call: &'static str, e: wasmtime::Error) -> InstanceError {
        let limiter = &self.store.data().limiter;
        let kind = classify(&e, limiter.hit());
        let detail = format!("{e:?}\nlinear memory in use: {} KiB", limiter.memory_used() >> 10);
        let mut stderr = self.stderr.tail();
        if self.stderr.dropped() > 0 {
            stderr.push(format!(
                "({} bytes of output over the limit were dropped)",
                self.stderr.dropped()
            ));
        }
        InstanceError::Trap { call, kind, detail, stderr }
    }
}

/// Names a trap, preferring the limit the Store ran into: a refused grow usually ends in
/// an allocator abort (`unreachable`), whose real cause is the cap.
pub(crate) fn classify(e: &wasmtime::Error, hit: Option<LimitHit>) -> TrapKind {
    if let Some(hit) = hit {
        return TrapKind::LimitExceeded(match hit {
            LimitHit::Memory { cap, wanted } => format!(
                "memory cap of {} MiB exceeded (asked for {} MiB)",
                cap >> 20,
                wanted.div_ceil(1 << 20)
            ),
            LimitHit::Table { cap } => format!("table cap of {cap} elements exceeded"),
        });
    }
    match e.downcast_ref::<wasmtime::Trap>() {
        Some(wasmtime::Trap::UnreachableCodeReached) => TrapKind::Unreachable,
        Some(wasmtime::Trap::Interrupt) => TrapKind::Deadline,
        Some(wasmtime::Trap::StackOverflow) => TrapKind::StackOverflow,
        Some(t) => TrapKind::Other(t.to_string()),
        None => TrapKind::Other(e.to_string()),
    }
}

type Job = Box<dyn FnOnce(&mut Live) -> Result<(), InstanceError> + Send>;

/// The handle of one instance. Dropping it ends the thread and drops the Store.
pub struct Instance {
    ident: Identity,
    jobs: mpsc::Sender<Job>,
    discarded: Arc<Mutex<Option<String>>>,
    timeout: Duration,
    /// The guest's stderr (shared with the Store's pipe), for the trace of a timeout.
    stderr: GuestOutput,
}

impl Instance {
    /// Starts the instance thread and instantiates there with `make`. Instantiation runs
    /// guest start functions, so it is bounded like any call. `stderr` is the capture
    /// `make` gives the Store.
    pub(crate) async fn spawn(
        ident: Identity,
        limits: SandboxLimits,
        stderr: GuestOutput,
        make: impl FnOnce() -> Result<Live, InstanceError> + Send + 'static,
    ) -> Result<Self, InstanceError> {
        let (jobs, rx) = mpsc::channel::<Job>();
        let (ready_tx, ready_rx) = oneshot::channel();
        let discarded = Arc::new(Mutex::new(None));
        let flag = discarded.clone();
        thread::Builder::new()
            .name(format!("wasm-{ident}"))
            .stack_size(THREAD_STACK)
            .spawn(move || {
                let mut live = match make() {
                    Ok(live) => {
                        let _ = ready_tx.send(Ok(()));
                        live
                    }
                    Err(e) => {
                        let _ = ready_tx.send(Err(e));
                        return;
                    }
                };
                while let Some(job) = next_job(&rx) {
                    if let Err(e) = job(&mut live) {
                        // The Store is dropped with `live` as this thread returns.
                        set_discarded(&flag, &e);
                        return;
                    }
                }
            })
            .map_err(|e| InstanceError::Instantiate(format!("cannot start a thread: {e}")))?;
        let timeout = limits.call_deadline + TIMEOUT_GRACE;
        match tokio::time::timeout(timeout, ready_rx).await {
            Ok(Ok(Ok(()))) => Ok(Self { ident, jobs, discarded, timeout, stderr }),
            Ok(Ok(Err(e))) => Err(e),
            Ok(Err(_)) => Err(InstanceError::Instantiate("the instance thread died".into())),
            Err(_) => Err(InstanceError::Timeout {
                call: "instantiate",
                after: timeout,
                stderr: stderr.tail(),
            }),
        }
    }

    /// Who this instance runs for.
    pub fn ident(&self) -> &Identity {
        &self.ident
    }

    /// Whether an earlier failure discarded the instance.
    pub fn is_discarded(&self) -> bool {
        self.discarded.lock().unwrap_or_else(|p| p.into_inner()).is_some()
    }

    /// Bytes of linear memory the instance uses now, summed over its memories (what the
    /// memory cap is checked against). Runs no guest code.
    pub async fn memory_used(&self) -> Result<usize, InstanceError> {
        self.call("memory-used", |live| Ok(live.store.data().limiter.memory_used())).await
    }

    /// Runs `f` on the instance thread and waits for its answer. An error that is fatal
    /// to the instance discards it.
    pub(crate) async fn call<R: Send + 'static>(
        &self,
        call: &'static str,
        f: impl FnOnce(&mut Live) -> Result<R, InstanceError> + Send + 'static,
    ) -> Result<R, InstanceError> {
        if let Some(why) = self.discarded.lock().unwrap_or_else(|p| p.into_inner()).clone() {
            return Err(InstanceError::Discarded(why));
        }
        let (tx, rx) = oneshot::channel();
        let job: Job = Box::new(move |live| {
            let result = f(live);
            let fatal = match &result {
                Err(e) if e.is_fatal_to_instance() => Some(e.clone()),
                _ => None,
            };
            let _ = tx.send(result);
            fatal.map_or(Ok(()), Err)
        });
        if self.jobs.send(job).is_err() {
            let why = self.discarded.lock().unwrap_or_else(|p| p.into_inner()).clone();
            return Err(InstanceError::Discarded(
                why.unwrap_or_else(|| "the instance ended".into()),
            ));
        }
        match tokio::time::timeout(self.timeout, rx).await {
            Ok(Ok(result)) => result,
            Ok(Err(_)) => Err(InstanceError::Discarded("the instance thread ended".into())),
            Err(_) => {
                let stderr = self.stderr.tail();
                let e = InstanceError::Timeout { call, after: self.timeout, stderr };
                set_discarded(&self.discarded, &e);
                Err(e)
            }
        }
    }
}

/// How long an instance thread keeps looking for the next call before it parks. Calls
/// come in bursts (a task's poll loop); parking and waking an OS thread costs tens of
/// microseconds on a small VM, a short spin only while a caller is active.
const SPIN: Duration = Duration::from_micros(50);

/// The next job: spins briefly, then blocks. `None` once the handle is dropped.
fn next_job(rx: &mpsc::Receiver<Job>) -> Option<Job> {
    let start = std::time::Instant::now();
    loop {
        match rx.try_recv() {
            Ok(job) => return Some(job),
            Err(mpsc::TryRecvError::Disconnected) => return None,
            Err(mpsc::TryRecvError::Empty) if start.elapsed() < SPIN => thread::yield_now(),
            Err(mpsc::TryRecvError::Empty) => return rx.recv().ok(),
        }
    }
}

fn set_discarded(flag: &Mutex<Option<String>>, e: &InstanceError) {
    flag.lock().unwrap_or_else(|p| p.into_inner()).get_or_insert_with(|| e.to_string());
}
