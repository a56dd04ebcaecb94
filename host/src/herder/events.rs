//! What the herder does when something happens: an instance started, failed or stopped,
//! a connector asked for reconfiguration, or a config-topic record changed the desired
//! state. Also the execution of queued restart requests.

use tokio::time::Instant;

use super::actor::{Herder, Phase};
use super::{HerderError, RestartPlan};
use crate::model::{InstanceId, State, TargetState};
use crate::store::ConfigEvent;
use crate::worker::WorkerEvent;

impl Herder {
    /// Handles one worker event. Events of an older run of an instance are ignored.
    pub(super) async fn worker_event(&mut self, event: WorkerEvent) {
        match event {
            WorkerEvent::ConnectorStarted { connector, run } => {
                let Some(r) = self.connectors.get_mut(&connector).filter(|r| r.run == run) else {
                    return;
                };
                if r.phase == Phase::Starting {
                    r.phase = Phase::Running;
                }
                let target = self.config.target_state(&connector);
                let state =
                    if target == TargetState::Paused { State::Paused } else { State::Running };
                let id = InstanceId::Connector(connector.clone());
                self.failed.remove(&id);
                let note = self.auto_restarts.running(&id, Instant::now());
                self.status.put(id.clone(), self.status_of(state, note));
                tracing::info!(connector = %connector, "Connector started");
                self.wake_waiters(&id, Ok(()));
                if target == TargetState::Started {
                    self.reconfigure_fresh(&connector);
                }
            }
            WorkerEvent::ConnectorFailed { connector, run, trace } => {
                if self.connectors.get(&connector).is_none_or(|r| r.run != run) {
                    return;
                }
                self.connectors.remove(&connector);
                self.worker.connector_gone(&connector, run);
                self.chains.cancel(&connector);
                tracing::error!(connector = %connector, trace = %trace, "Connector failed");
                let id = InstanceId::Connector(connector.clone());
                self.instance_failed(id.clone(), trace);
                self.wake_waiters(
                    &id,
                    Err(HerderError::Failed(format!("Failed to start connector: {connector}"))),
                );
            }
            WorkerEvent::ConnectorStopped { connector, run } => {
                let Some(r) = self.connectors.get(&connector).filter(|r| r.run == run).cloned()
                else {
                    return;
                };
                self.connectors.remove(&connector);
                let id = InstanceId::Connector(connector.clone());
                if !self.config.contains(&connector) {
                    self.status.delete(id);
                } else if r.restart && self.shutting_down.is_none() {
                    self.status.put(id.clone(), self.status_noted(&id, State::Restarting));
                    self.start_connector(&connector);
                } else if self.config.target_state(&connector) == TargetState::Stopped {
                    self.status.put(id, self.status_of(State::Stopped, None));
                } else if self.failed.contains(&id) {
                    // Failed while running (`fail_connector`): it stays FAILED.
                } else {
                    self.status.put_safe(id, self.status_of(State::Unassigned, None));
                }
                self.dirty.insert(connector);
            }
            WorkerEvent::TaskConfigs { connector, run, result } => {
                // An answer that arrives after a pause, stop or config change is stale.
                let current = self
                    .connectors
                    .get(&connector)
                    .is_some_and(|r| r.run == run && r.phase == Phase::Running);
                if current && self.config.target_state(&connector) == TargetState::Started {
                    self.task_configs_answer(&connector, result).await;
                }
            }
            WorkerEvent::TaskStarted { connector, task, run } => {
                let key = (connector.clone(), task);
                let Some(r) = self.tasks.get_mut(&key).filter(|r| r.run == run) else { return };
                if r.phase == Phase::Starting {
                    r.phase = Phase::Running;
                }
                let state = match self.config.target_state(&connector) {
                    TargetState::Paused => State::Paused,
                    _ => State::Running,
                };
                let id = InstanceId::Task(connector, task);
                self.failed.remove(&id);
                let note = self.auto_restarts.running(&id, Instant::now());
                self.status.put(id.clone(), self.status_of(state, note));
                self.wake_waiters(&id, Ok(()));
            }
            WorkerEvent::TaskFailed { connector, task, run, trace } => {
                let key = (connector.clone(), task);
                if self.tasks.get(&key).is_none_or(|r| r.run != run) {
                    return;
                }
                self.tasks.remove(&key);
                self.worker.task_gone(&connector, task, run);
                tracing::error!(connector = %connector, task, trace = %trace, "Task failed");
                let id = InstanceId::Task(connector.clone(), task);
                self.instance_failed(id.clone(), trace);
                self.wake_waiters(
                    &id,
                    Err(HerderError::Failed(format!("Failed to start task: {connector}-{task}"))),
                );
            }
            WorkerEvent::TaskStopped { connector, task, run } => {
                let key = (connector.clone(), task);
                let Some(r) = self.tasks.get(&key).filter(|r| r.run == run).cloned() else {
                    return;
                };
                self.tasks.remove(&key);
                let id = InstanceId::Task(connector.clone(), task);
                let still_wanted = (task as usize) < self.config.task_configs(&connector).len()
                    && self.config.target_state(&connector) != TargetState::Stopped;
                if !still_wanted {
                    self.status.delete(id);
                } else if r.restart && self.shutting_down.is_none() {
                    self.status.put(id.clone(), self.status_noted(&id, State::Restarting));
                    self.start_task(&connector, task);
                } else {
                    self.status.put_safe(id, self.status_of(State::Unassigned, None));
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
                if self.connectors.get(&connector).is_some_and(|r| r.phase == Phase::Running)
                    && self.config.target_state(&connector) == TargetState::Started
                {
                    self.reconfigure(&connector);
                }
            }
            WorkerEvent::ErrorRaised { connector, error } => {
                if self.connectors.contains_key(&connector) {
                    let trace = error.to_string();
                    tracing::error!(connector = %connector, error = %trace, "Connector raised an error");
                    self.fail_connector(&connector, trace);
                }
            }
        }
    }

    /// Handles one change read from the config topic.
    pub(super) fn config_event(&mut self, event: ConfigEvent) {
        match event {
            ConfigEvent::ConnectorUpdated(name) => {
                // A new config is a new chance: the connector instance starts again.
                let id = InstanceId::Connector(name.clone());
                self.forget_failures(|i| *i == id);
                if self.connectors.contains_key(&name) {
                    self.stop_connector(&name, true);
                } else {
                    self.dirty.insert(name);
                }
            }
            ConfigEvent::ConnectorRemoved(name) => {
                self.pending_restarts.remove(&name);
                self.chains.cancel(&name);
                self.forget_failures(|i| i.connector() == name);
                if !self.connectors.contains_key(&name) {
                    self.status.delete(InstanceId::Connector(name.clone()));
                }
                for t in self.worker.tasks_of(&name) {
                    self.stop_task(&name, t, false);
                }
                for (id, _) in self.status.tasks(&name) {
                    if !self.tasks.contains_key(&(name.clone(), id)) {
                        self.status.delete(InstanceId::Task(name.clone(), id));
                    }
                }
                self.dirty.insert(name);
            }
            ConfigEvent::TargetStateChanged(name) => self.target_changed(&name),
            ConfigEvent::TasksCommitted(name) => {
                // New task configs restart every task, failed ones included.
                self.forget_failures(|i| matches!(i, InstanceId::Task(c, _) if *c == name));
                let committed = self.config.task_configs(&name).len() as u32;
                for (c, t) in self.tasks.keys().cloned().collect::<Vec<_>>() {
                    if c == name {
                        // New task configs: every running task of the connector restarts.
                        self.stop_task(&c, t, t < committed);
                    }
                }
                for (id, _) in self.status.tasks(&name) {
                    if id >= committed && !self.tasks.contains_key(&(name.clone(), id)) {
                        self.status.delete(InstanceId::Task(name.clone(), id));
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
            ConfigEvent::Restart(request) => {
                let replace = self
                    .pending_restarts
                    .get(&request.connector)
                    .is_none_or(|old| request.impact() > old.impact());
                if replace {
                    self.pending_restarts.insert(request.connector.clone(), request);
                }
            }
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
                self.worker.set_target_state(name, target);
                self.put_running_states(name, State::Paused);
            }
            TargetState::Started => {
                self.worker.set_target_state(name, target);
                self.put_running_states(name, State::Running);
                if self.connectors.get(name).is_some_and(|r| r.phase == Phase::Running) {
                    self.reconfigure_fresh(name);
                }
            }
        }
        self.dirty.insert(name.to_owned());
    }

    /// Writes `state` for the connector and tasks of `name` that run here.
    fn put_running_states(&mut self, name: &str, state: State) {
        if self.connectors.get(name).is_some_and(|r| r.phase == Phase::Running) {
            self.status.put(InstanceId::Connector(name.to_owned()), self.status_of(state, None));
        }
        let running: Vec<u32> = self
            .tasks
            .iter()
            .filter(|((c, _), r)| c == name && r.phase == Phase::Running)
            .map(|((_, t), _)| *t)
            .collect();
        for t in running {
            self.status.put(InstanceId::Task(name.to_owned(), t), self.status_of(state, None));
        }
    }

    /// Executes the queued restart requests against this worker's statuses and
    /// assignment, and returns the plans it executed. Every instance a plan restarts here
    /// shows RESTARTING from this call on (Kafka Connect's `onRestart`), so a status read
    /// after a 202 answer never shows the state from before the restart.
    pub(super) fn process_restarts(&mut self) -> Vec<RestartPlan> {
        if self.shutting_down.is_some() {
            self.pending_restarts.clear();
            return Vec::new();
        }
        let mut executed = Vec::new();
        for (name, request) in std::mem::take(&mut self.pending_restarts) {
            let connector_state =
                self.status.get(&InstanceId::Connector(name.clone())).map(|s| s.state);
            let tasks = self.status.tasks(&name).into_iter().map(|(t, s)| (t, s.state)).collect();
            let Some(plan) = request.plan(connector_state, &tasks) else {
                tracing::debug!(connector = %name, "Skipping a restart request: no status for the connector");
                continue;
            };
            tracing::info!("{plan}");
            // A restart by request starts the restart policy's counts over.
            self.forget_failures(|i| {
                i.connector() == name
                    && match i {
                        InstanceId::Connector(_) => plan.restart_connector,
                        InstanceId::Task(_, t) => plan.tasks.contains(t),
                    }
            });
            // An instance that is not running here (a FAILED one) shows RESTARTING as soon
            // as `stop_*` starts it again; a running one must show it before it has stopped.
            if plan.restart_connector && self.member.owns_connector(&self.config, &name) {
                if self.connectors.contains_key(&name) {
                    let id = InstanceId::Connector(name.clone());
                    self.status.put(id.clone(), self.status_noted(&id, State::Restarting));
                }
                self.stop_connector(&name, true);
            }
            for &t in &plan.tasks {
                if self.member.owns_task(&self.config, &name, t) {
                    if self.tasks.contains_key(&(name.clone(), t)) {
                        let id = InstanceId::Task(name.clone(), t);
                        self.status.put(id.clone(), self.status_noted(&id, State::Restarting));
                    }
                    self.stop_task(&name, t, true);
                }
            }
            executed.push(plan);
        }
        executed
    }
}
