//! The member loop: one task that keeps this worker in the group and tells the herder
//! what to run.
//!
//! [`GroupMember::spawn`] starts the task; the herder reads [`GroupEvent`]s and drives it
//! through the [`MemberHandle`]. The task:
//!
//! - finds the coordinator, joins with its [`MemberMetadata`](crate::MemberMetadata) (its
//!   URL, the latest [`ConfigView::offset`] and its current allocation) and syncs. When it
//!   leads, it assigns with the assignor from the latest [`ConfigView`], after waiting up
//!   to `worker_sync_timeout` for that view to reach the highest offset a member reported
//!   (else every member gets CONFIG_MISMATCH);
//! - tracks its allocation: after each sync, current - revoked + assigned; empty after
//!   [`GroupEvent::Lost`];
//! - heartbeats every `heartbeat_interval`. REBALANCE_IN_PROGRESS:
//!   [`GroupEvent::Rebalancing`] and a rejoin that keeps the allocation (cooperative).
//!   UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID, or no successful heartbeat for
//!   `session_timeout`: [`GroupEvent::Lost`] and a rejoin with a fresh member id.
//!   ILLEGAL_GENERATION: [`GroupEvent::Lost`] and a rejoin with the same id (the
//!   coordinator still knows it; a fresh one would leave a ghost that holds up the next
//!   rebalance until its session expires). Group requests (heartbeats, or the join of a
//!   member not in the group yet) failing for longer than `heartbeat_interval`
//!   (KAFKA-9184): [`GroupEvent::Lost`], then retries with a capped exponential back-off
//!   (100 ms doubling to 1 s; a coordinator that answers it is loading the group, as after
//!   a broker restart, is asked again after 100 ms);
//! - rejoins by itself when an assignment carries a positive delay, once it has passed,
//!   and on [`MemberHandle::rejoin`];
//! - after [`MemberHandle::stop_joining`] (the worker is shutting down), sends no JoinGroup
//!   any more: it heartbeats a membership it still holds, so its work is not given to others
//!   while it stops, and otherwise only waits for the leave;
//! - on [`MemberHandle::leave`], or when the events receiver is dropped, sends LeaveGroup
//!   (best effort, bounded) and ends;
//! - when the brokers refuse its SASL login or a TLS certificate (its own or theirs),
//!   sends [`GroupEvent::Fatal`] and ends at once, without retrying or leaving: the same
//!   settings cannot succeed, and a retry loop would only hide the cause.
//!
//! Events, in order: [`GroupEvent::Rebalancing`] once before each rebalance's JoinGroup
//! (not again for its retries), then [`GroupEvent::Assigned`] when it completes.
//! [`GroupEvent::Lost`] may come at any point, at most once between two `Assigned`.
//! [`GroupEvent::Fatal`] comes at most once, last: the events end after it.
//! The task never starts a second rebalance by itself after revocations: the herder stops
//! the revoked work, then calls [`MemberHandle::rejoin`], so no one else is assigned work
//! still running here.
//!
//! Must not: block on the herder, interpret connector configs, or retry without a
//! back-off. The group requests are `coordinator`'s; the assignment is the assignor's.
//!
//! Layout: this file (settings, [`ConfigView`], [`GroupEvent`], the handles), `task` (the
//! loop: membership state, joining and heartbeating), `leader` (the leader's part of a
//! rebalance), `control` (commands from the handles, the events receiver's liveness).

mod control;
mod leader;
mod task;

use std::collections::BTreeMap;
use std::time::Duration;

use crate::protocol::{Allocation, AssignmentError};
use crate::security::Security;

/// How to reach the group and how to behave in it.
#[derive(Clone, Debug)]
pub struct MemberSettings {
    /// `bootstrap.servers`, `host:port` each.
    pub bootstrap_servers: Vec<String>,
    /// `group.id`.
    pub group_id: String,
    /// Kafka client id sent with every request.
    pub client_id: String,
    /// This worker's advertised REST URL, sent in its metadata.
    pub url: String,
    /// `session.timeout.ms`.
    pub session_timeout: Duration,
    /// `rebalance.timeout.ms`.
    pub rebalance_timeout: Duration,
    /// `heartbeat.interval.ms`.
    pub heartbeat_interval: Duration,
    /// `scheduled.rebalance.max.delay.ms`, used when this member leads.
    pub scheduled_rebalance_max_delay: Duration,
    /// `worker.sync.timeout.ms`: how long a leader whose config view is behind a member's
    /// waits for it to catch up before answering CONFIG_MISMATCH.
    pub worker_sync_timeout: Duration,
    /// TLS and SASL for every connection to the brokers (`security.protocol`,
    /// `sasl.*`, `ssl.*`); the default is PLAINTEXT.
    pub security: Security,
}

/// The herder's view of the config topic, which the leader assigns from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConfigView {
    /// The offset of the next config record to read.
    pub offset: i64,
    /// Every configured connector that should run (not STOPPED), with its committed task
    /// count.
    pub connectors: BTreeMap<String, u32>,
}

/// One completed rebalance, as this member sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Assigned {
    /// The group generation.
    pub generation: i32,
    /// This member's id.
    pub member_id: String,
    /// Whether this member leads.
    pub is_leader: bool,
    /// The leader's REST URL.
    pub leader_url: String,
    /// Whether the leader could assign.
    pub error: AssignmentError,
    /// The config offset the assignment was computed at.
    pub config_offset: i64,
    /// Newly assigned here.
    pub assigned: Allocation,
    /// To stop here.
    pub revoked: Allocation,
    /// A rejoin is scheduled after this long (the member does it itself).
    pub delay: Duration,
    /// Leader only: every member's REST URL and full allocation after this rebalance,
    /// for routing requests to the worker that runs an instance.
    pub members: Option<BTreeMap<String, Allocation>>,
}

/// What the member loop tells the herder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GroupEvent {
    /// A rebalance started: keep running, but the leader and the assignment may change.
    Rebalancing,
    /// A rebalance completed.
    Assigned(Assigned),
    /// Membership is lost (coordinator unreachable, session expired, fenced): stop
    /// everything now, so no zombie keeps working. The loop keeps trying to rejoin.
    Lost {
        /// Why, for the log.
        reason: String,
    },
    /// The brokers refused this member's SASL login or a TLS certificate: retrying with
    /// the same settings cannot succeed. Stop everything, as after [`GroupEvent::Lost`];
    /// the loop has ended, and no event follows.
    Fatal {
        /// One line saying what was refused, for the log (never the password).
        reason: String,
    },
}

/// Requests to the member loop.
#[derive(Debug)]
enum MemberCommand {
    /// Start a rebalance; the reason is logged.
    Rejoin(String),
    /// Send no JoinGroup any more (the worker is shutting down).
    StopJoining,
    /// Leave the group and end; answered once done.
    Leave(tokio::sync::oneshot::Sender<()>),
}

/// The herder's handle on the member loop. Cheap to clone.
#[derive(Clone, Debug)]
pub struct MemberHandle {
    tx: tokio::sync::mpsc::UnboundedSender<MemberCommand>,
}

impl MemberHandle {
    /// Asks for a rejoin (a new rebalance); `reason` is logged.
    pub fn rejoin(&self, reason: &str) {
        let _ = self.tx.send(MemberCommand::Rejoin(reason.to_owned()));
    }

    /// Stops joining: from now on the loop sends no JoinGroup (neither a requested rejoin
    /// nor a retry), heartbeats the membership it holds, if any, and waits for
    /// [`MemberHandle::leave`]. For a worker that is shutting down: it leaves once, after its
    /// work has stopped, and never rejoins meanwhile.
    pub fn stop_joining(&self) {
        let _ = self.tx.send(MemberCommand::StopJoining);
    }

    /// Leaves the group (LeaveGroup) and ends the loop; returns once it has ended.
    pub async fn leave(&self) {
        let (tx, rx) = tokio::sync::oneshot::channel();
        if self.tx.send(MemberCommand::Leave(tx)).is_ok() {
            let _ = rx.await;
        }
    }
}

/// The member loop's entry point.
pub struct GroupMember;

impl GroupMember {
    /// Starts the loop on the current Tokio runtime (panics outside one). The leader
    /// assigns from the latest value of `config`; the events end when the loop ends. The
    /// loop keeps running when every handle is dropped; it ends on [`MemberHandle::leave`]
    /// or when the events receiver is dropped.
    pub fn spawn(
        settings: MemberSettings,
        config: tokio::sync::watch::Receiver<ConfigView>,
    ) -> (MemberHandle, tokio::sync::mpsc::UnboundedReceiver<GroupEvent>) {
        let (tx, commands) = tokio::sync::mpsc::unbounded_channel();
        let (events_tx, events) = tokio::sync::mpsc::unbounded_channel();
        let control = control::Control::new(commands, events_tx.clone());
        let task = task::MemberTask::new(settings, config, events_tx);
        tokio::spawn(task.run(control));
        (MemberHandle { tx }, events)
    }
}
