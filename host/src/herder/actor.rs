//! The herder's state and its loop: one task that `select!`s over requests, worker
//! events, config-topic records, write results and due retries, and is the only code that
//! changes connector state. Nothing in the loop awaits a store, the broker or plugin code:
//! writes complete as [`Internal`] messages, instances report as worker events.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

use super::auto_restart::AutoRestarts;
use super::config_log::{ConfigLog, FollowerMsg};
use super::group::{GroupLink, MemberSpec, config_view};
use super::instances::Instances;
use super::peers::{Internal, Peers};
use super::reconcile::Action;
use super::retry_chain::RetryChains;
use super::runner::Runner;
use super::snapshot::Publisher;
use super::typed::Typed;
use super::writes::Writes;
use super::{Command, HerderError, HerderHandle, Membership, RestartRequest, SinkOffsets};
use crate::config::providers::ConfigProviders;
use crate::model::{InstanceId, OverridePolicy, RetryPolicy};
use crate::store::{
    ConfigRecord, ConfigState, LogEntry, LogTopic, OffsetStore, StatusStore, StoreError,
};
use crate::telemetry::Loggers;
use crate::worker::{PluginRegistry, Worker, WorkerEvent};

/// Settings of the herder.
#[derive(Clone, Debug)]
pub struct HerderSettings {
    /// How failed task reconfigurations are retried (KAFKA-14732's schedule by default),
    /// unless a connector's config overrides it.
    pub reconfiguration: RetryPolicy,
    /// `connector.client.config.override.policy`: the client overrides connectors may set.
    pub override_policy: OverridePolicy,
    /// The config providers validation resolves references with (the worker has its own
    /// copy, for the configs it hands to plugins).
    pub providers: ConfigProviders,
    /// How long shutdown waits for instances to stop.
    pub shutdown_timeout: Duration,
    /// This worker's log levels: the herder owns them, as Kafka Connect's herder owns its
    /// `Loggers`, because a cluster-wide level (KIP-976) reaches it through the config topic.
    pub loggers: Loggers,
}

impl Default for HerderSettings {
    /// The process's installed log levels, or a set of its own when none was installed.
    fn default() -> Self {
        Self {
            reconfiguration: RetryPolicy::default(),
            override_policy: OverridePolicy::default(),
            providers: ConfigProviders::default(),
            shutdown_timeout: Duration::from_secs(10),
            loggers: crate::telemetry::installed().unwrap_or_else(Loggers::for_tests),
        }
    }
}

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
    /// Leader only: no new session-key write before this (one is under way, or failed).
    pub key_retry_at: Option<Instant>,
    pub internal_tx: mpsc::UnboundedSender<Internal>,
    pub internal_rx: mpsc::UnboundedReceiver<Internal>,
    pub settings: HerderSettings,
    pub config: ConfigState,
    /// Each connector's parsed config, in step with `config`.
    pub typed: Typed,
    pub config_log: ConfigLog,
    /// Config-topic writes under way and the requests queued behind them.
    pub writes: Writes,
    pub follower: mpsc::UnboundedReceiver<FollowerMsg>,
    pub status: Arc<StatusStore>,
    /// Starts instances (the worker; a fake in unit tests).
    pub runner: Box<dyn Runner>,
    /// The installed plugins.
    pub registry: PluginRegistry,
    /// Source connectors' offsets.
    pub offsets: Arc<OffsetStore>,
    /// Sink connectors' consumer-group offsets.
    pub sink_offsets: Arc<dyn SinkOffsets>,
    pub events: mpsc::UnboundedReceiver<WorkerEvent>,
    /// Every instance running, failed or waited on here.
    pub instances: Instances,
    pub pending_restarts: BTreeMap<String, RestartRequest>,
    /// Task reconfiguration retries, one chain per connector.
    pub chains: RetryChains,
    /// Restart counts and waiting restarts of the restart policies.
    pub auto_restarts: AutoRestarts,
    /// Connectors whose running state must be compared with the config.
    pub dirty: BTreeSet<String>,
    pub shutting_down: Option<oneshot::Sender<()>>,
    /// What reads see ([`super::snapshot`]), republished at the end of a turn.
    pub snapshot: Publisher,
}

/// What the herder drives besides the stores: the runner, and where plugins and source
/// offsets come from.
pub(super) struct Parts {
    pub runner: Box<dyn Runner>,
    pub registry: PluginRegistry,
    pub offsets: Arc<OffsetStore>,
}

/// Reads the config topic to its end, starts the loop and returns its handle. Source
/// offsets come from the worker's offsets store, sink offsets from `sink_offsets`.
pub async fn spawn(
    config_topic: Arc<dyn LogTopic>,
    status: Arc<StatusStore>,
    worker: Worker,
    sink_offsets: Arc<dyn SinkOffsets>,
    events: mpsc::UnboundedReceiver<WorkerEvent>,
    member: MemberSpec,
    settings: HerderSettings,
) -> Result<HerderHandle, StoreError> {
    let parts = Parts {
        registry: worker.registry().clone(),
        offsets: worker.offsets().clone(),
        runner: Box::new(worker),
    };
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
    let (config_log, follower) = ConfigLog::start(config_topic, reader);
    let registry = parts.registry.clone();
    let mut typed = Typed::default();
    typed.sync(&config, &registry, &settings.reconfiguration);
    let (tx, rx) = mpsc::channel(256);
    let dirty = config.connectors().map(str::to_owned).collect();
    let policy_defaults = settings.reconfiguration.clone();
    let override_policy = settings.override_policy;
    let providers = settings.providers.clone();
    let loggers = settings.loggers.clone();
    let (fatal_tx, fatal) = tokio::sync::watch::channel(None);
    let (member, group, peers) = match member {
        MemberSpec::Single { worker_id, url } => (Membership::single(worker_id, url), None, None),
        MemberSpec::Group { worker_id, settings, peers } => {
            let member = Membership::group(worker_id);
            let view = config_view(&config, config_offset);
            let link = GroupLink::start(settings, view, fatal_tx);
            (member, Some(link), Some(peers))
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
        key_retry_at: None,
        internal_tx,
        internal_rx,
        settings,
        config,
        typed,
        config_log,
        writes: Writes::default(),
        follower,
        status: status.clone(),
        runner: parts.runner,
        registry: parts.registry,
        offsets: parts.offsets,
        sink_offsets,
        events,
        instances: Instances::default(),
        pending_restarts: BTreeMap::new(),
        chains: RetryChains::default(),
        auto_restarts: AutoRestarts::default(),
        dirty,
        shutting_down: None,
        snapshot,
    };
    herder.share_session_key();
    herder.publish_snapshot();
    tokio::spawn(herder.run(rx));
    Ok(HerderHandle {
        tx,
        registry,
        status,
        policy_defaults,
        override_policy,
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
            ]
            .into_iter()
            .flatten()
            .min();
            let group_rx = self.group.as_mut().map(|link| &mut link.events);
            let group_events = async move {
                match group_rx {
                    Some(rx) => rx.recv().await,
                    None => std::future::pending().await,
                }
            };
            let wake = tokio::select! {
                c = commands.recv(), if self.shutting_down.is_none() => Wake::Command(c),
                e = self.events.recv() => Wake::Worker(e),
                m = self.follower.recv() => Wake::Config(m),
                g = group_events => Wake::Group(g),
                i = self.internal_rx.recv() => Wake::Internal(i),
                _ = sleep_until(next_due) => Wake::Due,
            };
            match wake {
                Wake::Command(Some(c)) => {
                    if let Some(c) = self.admit(c) {
                        self.command(c);
                    }
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
                Wake::Worker(None) | Wake::Config(None) | Wake::Internal(None) => {}
                Wake::Due => {
                    self.run_due_retries();
                    self.run_due_restarts();
                    self.run_deferred();
                    self.rotate_session_key();
                    self.expire_syncs();
                }
            }
            if !self.rebalance_pending() {
                self.process_restarts();
            }
            self.reconcile_dirty();
            self.finish_revocation();
            self.publish_snapshot();
            if self.shutting_down.is_some() && self.instances.is_idle() {
                break;
            }
        }
        self.status.flush().await;
        if let Some(link) = self.group.take() {
            link.handle.leave().await;
        }
        if let Some(done) = self.shutting_down.take() {
            let _ = done.send(());
        }
        tracing::info!("Herder stopped");
    }

    pub(super) fn follower_msg(&mut self, msg: FollowerMsg) {
        match msg {
            FollowerMsg::Entries(entries) => {
                let events = apply_entries(&mut self.config, &entries);
                self.typed.sync(&self.config, &self.registry, &self.settings.reconfiguration);
                for event in events {
                    self.config_event(event);
                }
                if let Some(next) = next_offset(&entries) {
                    self.config_offset = self.config_offset.max(next);
                }
                self.publish_view();
                self.share_session_key();
            }
            FollowerMsg::Synced(id) => self.synced(id),
            FollowerMsg::Error(e) => {
                tracing::warn!(error = %e, "Reading the config topic failed; retrying")
            }
        }
    }

    /// Stops everything; the loop ends once every instance has stopped.
    pub(super) fn begin_shutdown(&mut self, done: Option<oneshot::Sender<()>>) {
        tracing::info!("Herder shutting down");
        let (tx, _) = oneshot::channel();
        self.shutting_down = Some(done.unwrap_or(tx));
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
}

async fn sleep_until(due: Option<Instant>) {
    match due {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}
