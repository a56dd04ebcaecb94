//! The herder: the single owner of connector state.
//!
//! One task ([`actor`]) owns everything: the config state read from the config topic, the
//! registry of the instances running here (`instances`), pending restarts and retries.
//! Everything else talks to it through [`HerderHandle`], whose methods send a command and
//! await the reply, except reads of connectors, configs, tasks and statuses: those are
//! answered from the [`Snapshot`] the loop publishes and the status store's view, so a
//! storm of reads never queues behind the loop. The loop never runs plugin code and never
//! waits on it or on the broker: instances report back through worker events, config-topic
//! writes through `writes`. Config validation, which does call plugin code, runs in the
//! caller's task before a command is sent.
//!
//! Layout: `actor` (the state, the loop, and the dispatch of what the write pipeline and
//! work started off the loop hand back) and the files that add its methods by concern, each
//! using `actor` and never used by it: `requests` (each request's execution), `fence` (a
//! zombie fencing round executed: KIP-618), `fence_gate` (an exactly-once source's new
//! tasks held until its previous generation is fenced out), `gate` (which
//! worker executes a request, and when), `events` (worker events, config-topic changes),
//! `restarts` (queued KIP-745 restart requests executed and answered), `group` (the member
//! loop's reports), `peers` (session keys, task configs sent to the leader),
//! `plugin_changes` (a rescanned plugin path applied), `reconfigure`
//! (task configs and their retry chain), `recovery` (failed instances and the restart
//! policy), `offsets` (KIP-875, its answers being `connector_offsets`) and `apply` (the
//! only caller of the worker, through `runner`, and the only writer of lifecycle statuses).
//! The nouns the actor holds, none of which uses it: `command` (the requests and their
//! per-kind tables), `writes` (the write pipeline: config-topic writes, one in flight,
//! returned as completions), `config_log` (the config topic's writer and follower),
//! `leader_writer` (the leader's transactional config-topic writes, KIP-618),
//! `group_link` (the member loop's handle), `member_spec` (how this worker joins, and
//! `Peers`), `settings`, `shutdown` (a shutdown's deadlines and last steps, each bounded), `membership` (this worker's place in the group), `instances` (the
//! registry of runs), `snapshot` (what reads see), `typed` (each connector's parsed
//! config), `retry_chain` and `auto_restart` (the retry and restart-policy bookkeeping,
//! pure), `reconcile` (desired against running, a pure plan of `Action`s), `restart_plan`
//! (KIP-745 plans), `restart_queue` (the restart requests waiting), `runner` (what starts
//! instances), `sink_offsets` (where sink offsets live), `zombie_fencing` (a KIP-618
//! fencing round's plan and refusals, pure), `fence_rounds` (the rounds this worker asked
//! for). Beside them: `validate` with
//! `connector_keys`, `transform_keys` and `plugin_version_keys` (the framework keys a
//! plugin's definition shows; the last, KIP-891's version keys and their recommended values)
//! and `exactly_once` (a source's KIP-618 keys and preflight checks), `error`.
//! Tests: `harness` (the loop over in-memory topics and the fake runner), `herder_tests`,
//! `fence_tests`, `plugin_changes_tests`,
//! `group_tests`, `snapshot_tests`, `auto_restart_tests`, `reconcile_tests`,
//! `retry_chain_tests`.

mod actor;
mod apply;
mod auto_restart;
mod command;
mod config_log;
mod connector_keys;
mod connector_offsets;
mod error;
mod events;
mod exactly_once;
mod fence;
mod fence_gate;
mod fence_rounds;
#[cfg(test)]
mod fence_tests;
mod gate;
mod group;
mod group_link;
#[cfg(test)]
mod group_tests;
#[cfg(test)]
mod harness;
#[cfg(test)]
mod herder_tests;
mod instances;
mod leader_writer;
mod member_spec;
mod membership;
mod offsets;
mod peers;
mod plugin_changes;
mod plugin_version_keys;
mod reconcile;
mod reconfigure;
mod recovery;
mod requests;
mod restart_plan;
mod restart_queue;
mod restarts;
mod retry_chain;
mod runner;
mod settings;
mod shutdown;
mod sink_offsets;
mod snapshot;
#[cfg(test)]
mod snapshot_tests;
mod transform_keys;
mod typed;
mod validate;
mod writes;
mod zombie_fencing;

use std::sync::Arc;

use tokio::sync::{mpsc, oneshot, watch};

use crate::model::RestartRequest;
pub use crate::model::{Backoff, RetryPolicy};
pub use crate::model::{
    ConnectorPolicies, DEFAULT_RESTART_HEALTHY_AFTER, RESTART_HEALTHY_AFTER_MS, RESTART_POLICY,
    RestartPolicy,
};
pub use actor::{Workload, spawn};
use command::{Command, Reply};
pub use connector_keys::{Placed, groups, placed_keys};
pub use connector_offsets::{ConnectorOffset, ConnectorOffsets};
pub use error::HerderError;
pub use member_spec::{MemberSpec, Peers};
pub use membership::Membership;
pub use plugin_version_keys::recommended as recommended_versions;
pub use restart_plan::RestartPlan;
pub use settings::HerderSettings;
pub use shutdown::ShutdownTimeouts;
pub use sink_offsets::{EmbeddedSinkOffsets, KafkaSinkOffsets, SinkOffsets, SinkOffsetsError};
pub use snapshot::{Entry, Read, Snapshot};
pub use transform_keys::{alias_keys, class_keys};
pub use validate::{Rules as ValidationRules, validate as validate_config};

use crate::config::providers::ConfigProviders;
use crate::model::{
    ConfigProblem, ExactlyOnceSourceSupport, OverridePolicy, PluginKind, Properties, TargetState,
    VersionRequirement,
};
use crate::store::{ConnectorStatuses, Status, StatusStore};
use crate::telemetry::Loggers;
use crate::worker::{PluginRegistry, PluginWatch, RescanReport};

/// A connector's config and tasks (Kafka Connect's `ConnectorInfo`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConnectorInfo {
    /// Name.
    pub name: String,
    /// Its config.
    pub config: Properties,
    /// Task ids of the committed task configs.
    pub tasks: Vec<u32>,
    /// Source or sink; `None` when the plugin is not installed here.
    pub kind: Option<PluginKind>,
    /// The plugin's version; `None` when the plugin is not installed here.
    pub version: Option<String>,
}

/// A connector's status and its tasks' (Kafka Connect's `ConnectorStateInfo`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConnectorStatus {
    /// Name.
    pub name: String,
    /// The connector instance's status.
    pub connector: Status,
    /// Task statuses by id.
    pub tasks: Vec<(u32, Status)>,
    /// Source or sink, when known.
    pub kind: Option<PluginKind>,
    /// The plugin's version, when it is installed here (Kafka Connect 4.x shows it on the
    /// connector and on every task).
    pub version: Option<String>,
}

/// How a connector restart was answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RestartOutcome {
    /// The connector instance was restarted (both flags false): HTTP 204.
    Restarted,
    /// The restart request was recorded: HTTP 202 with the planned states.
    Accepted(ConnectorStatus),
}

/// Whether a config write created the connector.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PutOutcome {
    /// True when the connector did not exist before.
    pub created: bool,
    /// The connector as it is now.
    pub info: ConnectorInfo,
}

/// The handle every other part of the worker uses. Cheap to clone.
#[derive(Clone)]
pub struct HerderHandle {
    tx: mpsc::Sender<Command>,
    /// The installed plugins, as the loop last published them.
    registries: watch::Receiver<PluginRegistry>,
    /// Asks for a rescan of the plugin path.
    plugin_watch: PluginWatch,
    status: Arc<StatusStore>,
    /// The worker's reconfiguration policy, which connector configs override.
    policy_defaults: RetryPolicy,
    /// The client overrides connectors may set, checked by validation (and so by every
    /// create and update).
    override_policy: OverridePolicy,
    /// `exactly.once.source.support`, which validation checks `exactly.once.support=required`
    /// against.
    exactly_once: ExactlyOnceSourceSupport,
    /// The config providers validation resolves references with.
    providers: ConfigProviders,
    /// This worker's log levels.
    loggers: Loggers,
    /// What the loop published last.
    snapshots: watch::Receiver<Arc<Snapshot>>,
    /// Why this worker cannot stay in its group, once the member loop gave up.
    fatal: watch::Receiver<Option<String>>,
}

impl HerderHandle {
    async fn ask<T>(&self, make: impl FnOnce(Reply<T>) -> Command) -> Result<T, HerderError> {
        let (tx, rx) = oneshot::channel();
        self.tx.send(make(tx)).await.map_err(|_| HerderError::ShuttingDown)?;
        rx.await.map_err(|_| HerderError::ShuttingDown)?
    }

    /// The installed plugins, as the plugin path's last scan found them (while a scan
    /// loads files: so far).
    pub fn plugins(&self) -> PluginRegistry {
        self.registries.borrow().clone()
    }

    /// The installed plugins once the plugin `class` names can be found in the version
    /// `version` asks for (KIP-891; `None`: any), or once the plugin path is loaded,
    /// whichever comes first: a plugin still loading is waited for, not reported missing.
    pub async fn plugins_for(&self, class: &str, version: Option<&str>) -> PluginRegistry {
        let requirement = VersionRequirement::parse(version).unwrap_or(VersionRequirement::Latest);
        let ready = |r: &PluginRegistry| {
            r.loading().is_none() || matches!(r.resolve_version(class, &requirement), Ok(Some(_)))
        };
        self.plugins_when(ready).await
    }

    /// The installed plugins once the plugin path is loaded.
    pub async fn plugins_loaded(&self) -> PluginRegistry {
        self.plugins_when(|r| r.loading().is_none()).await
    }

    /// The first published registry that satisfies `ready` (the last one once the herder
    /// is gone).
    async fn plugins_when(&self, ready: impl FnMut(&PluginRegistry) -> bool) -> PluginRegistry {
        let mut registries = self.registries.clone();
        match registries.wait_for(ready).await {
            Ok(r) => r.clone(),
            Err(_) => self.plugins(),
        }
    }

    /// Rescans the plugin path now and answers what changed, once the herder has applied
    /// it (so the next request sees it).
    pub async fn rescan_plugins(&self) -> Result<RescanReport, HerderError> {
        self.plugin_watch.rescan().await.ok_or(HerderError::ShuttingDown)
    }

    /// This worker's log levels (KIP-495: `scope=worker` changes them here directly).
    pub fn loggers(&self) -> &Loggers {
        &self.loggers
    }

    /// Sets a log level on every worker of the cluster (KIP-976), once `namespace` and
    /// `level` have passed [`Loggers::check`]. In a group, any worker writes a
    /// `logger-cluster-<namespace>` record to the config topic and returns once it is
    /// durable; every worker running then, this one included, applies the level when it
    /// reads the record (Kafka Connect's `DistributedHerder`). A standalone worker is the
    /// whole cluster: it applies the level at once and writes nothing (its
    /// `StandaloneHerder`).
    pub async fn set_cluster_logger_level(
        &self,
        namespace: &str,
        level: &str,
    ) -> Result<(), HerderError> {
        self.ask(|r| Command::ClusterLoggerLevel(namespace.to_owned(), level.to_owned(), r)).await
    }

    /// Resolves once the worker cannot go on, with the reason: it cannot stay in its group
    /// (the brokers refused its SASL login or a TLS certificate), or its config topic
    /// cannot be read (an embedded store whose file is damaged or whose disk failed). The
    /// process should then shut down and exit.
    pub async fn fatal(&self) -> String {
        let mut fatal = self.fatal.clone();
        match fatal.wait_for(Option::is_some).await {
            Ok(reason) => reason.clone().unwrap_or_default(),
            Err(_) => std::future::pending().await,
        }
    }

    /// What the loop published last: answers only the reads [`Snapshot::answers`] says,
    /// the others go to the loop.
    pub fn snapshot(&self) -> Arc<Snapshot> {
        self.snapshots.borrow().clone()
    }

    /// The snapshot, when it may answer `read`.
    fn answering(&self, read: Read) -> Option<Arc<Snapshot>> {
        Some(self.snapshot()).filter(|s| s.answers(read))
    }

    /// Names of all connectors, sorted.
    pub async fn connectors(&self) -> Result<Vec<String>, HerderError> {
        match self.answering(Read::Any) {
            Some(s) => Ok(s.names().map(str::to_owned).collect()),
            None => self.ask(Command::Connectors).await,
        }
    }

    /// The REST URLs of the group's other workers when this worker leads it (empty on
    /// any other worker, and in standalone mode): whom the leader's validate asks for
    /// their plugins.
    pub async fn peers(&self) -> Result<Vec<String>, HerderError> {
        self.ask(Command::Peers).await
    }

    /// One connector's config and tasks.
    pub async fn connector_info(&self, name: &str) -> Result<ConnectorInfo, HerderError> {
        match self.answering(Read::Settled) {
            Some(s) => s
                .get(name)
                .map(|e| e.info.clone())
                .ok_or_else(|| HerderError::connector_not_found(name)),
            None => self.ask(|r| Command::Info(name.to_owned(), r)).await,
        }
    }

    /// One connector's committed task configs, by task id.
    pub async fn task_configs(&self, name: &str) -> Result<Vec<Properties>, HerderError> {
        match self.answering(Read::Settled) {
            Some(s) => s
                .get(name)
                .map(|e| e.task_configs.clone())
                .ok_or_else(|| HerderError::connector_not_found(name)),
            None => self.ask(|r| Command::TaskConfigs(name.to_owned(), r)).await,
        }
    }

    /// Validates a config against its plugin (types, required keys, the plugin's own
    /// `validate`), off the herder loop. Returns every problem.
    pub async fn validate(&self, config: &Properties) -> Result<Vec<ConfigProblem>, HerderError> {
        let registry = match config.get("connector.class") {
            Some(class) => {
                let version = config.get("connector.plugin.version").map(String::as_str);
                self.plugins_for(class, version).await
            }
            None => self.plugins(),
        };
        let rules = validate::Rules {
            registry: &registry,
            defaults: &self.policy_defaults,
            overrides: self.override_policy,
            providers: &self.providers,
            exactly_once: self.exactly_once,
        };
        validate::validate(rules, config).await
    }

    /// Creates or replaces a connector after validating its config. `replace: false`
    /// refuses an existing name.
    pub async fn put_connector_config(
        &self,
        name: &str,
        mut config: Properties,
        initial: Option<TargetState>,
        replace: bool,
    ) -> Result<PutOutcome, HerderError> {
        validate::check_name(name, &mut config)?;
        validate::check_size(name.trim(), &config)?;
        let problems = self.validate(&config).await?;
        if !problems.is_empty() {
            return Err(HerderError::InvalidConfig(
                problems.into_iter().map(|p| format!("{}: {}", p.key, p.message)).collect(),
            ));
        }
        self.ask(|reply| Command::PutConfig {
            name: name.to_owned(),
            config,
            initial,
            replace,
            reply,
        })
        .await
    }

    /// Deletes a connector.
    pub async fn delete_connector(&self, name: &str) -> Result<(), HerderError> {
        self.ask(|r| Command::Delete(name.to_owned(), r)).await
    }

    /// Pauses a connector and its tasks.
    pub async fn pause(&self, name: &str) -> Result<(), HerderError> {
        self.ask(|r| Command::SetTarget(name.to_owned(), TargetState::Paused, r)).await
    }

    /// Resumes a paused or stopped connector.
    pub async fn resume(&self, name: &str) -> Result<(), HerderError> {
        self.ask(|r| Command::SetTarget(name.to_owned(), TargetState::Started, r)).await
    }

    /// Stops a connector: no instance and no tasks until it is resumed (KIP-875).
    pub async fn stop(&self, name: &str) -> Result<(), HerderError> {
        self.ask(|r| Command::SetTarget(name.to_owned(), TargetState::Stopped, r)).await
    }

    /// Restarts a connector (KIP-745).
    pub async fn restart_connector(
        &self,
        name: &str,
        include_tasks: bool,
        only_failed: bool,
    ) -> Result<RestartOutcome, HerderError> {
        let request = RestartRequest { connector: name.to_owned(), include_tasks, only_failed };
        self.ask(|reply| Command::Restart { request, reply }).await
    }

    /// Restarts one task and waits until it has started again.
    pub async fn restart_task(&self, name: &str, task: u32) -> Result<(), HerderError> {
        self.ask(|r| Command::RestartTask(name.to_owned(), task, r)).await
    }

    /// Runs one zombie fencing round for source connector `name` (KIP-618, the internal
    /// `PUT /connectors/{name}/fence`): fences the previous task generation's producers
    /// when needed, then writes its task-count record. Only the leader runs it.
    pub async fn fence_zombies(&self, name: &str) -> Result<(), HerderError> {
        self.ask(|r| Command::FenceZombies(name.to_owned(), r)).await
    }

    /// Writes task configs another worker generated (the internal
    /// `POST /connectors/{name}/tasks`). Only the leader writes them.
    pub async fn submit_task_configs(
        &self,
        name: &str,
        configs: Vec<Properties>,
    ) -> Result<(), HerderError> {
        self.ask(|r| Command::SubmitTaskConfigs(name.to_owned(), configs, r)).await
    }

    /// A connector's committed offsets (KIP-875): a source connector's from the offsets
    /// store, a sink connector's from its consumer group. No state precondition.
    pub async fn connector_offsets(&self, name: &str) -> Result<ConnectorOffsets, HerderError> {
        self.ask(|r| Command::Offsets(name.to_owned(), r)).await
    }

    /// Alters a STOPPED connector's offsets, as (partition, offset) pairs; a `None` offset
    /// deletes the partition's. Returns the success message once the change is durable.
    pub async fn alter_offsets(
        &self,
        name: &str,
        offsets: Vec<(serde_json::Value, Option<serde_json::Value>)>,
    ) -> Result<String, HerderError> {
        self.ask(|reply| Command::AlterOffsets { name: name.to_owned(), offsets, reply }).await
    }

    /// Deletes every offset of a STOPPED connector. Returns the success message.
    pub async fn reset_offsets(&self, name: &str) -> Result<String, HerderError> {
        self.ask(|r| Command::ResetOffsets(name.to_owned(), r)).await
    }

    /// A connector's status, from the status store.
    pub async fn connector_status(&self, name: &str) -> Result<ConnectorStatus, HerderError> {
        let ConnectorStatuses { connector, tasks } =
            self.status.connector(name).ok_or_else(|| {
                HerderError::NotFound(format!("No status found for connector {name}"))
            })?;
        let info = self.connector_info(name).await.ok();
        let (kind, version) = info.map(|i| (i.kind, i.version)).unwrap_or_default();
        Ok(ConnectorStatus { name: name.to_owned(), connector, tasks, kind, version })
    }

    /// The status of every connector of `snapshot` that has one (as
    /// [`HerderHandle::connector_status`] answers each), read from the status store under
    /// one lock, with the store's [`StatusStore::version`] they were read at.
    pub fn connector_statuses(&self, snapshot: &Snapshot) -> (u64, Vec<ConnectorStatus>) {
        let (version, read) = self.status.connectors(snapshot.names());
        let statuses = snapshot
            .entries()
            .zip(read)
            .filter_map(|(e, st)| {
                let ConnectorStatuses { connector, tasks } = st?;
                let (name, kind, plugin_version) =
                    (e.info.name.clone(), e.info.kind, e.info.version.clone());
                Some(ConnectorStatus { name, connector, tasks, kind, version: plugin_version })
            })
            .collect();
        (version, statuses)
    }

    /// The status store's [`StatusStore::version`]: while it stays the same, so do the
    /// statuses [`HerderHandle::connector_statuses`] reads.
    pub fn status_version(&self) -> u64 {
        self.status.version()
    }

    /// One task's status.
    pub fn task_status(&self, name: &str, task: u32) -> Result<Status, HerderError> {
        self.status
            .get(&crate::model::InstanceId::Task(name.to_owned(), task))
            .ok_or_else(|| HerderError::NotFound(format!("No status found for task {name}-{task}")))
    }

    /// The topics a connector has used (KIP-558), from the status store. Like Kafka
    /// Connect, an unknown connector simply has none.
    pub fn connector_topics(&self, name: &str) -> Vec<String> {
        self.status.topics(name)
    }

    /// Forgets the topics a connector has used.
    pub fn reset_connector_topics(&self, name: &str) {
        self.status.reset_topics(name);
    }

    /// Waits until every status written so far has reached the status topic.
    pub async fn flush_statuses(&self) {
        self.status.flush().await;
    }

    /// Stops every instance, writes their statuses and ends the loop.
    pub async fn shutdown(&self) {
        let (tx, rx) = oneshot::channel();
        if self.tx.send(Command::Shutdown(tx)).await.is_ok() {
            let _ = rx.await;
        }
    }
}
