//! The write pipeline: config-topic writes that never hold up the loop. The pipeline owns
//! the config log's write side; a write runs in its own task, its result comes back on the
//! pipeline's own channel, and the follower's sync marker tells when the loop has applied
//! it. Meanwhile the loop goes on: reads are answered, worker and group events handled,
//! other requests admitted.
//!
//! Writes keep the order and the checks of a herder that did them one at a time: one
//! write is in flight, with its read-back; the next request that writes waits in a queue
//! and is examined (does the connector exist? is it stopped?) only when its turn comes, so
//! it sees every earlier write applied. A request waiting on a write is answered when the
//! write and its read-back complete, or fails on its own: the store's own timeout, or
//! [`SYNC_TIMEOUT`] for the read-back. A failed privileged write of the leader (see
//! `leader_writer.rs`) is answered with Kafka Connect's [`PRIVILEGED_WRITE_FAILED`].
//!
//! Requests that only need the config topic read to its end (offset changes, an
//! assignment computed from newer configs) wait for a sync without a write and do not
//! queue behind writes.
//!
//! The pipeline decides no connector state and answers no request itself (except with an
//! error at shutdown): it returns what completed as [`Done`] values, and what waited as
//! [`Queued`] turns, which the actor dispatches.

use std::collections::VecDeque;
use std::time::Duration;

use tokio::sync::mpsc;
use tokio::time::Instant;

use super::command::{Command, Reply};
use super::config_log::ConfigLog;
use super::leader_writer::PRIVILEGED_WRITE_FAILED;
use super::{HerderError, PutOutcome, RestartOutcome, RestartRequest};
use crate::store::{ConfigRecord, StoreError};

/// How long a request waits for the follower to read back what was written (or to read
/// to the end) before it is answered with an error. The write itself is bounded by the
/// store (the producer's delivery timeout).
pub const SYNC_TIMEOUT: Duration = Duration::from_secs(30);

/// What happens once a write (and its read-back) completes.
pub(super) enum Then {
    /// A connector config: answer with the connector as it is now. `tasks` are its task
    /// ids before the write (Kafka Connect's answer lists those, not regenerated ones).
    Put { name: String, created: bool, tasks: Vec<u32>, reply: Reply<PutOutcome> },
    /// Answer `Ok(())` (delete, target state, task configs from another worker).
    Done(Reply<()>),
    /// A restart request (case B): execute it and answer with its plan.
    Restart { request: RestartRequest, reply: Reply<RestartOutcome> },
    /// A cluster-wide log level: answered once durable, not read back.
    LoggerLevel(Reply<()>),
    /// Task configs this worker's connector generated.
    TaskConfigs { connector: String, count: usize },
    /// The leader's session key.
    SessionKey,
}

impl Then {
    /// Whether the loop must have read the write back before it completes.
    fn reads_back(&self) -> bool {
        !matches!(self, Then::LoggerLevel(_))
    }

    fn reject(self, error: HerderError) {
        match self {
            Then::Put { reply, .. } => drop(reply.send(Err(error))),
            Then::Done(r) | Then::LoggerLevel(r) => drop(r.send(Err(error))),
            Then::Restart { reply, .. } => drop(reply.send(Err(error))),
            Then::TaskConfigs { .. } | Then::SessionKey => {}
        }
    }
}

/// What waits for the follower to read to the end, without a write.
pub(super) enum AfterSync {
    /// The offsets of a connector are to be altered or reset.
    Offsets(Command),
    /// A rebalance completed with an assignment made from newer configs.
    Assigned(wasm_connect_group::Assigned),
    /// A zombie fencing round (KIP-618) for the connector, planned from the topic's end.
    Fence(String, Reply<()>),
}

/// A write to the config topic: its records, what they are (for the error), what follows.
pub(super) struct Write {
    pub records: Vec<ConfigRecord>,
    pub context: String,
    pub then: Then,
}

/// What waits in the queue for the write in flight.
pub(super) enum Queued {
    /// A request that writes, examined when its turn comes.
    Command(Command),
    /// A write the herder makes itself.
    Write(Write),
}

/// What the pipeline hands back to the actor to dispatch, in this order.
pub(super) enum Done {
    /// The write in flight completed (durable and read back), or failed: what follows it.
    Written(Then, Result<(), HerderError>),
    /// The config topic was read to its end for what waited, or the read timed out.
    Synced(AfterSync, Result<(), HerderError>),
}

/// The write in flight.
struct InFlight {
    context: String,
    then: Then,
    /// Set once the write is durable: the sync marker to wait for, and until when.
    syncing: Option<(u64, Instant)>,
}

/// The write pipeline's state.
pub(super) struct Writes {
    log: ConfigLog,
    /// Where the write in flight reports (each write's task holds a sender).
    results_tx: mpsc::UnboundedSender<Result<(), StoreError>>,
    results: mpsc::UnboundedReceiver<Result<(), StoreError>>,
    in_flight: Option<InFlight>,
    queue: VecDeque<Queued>,
    syncs: Vec<(u64, Instant, AfterSync)>,
}

impl Writes {
    /// An idle pipeline writing through `log`.
    pub fn new(log: ConfigLog) -> Self {
        let (results_tx, results) = mpsc::unbounded_channel();
        Self {
            log,
            results_tx,
            results,
            in_flight: None,
            queue: VecDeque::new(),
            syncs: Vec::new(),
        }
    }

    /// This worker leads, or no longer does: the config log's write privileges follow.
    pub fn set_leading(&self, leading: bool) {
        self.log.set_leading(leading);
    }

    /// Whether a write is in flight (the next one must queue).
    pub fn busy(&self) -> bool {
        self.in_flight.is_some()
    }

    /// The connector whose restart request is being written: the request is executed when
    /// its answer is made, not before.
    pub fn restart_in_flight(&self) -> Option<&str> {
        match self.in_flight.as_ref().map(|f| &f.then) {
            Some(Then::Restart { request, .. }) => Some(&request.connector),
            _ => None,
        }
    }

    /// Queues a request that writes, or a write, until the write in flight completes.
    pub fn queue(&mut self, queued: Queued) {
        self.queue.push_back(queued);
    }

    /// The next queued item whose turn has come: `None` while a write is in flight or
    /// nothing waits.
    pub fn next_turn(&mut self) -> Option<Queued> {
        if self.busy() { None } else { self.queue.pop_front() }
    }

    /// Starts `write`, off the loop; its result arrives through [`Writes::result`]. The
    /// caller has checked that no write is in flight.
    pub fn start(&mut self, write: Write) {
        debug_assert!(!self.busy(), "one write in flight");
        let Write { records, context, then } = write;
        let send = self.log.write_owned(records);
        let tx = self.results_tx.clone();
        tokio::spawn(async move {
            let _ = tx.send(send.await);
        });
        self.in_flight = Some(InFlight { context, then, syncing: None });
    }

    /// The result of the write in flight, once the store has it (for the loop's
    /// `select!`).
    pub async fn result(&mut self) -> Option<Result<(), StoreError>> {
        self.results.recv().await
    }

    /// The write in flight was confirmed durable, or failed: what completed, if anything
    /// (a durable write that is read back completes once it is).
    pub fn written(&mut self, result: Result<(), StoreError>) -> Option<Done> {
        let f = self.in_flight.as_mut()?;
        match result {
            Ok(()) if f.then.reads_back() => {
                let id = self.log.request_sync();
                f.syncing = Some((id, Instant::now() + SYNC_TIMEOUT));
                None
            }
            Ok(()) => self.finish(Ok(())),
            Err(StoreError::PrivilegedWrite(cause)) => {
                tracing::error!(error = %cause, context = %f.context, "Failed to write to the config topic");
                self.finish(Err(HerderError::Failed(PRIVILEGED_WRITE_FAILED.to_owned())))
            }
            Err(source) => {
                let context = f.context.clone();
                self.finish(Err(HerderError::Store { context, source }))
            }
        }
    }

    /// Waits for the follower to read to the end, then hands `after` back as
    /// [`Done::Synced`].
    pub fn after_sync(&mut self, after: AfterSync) {
        let id = self.log.request_sync();
        self.syncs.push((id, Instant::now() + SYNC_TIMEOUT, after));
    }

    /// The follower has sent everything up to sync marker `got`: what completed.
    pub fn synced(&mut self, got: u64) -> Vec<Done> {
        let done = self.in_flight.as_ref().and_then(|f| f.syncing).is_some_and(|(id, _)| id <= got);
        let written = if done { self.finish(Ok(())) } else { None };
        let (ready, waiting): (Vec<_>, Vec<_>) =
            std::mem::take(&mut self.syncs).into_iter().partition(|(id, _, _)| *id <= got);
        self.syncs = waiting;
        written
            .into_iter()
            .chain(ready.into_iter().map(|(_, _, a)| Done::Synced(a, Ok(()))))
            .collect()
    }

    /// Gives up on read-backs that took longer than [`SYNC_TIMEOUT`]: what failed.
    pub fn expire(&mut self, now: Instant) -> Vec<Done> {
        let timeout = || HerderError::Store {
            context: "Timed out reading the config topic back".into(),
            source: StoreError::Unavailable(format!(
                "the config topic was not read to its end within {} s",
                SYNC_TIMEOUT.as_secs()
            )),
        };
        let late =
            self.in_flight.as_ref().and_then(|f| f.syncing).is_some_and(|(_, due)| due <= now);
        let written = if late { self.finish(Err(timeout())) } else { None };
        let (expired, waiting): (Vec<_>, Vec<_>) =
            std::mem::take(&mut self.syncs).into_iter().partition(|(_, due, _)| *due <= now);
        self.syncs = waiting;
        let expired = expired.into_iter().map(|(_, _, a)| Done::Synced(a, Err(timeout())));
        written.into_iter().chain(expired).collect()
    }

    /// When the earliest read-back gives up.
    pub fn next_due(&self) -> Option<Instant> {
        let writing = self.in_flight.as_ref().and_then(|f| f.syncing.map(|(_, due)| due));
        writing.into_iter().chain(self.syncs.iter().map(|(_, due, _)| *due)).min()
    }

    /// Answers everything waiting with `error` (shutdown).
    pub fn reject_all(&mut self, error: HerderError) {
        if let Some(f) = self.in_flight.take() {
            f.then.reject(error.clone());
        }
        for q in std::mem::take(&mut self.queue) {
            match q {
                Queued::Command(c) => c.reject(error.clone()),
                Queued::Write(w) => w.then.reject(error.clone()),
            }
        }
        for (_, _, after) in std::mem::take(&mut self.syncs) {
            match after {
                AfterSync::Offsets(c) => c.reject(error.clone()),
                AfterSync::Fence(_, reply) => drop(reply.send(Err(error.clone()))),
                AfterSync::Assigned(_) => {}
            }
        }
    }

    /// Ends the write in flight with `result`.
    fn finish(&mut self, result: Result<(), HerderError>) -> Option<Done> {
        let f = self.in_flight.take()?;
        Some(Done::Written(f.then, result))
    }
}
