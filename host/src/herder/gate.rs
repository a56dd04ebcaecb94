//! Which worker may execute a request, and when. In a group, writes to the config topic
//! are the leader's, a connector or task restart is the owner's, and reads of a connector
//! need a settled assignment. A request that arrives while a rebalance is under way waits
//! for it, up to [`REBALANCE_WAIT`], and is then answered 409 as Kafka Connect answers;
//! a request for another worker is answered [`HerderError::NotHere`] with that worker's
//! URL, which REST forwards. A group of one admits everything. What each request needs
//! is [`Command::needs`]; this file decides, from this worker's membership, what follows.

use std::time::Duration;

use tokio::time::Instant;

use super::HerderError;
use super::actor::Herder;
use super::command::{Command, Needs};
use crate::model::InstanceId;

/// How long a request waits for a rebalance to complete before it is answered 409.
/// Rebalances caused by a config change settle within a heartbeat or two; one held up by
/// an unresponsive worker lasts until its session times out, and a client is better served
/// by a prompt 409 (which tools retry) than by a request that hangs.
pub const REBALANCE_WAIT: Duration = Duration::from_secs(5);

impl Herder {
    /// Decides what happens to a request: returned to be executed now, or answered
    /// (forwarded elsewhere), or kept until the rebalance under way completes.
    pub(super) fn admit(&mut self, command: Command) -> Option<Command> {
        if !self.member.in_group() {
            return Some(command);
        }
        let needs = command.needs();
        if matches!(needs, Needs::Nothing) {
            return Some(command);
        }
        if self.rebalance_pending() {
            self.deferred.push((Instant::now() + REBALANCE_WAIT, command));
            return None;
        }
        let not_here = |message: String, url: Option<&str>| HerderError::NotHere {
            message,
            url: url.map(str::to_owned),
        };
        let leader_url = self.member.leader_url();
        let refusal = match needs {
            Needs::Nothing | Needs::Settled => None,
            Needs::Leader => (!self.member.is_leader()).then(|| {
                not_here(
                    "Cannot complete request because this worker is not the leader".into(),
                    leader_url,
                )
            }),
            Needs::Owner(id) => {
                // A connector or task that does not exist is answered here (404).
                (self.config.has(&id) && !self.member.owns(&self.config, &id)).then(|| {
                    let url =
                        if self.member.is_leader() { self.member.owner(&id) } else { leader_url };
                    let what = match &id {
                        InstanceId::Connector(_) => "Connector",
                        InstanceId::Task(..) => "Task",
                    };
                    not_here(format!("{what} {id} is not assigned to this worker"), url)
                })
            }
        };
        match refusal {
            None => Some(command),
            Some(e) => {
                command.reject(e);
                None
            }
        }
    }

    /// When the waiting requests' turn comes: after a rebalance, each is admitted again;
    /// those that waited too long are answered 409.
    pub(super) fn run_deferred(&mut self) {
        let now = Instant::now();
        let pending = self.rebalance_pending();
        for (due, command) in std::mem::take(&mut self.deferred) {
            if pending && due > now {
                self.deferred.push((due, command));
            } else if pending {
                command.reject(self.rebalance_refusal());
            } else if let Some(c) = self.admit(command) {
                self.command(c);
            }
        }
    }

    /// The earliest time a waiting request must be answered.
    pub(super) fn next_deferred_due(&self) -> Option<Instant> {
        self.deferred.iter().map(|(due, _)| *due).min()
    }

    /// Kafka Connect's answer while a rebalance is under way: stale configuration when a
    /// leader is known, no known leader otherwise.
    fn rebalance_refusal(&self) -> HerderError {
        match self.member.leader_url() {
            Some(_) => HerderError::RebalanceNeeded,
            None => HerderError::NotHere {
                message: "No leader is known while a rebalance is under way".into(),
                url: None,
            },
        }
    }
}
