//! Failed instances: marking them FAILED, keeping them down, and bringing them back under
//! the connector's restart policy (`restart.policy=on-failure`).
//!
//! A FAILED instance stays down, as in Kafka Connect, until a restart request, new configs,
//! a stop and resume, or its restart policy starts it again. Under the policy, every
//! failure schedules a restart with capped exponential back-off ([`AutoRestarts`]) and
//! the FAILED status carries a `restart` object saying when. Once the optional limit is
//! reached, the trace says so and the instance stays FAILED.
//!
//! [`AutoRestarts`]: super::auto_restart::AutoRestarts

use tokio::time::Instant;

use super::actor::Herder;
use super::auto_restart::AfterFailure;
use super::reconcile::Action;
use crate::model::{InstanceId, State, TargetState, random_unit};
use crate::store::RetryInfo;
use crate::telemetry::events::AutomaticRestart;

impl Herder {
    /// Records that `id` failed (its instance is gone or stopping): FAILED with `trace`,
    /// kept down; under a restart policy, a restart is scheduled, or the limit is reached.
    pub(super) fn instance_failed(&mut self, id: InstanceId, trace: String) {
        self.instances.set_failed(&id, true);
        let mut status = self.status_of(State::Failed, Some(trace.clone()));
        if let Some(policy) = self.policies(id.connector()).restart {
            let now = Instant::now();
            match self.auto_restarts.failed(&id, now, &trace, &policy, random_unit()) {
                AfterFailure::Restart { attempt, retries_max, delay, .. } => {
                    tracing::info!(
                        instance = %id,
                        attempt,
                        delay_ms = delay.as_millis() as u64,
                        "Scheduled an automatic restart"
                    );
                    status.restart =
                        Some(Box::new(RetryInfo::after(attempt, retries_max, delay, None)));
                }
                AfterFailure::Exhausted { trace } => {
                    tracing::warn!(
                        instance = %id,
                        "Not restarting automatically: the restart limit is reached"
                    );
                    status.trace = Some(trace);
                }
            }
        }
        self.show_failed(&id, status);
    }

    /// Restarts the instances whose policy restart is due and that are still FAILED and
    /// wanted here.
    pub(super) fn run_due_restarts(&mut self) {
        if self.shutting_down.is_some() {
            return;
        }
        for (id, attempt) in self.auto_restarts.take_due(Instant::now()) {
            if !self.instances.is_failed(&id) || !self.wanted(&id) {
                continue;
            }
            AutomaticRestart { instance: &id, attempt }.emit();
            self.apply(Action::Restart { id, shown: false });
        }
    }

    /// Whether `id` should run on this worker: it exists, is assigned here and its
    /// connector is not stopped.
    fn wanted(&self, id: &InstanceId) -> bool {
        let name = id.connector();
        if !self.config.contains(name) || self.config.target_state(name) == TargetState::Stopped {
            return false;
        }
        self.config.has(id) && self.member.owns(&self.config, id)
    }

    /// Forgets the failures of the instances `which` selects: they may be started again,
    /// and their restart counts start over (a restart request, new configs, deletion).
    pub(super) fn forget_failures(&mut self, which: impl Fn(&InstanceId) -> bool) {
        self.instances.forget_failures(&which);
        self.auto_restarts.forget(which);
    }
}
