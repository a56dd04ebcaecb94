//! The execution of [`Action`]s: the only code that calls the worker (through the
//! [`Runner`](super::runner::Runner) and the handles in the registry) and the only writer
//! of lifecycle statuses (RUNNING, PAUSED, RESTARTING, STOPPED, UNASSIGNED, FAILED).
//! Plans are computed elsewhere ([`super::reconcile`], restart plans, the restart policy,
//! the retry chain); this file does what they say, in order. A task start of an
//! exactly-once source connector pending fencing waits instead (`fence_gate`).

use super::actor::Herder;
use super::instances::Phase;
use super::reconcile::{Action, plan};
use crate::model::{InstanceId, State, TargetState};
use crate::store::Status;
use crate::telemetry::events::ReconfigurationAttempted;
use crate::worker::connector_config::{Rejected, RejectedReason};
use crate::worker::{Parsed, TaskSpec};

impl Herder {
    /// Executes one action.
    pub(super) fn apply(&mut self, action: Action) {
        tracing::debug!(action = %action, "Applying");
        match action {
            Action::Start(id) => self.start(&id),
            Action::Stop(id) => self.stop(&id, false),
            Action::Restart { id, shown } => {
                self.instances.set_failed(&id, false);
                if shown && self.instances.is_running(&id) {
                    self.show(&id, State::Restarting);
                }
                self.stop(&id, true);
            }
            Action::ShowStopped(name) => self.show_stopped(&name),
            Action::Fail { id, trace } => {
                if let InstanceId::Connector(name) = &id {
                    self.chains.cancel(name);
                }
                self.instance_failed(id.clone(), trace);
                self.stop(&id, false);
            }
            Action::Target(name, target) => {
                for t in self.instances.tasks_of(&name) {
                    let id = InstanceId::Task(name.clone(), t);
                    if let Some(run) = self.instances.run(&id) {
                        run.handle.set_target(target);
                    }
                }
            }
            Action::RequestTaskConfigs(name) => {
                let max = self.max_tasks(&name);
                let id = InstanceId::Connector(name.clone());
                if self.instances.run(&id).is_some_and(|r| r.handle.task_configs(max)) {
                    ReconfigurationAttempted { connector: &name }.emit();
                } else {
                    tracing::debug!(connector = %name, "Skipping reconfiguration: the connector is not running");
                    self.chains.cancel(&name);
                }
            }
        }
    }

    /// Executes every action.
    pub(super) fn apply_all(&mut self, actions: impl IntoIterator<Item = Action>) {
        for action in actions {
            self.apply(action);
        }
    }

    /// Reconciles every dirty connector.
    pub(super) fn reconcile_dirty(&mut self) {
        if self.shutting_down.is_some() {
            self.dirty.clear();
            return;
        }
        for name in std::mem::take(&mut self.dirty) {
            let actions = plan(&name, &self.config, &self.member, &self.instances);
            self.apply_all(actions);
        }
    }

    /// Starts an instance from its current config and records the run.
    fn start(&mut self, id: &InstanceId) {
        let name = id.connector();
        let Some(connector) = self.typed.get(name).cloned() else { return };
        if let Err(r) = &connector
            && missing_plugin(r)
            && let Some(files) = self.registry.borrow().loading()
        {
            // The plugin path is still loading: the plugin may be in a file not loaded
            // yet. The instance starts when it is, or fails when the scan is done.
            tracing::info!(connector = %name, instance = %id, loading = files.len(), "Waiting for the plugin path to load the connector's plugin");
            return;
        }
        let connector = self.naming_worker(connector);
        let version = connector.as_ref().ok().map(|c| c.plugin.info().version.clone());
        let run = self.instances.next_run();
        let handle = match id {
            InstanceId::Connector(_) => self.runner.start_connector(name, connector, run),
            InstanceId::Task(_, task) => {
                if self.held_for_fencing(name) {
                    tracing::info!(connector = %name, task, "Task waits for the zombie fencing of its connector's previous tasks");
                    return;
                }
                let Some(task_config) = self.config.task_configs(name).get(*task as usize) else {
                    return;
                };
                let spec = TaskSpec {
                    task_config: task_config.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
                    connector,
                    target: self.config.target_state(name),
                };
                tracing::info!(connector = %name, task, "Starting task");
                self.runner.start_task(name, *task, spec, run)
            }
        };
        self.instances.insert(id, run, handle, version);
    }

    /// In a group, a config whose plugin or version this worker lacks fails saying which
    /// worker lacks it: every worker has a plugin path of its own.
    fn naming_worker(&self, parsed: Parsed) -> Parsed {
        match parsed {
            Err(r) if self.member.in_group() && missing_plugin(&r) => {
                let trace = format!("On worker {}: {}", self.member.worker_id(), r.trace);
                Err(std::sync::Arc::new(Rejected { trace, ..(*r).clone() }))
            }
            parsed => parsed,
        }
    }

    /// Stops an instance; with `then_start`, starts it again once stopped (one that is not
    /// running starts at once, showing RESTARTING).
    fn stop(&mut self, id: &InstanceId, then_start: bool) {
        if let Some(run) = self.instances.run_mut(id) {
            run.then_start |= then_start;
            if run.phase != Phase::Stopping {
                run.phase = Phase::Stopping;
                let delivered = run.handle.stop();
                if let InstanceId::Connector(name) = id {
                    self.chains.cancel(name);
                }
                if !delivered {
                    // The supervisor is gone already: nothing will report the stop.
                    self.instances.drop_run(id);
                }
            }
        } else if then_start {
            self.show(id, State::Restarting);
            self.start(id);
        }
    }

    /// A status with this worker's identity.
    pub(super) fn status_of(&self, state: State, trace: Option<String>) -> Status {
        Status {
            state,
            trace,
            worker_id: self.member.worker_id().to_owned(),
            generation: self.member.generation(),
            version: None,
            reconfiguration: None,
            restart: None,
        }
    }

    /// A status of `id` in `state` whose trace carries the restart policy's note (it says
    /// so when a restart policy restarted the instance).
    pub(super) fn status_noted(&self, id: &InstanceId, state: State) -> Status {
        self.status_of(state, self.auto_restarts.note(id))
    }

    /// `status` of `id` with the version of the plugin `id` runs (or, between runs, the
    /// one its config picks now), as Kafka Connect 4.1+ writes statuses (KIP-891).
    fn versioned(&self, id: &InstanceId, mut status: Status) -> Status {
        if status.version.is_none() {
            status.version = self.instances.run(id).and_then(|r| r.version.clone()).or_else(|| {
                let parsed = self.typed.get(id.connector())?.as_ref().ok()?;
                Some(parsed.plugin.info().version.clone())
            });
        }
        status
    }

    /// Shows `state` for `id`; RUNNING and RESTARTING carry the restart policy's note.
    pub(super) fn show(&mut self, id: &InstanceId, state: State) {
        let status = self.versioned(id, self.status_noted(id, state));
        self.status.put(id.clone(), status);
    }

    /// Shows `status` for `id` as it is, with its plugin's version.
    pub(super) fn show_status(&mut self, id: &InstanceId, status: Status) {
        let status = self.versioned(id, status);
        self.status.put(id.clone(), status);
    }

    /// Shows UNASSIGNED, unless another worker has written a newer status meanwhile.
    pub(super) fn show_unassigned(&mut self, id: &InstanceId) {
        self.status.put_safe(id.clone(), self.status_of(State::Unassigned, None));
    }

    /// Shows FAILED with `status` (a trace, perhaps a restart), unless another worker has
    /// written a newer status meanwhile.
    pub(super) fn show_failed(&mut self, id: &InstanceId, status: Status) {
        let status = self.versioned(id, status);
        self.status.put_safe(id.clone(), status);
    }

    /// Removes the status of an instance that no longer exists.
    pub(super) fn forget_status(&mut self, id: &InstanceId) {
        self.status.delete(id.clone());
    }

    /// Shows `state` for the connector and tasks of `name` that run here (pause, resume).
    pub(super) fn show_running_as(&mut self, name: &str, state: State) {
        let connector = InstanceId::Connector(name.to_owned());
        let mut ids: Vec<InstanceId> = Vec::new();
        if self.instances.phase(&connector) == Some(Phase::Running) {
            ids.push(connector);
        }
        for t in self.instances.tasks_of(name) {
            let id = InstanceId::Task(name.to_owned(), t);
            if self.instances.phase(&id) == Some(Phase::Running) {
                ids.push(id);
            }
        }
        for id in ids {
            let status = self.versioned(&id, self.status_of(state, None));
            self.status.put(id, status);
        }
    }

    /// A STOPPED connector that is not running here (created or restored STOPPED, or
    /// FAILED before the stop) shows STOPPED, reported by this worker, as in Kafka Connect;
    /// one that stops while running shows it when its instance reports the stop.
    fn show_stopped(&mut self, name: &str) {
        let id = InstanceId::Connector(name.to_owned());
        let shown = self.status.get(&id);
        if shown.is_none_or(|s| s.state != State::Stopped || s.worker_id != self.member.worker_id())
        {
            self.status.put(id, self.status_of(State::Stopped, None));
        }
    }

    /// The state a started instance shows: PAUSED while its connector is paused.
    pub(super) fn started_state(&self, name: &str) -> State {
        match self.config.target_state(name) {
            TargetState::Paused => State::Paused,
            _ => State::Running,
        }
    }
}

/// Whether a config was rejected because its plugin, or the version it asks for, is not
/// installed.
fn missing_plugin(r: &Rejected) -> bool {
    matches!(r.reason, RejectedReason::Version | RejectedReason::UnknownClass)
}
