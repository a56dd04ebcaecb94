//! Which worker may execute a request, and when. In a group, writes to the config topic
//! are the leader's, a connector or task restart is the owner's, and reads of a connector
//! need a settled assignment. A request that arrives while a rebalance is under way waits
//! for it, up to [`REBALANCE_WAIT`], and is then answered 409 as Kafka Connect answers;
//! a request for another worker is answered [`HerderError::NotHere`] with that worker's
//! URL, which REST forwards. A group of one admits everything.

use std::time::Duration;

use tokio::time::Instant;

use super::actor::Herder;
use super::{Command, HerderError};
use crate::model::{InstanceId, TargetState};

/// How long a request waits for a rebalance to complete before it is answered 409.
/// Rebalances caused by a config change settle within a heartbeat or two; one held up by
/// an unresponsive worker lasts until its session times out, and a client is better served
/// by a prompt 409 (which tools retry) than by a request that hangs.
pub const REBALANCE_WAIT: Duration = Duration::from_secs(5);

/// What a request needs from the group.
enum Needs {
    /// Nothing: any worker answers it at once (lists, pause, resume, offsets reads).
    Nothing,
    /// A settled assignment (Kafka Connect's "rebalance needed" check).
    Settled,
    /// The leader.
    Leader,
    /// The worker that runs the instance.
    Owner(InstanceId),
}

impl Command {
    fn needs(&self) -> Needs {
        match self {
            Command::Connectors(_)
            | Command::Offsets(..)
            | Command::ClusterLoggerLevel(..)
            | Command::Shutdown(_) => Needs::Nothing,
            Command::SetTarget(_, target, _) if *target != TargetState::Stopped => Needs::Nothing,
            Command::Info(..) | Command::TaskConfigs(..) => Needs::Settled,
            Command::Restart { request, .. } if request.is_instance_only() => {
                Needs::Owner(InstanceId::Connector(request.connector.clone()))
            }
            Command::RestartTask(name, task, _) => {
                Needs::Owner(InstanceId::Task(name.clone(), *task))
            }
            Command::PutConfig { .. }
            | Command::Delete(..)
            | Command::SetTarget(..)
            | Command::Restart { .. }
            | Command::SubmitTaskConfigs(..)
            | Command::AlterOffsets { .. }
            | Command::ResetOffsets(..) => Needs::Leader,
        }
    }

    /// Answers the request with `error` without executing it.
    pub(super) fn reject(self, error: HerderError) {
        fn fail<T>(reply: super::Reply<T>, error: HerderError) {
            let _ = reply.send(Err(error));
        }
        match self {
            Command::Connectors(r) => fail(r, error),
            Command::Info(_, r) => fail(r, error),
            Command::TaskConfigs(_, r) => fail(r, error),
            Command::PutConfig { reply, .. } => fail(reply, error),
            Command::Delete(_, r)
            | Command::SetTarget(_, _, r)
            | Command::RestartTask(_, _, r)
            | Command::SubmitTaskConfigs(_, _, r)
            | Command::ClusterLoggerLevel(_, _, r) => fail(r, error),
            Command::Restart { reply, .. } => fail(reply, error),
            Command::Offsets(_, r) => fail(r, error),
            Command::AlterOffsets { reply, .. } => fail(reply, error),
            Command::ResetOffsets(_, r) => fail(r, error),
            Command::Shutdown(done) => drop(done.send(())),
        }
    }
}

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

#[cfg(test)]
mod tests {
    use tokio::sync::oneshot;

    use super::*;
    use crate::model::RestartRequest;

    fn reply<T>() -> super::super::Reply<T> {
        oneshot::channel().0
    }

    fn restart(include_tasks: bool, only_failed: bool) -> Command {
        let request = RestartRequest { connector: "c".into(), include_tasks, only_failed };
        Command::Restart { request, reply: reply() }
    }

    #[test]
    fn writes_need_the_leader_restarts_the_owner_reads_a_settled_group() {
        let put = Command::PutConfig {
            name: "c".into(),
            config: Default::default(),
            initial: None,
            replace: true,
            reply: reply(),
        };
        assert!(matches!(put.needs(), Needs::Leader));
        assert!(matches!(Command::Delete("c".into(), reply()).needs(), Needs::Leader));
        let stop = Command::SetTarget("c".into(), TargetState::Stopped, reply());
        assert!(matches!(stop.needs(), Needs::Leader));
        let pause = Command::SetTarget("c".into(), TargetState::Paused, reply());
        assert!(matches!(pause.needs(), Needs::Nothing));
        assert!(
            matches!(restart(false, false).needs(), Needs::Owner(InstanceId::Connector(c)) if c == "c")
        );
        assert!(matches!(restart(true, false).needs(), Needs::Leader));
        assert!(matches!(restart(false, true).needs(), Needs::Leader));
        let task = Command::RestartTask("c".into(), 2, reply());
        assert!(matches!(task.needs(), Needs::Owner(InstanceId::Task(c, 2)) if c == "c"));
        let submit = Command::SubmitTaskConfigs("c".into(), vec![], reply());
        assert!(matches!(submit.needs(), Needs::Leader));
        assert!(matches!(Command::ResetOffsets("c".into(), reply()).needs(), Needs::Leader));
        assert!(matches!(Command::Info("c".into(), reply()).needs(), Needs::Settled));
        assert!(matches!(Command::Connectors(reply()).needs(), Needs::Nothing));
        assert!(matches!(Command::Offsets("c".into(), reply()).needs(), Needs::Nothing));
        let level = Command::ClusterLoggerLevel("a.b".into(), "DEBUG".into(), reply());
        assert!(matches!(level.needs(), Needs::Nothing), "any worker writes a cluster level");
    }

    #[test]
    fn a_rejected_request_gets_the_error() {
        let (tx, mut rx) = oneshot::channel();
        Command::Delete("c".into(), tx).reject(HerderError::RebalanceNeeded);
        assert!(matches!(rx.try_recv(), Ok(Err(HerderError::RebalanceNeeded))));
        let (tx, mut rx) = oneshot::channel();
        Command::Info("c".into(), tx).reject(HerderError::ShuttingDown);
        assert!(matches!(rx.try_recv(), Ok(Err(HerderError::ShuttingDown))));
    }
}
