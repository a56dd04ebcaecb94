//! The supervisor of one task instance: creates it, starts it, follows pause and resume,
//! and stops it within the graceful timeout, reporting each outcome as a [`WorkerEvent`].
//!
//! The data path (polling sources into topics, delivering topics to sinks) is not here
//! yet: a started task is instantiated and started, and idles until it is stopped.

use std::sync::Arc;

use tokio::sync::mpsc;

use super::{Shared, TaskSpec, WorkerEvent};
use crate::model::{PluginKind, TargetState};
use crate::runtime::{Identity, SinkTaskInstance, SourceTaskInstance};

enum Cmd {
    SetTarget(TargetState),
    Stop,
}

/// The herder's handle on a task supervisor.
pub(super) struct Handle {
    tx: mpsc::UnboundedSender<Cmd>,
    pub run: u64,
}

impl Handle {
    pub fn set_target(&self, target: TargetState) {
        let _ = self.tx.send(Cmd::SetTarget(target));
    }

    pub fn stop(&self) -> bool {
        self.tx.send(Cmd::Stop).is_ok()
    }

    pub fn abandon(self) {}
}

enum Running {
    Source(SourceTaskInstance),
    Sink(SinkTaskInstance),
}

impl Running {
    async fn stop(self) {
        let _ = match self {
            Self::Source(s) => s.stop().await,
            Self::Sink(s) => s.stop().await,
        };
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
    tokio::spawn(supervise(shared, connector, task, spec, run, rx));
    Handle { tx, run }
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
    let instance = match start(&shared, &connector, task, &spec).await {
        Ok(i) => i,
        Err(trace) => return emit(WorkerEvent::TaskFailed { connector, task, run, trace }),
    };
    emit(WorkerEvent::TaskStarted { connector: connector.clone(), task, run });
    let mut target = spec.target;
    let stopped = loop {
        match rx.recv().await {
            Some(Cmd::SetTarget(t)) => {
                tracing::debug!(connector = %connector, task, from = %target, to = %t, "Task target state changed");
                target = t;
            }
            Some(Cmd::Stop) => break true,
            None => break false,
        }
    };
    let timeout = shared.settings.task_shutdown_timeout;
    if tokio::time::timeout(timeout, instance.stop()).await.is_err() {
        tracing::warn!(connector = %connector, task, "The task did not stop in time and was abandoned");
    }
    if stopped {
        emit(WorkerEvent::TaskStopped { connector, task, run });
    }
}

async fn start(
    shared: &Shared,
    connector: &str,
    task: u32,
    spec: &TaskSpec,
) -> Result<Running, String> {
    let class = spec
        .connector_config
        .iter()
        .find(|(k, _)| k == "connector.class")
        .map(|(_, v)| v.as_str())
        .unwrap_or("");
    let plugin = shared.registry.resolve(class).ok_or_else(|| shared.registry.not_found(class))?;
    let ident = Identity::task(connector, task);
    let host = shared.host.clone();
    let config = spec.task_config.clone();
    Ok(match plugin.info().kind {
        PluginKind::Source => {
            let t = plugin.source_task(ident, &config, host).await.map_err(|e| e.trace())?;
            t.start(config).await.map_err(|e| e.trace())?;
            Running::Source(t)
        }
        PluginKind::Sink => {
            let t = plugin.sink_task(ident, &config, host).await.map_err(|e| e.trace())?;
            t.start(config).await.map_err(|e| e.trace())?;
            Running::Sink(t)
        }
    })
}
