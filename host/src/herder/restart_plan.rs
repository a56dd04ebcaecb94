//! The plans computed from restart requests (KIP-745, [`RestartRequest`]): which instances
//! to restart, given the statuses this worker knows. Pure values, unit-tested without a
//! runtime; a plan becomes [`Action`]s for this worker's assignment, which the herder
//! applies like any other.

use std::collections::BTreeMap;
use std::fmt;

use super::ConnectorStatus;
use super::reconcile::Action;
use crate::model::{InstanceId, RestartRequest, State};
use crate::store::Status;

/// What a restart request will restart.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RestartPlan {
    /// The request it came from.
    pub request: RestartRequest,
    /// Whether the connector instance is restarted.
    pub restart_connector: bool,
    /// The task ids restarted, ascending.
    pub tasks: Vec<u32>,
}

impl RestartPlan {
    /// The plan for `request`, from the connector's and its tasks' current states. `None` when
    /// there is no connector status: the request is then skipped, as in Kafka Connect.
    pub fn new(
        request: &RestartRequest,
        connector_state: Option<State>,
        task_states: &BTreeMap<u32, State>,
    ) -> Option<RestartPlan> {
        let connector_state = connector_state?;
        let restart_connector = !request.only_failed || connector_state == State::Failed;
        let tasks = if request.include_tasks {
            task_states
                .iter()
                .filter(|(_, s)| !request.only_failed || **s == State::Failed)
                .map(|(t, _)| *t)
                .collect()
        } else {
            Vec::new()
        };
        Some(RestartPlan { request: request.clone(), restart_connector, tasks })
    }

    /// Whether the plan restarts nothing.
    pub fn is_empty(&self) -> bool {
        !self.restart_connector && self.tasks.is_empty()
    }

    /// Whether the plan restarts `id`.
    pub fn restarts(&self, id: &InstanceId) -> bool {
        id.connector() == self.request.connector
            && match id {
                InstanceId::Connector(_) => self.restart_connector,
                InstanceId::Task(_, t) => self.tasks.contains(t),
            }
    }

    /// The actions that execute the plan on a worker that owns the instances `owns`
    /// accepts: each instance restarted shows RESTARTING at once.
    pub(super) fn actions(&self, owns: impl Fn(&InstanceId) -> bool) -> Vec<Action> {
        let name = &self.request.connector;
        let connector = self.restart_connector.then(|| InstanceId::Connector(name.clone()));
        let tasks = self.tasks.iter().map(|t| InstanceId::Task(name.clone(), *t));
        connector
            .into_iter()
            .chain(tasks)
            .filter(|id| owns(id))
            .map(|id| Action::Restart { id, shown: true })
            .collect()
    }

    /// The 202 answer's statuses: every instance this plan restarts RESTARTING without a
    /// trace, every other instance as `status` has it. Never marks an instance the plan
    /// leaves alone, so under `onlyFailed` only FAILED instances can show RESTARTING.
    pub fn shown(&self, mut status: ConnectorStatus) -> ConnectorStatus {
        let restarting = |s: &mut Status| {
            s.state = State::Restarting;
            s.trace = None;
        };
        if self.restart_connector {
            restarting(&mut status.connector);
        }
        for (t, s) in &mut status.tasks {
            if self.tasks.contains(t) {
                restarting(s);
            }
        }
        status
    }
}

impl fmt::Display for RestartPlan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match (self.restart_connector, self.tasks.len()) {
            (false, 0) => "nothing".to_string(),
            (true, 0) => "the connector instance".to_string(),
            (c, _) => format!(
                "{}tasks {:?}",
                if c { "the connector instance and " } else { "" },
                self.tasks
            ),
        };
        write!(f, "Restart plan for connector '{}': restart {what}", self.request.connector)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(only_failed: bool, include_tasks: bool) -> RestartRequest {
        RestartRequest { connector: "c".into(), only_failed, include_tasks }
    }

    fn tasks() -> BTreeMap<u32, State> {
        BTreeMap::from([(0, State::Running), (1, State::Failed), (2, State::Paused)])
    }

    #[test]
    fn plans_follow_the_kip_745_table() {
        let p = RestartPlan::new(&req(false, false), Some(State::Running), &tasks()).unwrap();
        assert!(p.restart_connector && p.tasks.is_empty());
        let p = RestartPlan::new(&req(true, false), Some(State::Running), &tasks()).unwrap();
        assert!(p.is_empty());
        let p = RestartPlan::new(&req(true, false), Some(State::Failed), &tasks()).unwrap();
        assert!(p.restart_connector && p.tasks.is_empty());
        let p = RestartPlan::new(&req(false, true), Some(State::Paused), &tasks()).unwrap();
        assert!(p.restart_connector);
        assert_eq!(p.tasks, vec![0, 1, 2]);
        let p = RestartPlan::new(&req(true, true), Some(State::Running), &tasks()).unwrap();
        assert!(!p.restart_connector);
        assert_eq!(p.tasks, vec![1]);
    }

    fn shown(only_failed: bool, include_tasks: bool, connector: State) -> Vec<State> {
        let st = |state| Status::new(state, Some("trace".into()), "w:1".into(), 1);
        let status = ConnectorStatus {
            name: "c".into(),
            connector: st(connector),
            tasks: tasks().into_iter().map(|(t, s)| (t, st(s))).collect(),
            kind: None,
            version: None,
        };
        let states = tasks();
        let plan =
            RestartPlan::new(&req(only_failed, include_tasks), Some(connector), &states).unwrap();
        let shown = plan.shown(status);
        std::iter::once(&shown.connector)
            .chain(shown.tasks.iter().map(|(_, s)| s))
            .map(|s| {
                assert_eq!(s.trace.is_none(), s.state == State::Restarting, "{s:?}");
                s.state
            })
            .collect()
    }

    #[test]
    fn answers_mark_only_what_the_plan_restarts() {
        use State::*;
        // onlyFailed never marks a healthy instance, with or without tasks.
        assert_eq!(shown(true, false, Running), [Running, Running, Failed, Paused]);
        assert_eq!(shown(true, true, Running), [Running, Running, Restarting, Paused]);
        assert_eq!(shown(true, true, Failed), [Restarting, Running, Restarting, Paused]);
        assert_eq!(shown(false, true, Running), [Restarting; 4]);
        assert_eq!(shown(false, false, Paused), [Restarting, Running, Failed, Paused]);
    }

    #[test]
    fn plans_restart_only_what_this_worker_owns_showing_restarting() {
        let p = RestartPlan::new(&req(false, true), Some(State::Running), &tasks()).unwrap();
        let restart = |id| Action::Restart { id, shown: true };
        let t = |n| InstanceId::Task("c".into(), n);
        assert_eq!(
            p.actions(|_| true),
            [
                restart(InstanceId::Connector("c".into())),
                restart(t(0)),
                restart(t(1)),
                restart(t(2))
            ]
        );
        assert_eq!(p.actions(|id| *id == t(1)), [restart(t(1))]);
        let only_failed =
            RestartPlan::new(&req(true, true), Some(State::Running), &tasks()).unwrap();
        assert!(only_failed.restarts(&t(1)) && !only_failed.restarts(&t(0)));
        assert!(!only_failed.restarts(&InstanceId::Task("other".into(), 1)));
        assert!(req(false, false).is_instance_only());
        assert!(!req(true, false).is_instance_only() && !req(false, true).is_instance_only());
    }

    #[test]
    fn no_status_means_no_plan() {
        assert!(RestartPlan::new(&req(false, true), None, &tasks()).is_none());
    }

    #[test]
    fn impact_orders_requests() {
        let ranks: Vec<u8> =
            [req(true, false), req(true, true), req(false, false), req(false, true)]
                .iter()
                .map(RestartRequest::impact)
                .collect();
        assert_eq!(ranks, vec![0, 1, 2, 3]);
    }

    #[test]
    fn plans_read_as_sentences() {
        let p = RestartPlan::new(&req(true, true), Some(State::Failed), &tasks()).unwrap();
        assert_eq!(
            p.to_string(),
            "Restart plan for connector 'c': restart the connector instance and tasks [1]"
        );
    }
}
