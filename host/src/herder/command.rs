//! The requests [`HerderHandle`](super::HerderHandle) sends the loop, and everything that is
//! decided per kind of request before the loop executes it: whether it writes to the config
//! topic (and so waits its turn in the write pipeline), what it needs from the group (the
//! leader, the instance's owner, a settled assignment, or nothing), and how it is answered
//! when it is refused without being executed. Every per-variant table of [`Command`] is a
//! method here; the loop's handling of each request is in `requests`.
//!
//! Pure values: nothing here reads the herder's state or sends anything but a refusal.

use tokio::sync::oneshot;

use super::connector_offsets::ConnectorOffsets;
use super::{ConnectorInfo, HerderError, PutOutcome, RestartOutcome};
use crate::model::{InstanceId, Properties, RestartRequest, TargetState};

/// Where the answer to a request goes.
pub(super) type Reply<T> = oneshot::Sender<Result<T, HerderError>>;

/// Requests to the herder loop.
pub(super) enum Command {
    Connectors(Reply<Vec<String>>),
    /// Leader only: the other members' REST URLs (empty elsewhere).
    Peers(Reply<Vec<String>>),
    Info(String, Reply<ConnectorInfo>),
    TaskConfigs(String, Reply<Vec<Properties>>),
    PutConfig {
        name: String,
        config: Properties,
        initial: Option<TargetState>,
        replace: bool,
        reply: Reply<PutOutcome>,
    },
    Delete(String, Reply<()>),
    SetTarget(String, TargetState, Reply<()>),
    Restart {
        request: RestartRequest,
        reply: Reply<RestartOutcome>,
    },
    RestartTask(String, u32, Reply<()>),
    SubmitTaskConfigs(String, Vec<Properties>, Reply<()>),
    /// KIP-618: one zombie fencing round for a source connector (the internal
    /// `PUT /connectors/{name}/fence`).
    FenceZombies(String, Reply<()>),
    Offsets(String, Reply<ConnectorOffsets>),
    AlterOffsets {
        name: String,
        offsets: Vec<(serde_json::Value, Option<serde_json::Value>)>,
        reply: Reply<String>,
    },
    ResetOffsets(String, Reply<String>),
    /// KIP-976: namespace and level, checked by the caller.
    ClusterLoggerLevel(String, String, Reply<()>),
    Shutdown(oneshot::Sender<()>),
}

/// What a request needs from the group before it may be executed here.
pub(super) enum Needs {
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
    /// Whether the request writes to the config topic (and so waits for the write in
    /// flight).
    pub fn writes(&self) -> bool {
        match self {
            Command::PutConfig { .. }
            | Command::Delete(..)
            | Command::SetTarget(..)
            | Command::SubmitTaskConfigs(..)
            | Command::FenceZombies(..)
            | Command::ClusterLoggerLevel(..) => true,
            Command::Restart { request, .. } => !request.is_instance_only(),
            _ => false,
        }
    }

    /// What the request needs from the group.
    pub fn needs(&self) -> Needs {
        match self {
            Command::Connectors(_)
            | Command::Peers(_)
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
            | Command::FenceZombies(..)
            | Command::AlterOffsets { .. }
            | Command::ResetOffsets(..) => Needs::Leader,
        }
    }

    /// Answers the request with `error` without executing it.
    pub fn reject(self, error: HerderError) {
        fn fail<T>(reply: Reply<T>, error: HerderError) {
            let _ = reply.send(Err(error));
        }
        match self {
            Command::Connectors(r) | Command::Peers(r) => fail(r, error),
            Command::Info(_, r) => fail(r, error),
            Command::TaskConfigs(_, r) => fail(r, error),
            Command::PutConfig { reply, .. } => fail(reply, error),
            Command::Delete(_, r)
            | Command::SetTarget(_, _, r)
            | Command::RestartTask(_, _, r)
            | Command::SubmitTaskConfigs(_, _, r)
            | Command::FenceZombies(_, r)
            | Command::ClusterLoggerLevel(_, _, r) => fail(r, error),
            Command::Restart { reply, .. } => fail(reply, error),
            Command::Offsets(_, r) => fail(r, error),
            Command::AlterOffsets { reply, .. } => fail(reply, error),
            Command::ResetOffsets(_, r) => fail(r, error),
            Command::Shutdown(done) => drop(done.send(())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply<T>() -> Reply<T> {
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
        let fence = Command::FenceZombies("c".into(), reply());
        assert!(fence.writes());
        assert!(matches!(fence.needs(), Needs::Leader));
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
