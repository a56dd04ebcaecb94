//! The supervisor of one task instance: creates it and its clients (producer or consumer,
//! converters, error reporter), starts it, runs its data path (`source_task.rs` or
//! `sink_task.rs`) until it is stopped or fails, and reports each outcome as a
//! [`WorkerEvent`]. The task's config and its connector's settings have their config
//! provider references resolved at each start; the traces reported show the references.
//! A source task's start first reads its offsets topics to their end (`host.rs`: its
//! connector's `offsets.storage.topic`, created if missing, then the worker's), so a task
//! moved from another worker resumes from the offsets committed there; a read that cannot
//! complete fails the task.

use std::sync::Arc;

use tokio::sync::mpsc;
use tracing::Instrument;

use super::connector_config::{ConnectorConfig, TaskSettings};
use super::convert::{self, ConvertError, Converter};
use super::errors::ErrorReporter;
use super::released_producer::ReleasedProducer;
use super::sink_task::SinkTask;
use super::source_task::SourceTask;
use super::source_transactions;
use super::task_control::{Cmd, Exit};
use super::topics::Subscription;
use super::transforms::Chain;
use super::{DataPlane, Shared, TaskSpec, WorkerEvent};
use crate::config::providers::Secrets;
use crate::model::{PluginKind, TargetState, offsets_storage_topic};
use crate::runtime::Identity;
use crate::telemetry::data::TaskLifecycle;

/// The herder's handle on a task supervisor.
pub struct Handle {
    tx: mpsc::UnboundedSender<Cmd>,
}

impl Handle {
    pub fn set_target(&self, target: TargetState) {
        let _ = self.tx.send(Cmd::SetTarget(target));
    }

    pub fn stop(&self) -> bool {
        self.tx.send(Cmd::Stop).is_ok()
    }
}

pub(super) fn spawn(
    shared: Arc<Shared>,
    connector: String,
    task: u32,
    spec: TaskSpec,
    run: u64,
) -> Handle {
    let (tx, rx) = mpsc::unbounded_channel();
    // The task's lines (here and in its data path) carry its connector and task through
    // this span alone. At the error level it is recorded unless the worker's logging is off.
    let span = tracing::error_span!("task", connector = %connector, task);
    tokio::spawn(supervise(shared, connector, task, spec, run, rx).instrument(span));
    Handle { tx }
}

async fn supervise(
    shared: Arc<Shared>,
    connector: String,
    task: u32,
    spec: TaskSpec,
    run: u64,
    mut rx: mpsc::UnboundedReceiver<Cmd>,
) {
    let emit = |e| {
        let _ = shared.events.send(e);
    };
    let (running, secrets) = match start(&shared, &connector, task, &spec).await {
        Ok(started) => started,
        Err(StartError { trace, created }) => {
            return emit(WorkerEvent::TaskFailed { connector, task, run, trace, created });
        }
    };
    TaskLifecycle { connector: &connector, task, failed: false }.emit();
    emit(WorkerEvent::TaskStarted { connector: connector.clone(), task, run });
    let exit = match running {
        Running::Source(t) => t.run(&mut rx).await,
        Running::Sink(t) => t.run(&mut rx).await,
    };
    match exit {
        Exit::Stopped => emit(WorkerEvent::TaskStopped { connector, task, run }),
        Exit::Dropped => {}
        // The herder logs the failure with its trace.
        Exit::Failed(trace) => {
            TaskLifecycle { connector: &connector, task, failed: true }.emit();
            let trace = secrets.scrub(&trace);
            emit(WorkerEvent::TaskFailed { connector, task, run, trace, created: true })
        }
    }
}

enum Running {
    Source(Box<SourceTask>),
    Sink(Box<SinkTask>),
}

/// Why a task did not start: its trace, and whether it had been created (its plugin's
/// `start` failed) or not (its config, converters, clients or plugin instance).
struct StartError {
    trace: String,
    created: bool,
}

impl From<String> for StartError {
    fn from(trace: String) -> Self {
        Self { trace, created: false }
    }
}

impl From<&str> for StartError {
    fn from(trace: &str) -> Self {
        Self::from(trace.to_owned())
    }
}

/// Resolves the config provider references of the task's config and of its connector's
/// (whose settings build the clients, converters and transforms), then creates and starts
/// the task. The values put in come back with it, to scrub later traces; a failed start's
/// trace is scrubbed already.
async fn start(
    shared: &Shared,
    connector: &str,
    task: u32,
    spec: &TaskSpec,
) -> Result<(Running, Secrets), StartError> {
    let typed = spec.connector.as_ref().map_err(|rejected| rejected.trace.clone())?;
    let providers = &shared.settings.providers;
    let own = providers.resolve_properties(typed.raw()).map_err(|e| e.to_string())?;
    let task_config = providers.resolve(&spec.task_config).map_err(|e| e.to_string())?;
    let secrets = own.secrets().clone().join(task_config.secrets());
    let settings = typed.resolved_settings(&own);
    match create(shared, connector, task, spec, typed, &settings, task_config.values()).await {
        Ok(running) => Ok((running, secrets)),
        Err(e) => Err(StartError { trace: secrets.scrub(&e.trace), ..e }),
    }
}

/// Creates and starts the instance and its clients. The parsed config's problems fail the
/// start in the order the settings are needed, each with the trace it always had.
async fn create(
    shared: &Shared,
    connector: &str,
    task: u32,
    spec: &TaskSpec,
    typed: &ConnectorConfig,
    settings: &TaskSettings,
    task_config: &[(String, String)],
) -> Result<Running, StartError> {
    let plugin = &typed.plugin;
    let data = &shared.data;
    let ident = Identity::task(connector, task);
    let host = shared.host.clone();
    // Relative file paths become absolute here, before the grant and before the guest.
    let config = plugin.resolve_paths(task_config)?;
    if !settings.converter_versions.is_empty() {
        return Err(problems_trace(&settings.converter_versions).into());
    }
    let key_converter = converter(convert::Side::Key, &settings.key_converter, data)?;
    let value_converter = converter(convert::Side::Value, &settings.value_converter, data)?;
    let sink = plugin.info().kind == PluginKind::Sink;
    let policy = settings.errors.as_ref().map_err(|p| problems_trace(p))?.clone();
    let chain_spec = settings.chain.as_ref().map_err(|p| problems_trace(p))?;
    let chain = Chain::build(chain_spec, ident.clone(), host.clone()).await?;
    let client_id =
        format!("connector-{}-{connector}-{task}", if sink { "consumer" } else { "producer" });
    Ok(match plugin.info().kind {
        PluginKind::Source => {
            let creation = settings.topic_creation.as_ref().map_err(|p| problems_trace(p))?.clone();
            let producer = data
                .topics
                .producer(&client_id, &settings.producer_overrides)
                .map_err(|e| e.to_string())?;
            let producer = ReleasedProducer::wrap(producer);
            let offsets =
                host.connector_offsets(connector, offsets_storage_topic(typed.raw())).await?;
            // Before the task's offsets are read: creating the producer fences an older
            // instance of the task, whose open transaction is then aborted.
            let transactions = match &data.exactly_once {
                Some(prefix) => Some(
                    source_transactions::start(
                        data,
                        &offsets,
                        prefix,
                        connector,
                        task,
                        typed.raw(),
                        &settings.producer_overrides,
                    )
                    .await?,
                ),
                None => None,
            };
            let flow = data.source_flow.for_connector(&settings.producer_overrides, typed.raw())?;
            let reporter = ErrorReporter::new(policy, connector, task, &plugin.info().name, None);
            // Before the first poll (and `start`, where tasks read their offsets), the
            // offsets other workers committed: a task moved here resumes where it stopped.
            host.read_offsets_to_end(&offsets).await?;
            // Its transaction context is active when it defines its transaction boundaries.
            let task_host: Arc<dyn crate::runtime::InstanceHost> =
                if transactions.as_ref().is_some_and(|t| t.connector_defined()) {
                    shared.host.with_transaction_context()
                } else {
                    host
                };
            let instance =
                plugin.source_task(ident, &config, task_host).await.map_err(|e| e.trace())?;
            instance.start(config).await.map_err(created)?;
            Running::Source(Box::new(SourceTask {
                connector: connector.to_owned(),
                task,
                instance,
                producer,
                topics: data.topics.clone(),
                creation,
                key_converter,
                value_converter,
                chain,
                reporter,
                offsets,
                events: shared.events.clone(),
                flush_interval: data.offset_flush_interval,
                flush_timeout: data.offset_flush_timeout,
                max_poll_records: data.source_max_poll_records,
                flow,
                shutdown_timeout: shared.settings.task_shutdown_timeout,
                target: spec.target,
                transactions,
            }))
        }
        PluginKind::Transform => {
            unreachable!("connector.class never resolves to a transform plugin")
        }
        PluginKind::Sink => {
            let subscription = subscription(task_config)
                .or_else(|| settings.subscription.clone())
                .ok_or("Must configure one of topics or topics.regex")?;
            let dlq = match &policy.dlq {
                Some(_) => Some(ReleasedProducer::wrap(
                    data.topics
                        .producer(
                            &format!("connector-dlq-producer-{connector}-{task}"),
                            &settings.producer_overrides,
                        )
                        .map_err(|e| e.to_string())?,
                )),
                None => None,
            };
            if let Some(settings) = &policy.dlq {
                // Kafka Connect creates the dead-letter queue topic when the task starts.
                data.topics.create_topic(&settings.new_topic()).await.map_err(|e| e.to_string())?;
            }
            let reporter = ErrorReporter::new(policy, connector, task, &plugin.info().name, dlq);
            let instance = plugin.sink_task(ident, &config, host).await.map_err(|e| e.trace())?;
            instance.start(config).await.map_err(created)?;
            // The group the offsets API reads and alters too (one definition of it).
            let group = &settings.sink_group;
            let consumer = data
                .topics
                .consumer(group, &client_id, &subscription, &settings.consumer_overrides)
                .await;
            let consumer = match consumer {
                Ok(c) => c,
                Err(e) => {
                    let _ = instance.stop().await;
                    return Err(e.to_string().into());
                }
            };
            Running::Sink(Box::new(SinkTask {
                connector: connector.to_owned(),
                task,
                instance,
                consumer,
                key_converter,
                value_converter,
                chain,
                reporter,
                events: shared.events.clone(),
                flush_interval: data.offset_flush_interval,
                max_records: data.sink_max_records,
                shutdown_timeout: shared.settings.task_shutdown_timeout,
                target: spec.target,
            }))
        }
    })
}

/// The failure of a created task's plugin `start`.
fn created(e: crate::runtime::InstanceError) -> StartError {
    StartError { trace: e.trace(), created: true }
}

fn get<'a>(config: &'a [(String, String)], key: &str) -> Option<&'a str> {
    config.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
}

/// A sink's `topics` or `topics.regex`.
fn subscription(config: &[(String, String)]) -> Option<Subscription> {
    if let Some(topics) = get(config, "topics").filter(|t| !t.trim().is_empty()) {
        let list = topics.split(',').map(str::trim).filter(|t| !t.is_empty()).map(String::from);
        return Some(Subscription::Topics(list.collect()));
    }
    get(config, "topics.regex")
        .filter(|t| !t.trim().is_empty())
        .map(|p| Subscription::Pattern(p.trim().to_owned()))
}

/// The converter for `side`: the connector's own, else the worker's.
fn converter(
    side: convert::Side,
    own: &Option<Result<Arc<dyn Converter>, ConvertError>>,
    data: &DataPlane,
) -> Result<Arc<dyn Converter>, String> {
    let built = match (own, side) {
        (Some(own), _) => own.clone(),
        (None, convert::Side::Key) => {
            convert::worker_default(side, &data.key_converter, &data.key_converter_props)
        }
        (None, convert::Side::Value) => {
            convert::worker_default(side, &data.value_converter, &data.value_converter_props)
        }
    };
    built.map_err(|e| e.to_string())
}

fn problems_trace(problems: &[crate::model::ConfigProblem]) -> String {
    problems.iter().map(|p| format!("{}: {}", p.key, p.message)).collect::<Vec<_>>().join("; ")
}
