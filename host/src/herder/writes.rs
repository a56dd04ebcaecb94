//! Config-topic writes that never hold up the loop. A write runs in its own task; its
//! result comes back as an [`Internal::Written`] message, and the follower's sync marker
//! tells when the loop has applied it. Meanwhile the loop goes on: reads are answered,
//! worker and group events handled, other requests admitted.
//!
//! Writes keep the order and the checks of a herder that did them one at a time: one
//! write is in flight, with its read-back; the next request that writes waits in a queue
//! and is examined (does the connector exist? is it stopped?) only when its turn comes, so
//! it sees every earlier write applied. A request waiting on a write is answered when the
//! write and its read-back complete, or fails on its own: the store's own timeout, or
//! [`SYNC_TIMEOUT`] for the read-back.
//!
//! Requests that only need the config topic read to its end (offset changes, an
//! assignment computed from newer configs) wait for a sync without a write and do not
//! queue behind writes.

use std::collections::VecDeque;
use std::time::Duration;

use tokio::time::Instant;

use super::actor::Herder;
use super::peers::Internal;
use super::{Command, HerderError, PutOutcome, Reply, RestartOutcome, RestartRequest};
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
}

/// What waits for the follower to read to the end, without a write.
pub(super) enum AfterSync {
    /// The offsets of a connector are to be altered or reset.
    Offsets(Command),
    /// A rebalance completed with an assignment made from newer configs.
    Assigned(wasm_connect_group::Assigned),
}

/// A write to the config topic: its records, what they are (for the error), what follows.
pub(super) struct Write {
    pub records: Vec<ConfigRecord>,
    pub context: String,
    pub then: Then,
}

enum Queued {
    /// A request that writes, examined when its turn comes.
    Command(Command),
    /// A write the herder makes itself.
    Write(Write),
}

/// The write in flight.
struct InFlight {
    context: String,
    then: Then,
    /// Set once the write is durable: the sync marker to wait for, and until when.
    syncing: Option<(u64, Instant)>,
}

/// The write pipeline's state.
#[derive(Default)]
pub(super) struct Writes {
    in_flight: Option<InFlight>,
    queue: VecDeque<Queued>,
    syncs: Vec<(u64, Instant, AfterSync)>,
}

impl Writes {
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

    /// Queues a request that writes until the write in flight completes.
    pub fn queue_command(&mut self, command: Command) {
        self.queue.push_back(Queued::Command(command));
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
            if let AfterSync::Offsets(c) = after {
                c.reject(error.clone());
            }
        }
    }
}

impl Then {
    fn reject(self, error: HerderError) {
        match self {
            Then::Put { reply, .. } => drop(reply.send(Err(error))),
            Then::Done(r) | Then::LoggerLevel(r) => drop(r.send(Err(error))),
            Then::Restart { reply, .. } => drop(reply.send(Err(error))),
            Then::TaskConfigs { .. } | Then::SessionKey => {}
        }
    }
}

impl Herder {
    /// Writes `write` now, or after the write in flight. New task configs are examined
    /// when their turn comes: a connector deleted or STOPPED meanwhile (by a write that
    /// was ahead of them) gets none.
    pub(super) fn write(&mut self, write: Write) {
        if self.writes.busy() {
            self.writes.queue.push_back(Queued::Write(write));
            return;
        }
        if let Then::TaskConfigs { connector, .. } = &write.then
            && !self.takes_task_configs(connector)
        {
            let connector = connector.clone();
            self.task_configs_dropped(&connector);
            return;
        }
        let Write { records, context, then } = write;
        let send = self.config_log.write_owned(records);
        let tx = self.internal_tx.clone();
        tokio::spawn(async move {
            let _ = tx.send(Internal::Written(send.await));
        });
        self.writes.in_flight = Some(InFlight { context, then, syncing: None });
    }

    /// The write in flight was confirmed durable, or failed.
    pub(super) fn written(&mut self, result: Result<(), StoreError>) {
        let Some(f) = self.writes.in_flight.as_mut() else { return };
        match result {
            Ok(()) if f.then.reads_back() => {
                let id = self.config_log.request_sync();
                f.syncing = Some((id, Instant::now() + SYNC_TIMEOUT));
            }
            Ok(()) => self.finish_write(Ok(())),
            Err(source) => {
                let context = f.context.clone();
                self.finish_write(Err(HerderError::Store { context, source }));
            }
        }
    }

    /// Waits for the follower to read to the end, then continues `after`.
    pub(super) fn after_sync(&mut self, after: AfterSync) {
        let id = self.config_log.request_sync();
        self.writes.syncs.push((id, Instant::now() + SYNC_TIMEOUT, after));
    }

    /// The follower has sent everything up to sync marker `got`.
    pub(super) fn synced(&mut self, got: u64) {
        let done =
            self.writes.in_flight.as_ref().and_then(|f| f.syncing).is_some_and(|(id, _)| id <= got);
        if done {
            self.finish_write(Ok(()));
        }
        let (ready, waiting): (Vec<_>, Vec<_>) =
            std::mem::take(&mut self.writes.syncs).into_iter().partition(|(id, _, _)| *id <= got);
        self.writes.syncs = waiting;
        for (_, _, after) in ready {
            self.continue_after_sync(after, Ok(()));
        }
    }

    /// Gives up on read-backs that took longer than [`SYNC_TIMEOUT`].
    pub(super) fn expire_syncs(&mut self) {
        let now = Instant::now();
        let timeout = || HerderError::Store {
            context: "Timed out reading the config topic back".into(),
            source: StoreError::Unavailable(format!(
                "the config topic was not read to its end within {} s",
                SYNC_TIMEOUT.as_secs()
            )),
        };
        let late = self
            .writes
            .in_flight
            .as_ref()
            .and_then(|f| f.syncing)
            .is_some_and(|(_, due)| due <= now);
        if late {
            self.finish_write(Err(timeout()));
        }
        let (expired, waiting): (Vec<_>, Vec<_>) =
            std::mem::take(&mut self.writes.syncs).into_iter().partition(|(_, due, _)| *due <= now);
        self.writes.syncs = waiting;
        for (_, _, after) in expired {
            self.continue_after_sync(after, Err(timeout()));
        }
    }

    /// Completes the write in flight, then starts the next queued one.
    fn finish_write(&mut self, result: Result<(), HerderError>) {
        let Some(f) = self.writes.in_flight.take() else { return };
        self.complete(f.then, result);
        while !self.writes.busy() {
            match self.writes.queue.pop_front() {
                Some(Queued::Command(c)) => self.command(c),
                Some(Queued::Write(w)) => self.write(w),
                None => break,
            }
        }
    }

    /// What follows a completed write.
    fn complete(&mut self, then: Then, result: Result<(), HerderError>) {
        match then {
            Then::Put { name, created, tasks, reply } => {
                let r = result.and_then(|()| {
                    let mut info =
                        self.info(&name).ok_or_else(|| super::commands::not_found(&name))?;
                    info.tasks = tasks;
                    Ok(PutOutcome { created, info })
                });
                let _ = reply.send(r);
            }
            Then::Done(reply) | Then::LoggerLevel(reply) => {
                let _ = reply.send(result);
            }
            Then::Restart { request, reply } => {
                let _ = reply.send(result.and_then(|()| self.answer_restart(request)));
            }
            Then::TaskConfigs { connector, count } => {
                self.task_configs_written(&connector, count, result)
            }
            Then::SessionKey => self.session_key_written(result),
        }
    }

    fn continue_after_sync(&mut self, after: AfterSync, result: Result<(), HerderError>) {
        match after {
            AfterSync::Offsets(command) => match result {
                Ok(()) => self.offsets_synced(command),
                Err(e) => command.reject(e),
            },
            AfterSync::Assigned(a) => {
                if let Err(e) = &result {
                    tracing::warn!(error = %e, "Could not catch up with the config topic");
                }
                self.assigned_caught_up(a);
            }
        }
    }
}
