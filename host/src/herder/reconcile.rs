//! Desired against running: for each connector marked dirty, start what the config and
//! assignment want here and is not running, stop what runs but is no longer wanted, and
//! show STOPPED for a stopped connector of this worker that no instance reports for.
//! Also the start and stop primitives every other part of the herder uses.

use super::actor::{Herder, Phase, Run};
use crate::model::{InstanceId, State, TargetState};
use crate::worker::TaskSpec;

impl Herder {
    /// Reconciles every dirty connector.
    pub(super) fn reconcile_dirty(&mut self) {
        if self.shutting_down.is_some() {
            self.dirty.clear();
            return;
        }
        for name in std::mem::take(&mut self.dirty) {
            self.reconcile(&name);
        }
    }

    fn reconcile(&mut self, name: &str) {
        let target = self.config.target_state(name);
        let owned = self.config.contains(name) && self.member.owns_connector(&self.config, name);
        let wanted = owned && target != TargetState::Stopped;
        let failed = self.failed.contains(&InstanceId::Connector(name.to_owned()));
        match (wanted, self.connectors.get(name).map(|r| r.phase)) {
            (true, None) if !failed => self.start_connector(name),
            (false, Some(Phase::Starting | Phase::Running)) => self.stop_connector(name, false),
            (false, None) if owned => self.show_stopped(name),
            _ => {}
        }
        let task_count =
            if target == TargetState::Stopped { 0 } else { self.config.task_configs(name).len() };
        let running: Vec<u32> =
            self.tasks.keys().filter(|(c, _)| c == name).map(|(_, t)| *t).collect();
        for t in running {
            let keep = (t as usize) < task_count && self.member.owns_task(&self.config, name, t);
            if !keep
                && self.tasks.get(&(name.to_owned(), t)).is_some_and(|r| r.phase != Phase::Stopping)
            {
                self.stop_task(name, t, false);
            }
        }
        for t in 0..task_count as u32 {
            if self.member.owns_task(&self.config, name, t)
                && !self.tasks.contains_key(&(name.to_owned(), t))
                && !self.failed.contains(&InstanceId::Task(name.to_owned(), t))
            {
                self.start_task(name, t);
            }
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

    /// Starts the connector instance of `name` from its current config.
    pub(super) fn start_connector(&mut self, name: &str) {
        let Some(config) = self.config.connector_config(name) else { return };
        let config = config.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        let run = self.next_run();
        self.worker.start_connector(name, config, run);
        self.connectors
            .insert(name.to_owned(), Run { run, phase: Phase::Starting, restart: false });
    }

    /// Stops the connector instance; with `restart`, starts it again once stopped (a
    /// FAILED one too).
    pub(super) fn stop_connector(&mut self, name: &str, restart: bool) {
        let id = InstanceId::Connector(name.to_owned());
        if restart {
            self.failed.remove(&id);
        }
        if let Some(r) = self.connectors.get_mut(name) {
            r.restart |= restart;
            if r.phase != Phase::Stopping {
                r.phase = Phase::Stopping;
                self.chains.cancel(name);
                if !self.worker.stop_connector(name) {
                    // The supervisor is gone already: nothing will report the stop.
                    self.connectors.remove(name);
                }
            }
        } else if restart {
            self.status.put(id.clone(), self.status_noted(&id, State::Restarting));
            self.start_connector(name);
        }
    }

    /// Starts task `task` of `name` from its committed config.
    pub(super) fn start_task(&mut self, name: &str, task: u32) {
        let Some(task_config) = self.config.task_configs(name).get(task as usize) else { return };
        let Some(connector_config) = self.config.connector_config(name) else { return };
        let spec = TaskSpec {
            task_config: task_config.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
            connector_config: connector_config
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            target: self.config.target_state(name),
        };
        let run = self.next_run();
        tracing::info!(connector = %name, task, "Starting task");
        self.worker.start_task(name, task, spec, run);
        self.tasks
            .insert((name.to_owned(), task), Run { run, phase: Phase::Starting, restart: false });
    }

    /// Stops a task; with `restart`, starts it again once stopped (a FAILED one too).
    pub(super) fn stop_task(&mut self, name: &str, task: u32, restart: bool) {
        let key = (name.to_owned(), task);
        let id = InstanceId::Task(name.to_owned(), task);
        if restart {
            self.failed.remove(&id);
        }
        if let Some(r) = self.tasks.get_mut(&key) {
            r.restart |= restart;
            if r.phase != Phase::Stopping {
                r.phase = Phase::Stopping;
                if !self.worker.stop_task(name, task) {
                    self.tasks.remove(&key);
                }
            }
        } else if restart {
            self.status.put(id.clone(), self.status_noted(&id, State::Restarting));
            self.start_task(name, task);
        }
    }
}
