//! The herder's state and its loop: one task that `select!`s over requests, worker
//! events, config-topic records, group reports, write results and due timers, and is the
//! only code that changes connector state. Nothing in the loop awaits a store, the broker or
//! plugin code: config-topic writes complete through the write pipeline ([`Writes`]), whose
//! completions this file dispatches, other work started off the loop as [`Internal`]
//! messages, and instances report as worker events.
//!
//! The files that add `impl Herder` blocks by concern (`requests`, `gate`, `events`,
//! `restarts`, `group`, `peers`, `reconfigure`, `recovery`, `offsets`, `apply`) use this one;
//! this one uses none of them, only the nouns it holds, and calls their methods on `self`.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use tokio::sync::{mpsc, oneshot, watch};
use tokio::time::Instant;

use super::auto_restart::AutoRestarts;
use super::command::{Command, Reply};
use super::config_log::{ConfigLog, FollowerMsg};
use super::fence_rounds::{FenceRounds, RoundError};
use super::group_link::{GroupLink, config_view};
use super::instances::Instances;
use super::member_spec::{MemberSpec, Peers};
use super::reconcile::Action;
use super::restart_queue::RestartQueue;
use super::retry_chain::RetryChains;
use super::runner::Runner;
use super::settings::HerderSettings;
use super::shutdown::Shutdown;
use super::snapshot::{Made, Publisher};
use super::typed::Typed;
use super::writes::{AfterSync, Done, Queued, Then, Write, Writes};
use super::zombie_fencing::Fencing;
use super::{HerderError, HerderHandle, Membership, PutOutcome, SinkOffsets};
use crate::model::InstanceId;
use crate::store::{
    ConfigRecord, ConfigState, LogEntry, LogTopic, OffsetStores, StatusStore, StoreError,
};
use crate::worker::{PluginRegistry, Plugins, PluginsScanned, Worker, WorkerEvent};

/// Everything the herder owns.
pub(super) struct Herder {
    pub member: Membership,
    /// The member loop, in distributed mode.
    pub group: Option<GroupLink>,
    /// The offset of the next config-topic record to apply.
    pub config_offset: i64,
    /// Requests waiting for a rebalance to complete, with the time they are answered 409.
    pub deferred: Vec<(Instant, Command)>,
    /// The other workers, in distributed mode.
    pub peers: Option<Peers>,
    /// How the leader fences zombie producers (KIP-618), in distributed mode.
    pub fencing: Option<Fencing>,
    /// The fencing rounds this worker asked for before starting tasks (`fence_gate`).
    pub fence_rounds: FenceRounds,
    /// Leader only: the connectors whose fencing round runs, the task-config generation
    /// it was planned for, and the requests for that generation that came while it ran;
    /// they get its answer (`fence`).
    pub fence_joiners: HashMap<String, (u64, Vec<Reply<()>>)>,
    /// Leader only: no new session-key write before this (one is under way, or failed).
    pub key_retry_at: Option<Instant>,
    /// Where work started off the loop reports ([`Internal`]).
    pub internal_tx: mpsc::UnboundedSender<Internal>,
    internal_rx: mpsc::UnboundedReceiver<Internal>,
    pub settings: HerderSettings,
    pub config: ConfigState,
    /// Each connector's parsed config, in step with `config`.
    pub typed: Typed,
    /// The write pipeline: config-topic writes under way and the requests queued behind
    /// them.
    pub writes: Writes,
    /// The config topic's follower: every record, in order, and sync markers.
    follower: mpsc::UnboundedReceiver<FollowerMsg>,
    pub status: Arc<StatusStore>,
    /// Starts instances (the worker; a fake in unit tests).
    pub runner: Box<dyn Runner>,
    /// The installed plugins, as the plugin path's last scan found them, published to the
    /// handles.
    pub registry: watch::Sender<PluginRegistry>,
    /// The plugin path's rescans (`plugin_changes`); `None` once the watch has ended.
    plugin_scans: Option<mpsc::UnboundedReceiver<PluginsScanned>>,
    /// How many rescans changed the installed plugins (snapshots show their versions).
    pub plugin_changes: u64,
    /// Source connectors' offsets.
    pub offsets: Arc<OffsetStores>,
    /// Sink connectors' consumer-group offsets.
    pub sink_offsets: Arc<dyn SinkOffsets>,
    /// What the instances report.
    events: mpsc::UnboundedReceiver<WorkerEvent>,
    /// Every instance running, failed or waited on here.
    pub instances: Instances,
    /// Restart requests read from the config topic, waiting to be executed.
    pub pending_restarts: RestartQueue,
    /// Task reconfiguration retries, one chain per connector.
    pub chains: RetryChains,
    /// Restart counts and waiting restarts of the restart policies.
    pub auto_restarts: AutoRestarts,
    /// Connectors whose running state must be compared with the config.
    pub dirty: BTreeSet<String>,
    /// The shutdown under way, if any.
    pub shutting_down: Option<Shutdown>,
    /// What reads see ([`super::snapshot`]), republished at the end of a turn.
    snapshot: Publisher,
    /// Why this worker cannot go on, once it cannot ([`Herder::fail`]).
    fatal: tokio::sync::watch::Sender<Option<String>>,
}

/// Results of work the herder started off its loop, other than config-topic writes (the
/// write pipeline reports on its own channel).
pub(super) enum Internal {
    /// The leader answered a follower's task configs.
    TaskConfigsSubmitted { connector: String, result: Result<(), String> },
    /// A zombie fencing's producers were fenced, or not: the task-count record is next.
    ZombiesFenced {
        connector: String,
        /// The task count to record.
        tasks: u32,
        /// The task-config generation the fencing was planned for.
        generation: u64,
        result: Result<(), String>,
        reply: Reply<()>,
    },
    /// Leader only: the fencing round of `connector` was answered; the requests that joined
    /// it get the same answer.
    FenceAnswered { connector: String, result: Result<(), HerderError> },
    /// A fencing round this worker asked for before starting tasks ended.
    FenceRoundEnded {
        connector: String,
        /// The task-config generation it was asked for.
        generation: u64,
        result: Result<(), RoundError>,
    },
}

/// What the herder drives besides the stores: the runner, and where plugins and source
/// offsets come from.
pub(super) struct Parts {
    pub runner: Box<dyn Runner>,
    pub plugins: Plugins,
    pub offsets: Arc<OffsetStores>,
}

/// The worker the herder drives, what it reports, and the installed plugins.
pub struct Workload {
    /// Starts instances.
    pub worker: Worker,
    /// What the instances report.
    pub events: mpsc::UnboundedReceiver<WorkerEvent>,
    /// The installed plugins and the watch of the plugin path.
    pub plugins: Plugins,
}

/// Reads the config topic to its end, starts the loop and returns its handle. Source
/// offsets come from the worker's offsets store, sink offsets from `sink_offsets`.
pub async fn spawn(
    config_topic: Arc<dyn LogTopic>,
    status: Arc<StatusStore>,
    workload: Workload,
    sink_offsets: Arc<dyn SinkOffsets>,
    member: MemberSpec,
    settings: HerderSettings,
) -> Result<HerderHandle, StoreError> {
    let Workload { worker, events, plugins } = workload;
    let parts = Parts { plugins, offsets: worker.offsets().clone(), runner: Box::new(worker) };
    spawn_with(config_topic, status, parts, sink_offsets, events, member, settings).await
}

/// [`spawn`] with any [`Runner`].
pub(super) async fn spawn_with(
    config_topic: Arc<dyn LogTopic>,
    status: Arc<StatusStore>,
    parts: Parts,
    sink_offsets: Arc<dyn SinkOffsets>,
    events: mpsc::UnboundedReceiver<WorkerEvent>,
    member: MemberSpec,
    settings: HerderSettings,
) -> Result<HerderHandle, StoreError> {
    let mut reader = config_topic.reader().await?;
    let mut config = ConfigState::default();
    let initial = reader.read_to_end().await?;
    apply_entries(&mut config, &initial);
    config.finish_initial_read();
    let config_offset = next_offset(&initial).unwrap_or(0);
    tracing::info!(
        records = initial.len(),
        connectors = config.connectors().count(),
        "Read the config topic"
    );
    // The leader's config-topic writes go in transactions (KIP-618) in a group.
    let leader = match &member {
        MemberSpec::Group { settings: group, .. }
            if settings.exactly_once_source_support.transactional_leader() =>
        {
            Some((group.group_id.clone(), group.client_id.clone()))
        }
        _ => None,
    };
    let (config_log, follower) = ConfigLog::start(config_topic, reader);
    let config_log = match leader {
        Some((group_id, client_id)) => config_log.with_leader(&group_id, &client_id),
        None => config_log,
    };
    let Plugins { registry, watch: plugin_watch, scans: plugin_scans } = parts.plugins;
    let (registry_out, registries) = watch::channel(registry.clone());
    let mut typed = Typed::default();
    typed.sync(&config, &registry, &settings.reconfiguration);
    let (tx, rx) = mpsc::channel(256);
    let dirty = config.connectors().map(str::to_owned).collect();
    let policy_defaults = settings.reconfiguration.clone();
    let override_policy = settings.override_policy;
    let exactly_once = settings.exactly_once_source_support;
    let providers = settings.providers.clone();
    let loggers = settings.loggers.clone();
    let (fatal_tx, fatal) = tokio::sync::watch::channel(None);
    let (member, group, peers, fencing) = match member {
        MemberSpec::Single { worker_id, url } => {
            (Membership::single(worker_id, url), None, None, None)
        }
        MemberSpec::Group { worker_id, settings, peers } => {
            let member = Membership::group(worker_id);
            let view = config_view(&config, config_offset);
            let fencing = Fencing::new(&settings);
            let link = GroupLink::start(settings, view);
            (member, Some(link), Some(peers), Some(fencing))
        }
    };
    let (internal_tx, internal_rx) = mpsc::unbounded_channel();
    let (snapshot, snapshots) = Publisher::new();
    let mut herder = Herder {
        member,
        group,
        config_offset,
        deferred: Vec::new(),
        peers,
        fencing,
        fence_rounds: FenceRounds::default(),
        fence_joiners: HashMap::new(),
        key_retry_at: None,
        internal_tx,
        internal_rx,
        settings,
        config,
        typed,
        writes: Writes::new(config_log),
        follower,
        status: status.clone(),
        runner: parts.runner,
        registry: registry_out,
        plugin_scans: Some(plugin_scans),
        plugin_changes: 0,
        offsets: parts.offsets,
        sink_offsets,
        events,
        instances: Instances::default(),
        pending_restarts: RestartQueue::default(),
        chains: RetryChains::default(),
        auto_restarts: AutoRestarts::default(),
        dirty,
        shutting_down: None,
        snapshot,
        fatal: fatal_tx,
    };
    herder.share_session_key();
    herder.publish_snapshot();
    tokio::spawn(herder.run(rx));
    Ok(HerderHandle {
        tx,
        registries,
        plugin_watch,
        status,
        policy_defaults,
        override_policy,
        exactly_once,
        providers,
        loggers,
        snapshots,
        fatal,
    })
}

/// The offset after the last of `entries`.
pub(super) fn next_offset(entries: &[LogEntry]) -> Option<i64> {
    entries.iter().map(|e| e.offset + 1).max()
}

/// Applies config-topic entries to a state, logging and skipping records it cannot read.
/// Returns the events.
pub(super) fn apply_entries(
    config: &mut ConfigState,
    entries: &[LogEntry],
) -> Vec<crate::store::ConfigEvent> {
    let mut events = Vec::new();
    for e in entries {
        match ConfigRecord::parse(e.key.as_deref(), e.value.as_deref()) {
            Ok(record) => events.extend(config.apply(record)),
            Err(err) => {
                tracing::warn!(offset = e.offset, error = %err, "Skipping a config topic record")
            }
        }
    }
    events
}

enum Wake {
    Command(Option<Command>),
    Worker(Option<WorkerEvent>),
    Config(Option<FollowerMsg>),
    Group(Option<wasm_connect_group::GroupEvent>),
    Internal(Option<Internal>),
    Plugins(Option<PluginsScanned>),
    Written(Option<Result<(), StoreError>>),
    Due,
}

impl Herder {
    async fn run(mut self, mut commands: mpsc::Receiver<Command>) {
        self.reconcile_dirty();
        loop {
            let next_due = [
                self.chains.next_due(),
                self.auto_restarts.next_due(),
                self.next_deferred_due(),
                self.next_key_rotation(),
                self.writes.next_due(),
                self.shutting_down.as_ref().map(Shutdown::instances_due),
            ]
            .into_iter()
            .flatten()
            .min();
            let scans = self.plugin_scans.as_mut();
            let plugin_scans = async move {
                match scans {
                    Some(rx) => rx.recv().await,
                    None => std::future::pending().await,
                }
            };
            let group = self.group.as_mut();
            let group_events = async move {
                match group {
                    Some(link) => link.next_event().await,
                    None => std::future::pending().await,
                }
            };
            let wake = tokio::select! {
                c = commands.recv(), if self.shutting_down.is_none() => Wake::Command(c),
                e = self.events.recv() => Wake::Worker(e),
                m = self.follower.recv() => Wake::Config(m),
                g = group_events => Wake::Group(g),
                i = self.internal_rx.recv() => Wake::Internal(i),
                p = plugin_scans => Wake::Plugins(p),
                w = self.writes.result() => Wake::Written(w),
                _ = sleep_until(next_due) => Wake::Due,
            };
            match wake {
                Wake::Command(Some(c)) => {
                    if let Some(c) = self.admit(c) {
                        self.command(c);
                    }
                }
                Wake::Group(Some(e)) if self.shutting_down.is_some() => {
                    // Everything here is stopping; the group is left at the end.
                    tracing::debug!(event = ?e, "Ignoring a group event during shutdown");
                }
                Wake::Group(Some(e)) => {
                    self.group_event(e);
                    self.run_deferred();
                }
                Wake::Group(None) => {
                    if self.group.take().is_some() && self.shutting_down.is_none() {
                        tracing::error!("The group member loop ended; stopping all work here");
                        self.member.lost();
                        self.mark_all_dirty();
                    }
                }
                Wake::Command(None) => self.begin_shutdown(None),
                Wake::Worker(Some(e)) => self.worker_event(e),
                Wake::Config(Some(m)) => self.follower_msg(m),
                Wake::Internal(Some(i)) => self.internal(i),
                Wake::Plugins(Some(scanned)) => self.plugins_scanned(scanned),
                Wake::Plugins(None) => self.plugin_scans = None,
                Wake::Written(Some(result)) => {
                    let done = self.writes.written(result);
                    self.dispatch_writes(done);
                }
                Wake::Worker(None)
                | Wake::Config(None)
                | Wake::Internal(None)
                | Wake::Written(None) => {}
                Wake::Due => {
                    self.run_due_retries();
                    self.run_due_restarts();
                    self.run_deferred();
                    self.rotate_session_key();
                    let expired = self.writes.expire(Instant::now());
                    self.dispatch_writes(expired);
                }
            }
            if !self.rebalance_pending() {
                self.process_restarts();
            }
            self.reconcile_dirty();
            self.finish_revocation();
            self.publish_snapshot();
            if let Some(shutdown) = self.shutting_down.as_mut() {
                if self.instances.is_idle() {
                    break;
                }
                if shutdown.instances_overdue(Instant::now()) {
                    shutdown.abandon(self.instances.running());
                    break;
                }
            }
        }
        if let Some(shutdown) = self.shutting_down.take() {
            shutdown.finish(&self.status, self.group.take()).await;
        }
    }

    pub(super) fn follower_msg(&mut self, msg: FollowerMsg) {
        match msg {
            FollowerMsg::Entries(entries) => {
                let events = apply_entries(&mut self.config, &entries);
                let registry = self.registry.borrow().clone();
                self.typed.sync(&self.config, &registry, &self.settings.reconfiguration);
                for event in events {
                    self.config_event(event);
                }
                if let Some(next) = next_offset(&entries) {
                    self.config_offset = self.config_offset.max(next);
                }
                self.publish_view();
                self.share_session_key();
            }
            FollowerMsg::Synced(id) => {
                let done = self.writes.synced(id);
                self.dispatch_writes(done);
            }
            FollowerMsg::Error(e @ StoreError::Unreadable(_)) => {
                self.fail(format!("the config topic cannot be read: {e}"));
            }
            FollowerMsg::Error(e) => {
                tracing::warn!(error = %e, "Reading the config topic failed; retrying")
            }
        }
    }

    /// This worker cannot go on (its group refused it, its config store cannot be read):
    /// publishes `message` for the process to shut down and exit
    /// ([`HerderHandle::fatal`](super::HerderHandle::fatal)). The first message stands.
    pub(super) fn fail(&mut self, message: String) {
        if self.fatal.borrow().is_none() {
            tracing::error!(reason = %message, "The worker cannot go on; stopping");
            self.fatal.send_replace(Some(message));
        }
    }

    /// Stops everything; the loop ends once every instance has stopped.
    pub(super) fn begin_shutdown(&mut self, done: Option<oneshot::Sender<()>>) {
        self.shutting_down = Some(Shutdown::begin(self.settings.shutdown, done));
        // No rejoin from now on: the group is left once, after the instances have stopped.
        if let Some(link) = self.group.as_mut() {
            link.stop_joining();
        }
        self.chains.clear();
        self.auto_restarts.cancel_all();
        let running: Vec<InstanceId> = self.instances.running().cloned().collect();
        // Tasks first (they sort after connector instances), then connector instances.
        for id in running.into_iter().rev() {
            self.apply(Action::Stop(id));
        }
        for (_, command) in std::mem::take(&mut self.deferred) {
            command.reject(HerderError::ShuttingDown);
        }
        self.writes.reject_all(HerderError::ShuttingDown);
        self.instances.wake_all(HerderError::ShuttingDown);
    }

    /// Handles the result of work started off the loop.
    fn internal(&mut self, message: Internal) {
        match message {
            Internal::TaskConfigsSubmitted { connector, result: Ok(()) } => {
                tracing::info!(connector = %connector, "The leader wrote the new task configs");
                self.reconfiguration_succeeded(&connector);
            }
            Internal::TaskConfigsSubmitted { connector, result: Err(e) } => {
                if self.instances.is_running(&InstanceId::Connector(connector.clone())) {
                    self.reconfiguration_failed(&connector, &e);
                }
            }
            Internal::ZombiesFenced { connector, tasks, generation, result, reply } => {
                self.zombies_fenced(connector, tasks, generation, result, reply)
            }
            Internal::FenceRoundEnded { connector, generation, result } => {
                self.fence_round_ended(connector, generation, result)
            }
            Internal::FenceAnswered { connector, result } => self.fence_answered(connector, result),
        }
    }

    /// Hands `write` to the write pipeline: now, or after the write in flight. New task
    /// configs are examined when their turn comes: a connector deleted or STOPPED meanwhile
    /// (by a write that was ahead of them) gets none.
    pub(super) fn write(&mut self, write: Write) {
        if self.writes.busy() {
            self.writes.queue(Queued::Write(write));
            return;
        }
        if let Then::TaskConfigs { connector, .. } = &write.then
            && !self.takes_task_configs(connector)
        {
            let connector = connector.clone();
            self.task_configs_dropped(&connector);
            return;
        }
        self.writes.start(write);
    }

    /// Dispatches what the write pipeline completed, in order: after each write, the
    /// requests and writes queued behind it take their turn.
    fn dispatch_writes(&mut self, done: impl IntoIterator<Item = Done>) {
        for done in done {
            match done {
                Done::Written(then, result) => {
                    self.write_completed(then, result);
                    while let Some(queued) = self.writes.next_turn() {
                        match queued {
                            Queued::Command(c) => self.command(c),
                            Queued::Write(w) => self.write(w),
                        }
                    }
                }
                Done::Synced(after, result) => self.sync_completed(after, result),
            }
        }
    }

    /// What follows a completed config-topic write, standalone or in a group.
    fn write_completed(&mut self, then: Then, result: Result<(), HerderError>) {
        match then {
            Then::Put { name, created, tasks, reply } => {
                let r = result.and_then(|()| {
                    let mut info =
                        self.info(&name).ok_or_else(|| HerderError::connector_not_found(&name))?;
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

    /// What follows the config topic read to its end (or not, in time).
    fn sync_completed(&mut self, after: AfterSync, result: Result<(), HerderError>) {
        match after {
            AfterSync::Offsets(command) => match result {
                Ok(()) => self.offsets_synced(command),
                Err(e) => command.reject(e),
            },
            AfterSync::Fence(name, reply) => match result {
                Ok(()) => self.fence_synced(name, reply),
                Err(e) => drop(reply.send(Err(e))),
            },
            AfterSync::Assigned(a) => {
                if let Err(e) = &result {
                    tracing::warn!(error = %e, "Could not catch up with the config topic");
                }
                self.assigned_caught_up(a);
            }
        }
    }

    /// Publishes what reads see, if it changed this turn.
    fn publish_snapshot(&mut self) {
        let made = Made {
            plugins: self.plugin_changes,
            config_offset: self.config_offset,
            accepting: self.shutting_down.is_none(),
            settled: !self.member.in_group() || !self.rebalance_pending(),
        };
        self.snapshot.publish(made, &self.config, &self.typed);
    }
}

async fn sleep_until(due: Option<Instant>) {
    match due {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}
