//! The worker: runs connector and task instances for the herder.
//!
//! Every instance gets a supervisor (a tokio task that owns its runtime handle and takes
//! commands). The herder calls [`Worker`]'s methods, which return at once; outcomes come
//! back as [`WorkerEvent`]s, tagged with the run number the herder gave, so the herder
//! loop never waits on plugin code. The worker never decides restarts or writes
//! statuses: it reports.

mod connector;
pub mod convert;
pub mod errors;
mod host;
mod plugins;
mod sink_task;
mod source_task;
mod task;
pub mod topic_creation;
pub mod topics;
pub mod transforms;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;

pub use host::WorkerHost;
pub use plugins::PluginRegistry;
use topics::DataTopics;

use crate::model::{Config, ConnectorError, TargetState};
use crate::store::OffsetStore;

/// What a supervisor reports to the herder.
#[derive(Debug)]
pub enum WorkerEvent {
    /// The connector instance started.
    ConnectorStarted {
        /// Connector.
        connector: String,
        /// The run number given to `start_connector`.
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
    /// The connector instance stopped after `stop_connector`.
    ConnectorStopped {
        /// Connector.
        connector: String,
        /// Run number.
        run: u64,
    },
    /// The answer to `request_task_configs`.
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
    },
    /// A task stopped after `stop_task`.
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
}

impl Default for WorkerSettings {
    fn default() -> Self {
        Self {
            task_shutdown_timeout: Duration::from_secs(5),
            connector_shutdown_timeout: Duration::from_secs(5),
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
    /// Most records asked of one source `poll`.
    pub source_max_poll_records: u32,
    /// Most records handed to one sink `put` (the consumer's `max.poll.records`).
    pub sink_max_records: usize,
}

pub(crate) struct Shared {
    pub registry: PluginRegistry,
    pub events: mpsc::UnboundedSender<WorkerEvent>,
    pub host: Arc<WorkerHost>,
    pub settings: WorkerSettings,
    pub data: DataPlane,
}

/// Runs instances; owned by the herder.
pub struct Worker {
    shared: Arc<Shared>,
    connectors: BTreeMap<String, connector::Handle>,
    tasks: BTreeMap<(String, u32), task::Handle>,
}

impl Worker {
    /// A worker over `registry`. Events go to `events`.
    pub fn new(
        registry: PluginRegistry,
        offsets: Arc<OffsetStore>,
        settings: WorkerSettings,
        data: DataPlane,
        events: mpsc::UnboundedSender<WorkerEvent>,
    ) -> Self {
        let host = Arc::new(WorkerHost { events: events.clone(), offsets });
        Self {
            shared: Arc::new(Shared { registry, events, host, settings, data }),
            connectors: BTreeMap::new(),
            tasks: BTreeMap::new(),
        }
    }

    /// The installed plugins.
    pub fn registry(&self) -> &PluginRegistry {
        &self.shared.registry
    }

    /// The source offsets store the instances read from.
    pub fn offsets(&self) -> &Arc<OffsetStore> {
        &self.shared.host.offsets
    }

    /// Starts a connector instance with `config`. A paused connector's instance runs too;
    /// the herder does not ask it for task configs while it is paused.
    pub fn start_connector(&mut self, name: &str, config: Config, run: u64) {
        let handle = connector::spawn(self.shared.clone(), name.to_owned(), config, run);
        if let Some(old) = self.connectors.insert(name.to_owned(), handle) {
            old.abandon();
        }
    }

    /// Asks a running connector for at most `max_tasks` task configs.
    pub fn request_task_configs(&self, name: &str, max_tasks: u32) -> bool {
        self.connectors.get(name).is_some_and(|h| h.task_configs(max_tasks))
    }

    /// Stops a connector instance; `ConnectorStopped` follows.
    pub fn stop_connector(&mut self, name: &str) -> bool {
        self.connectors.remove(name).is_some_and(|h| h.stop())
    }

    /// Whether a connector instance is running here.
    pub fn has_connector(&self, name: &str) -> bool {
        self.connectors.contains_key(name)
    }

    /// Forgets a connector instance that failed by itself.
    pub fn connector_gone(&mut self, name: &str, run: u64) {
        if self.connectors.get(name).is_some_and(|h| h.run == run) {
            self.connectors.remove(name);
        }
    }

    /// Starts a task.
    pub fn start_task(&mut self, connector: &str, task: u32, spec: TaskSpec, run: u64) {
        let handle = task::spawn(self.shared.clone(), connector.to_owned(), task, spec, run);
        if let Some(old) = self.tasks.insert((connector.to_owned(), task), handle) {
            old.abandon();
        }
    }

    /// Stops a task; `TaskStopped` follows.
    pub fn stop_task(&mut self, connector: &str, task: u32) -> bool {
        self.tasks.remove(&(connector.to_owned(), task)).is_some_and(|h| h.stop())
    }

    /// Forgets a task that failed by itself.
    pub fn task_gone(&mut self, connector: &str, task: u32, run: u64) {
        let key = (connector.to_owned(), task);
        if self.tasks.get(&key).is_some_and(|h| h.run == run) {
            self.tasks.remove(&key);
        }
    }

    /// The tasks of `connector` running here.
    pub fn tasks_of(&self, connector: &str) -> Vec<u32> {
        self.tasks.keys().filter(|(c, _)| c == connector).map(|(_, t)| *t).collect()
    }

    /// Tells a connector's tasks to pause or resume.
    pub fn set_target_state(&self, connector: &str, target: TargetState) {
        for ((c, _), h) in &self.tasks {
            if c == connector {
                h.set_target(target);
            }
        }
    }

    /// Names of running connector instances.
    pub fn connectors(&self) -> Vec<String> {
        self.connectors.keys().cloned().collect()
    }

    /// Every running task.
    pub fn tasks(&self) -> Vec<(String, u32)> {
        self.tasks.keys().cloned().collect()
    }
}

/// What a task needs to start.
#[derive(Clone, Debug)]
pub struct TaskSpec {
    /// The task config the connector generated.
    pub task_config: Config,
    /// The connector's config (for `connector.class` and worker-level keys).
    pub connector_config: Config,
    /// Start paused or running.
    pub target: TargetState,
}
