//! What the herder does when something happens: an instance started, failed or stopped,
//! a connector asked for reconfiguration, or a config-topic record changed the desired
//! state. Each handler updates the registry with what happened and turns the rest into
//! [`Action`]s for `apply`. A restart request read from the config topic is queued here;
//! `restarts` executes the queue.

use tokio::time::Instant;

use super::HerderError;
use super::actor::Herder;
use super::reconcile::Action;
use crate::model::{InstanceId, State, TargetState};
use crate::store::ConfigEvent;
use crate::worker::WorkerEvent;

impl Herder {
    /// Handles one worker event. Events of an older run of an instance are ignored.
    pub(super) fn worker_event(&mut self, event: WorkerEvent) {
        match event {
            WorkerEvent::ConnectorStarted { connector, run } => {
                let id = InstanceId::Connector(connector.clone());
                if !self.instances.is_current(&id, run) {
                    return;
                }
                // Logged before the start wakes a waiting request, so a client that has its
                // answer finds the line in the log.
                tracing::info!(connector = %connector, "Connector started");
                self.instance_started(&id, run);
                if self.config.target_state(&connector) == TargetState::Started {
                    self.reconfigure_fresh(&connector);
                }
            }
            WorkerEvent::ConnectorFailed { connector, run, trace } => {
                let id = InstanceId::Connector(connector.clone());
                if self.instances.end(&id, run).is_none() {
                    return;
                }
                self.chains.cancel(&connector);
                tracing::error!(connector = %connector, trace = %trace, "Connector failed");
                self.instance_failed(id.clone(), trace);
                let error = format!("Failed to start connector: {connector}");
                self.instances.wake(&id, Err(HerderError::Failed(error)));
            }
            WorkerEvent::ConnectorStopped { connector, run } => {
                let id = InstanceId::Connector(connector.clone());
                let Some(ended) = self.instances.end(&id, run) else { return };
                if !self.config.contains(&connector) {
                    self.forget_status(&id);
                } else if ended.then_start && self.shutting_down.is_none() {
                    self.show(&id, State::Restarting);
                    self.apply(Action::Start(id));
                } else if self.config.target_state(&connector) == TargetState::Stopped {
                    let status = self.status_of(State::Stopped, None);
                    self.show_status(&id, status);
                } else if self.instances.is_failed(&id) {
                    // Failed while running (`Action::Fail`): it stays FAILED.
                } else {
                    self.show_unassigned(&id);
                }
                self.dirty.insert(connector);
            }
            WorkerEvent::TaskConfigs { connector, run, result } => {
                // An answer that arrives after a pause, stop or config change is stale.
                let id = InstanceId::Connector(connector.clone());
                let current = self.instances.run(&id).is_some_and(|r| {
                    r.number == run && r.phase == super::instances::Phase::Running
                });
                if current && self.config.target_state(&connector) == TargetState::Started {
                    self.task_configs_answer(&connector, result);
                }
            }
            WorkerEvent::TaskStarted { connector, task, run } => {
                self.instance_started(&InstanceId::Task(connector, task), run);
            }
            WorkerEvent::TaskFailed { connector, task, run, trace, created } => {
                let id = InstanceId::Task(connector.clone(), task);
                if self.instances.end(&id, run).is_none() {
                    return;
                }
                tracing::error!(connector = %connector, task, trace = %trace, "Task failed");
                self.instance_failed(id.clone(), trace);
                // As Kafka Connect: a task it could create was started, even if its plugin's
                // start then failed (the status says FAILED with the trace); only one it
                // could not create fails the request.
                let answer = match created {
                    true => Ok(()),
                    false => Err(HerderError::Failed(format!(
                        "Failed to start task: {connector}-{task}"
                    ))),
                };
                self.instances.wake(&id, answer);
            }
            WorkerEvent::TaskStopped { connector, task, run } => {
                let id = InstanceId::Task(connector.clone(), task);
                let Some(ended) = self.instances.end(&id, run) else { return };
                let still_wanted = (task as usize) < self.config.task_configs(&connector).len()
                    && self.config.target_state(&connector) != TargetState::Stopped;
                if !still_wanted {
                    self.forget_status(&id);
                } else if ended.then_start && self.shutting_down.is_none() {
                    self.show(&id, State::Restarting);
                    self.apply(Action::Start(id));
                } else {
                    self.show_unassigned(&id);
                }
                self.dirty.insert(connector);
            }
            WorkerEvent::TopicActive { connector, task, topic } => {
                if self.config.contains(&connector) {
                    self.status.put_topic(&connector, &topic, task);
                }
            }
            WorkerEvent::ReconfigurationRequested { connector } => {
                // As in Kafka Connect, only a running, started connector is reconfigured.
                let id = InstanceId::Connector(connector.clone());
                if self.instances.phase(&id) == Some(super::instances::Phase::Running)
                    && self.config.target_state(&connector) == TargetState::Started
                {
                    self.reconfigure(&connector);
                }
            }
            WorkerEvent::ErrorRaised { connector, error } => {
                let id = InstanceId::Connector(connector.clone());
                if self.instances.is_running(&id) {
                    let trace = error.to_string();
                    tracing::error!(connector = %connector, error = %trace, "Connector raised an error");
                    self.apply(Action::Fail { id, trace });
                }
            }
        }
    }

    /// Run `run` of `id` reported its start: RUNNING (or PAUSED), and whoever waited on
    /// the start is answered.
    fn instance_started(&mut self, id: &InstanceId, run: u64) {
        if !self.instances.started(id, run) {
            return;
        }
        self.instances.set_failed(id, false);
        let note = self.auto_restarts.running(id, Instant::now());
        let status = self.status_of(self.started_state(id.connector()), note);
        self.show_status(id, status);
        self.instances.wake(id, Ok(()));
    }

    /// Handles one change read from the config topic.
    pub(super) fn config_event(&mut self, event: ConfigEvent) {
        match event {
            ConfigEvent::ConnectorUpdated(name) => {
                // A new config is a new chance: the connector instance starts again.
                let id = InstanceId::Connector(name.clone());
                self.forget_failures(|i| *i == id);
                if self.instances.is_running(&id) {
                    self.apply(Action::Restart { id, shown: false });
                } else {
                    self.dirty.insert(name);
                }
            }
            ConfigEvent::ConnectorRemoved(name) => {
                self.pending_restarts.forget(&name);
                self.chains.cancel(&name);
                self.forget_failures(|i| i.connector() == name);
                let id = InstanceId::Connector(name.clone());
                if !self.instances.is_running(&id) {
                    self.forget_status(&id);
                }
                for t in self.instances.tasks_of(&name) {
                    self.apply(Action::Stop(InstanceId::Task(name.clone(), t)));
                }
                for (t, _) in self.status.tasks(&name) {
                    let id = InstanceId::Task(name.clone(), t);
                    if !self.instances.is_running(&id) {
                        self.forget_status(&id);
                    }
                }
                self.dirty.insert(name);
            }
            ConfigEvent::TargetStateChanged(name) => self.target_changed(&name),
            ConfigEvent::TasksCommitted(name) => {
                // New task configs restart every task, failed ones included.
                self.forget_failures(|i| matches!(i, InstanceId::Task(c, _) if *c == name));
                let committed = self.config.task_configs(&name).len() as u32;
                for t in self.instances.tasks_of(&name) {
                    let id = InstanceId::Task(name.clone(), t);
                    let action = if t < committed {
                        Action::Restart { id, shown: false }
                    } else {
                        Action::Stop(id)
                    };
                    self.apply(action);
                }
                for (t, _) in self.status.tasks(&name) {
                    let id = InstanceId::Task(name.clone(), t);
                    if t >= committed && !self.instances.is_running(&id) {
                        self.forget_status(&id);
                    }
                }
                self.dirty.insert(name);
            }
            ConfigEvent::LoggerLevel(namespace, level) => {
                // Kafka Connect ignores a level it cannot apply, with a warning.
                if let Err(e) = self.settings.loggers.set(&namespace, &level) {
                    tracing::warn!(namespace = %namespace, error = %e, "Ignoring a cluster-wide log level");
                }
            }
            ConfigEvent::Restart(request) => self.pending_restarts.push(request),
            ConfigEvent::TaskCountRecorded(name) => self.task_count_recorded(name),
        }
    }

    fn target_changed(&mut self, name: &str) {
        let target = self.config.target_state(name);
        tracing::info!(connector = %name, target = %target, "Target state changed");
        match target {
            TargetState::Stopped => {
                self.chains.cancel(name);
                self.forget_failures(|i| i.connector() == name);
            }
            TargetState::Paused => {
                self.chains.cancel(name);
                self.apply(Action::Target(name.to_owned(), target));
                self.show_running_as(name, State::Paused);
            }
            TargetState::Started => {
                self.apply(Action::Target(name.to_owned(), target));
                self.show_running_as(name, State::Running);
                let id = InstanceId::Connector(name.to_owned());
                if self.instances.phase(&id) == Some(super::instances::Phase::Running) {
                    self.reconfigure_fresh(name);
                }
            }
        }
        self.dirty.insert(name.to_owned());
    }
}
