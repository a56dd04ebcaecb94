//! One running instance: a Store behind an async lock, and the handle the rest of the
//! worker calls it through. No instance owns an OS thread.
//!
//! Guest calls are wasmtime async calls (`call_async` on a fiber stack from the pool).
//! They run on the runtime's guest executor ([`GuestExecutor`]): a small tokio runtime
//! of its own, so plugin code never runs on the herder's or REST's threads. The epoch
//! ticker interrupts the guest every tick; the deadline callback then either yields to
//! the executor (so a guest computing forever cannot starve the other instances on the
//! same threads) or, once the call's budget (`SandboxLimits::call_deadline`, wall clock
//! from the start of the call) is spent, traps with [`TrapKind::Deadline`]. A wall-clock
//! timeout around the whole call (budget plus a grace) covers host-side waits too.
//!
//! A trap, a timeout, an oversized or malformed result discards the instance: its Store
//! is dropped and every later call answers [`InstanceError::Discarded`] at once. A call
//! stopped midway (its wall-clock timeout fired; the fiber is dropped where it stands)
//! leaves guest state half changed, so it discards the instance as well. A caller that
//! stops waiting does not stop the call: it runs to its end on the executor. Calls on
//! one instance run one at a time, in order. Nothing here decides what happens next;
//! the caller reports the failure.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::{Mutex as AsyncMutex, OwnedMutexGuard};
use tokio::task::JoinHandle;
use wasmtime::{Store, StoreContextMut, UpdateDeadline};

use super::bindings::{connector, exactly_once, sink_task, source_task, transformation};
use super::error::{InstanceError, TrapKind, guest_detail};
use super::executor::{GuestExecutor, finish};
use super::limits::{LimitHit, SandboxLimits};
use super::state::{Identity, InstanceState};
use super::stdio::GuestOutput;

/// Extra wall-clock time beyond the call budget before a call counts as hung.
const TIMEOUT_GRACE: Duration = Duration::from_secs(2);

/// A boxed guest-call future borrowing the instance.
pub(crate) type CallFuture<'a, R> =
    Pin<Box<dyn Future<Output = Result<R, InstanceError>> + Send + 'a>>;

/// The exports of one instance, resolved once.
pub(crate) struct Exports {
    pub connector: Option<connector::Guest>,
    pub source: Option<source_task::Guest>,
    /// `None` for a plugin that does not answer the exactly-once questions.
    pub exactly_once: Option<exactly_once::Guest>,
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

/// A boxed call of a guest export, borrowing the exports and the Store.
pub(crate) type GuestFuture<'a, R> = Pin<Box<dyn Future<Output = wasmtime::Result<R>> + Send + 'a>>;

/// What a call works on: the Store and what was resolved from it.
pub(crate) struct Live {
    pub store: Store<InstanceState>,
    pub exports: Exports,
    pub stderr: GuestOutput,
    pub limits: SandboxLimits,
}

impl Live {
    /// One guest call named `call`: `f` calls an export with the Store, e.g.
    /// `|g, s| Box::pin(g.source().call_commit(s))`. Starts the call's budget (the deadline
    /// callback traps once it is spent), awaits the call and classifies a trap.
    pub async fn guest<R>(
        &mut self,
        call: &'static str,
        f: impl for<'a> FnOnce(&'a Exports, &'a mut Store<InstanceState>) -> GuestFuture<'a, R>,
    ) -> Result<R, InstanceError> {
        begin(&mut self.store, &self.limits);
        let r = f(&self.exports, &mut self.store).await;
        r.map_err(|e| trap(&self.store, &self.stderr, call, e))
    }
}

/// Arms `store` for epoch yields: every tick the guest yields to the executor, and traps
/// as a deadline once the call started by [`begin`] is past its budget.
pub(crate) fn arm(store: &mut Store<InstanceState>) {
    store.epoch_deadline_callback(|ctx: StoreContextMut<'_, InstanceState>| {
        if Instant::now() >= ctx.data().deadline {
            Ok(UpdateDeadline::Interrupt)
        } else {
            Ok(UpdateDeadline::Yield(1))
        }
    });
}

/// Starts the budget of a call (or of an instantiation) in `store`.
pub(crate) fn begin(store: &mut Store<InstanceState>, limits: &SandboxLimits) {
    store.data_mut().deadline = Instant::now() + limits.call_deadline;
    store.set_epoch_deadline(1);
}

/// The error of a trapped call, with the limit hit, memory in use and stderr tail.
pub(crate) fn trap(
    store: &Store<InstanceState>,
    stderr: &GuestOutput,
    call: &'static str,
    e: wasmtime::Error,
) -> InstanceError {
    let limiter = &store.data().limiter;
    let kind = classify(&e, limiter.hit());
    let detail =
        format!("{}\nlinear memory in use: {} KiB", guest_detail(&e), limiter.memory_used() >> 10);
    let mut tail = stderr.tail();
    if stderr.dropped() > 0 {
        tail.push(format!("({} bytes of output over the limit were dropped)", stderr.dropped()));
    }
    let logged = store.data().log.dropped();
    if logged > 0 {
        tail.push(format!("({logged} bytes of log calls over the limit were dropped)"));
    }
    InstanceError::Trap { call, kind, detail, stderr: tail }
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

/// The handle of one instance. Dropping it drops the Store (once a running call ends).
pub struct Instance {
    ident: Identity,
    live: Arc<AsyncMutex<Option<Live>>>,
    discarded: Arc<Mutex<Option<String>>>,
    timeout: Duration,
    executor: GuestExecutor,
    /// The guest's stderr (shared with the Store's pipe), for the trace of a timeout.
    stderr: GuestOutput,
}

impl Instance {
    /// Instantiates with `make` on `executor`. Instantiation runs guest start functions,
    /// so it is bounded like any call. `stderr` is the capture `make` gives the Store.
    pub(crate) async fn spawn(
        ident: Identity,
        limits: SandboxLimits,
        stderr: GuestOutput,
        executor: GuestExecutor,
        make: impl Future<Output = Result<Live, InstanceError>> + Send + 'static,
    ) -> Result<Self, InstanceError> {
        let timeout = limits.call_deadline + TIMEOUT_GRACE;
        match executor.run(timeout, make).await {
            Some(Ok(live)) => Ok(Self {
                ident,
                live: Arc::new(AsyncMutex::new(Some(live))),
                discarded: Arc::new(Mutex::new(None)),
                timeout,
                executor,
                stderr,
            }),
            Some(Err(e)) => Err(e),
            None => Err(InstanceError::Timeout {
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
        self.call("memory-used", |live| {
            Box::pin(async move { Ok(live.store.data().limiter.memory_used()) })
        })
        .await
    }

    /// One guest call named `call` ([`Live::guest`]) on the guest executor, as [`call`]
    /// runs it.
    ///
    /// [`call`]: Self::call
    pub(crate) async fn guest<R: Send + 'static>(
        &self,
        call: &'static str,
        f: impl for<'a> FnOnce(&'a Exports, &'a mut Store<InstanceState>) -> GuestFuture<'a, R>
        + Send
        + 'static,
    ) -> Result<R, InstanceError> {
        self.call(call, move |live| Box::pin(live.guest(call, f))).await
    }

    /// Runs `f` on the guest executor and waits for its answer, at most the call timeout.
    /// An error that is fatal to the instance discards it.
    pub(crate) async fn call<R: Send + 'static>(
        &self,
        call: &'static str,
        f: impl for<'a> FnOnce(&'a mut Live) -> CallFuture<'a, R> + Send + 'static,
    ) -> Result<R, InstanceError> {
        self.start(call, f).finish().await
    }

    /// Starts `f` on the guest executor at once, as [`call`](Self::call) runs it, and
    /// returns without waiting: [`Started::finish`] waits for the answer, within the call
    /// timeout counted from now. Calls on the instance still run one at a time.
    pub(crate) fn start<R: Send + 'static>(
        &self,
        call: &'static str,
        f: impl for<'a> FnOnce(&'a mut Live) -> CallFuture<'a, R> + Send + 'static,
    ) -> Started<R> {
        let deadline = tokio::time::Instant::now() + self.timeout;
        let discarded = self.discarded.clone();
        let stderr = self.stderr.clone();
        let already = discarded.lock().unwrap_or_else(|p| p.into_inner()).clone();
        if let Some(why) = already {
            return Started {
                call,
                task: Err(why),
                deadline,
                discarded,
                stderr,
                timeout: self.timeout,
            };
        }
        let slot = self.live.clone();
        let flag = self.discarded.clone();
        let work = async move {
            let mut held = Held { guard: slot.lock_owned().await, flag: flag.clone(), done: false };
            let Some(live) = held.guard.as_mut() else {
                return Err(discarded_error(&flag));
            };
            let result = f(live).await;
            held.done = true;
            if let Err(e) = &result
                && e.is_fatal_to_instance()
            {
                set_discarded(&flag, e);
                *held.guard = None;
            }
            result
        };
        Started {
            call,
            task: Ok(self.executor.start(work)),
            deadline,
            discarded,
            stderr,
            timeout: self.timeout,
        }
    }
}

/// A guest call started and not yet waited for ([`Instance::start`]). Dropped unfinished,
/// the call still runs to its end on the executor (its answer is lost).
pub(crate) struct Started<R> {
    call: &'static str,
    /// The running call, or why the instance was already discarded.
    task: Result<JoinHandle<Result<R, InstanceError>>, String>,
    deadline: tokio::time::Instant,
    discarded: Arc<Mutex<Option<String>>>,
    stderr: GuestOutput,
    timeout: Duration,
}

impl<R> Started<R> {
    /// The call's answer, waiting for it until its timeout (which discards the instance).
    pub(crate) async fn finish(self) -> Result<R, InstanceError> {
        let task = self.task.map_err(InstanceError::Discarded)?;
        match finish(task, self.deadline).await {
            Some(result) => result,
            None => {
                let stderr = self.stderr.tail();
                let e = InstanceError::Timeout { call: self.call, after: self.timeout, stderr };
                set_discarded(&self.discarded, &e);
                Err(e)
            }
        }
    }
}

/// The Store lock held by a call. Dropped before the call ended (a timeout, a dropped
/// future), it drops the Store: the guest stopped midway and its state cannot be
/// trusted.
struct Held {
    guard: OwnedMutexGuard<Option<Live>>,
    flag: Arc<Mutex<Option<String>>>,
    done: bool,
}

impl Drop for Held {
    fn drop(&mut self) {
        if !self.done && self.guard.take().is_some() {
            self.flag
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .get_or_insert_with(|| "a call was stopped midway".into());
        }
    }
}

fn discarded_error(flag: &Mutex<Option<String>>) -> InstanceError {
    let why = flag.lock().unwrap_or_else(|p| p.into_inner()).clone();
    InstanceError::Discarded(why.unwrap_or_else(|| "a call was stopped midway".into()))
}

fn set_discarded(flag: &Mutex<Option<String>>, e: &InstanceError) {
    flag.lock().unwrap_or_else(|p| p.into_inner()).get_or_insert_with(|| e.to_string());
}
