//! The worker: runs connector and task instances for the herder.
//!
//! Every instance gets a supervisor (a tokio task that owns its runtime handle and takes
//! commands). [`Worker`]'s start methods return at once with a handle, which the herder
//! keeps in its registry (the worker keeps no map of instances); outcomes come back as
//! [`WorkerEvent`]s, tagged with the run number the herder gave, so the herder loop never
//! waits on plugin code. The worker never decides restarts or writes statuses: it reports.
//!
//! Config provider references (`${file:/path:key}`) are resolved here, at each start,
//! in the configs handed to the plugin and in the settings its clients, converters and
//! transforms are built with; the traces reported have the resolved values put back as
//! references.
//!
//! Layout: this file ([`Worker`], [`WorkerEvent`]), `connector` (a connector instance's
//! supervisor), `task` (a task's supervisor), `task_control` (its commands and how a data
//! path ends), `source_task` and `sink_task` (the data paths; `source_batch`, the source
//! path's batch step, pure but for `schema_lookup`, the conversions that wait for a
//! Schema Registry converter's lookups; `source_flow`, what a source task may hand the
//! worker in flight and per second, with `token_bucket` for the rates;
//! `source_transactions`, its exactly-once transactions; `transaction_plan`, where a
//! batch meets the transaction boundaries its task defined), `host` (the
//! instances' host imports), `plugins` (the installed plugins by name), `plugin_versions`
//! (the installed versions of one plugin), `plugin_watch` (the plugin path rescanned while
//! the worker runs), `version_keys` (KIP-891's converter, transform and predicate version
//! keys, checked against what is installed), `connector_config/` (a
//! connector's config, typed), `convert/` (converters), `transforms/` (transform chains),
//! `errors/` (KIP-298 error handling), `topics/` (data topics), `topic_creation` (KIP-158),
//! `released_producer` (a producer let go of off the async threads).

mod connector;
pub mod connector_config;
pub mod convert;
pub mod errors;
mod host;
mod plugin_versions;
mod plugin_watch;
mod plugins;
mod released_producer;
mod schema_lookup;
mod sink_task;
mod source_batch;
pub mod source_flow;
mod source_task;
mod source_transactions;
mod task;
mod task_control;
mod token_bucket;
pub mod topic_creation;
pub mod topics;
mod transaction_plan;
pub mod transforms;
pub mod version_keys;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;

pub use connector::Handle as ConnectorHandle;
pub use connector_config::Parsed;
#[cfg(test)]
pub use connector_config::Rejected;
pub use host::WorkerHost;
pub use plugin_watch::{PluginRef, PluginWatch, Plugins, PluginsScanned, RescanReport};
pub use plugins::PluginRegistry;
pub use task::Handle as TaskHandle;
use topics::DataTopics;

use crate::config::providers::ConfigProviders;
use crate::model::{Config, ConnectorError, TargetState};
use crate::store::OffsetStores;

/// What a supervisor reports to the herder.
#[derive(Debug)]
pub enum WorkerEvent {
    /// The connector instance started.
    ConnectorStarted {
        /// Connector.
        connector: String,
        /// The run number given to [`Worker::start_connector`].
        run: u64,
    },
    /// The connector instance failed (at start or later); it is gone.
    ConnectorFailed {
        /// Connector.
        connector: String,
        /// Run number.
        run: u64,
        /// What happened.
        trace: String,
    },
    /// The connector instance stopped after [`ConnectorHandle::stop`].
    ConnectorStopped {
        /// Connector.
        connector: String,
        /// Run number.
        run: u64,
    },
    /// The answer to [`ConnectorHandle::task_configs`].
    TaskConfigs {
        /// Connector.
        connector: String,
        /// Run number.
        run: u64,
        /// The configs, or the error with whether a retry may help.
        result: Result<Vec<Config>, TaskConfigsError>,
    },
    /// A task started.
    TaskStarted {
        /// Connector.
        connector: String,
        /// Task.
        task: u32,
        /// Run number.
        run: u64,
    },
    /// A task failed; it is gone.
    TaskFailed {
        /// Connector.
        connector: String,
        /// Task.
        task: u32,
        /// Run number.
        run: u64,
        /// What happened.
        trace: String,
        /// Whether the task had been created (its plugin instance, clients and converters)
        /// before it failed: in its plugin's `start` or later. Kafka Connect's
        /// `Worker.startTask` succeeded then, and the task failed on its own thread.
        created: bool,
    },
    /// A task stopped after [`TaskHandle::stop`].
    TaskStopped {
        /// Connector.
        connector: String,
        /// Task.
        task: u32,
        /// Run number.
        run: u64,
    },
    /// A connector instance asked for its task configs to be computed again.
    ReconfigurationRequested {
        /// Connector.
        connector: String,
    },
    /// A task started writing to or reading from a topic (KIP-558 topic tracking).
    TopicActive {
        /// Connector.
        connector: String,
        /// Task.
        task: u32,
        /// Topic.
        topic: String,
    },
    /// A connector instance reported a background failure.
    ErrorRaised {
        /// Connector.
        connector: String,
        /// The error.
        error: ConnectorError,
    },
}

/// Why `task-configs` failed.
#[derive(Clone, Debug)]
pub struct TaskConfigsError {
    /// The trace.
    pub trace: String,
    /// Whether trying again may help (a retriable error, a timeout of the call).
    pub retriable: bool,
    /// Whether the connector instance is gone (a trap).
    pub instance_lost: bool,
}

/// Settings the supervisors need.
#[derive(Clone, Debug)]
pub struct WorkerSettings {
    /// How long stopping one task may take before it is abandoned.
    pub task_shutdown_timeout: Duration,
    /// How long stopping a connector may take (Kafka Connect: 5 s).
    pub connector_shutdown_timeout: Duration,
    /// The config providers: a connector's config and its tasks' configs are resolved
    /// when an instance starts, and only in what is handed to it.
    pub providers: ConfigProviders,
}

impl Default for WorkerSettings {
    fn default() -> Self {
        Self {
            task_shutdown_timeout: Duration::from_secs(5),
            connector_shutdown_timeout: Duration::from_secs(5),
            providers: ConfigProviders::default(),
        }
    }
}

/// What the data path of every task shares: where topics live, the worker's converters,
/// and the worker-level data settings.
#[derive(Clone)]
pub struct DataPlane {
    /// Where data topics live (Kafka, or the embedded store).
    pub topics: Arc<dyn DataTopics>,
    /// The worker's `key.converter` class.
    pub key_converter: String,
    /// The worker's `key.converter.*` settings.
    pub key_converter_props: BTreeMap<String, String>,
    /// The worker's `value.converter` class.
    pub value_converter: String,
    /// The worker's `value.converter.*` settings.
    pub value_converter_props: BTreeMap<String, String>,
    /// `offset.flush.interval.ms`: how often tasks commit offsets.
    pub offset_flush_interval: Duration,
    /// `offset.flush.timeout.ms`: how long a source task's offsets write may take.
    pub offset_flush_timeout: Duration,
    /// Most records asked of one source `poll`.
    pub source_max_poll_records: u32,
    /// What one source task may hand the worker in flight and per second, before a
    /// connector's overrides.
    pub source_flow: source_flow::FlowLimits,
    /// Most records handed to one sink `put` (the consumer's `max.poll.records`).
    pub sink_max_records: usize,
    /// Exactly-once source delivery (`exactly.once.source.support=enabled`): the prefix of
    /// the tasks' `transactional.id`s (`<prefix>-<connector>-<task>`: the worker's
    /// `group.id` on Kafka). `None`: at-least-once.
    pub exactly_once: Option<String>,
}

pub(crate) struct Shared {
    pub events: mpsc::UnboundedSender<WorkerEvent>,
    pub host: Arc<WorkerHost>,
    pub settings: WorkerSettings,
    pub data: DataPlane,
}

/// Starts instances for the herder, which keeps their handles.
pub struct Worker {
    shared: Arc<Shared>,
}

impl Worker {
    /// A worker. Events go to `events`.
    pub fn new(
        offsets: Arc<OffsetStores>,
        settings: WorkerSettings,
        data: DataPlane,
        events: mpsc::UnboundedSender<WorkerEvent>,
    ) -> Self {
        let host = Arc::new(WorkerHost { events: events.clone(), offsets });
        Self { shared: Arc::new(Shared { events, host, settings, data }) }
    }

    /// The source offsets stores the instances read from: the worker's and the
    /// connectors' own topics.
    pub fn offsets(&self) -> &Arc<OffsetStores> {
        &self.shared.host.offsets
    }

    /// Starts a connector instance with its parsed `config` (a rejected one fails at
    /// start, reported as an event). A paused connector's instance runs too; the herder
    /// does not ask it for task configs while it is paused.
    pub fn start_connector(&self, name: &str, config: Parsed, run: u64) -> ConnectorHandle {
        connector::spawn(self.shared.clone(), name.to_owned(), config, run)
    }

    /// Starts a task.
    pub fn start_task(&self, connector: &str, task: u32, spec: TaskSpec, run: u64) -> TaskHandle {
        task::spawn(self.shared.clone(), connector.to_owned(), task, spec, run)
    }
}

/// What a task needs to start.
#[derive(Clone, Debug)]
pub struct TaskSpec {
    /// The task config the connector generated, as written (its references are resolved
    /// when the task starts).
    pub task_config: Config,
    /// The connector's parsed config (its plugin and framework keys).
    pub connector: Parsed,
    /// Start paused or running.
    pub target: TargetState,
}
