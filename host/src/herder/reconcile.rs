//! Desired against running, as a pure function: from the config state, this worker's
//! assignment and the instance registry, the [`Action`]s that bring one connector's
//! instances here in line: start what the config and assignment want here and is not
//! running (unless it failed and is kept down), stop what runs but is no longer wanted, and
//! show STOPPED for a stopped connector of this worker that no instance reports for.
//!
//! Restart plans, the restart policy and the reconfiguration retry chain emit the same
//! actions; `apply` (in [`super::apply`]) executes them all. Nothing here has side effects.

use std::fmt;

use super::Membership;
use super::instances::{Instances, Phase};
use crate::model::{InstanceId, TargetState};
use crate::store::ConfigState;

/// One step that changes what runs here.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Action {
    /// Start the instance from its current config.
    Start(InstanceId),
    /// Stop the instance; it is not started again unless another action says so.
    Stop(InstanceId),
    /// Stop the instance if it runs, then start it; a failed one starts at once. With
    /// `shown`, a running instance shows RESTARTING from now on, before it has stopped
    /// (the overlay of a restart request's plan); otherwise once it has.
    Restart {
        /// The instance.
        id: InstanceId,
        /// Whether RESTARTING is shown before the stop.
        shown: bool,
    },
    /// Show STOPPED for a connector of this worker that no instance reports for.
    ShowStopped(String),
    /// Fail the instance: FAILED with `trace`, stopped, and kept down.
    Fail {
        /// The instance.
        id: InstanceId,
        /// Why.
        trace: String,
    },
    /// Tell the connector's running tasks to pause or resume.
    Target(String, TargetState),
    /// Ask the running connector instance for its task configs.
    RequestTaskConfigs(String),
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Action::Start(id) => write!(f, "start {id}"),
            Action::Stop(id) => write!(f, "stop {id}"),
            Action::Restart { id, shown: true } => write!(f, "restart {id} (shown RESTARTING)"),
            Action::Restart { id, shown: false } => write!(f, "restart {id}"),
            Action::ShowStopped(name) => write!(f, "show {name} STOPPED"),
            Action::Fail { id, .. } => write!(f, "fail {id}"),
            Action::Target(name, target) => write!(f, "set the tasks of {name} {target}"),
            Action::RequestTaskConfigs(name) => write!(f, "ask {name} for task configs"),
        }
    }
}

/// The actions that reconcile connector `name` on this worker.
pub(super) fn plan(
    name: &str,
    config: &ConfigState,
    member: &Membership,
    instances: &Instances,
) -> Vec<Action> {
    let mut actions = Vec::new();
    let target = config.target_state(name);
    let connector = InstanceId::Connector(name.to_owned());
    let owned = config.contains(name) && member.owns(config, &connector);
    let wanted = owned && target != TargetState::Stopped;
    match (wanted, instances.phase(&connector)) {
        (true, None) if !instances.is_failed(&connector) => {
            actions.push(Action::Start(connector));
        }
        (false, Some(Phase::Starting | Phase::Running)) => actions.push(Action::Stop(connector)),
        (false, None) if owned => actions.push(Action::ShowStopped(name.to_owned())),
        _ => {}
    }
    let task_count = if target == TargetState::Stopped || !config.contains(name) {
        0
    } else {
        config.task_configs(name).len()
    };
    let owns = |t: u32| {
        (t as usize) < task_count && member.owns(config, &InstanceId::Task(name.to_owned(), t))
    };
    for t in instances.tasks_of(name) {
        let id = InstanceId::Task(name.to_owned(), t);
        if !owns(t) && instances.phase(&id) != Some(Phase::Stopping) {
            actions.push(Action::Stop(id));
        }
    }
    for t in 0..task_count as u32 {
        let id = InstanceId::Task(name.to_owned(), t);
        if owns(t) && !instances.is_running(&id) && !instances.is_failed(&id) {
            actions.push(Action::Start(id));
        }
    }
    actions
}

#[cfg(test)]
#[path = "reconcile_tests.rs"]
mod tests;
