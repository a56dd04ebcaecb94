//! Restart requests (KIP-745) recorded in the config topic, executed: the queued requests
//! become [`RestartPlan`]s against this worker's statuses and assignment, and their
//! [`Action`](super::reconcile::Action)s are applied; a request written here is executed
//! when its answer is made (its write's completion), and answered with the statuses its
//! plan shows.
//!
//! The requests are queued by `events` as the config topic's records arrive; a restart
//! without flags (case A) never reaches the config topic and is `requests`'.

use super::actor::Herder;
use super::restart_plan::RestartPlan;
use super::{ConnectorStatus, HerderError, RestartOutcome, RestartRequest};
use crate::model::InstanceId;

impl Herder {
    /// Executes a recorded restart request before answering, with the statuses as
    /// `GET /connectors/{name}/status` shows them from then on: every instance the plan
    /// restarts RESTARTING (here or, for instances of other workers, until they execute
    /// the record), every other instance its current state. The plan and the statuses are
    /// read from one state, with nothing run in between.
    pub(super) fn answer_restart(
        &mut self,
        request: RestartRequest,
    ) -> Result<RestartOutcome, HerderError> {
        let name = request.connector.clone();
        let executed = if self.rebalance_pending() { Vec::new() } else { self.process_restarts() };
        let connector = self.status.get(&InstanceId::Connector(name.clone())).ok_or_else(|| {
            HerderError::NotFound(format!("Status for connector {name} not found"))
        })?;
        let tasks = self.status.tasks(&name);
        let plan = match executed.into_iter().find(|p| p.request.connector == name) {
            Some(plan) => plan,
            // Not executed yet (a rebalance is pending): planned from the same statuses.
            None => {
                let states = tasks.iter().map(|(t, s)| (*t, s.state)).collect();
                RestartPlan::new(&request, Some(connector.state), &states)
                    .expect("a connector status exists")
            }
        };
        let (kind, version) = self.info(&name).map(|i| (i.kind, i.version)).unwrap_or_default();
        let tasks = tasks.into_iter().collect();
        let status = ConnectorStatus { name, connector, tasks, kind, version };
        Ok(RestartOutcome::Accepted(plan.shown(status)))
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
        // The request being answered runs with its answer ([`Herder::answer_restart`]).
        let pending = self.pending_restarts.take(self.writes.restart_in_flight());
        for (name, request) in pending {
            let connector_state =
                self.status.get(&InstanceId::Connector(name.clone())).map(|s| s.state);
            let tasks = self.status.tasks(&name).into_iter().map(|(t, s)| (t, s.state)).collect();
            let Some(plan) = RestartPlan::new(&request, connector_state, &tasks) else {
                tracing::debug!(connector = %name, "Skipping a restart request: no status for the connector");
                continue;
            };
            tracing::info!("{plan}");
            // A restart by request starts the restart policy's counts over.
            self.forget_failures(|i| plan.restarts(i));
            let actions = plan.actions(|id| self.member.owns(&self.config, id));
            self.apply_all(actions);
            executed.push(plan);
        }
        executed
    }
}
