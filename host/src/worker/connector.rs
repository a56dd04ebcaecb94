//! The supervisor of one connector instance: creates it, starts it, answers task-config
//! requests and stops it, reporting each outcome as a [`WorkerEvent`]. The instance gets
//! its config with the config provider references resolved; the traces reported and the
//! config logged at start show the references, never the values. A source connector's
//! start first reads its offsets topics to their end (`host.rs`; its
//! `offsets.storage.topic`, created if missing, and the worker's), as a task's does.

use std::sync::Arc;

use tokio::sync::mpsc;

use super::connector_config::ConnectorConfig;
use super::{Parsed, Shared, TaskConfigsError, WorkerEvent};
use crate::config::providers::{Resolved, Secrets, has_variables};
use crate::model::{PluginKind, offsets_storage_topic};
use crate::runtime::{ConnectorInstance, Identity, InstanceError};

enum Cmd {
    TaskConfigs(u32),
    Stop,
}

/// The herder's handle on a connector supervisor.
pub struct Handle {
    tx: mpsc::UnboundedSender<Cmd>,
}

impl Handle {
    pub fn task_configs(&self, max: u32) -> bool {
        self.tx.send(Cmd::TaskConfigs(max)).is_ok()
    }

    pub fn stop(&self) -> bool {
        self.tx.send(Cmd::Stop).is_ok()
    }
}

pub(super) fn spawn(shared: Arc<Shared>, name: String, config: Parsed, run: u64) -> Handle {
    let (tx, rx) = mpsc::unbounded_channel();
    tokio::spawn(supervise(shared, name, config, run, rx));
    Handle { tx }
}

async fn supervise(
    shared: Arc<Shared>,
    name: String,
    config: Parsed,
    run: u64,
    mut rx: mpsc::UnboundedReceiver<Cmd>,
) {
    let emit = |e| {
        let _ = shared.events.send(e);
    };
    let failed =
        |trace: String| WorkerEvent::ConnectorFailed { connector: name.clone(), run, trace };
    let (instance, secrets) = match start(&shared, &name, config).await {
        Ok(started) => started,
        Err(trace) => return emit(failed(trace)),
    };
    emit(WorkerEvent::ConnectorStarted { connector: name.clone(), run });
    while let Some(cmd) = rx.recv().await {
        match cmd {
            Cmd::TaskConfigs(max) => {
                let result = instance.task_configs(max).await.map_err(|e| TaskConfigsError {
                    trace: secrets.scrub(&e.trace()),
                    retriable: matches!(&e, InstanceError::Connector(c) if c.is_retriable()),
                    instance_lost: e.is_fatal_to_instance(),
                });
                // A trap or timeout takes the instance with it: the connector fails with
                // the call's trace (trap kind, guest backtrace, stderr tail), as a task does.
                let lost =
                    result.as_ref().err().filter(|e| e.instance_lost).map(|e| e.trace.clone());
                emit(WorkerEvent::TaskConfigs { connector: name.clone(), run, result });
                if let Some(trace) = lost {
                    return emit(failed(trace));
                }
            }
            Cmd::Stop => {
                let timeout = shared.settings.connector_shutdown_timeout;
                if tokio::time::timeout(timeout, instance.stop()).await.is_err() {
                    tracing::warn!(connector = %name, "The connector did not stop in time and was abandoned");
                }
                return emit(WorkerEvent::ConnectorStopped { connector: name, run });
            }
        }
    }
    // The handle was dropped (abandoned): stop quietly.
    let _ = tokio::time::timeout(shared.settings.connector_shutdown_timeout, instance.stop()).await;
}

/// Creates the instance in its sandbox and calls `start` with its config, references
/// resolved; the values put in come back with the instance, to scrub later traces.
async fn start(
    shared: &Shared,
    name: &str,
    config: Parsed,
) -> Result<(ConnectorInstance, Secrets), String> {
    let config = config.map_err(|rejected| rejected.trace.clone())?;
    let resolved =
        shared.settings.providers.resolve_properties(config.raw()).map_err(|e| e.to_string())?;
    let secrets = resolved.secrets().clone();
    match create(shared, name, &config, &resolved).await {
        Ok(instance) => Ok((instance, secrets)),
        Err(trace) => Err(secrets.scrub(&trace)),
    }
}

async fn create(
    shared: &Shared,
    name: &str,
    config: &ConnectorConfig,
    resolved: &Resolved,
) -> Result<ConnectorInstance, String> {
    let plugin = &config.plugin;
    let sandbox = config.sandbox(resolved)?;
    let def = &plugin.info().config_def;
    let shown: Vec<String> = sandbox
        .config
        .iter()
        .map(|(k, v)| {
            let secret = def.key(k).is_some_and(|key| key.is_secret());
            // A value with references is logged as written, never resolved.
            let written = config.raw().get(k).filter(|w| has_variables(w));
            let value = match written {
                _ if secret => "[hidden]",
                Some(w) => w.as_str(),
                None => v.as_str(),
            };
            format!("{k}={value}")
        })
        .collect();
    tracing::info!(connector = %name, plugin = %plugin.info().name, config = %shown.join(", "), "Starting connector");
    let full = def.with_defaults(&sandbox.config);
    if plugin.info().kind == PluginKind::Source {
        // A source connector may read its offsets too (KIP-875's context reader).
        let topic = offsets_storage_topic(config.raw());
        let offsets = shared.host.connector_offsets(name, topic).await?;
        shared.host.read_offsets_to_end(&offsets).await?;
    }
    let instance = plugin
        .connector_in(Identity::connector(name), &sandbox, shared.host.clone())
        .await
        .map_err(|e| e.trace())?;
    instance.start(full).await.map_err(|e| e.trace())?;
    Ok(instance)
}
