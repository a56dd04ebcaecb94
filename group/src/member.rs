//! The member loop: one task that keeps this worker in the group and tells the herder
//! what to run. CONTRACT (filled in by the implementation):
//!
//! - `GroupMember::spawn(settings, config)` starts the task and returns a
//!   [`MemberHandle`] and a receiver of [`GroupEvent`]s.
//! - It finds the coordinator, joins with [`MemberMetadata`] (its URL, the latest
//!   [`ConfigView::offset`], and its current allocation), and syncs. When it leads, it
//!   computes every member's assignment with the assignor from the latest [`ConfigView`].
//! - It tracks its own allocation: current = current - revoked + assigned after each sync;
//!   empty after [`GroupEvent::Lost`].
//! - It heartbeats every `heartbeat_interval`. REBALANCE_IN_PROGRESS: send
//!   [`GroupEvent::Rebalancing`] and rejoin, keeping the allocation (cooperative).
//!   UNKNOWN_MEMBER_ID / ILLEGAL_GENERATION / FENCED: send [`GroupEvent::Lost`] and rejoin
//!   fresh. Coordinator unreachable for longer than `heartbeat_interval` (KAFKA-9184):
//!   send [`GroupEvent::Lost`], keep trying to rejoin.
//! - A positive assignment delay schedules a rejoin after it. [`MemberHandle::rejoin`]
//!   asks for a rejoin (after revocations, on new connectors, on config mismatch).
//! - [`MemberHandle::leave`] sends LeaveGroup and ends the task.
//!
//! Must not: block on the herder, interpret connector configs, or retry forever without
//! a back-off.

use std::collections::BTreeMap;
use std::time::Duration;

use crate::protocol::{Allocation, AssignmentError};

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
}

/// Requests to the member loop.
#[derive(Debug)]
enum MemberCommand {
    Rejoin(String),
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
    /// Starts the loop. The leader assigns from the latest value of `config`; the events
    /// end when the loop ends.
    pub fn spawn(
        settings: MemberSettings,
        config: tokio::sync::watch::Receiver<ConfigView>,
    ) -> (MemberHandle, tokio::sync::mpsc::UnboundedReceiver<GroupEvent>) {
        let _ = (settings, config);
        unimplemented!("SKELETON: the member loop")
    }
}
