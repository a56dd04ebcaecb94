//! The member loop itself: the membership state (member id, generation, allocation) and
//! the two phases it alternates between, joining and heartbeating.
//!
//! Owns the member's state and every decision about failures: which ones rejoin at once,
//! which back off, when membership counts as lost. The leader's assignment is in
//! `leader`; requests are `coordinator`'s; waits and commands go through `Control`.

use std::time::Duration;

use bytes::Bytes;
use kafka_protocol::error::ResponseError;
use tokio::sync::{mpsc, watch};
use tokio::time::Instant;
use wasm_connect_backoff::{Attempts, Backoff};

use super::control::{Control, Stop, Wake};
use super::{Assigned, ConfigView, GroupEvent, MemberSettings};
use crate::assignor::AssignorState;
use crate::coordinator::{Coordinator, CoordinatorSettings, Joined};
use crate::error::GroupError;
use crate::protocol::{Allocation, Assignment, MemberMetadata};

/// The shortest timeout for requests the broker answers at once (they get
/// `heartbeat_interval` otherwise): below it, a loaded broker's ordinary latency would
/// look like an outage.
const REQUEST_TIMEOUT_FLOOR: Duration = Duration::from_secs(1);

/// Where the loop is.
#[derive(Debug)]
enum Phase {
    /// Join (again) and sync; the reason is logged and sent with JoinGroup.
    Join(String),
    /// In a generation: heartbeat, wait for a rejoin.
    Stable,
    /// The brokers refused the login or a certificate: report it and end.
    Fatal(String),
}

/// The member's state, owned by the loop task.
#[derive(Debug)]
pub(super) struct MemberTask {
    pub(super) settings: MemberSettings,
    pub(super) config: watch::Receiver<ConfigView>,
    events: mpsc::UnboundedSender<GroupEvent>,
    pub(super) coordinator: Coordinator,
    pub(super) assignor: AssignorState,
    /// Empty until the coordinator gives one, and again after membership is lost.
    pub(super) member_id: String,
    /// The generation synced last.
    generation: i32,
    /// What this member runs, as far as the group knows.
    pub(super) allocation: Allocation,
    /// Whether this member led the generation synced last.
    pub(super) led_last: bool,
    /// A rejoin scheduled by an assignment's delay.
    rejoin_at: Option<Instant>,
    /// When a heartbeat is due (or retried, after a failure).
    next_heartbeat: Instant,
    /// The last successful heartbeat or sync: the broker's session timer restarted then.
    last_contact: Instant,
    /// When the current run of failed requests started.
    failing_since: Option<Instant>,
    /// Lost was sent since the last Assigned.
    lost_reported: bool,
    /// Rebalancing was sent since the last Assigned.
    rebalancing_reported: bool,
    backoff: Attempts,
}

/// The first retry's delay after a failed group request: long enough not to hammer a
/// broker that refuses connections, short enough that a moved coordinator is found again
/// at once.
const RETRY_INITIAL: Duration = Duration::from_millis(100);

/// The longest delay between retries: an outage is retried at least this often, so
/// membership comes back within a second of the broker (Kafka's clients cap their
/// reconnect back-off at `reconnect.backoff.max.ms`, 1 s, for the same reason). A longer
/// cap added up to its length to every outage it outlived.
const RETRY_MAX: Duration = Duration::from_secs(1);

impl MemberTask {
    /// A member that has not joined yet.
    pub(super) fn new(
        settings: MemberSettings,
        config: watch::Receiver<ConfigView>,
        events: mpsc::UnboundedSender<GroupEvent>,
    ) -> Self {
        let request_timeout = settings
            .heartbeat_interval
            .max(REQUEST_TIMEOUT_FLOOR)
            .min(settings.session_timeout.max(REQUEST_TIMEOUT_FLOOR));
        let coordinator = Coordinator::new(CoordinatorSettings {
            bootstrap_servers: settings.bootstrap_servers.clone(),
            group_id: settings.group_id.clone(),
            client_id: settings.client_id.clone(),
            security: settings.security.clone(),
            request_timeout,
            rebalance_timeout: settings.rebalance_timeout,
            session_timeout: settings.session_timeout,
        });
        let now = Instant::now();
        Self {
            settings,
            config,
            events,
            coordinator,
            assignor: AssignorState::default(),
            member_id: String::new(),
            generation: -1,
            allocation: Allocation::default(),
            led_last: false,
            rejoin_at: None,
            next_heartbeat: now,
            last_contact: now,
            failing_since: None,
            lost_reported: false,
            rebalancing_reported: false,
            backoff: Backoff::doubling(RETRY_INITIAL, RETRY_MAX).attempts(),
        }
    }

    /// Runs until a leave or the events receiver is dropped, then leaves the group; or
    /// until a fatal error, reported as [`GroupEvent::Fatal`].
    pub(super) async fn run(mut self, mut control: Control) {
        let mut phase = Phase::Join("starting".to_owned());
        loop {
            let next = match phase {
                Phase::Join(_) if control.joining_stopped() => {
                    self.wait_for_leave(&mut control).await
                }
                Phase::Join(reason) => self.join_step(&mut control, reason).await,
                Phase::Stable => self.stable_step(&mut control).await,
                Phase::Fatal(reason) => {
                    // Nothing can reach the group any more, not even a LeaveGroup: the
                    // session timeout drops this member.
                    tracing::debug!(group_id = %self.settings.group_id, reason, "Giving up on the group");
                    self.send(GroupEvent::Fatal { reason });
                    return;
                }
            };
            match next {
                Some(next) => phase = next,
                None => break,
            }
        }
        let stop = control.take_stop();
        let reason = match stop {
            Some(Stop::EventsDropped) => "the worker stopped reading group events",
            _ => "the worker is leaving",
        };
        self.leave(reason).await;
        if let Some(Stop::Leave(reply)) = stop {
            let _ = reply.send(());
        }
    }

    /// One attempt at a rebalance, then a back-off if it failed.
    async fn join_step(&mut self, control: &mut Control, reason: String) -> Option<Phase> {
        if !self.rebalancing_reported {
            self.report_rebalancing();
        }
        let started = Instant::now();
        match control.guard(self.rebalance(&reason)).await? {
            Ok(()) => {
                self.on_success();
                match control.take_rejoin() {
                    Some(reason) => Some(Phase::Join(reason)),
                    None => Some(Phase::Stable),
                }
            }
            Err(GroupError::MemberIdRequired { member_id }) => {
                self.member_id = member_id;
                Some(Phase::Join(reason))
            }
            Err(GroupError::RebalanceInProgress) => Some(Phase::Join(reason)),
            Err(GroupError::MembershipLost(error)) if !self.member_id.is_empty() => {
                self.lose_to_coordinator(error);
                Some(Phase::Join(reason))
            }
            Err(error) if error.is_fatal() => Some(Phase::Fatal(error.to_string())),
            Err(error) => {
                self.on_failure(&error, started);
                if matches!(error, GroupError::CoordinatorUnavailable(_)) {
                    // The broker answers: its coordinator is moving or loading the group
                    // (as after a broker restart), which takes moments. Retry after the
                    // first delay, as Kafka's clients retry it after `retry.backoff.ms`,
                    // not after the back-off the outage built up.
                    self.backoff.reset();
                }
                let delay = self.backoff.next_delay();
                tracing::warn!(
                    group_id = %self.settings.group_id,
                    retry_in = ?delay,
                    error = %error,
                    "Joining the group failed"
                );
                control.sleep_until(Some(Instant::now() + delay), false).await?;
                Some(Phase::Join(reason))
            }
        }
    }

    /// Joining was stopped (the worker is shutting down) and a join is due: sends nothing
    /// and waits for the leave, or for the events receiver to go.
    async fn wait_for_leave(&mut self, control: &mut Control) -> Option<Phase> {
        tracing::info!(
            group_id = %self.settings.group_id,
            "Not joining the group again: the worker is shutting down"
        );
        while control.sleep_until(None, false).await.is_some() {}
        None
    }

    /// Waits for the next heartbeat, a scheduled rejoin or a rejoin request, then acts.
    /// Once joining is stopped, only heartbeats are sent.
    async fn stable_step(&mut self, control: &mut Control) -> Option<Phase> {
        let rejoin_at = self.rejoin_at.filter(|_| !control.joining_stopped());
        let deadline = match rejoin_at {
            Some(at) => at.min(self.next_heartbeat),
            None => self.next_heartbeat,
        };
        match control.sleep_until(Some(deadline), !control.joining_stopped()).await? {
            Wake::Rejoin => {
                let reason = control.take_rejoin().unwrap_or_default();
                return Some(Phase::Join(reason));
            }
            Wake::JoiningStopped => return Some(Phase::Stable),
            Wake::Deadline => {}
        }
        let now = Instant::now();
        if rejoin_at.is_some_and(|at| at <= now) {
            self.rejoin_at = None;
            return Some(Phase::Join("the assignment's delay has passed".to_owned()));
        }
        let heartbeat = self.coordinator.heartbeat(self.generation, &self.member_id);
        match control.guard(heartbeat).await? {
            Ok(()) => {
                tracing::debug!(generation = self.generation, "Heartbeat");
                self.on_success();
                self.next_heartbeat = now + self.settings.heartbeat_interval;
                Some(Phase::Stable)
            }
            Err(GroupError::RebalanceInProgress) => {
                self.report_rebalancing();
                Some(Phase::Join("the group is rebalancing".to_owned()))
            }
            Err(GroupError::MembershipLost(error)) => {
                self.lose_to_coordinator(error);
                Some(Phase::Join("membership lost".to_owned()))
            }
            Err(error) if error.is_fatal() => Some(Phase::Fatal(error.to_string())),
            Err(error) => {
                tracing::debug!(generation = self.generation, error = %error, "Heartbeat failed");
                let started = now;
                let now = Instant::now();
                if now.duration_since(self.last_contact) >= self.settings.session_timeout {
                    let reason =
                        format!("no heartbeat succeeded within the session timeout: {error}");
                    self.lose(&reason, true);
                    return Some(Phase::Join("session expired".to_owned()));
                }
                self.on_failure(&error, started);
                if self.lost_reported {
                    return Some(Phase::Join("coordinator unreachable".to_owned()));
                }
                self.next_heartbeat = now + self.backoff.next_delay();
                Some(Phase::Stable)
            }
        }
    }

    /// Joins, assigns when leading, syncs, applies the assignment and reports it.
    async fn rebalance(&mut self, reason: &str) -> Result<(), GroupError> {
        let metadata = MemberMetadata {
            url: self.settings.url.clone(),
            config_offset: self.config.borrow().offset,
            allocation: self.allocation.clone(),
        };
        let joined =
            self.coordinator.join(&self.member_id, Bytes::from(metadata.encode()), reason).await?;
        self.member_id.clone_from(&joined.member_id);
        let is_leader = joined.is_leader();
        let (assignments, members) = if is_leader {
            let led = self.lead(&joined).await;
            let led = led.inspect_err(|_| self.assignor.forget())?;
            (led.assignments, Some(led.members))
        } else {
            (Vec::new(), None)
        };
        let synced = self.coordinator.sync(joined.generation, &self.member_id, assignments).await;
        let bytes = synced.inspect_err(|_| {
            if is_leader {
                self.assignor.forget();
            }
        })?;
        let assignment = Assignment::decode(&bytes).map_err(|error| {
            if is_leader {
                self.assignor.forget();
            }
            GroupError::InvalidResponse {
                api: kafka_protocol::messages::ApiKey::SyncGroup,
                reason: format!("undecodable assignment: {error}"),
            }
        })?;
        self.apply(&joined, assignment, members);
        Ok(())
    }

    /// Records a synced assignment and sends [`GroupEvent::Assigned`].
    fn apply(
        &mut self,
        joined: &Joined,
        assignment: Assignment,
        members: Option<std::collections::BTreeMap<String, Allocation>>,
    ) {
        let now = Instant::now();
        self.generation = joined.generation;
        self.led_last = joined.is_leader();
        self.allocation =
            super::leader::apply_plan(&self.allocation, &assignment.revoked, &assignment.assigned);
        self.rejoin_at = (!assignment.delay.is_zero()).then(|| now + assignment.delay);
        self.last_contact = now;
        self.next_heartbeat = now + self.settings.heartbeat_interval;
        tracing::info!(
            group_id = %self.settings.group_id,
            generation = joined.generation,
            member_id = %joined.member_id,
            leader = joined.is_leader(),
            assignment_error = ?assignment.error,
            assigned_connectors = assignment.assigned.connectors.len(),
            assigned_tasks = assignment.assigned.tasks.len(),
            revoked_connectors = assignment.revoked.connectors.len(),
            revoked_tasks = assignment.revoked.tasks.len(),
            delay = ?assignment.delay,
            "Joined the group"
        );
        self.lost_reported = false;
        self.rebalancing_reported = false;
        self.send(GroupEvent::Assigned(Assigned {
            generation: joined.generation,
            member_id: joined.member_id.clone(),
            is_leader: joined.is_leader(),
            leader_url: assignment.leader_url,
            error: assignment.error,
            config_offset: assignment.config_offset,
            assigned: assignment.assigned,
            revoked: assignment.revoked,
            delay: assignment.delay,
            members,
        }));
    }

    fn report_rebalancing(&mut self) {
        self.rebalancing_reported = true;
        self.send(GroupEvent::Rebalancing);
    }

    fn on_success(&mut self) {
        self.last_contact = Instant::now();
        self.failing_since = None;
        self.backoff.reset();
    }

    /// Notes a failed request started at `started`; past `heartbeat_interval` of failures,
    /// membership is lost (KAFKA-9184: stop before someone else is given the work).
    fn on_failure(&mut self, error: &GroupError, started: Instant) {
        let since = *self.failing_since.get_or_insert(started);
        if !self.lost_reported
            && Instant::now().duration_since(since) >= self.settings.heartbeat_interval
        {
            let reason = format!("group requests failing for {:?}: {error}", since.elapsed());
            self.lose(&reason, false);
        }
    }

    /// The coordinator said this member is out of the current generation. After
    /// ILLEGAL_GENERATION it still knows the member id, so the member rejoins with it:
    /// a fresh id would leave the old one behind, and the next rebalance would wait for
    /// it until its session expired.
    fn lose_to_coordinator(&mut self, error: ResponseError) {
        let reason = format!("the coordinator dropped this member: {error}");
        self.lose(&reason, error != ResponseError::IllegalGeneration);
    }

    /// Membership is lost: nothing runs here as far as the group is concerned. A member
    /// the coordinator `dropped` (or whose session expired) joins again with a fresh id;
    /// one that could not reach it tries its id first.
    fn lose(&mut self, reason: &str, dropped: bool) {
        if dropped {
            self.member_id.clear();
        }
        self.allocation = Allocation::default();
        self.led_last = false;
        self.rejoin_at = None;
        if !self.lost_reported {
            self.lost_reported = true;
            tracing::info!(group_id = %self.settings.group_id, reason, "Lost group membership");
            self.send(GroupEvent::Lost { reason: reason.to_owned() });
        }
    }

    /// Sends LeaveGroup if this member has an id, within a bounded time.
    async fn leave(&mut self, reason: &str) {
        if self.member_id.is_empty() {
            return;
        }
        let budget = self.settings.heartbeat_interval.max(REQUEST_TIMEOUT_FLOOR) * 3;
        let left = tokio::time::timeout(budget, self.coordinator.leave(&self.member_id, reason));
        match left.await {
            Ok(Ok(())) => tracing::info!(
                group_id = %self.settings.group_id,
                member_id = %self.member_id,
                "Left the group"
            ),
            Ok(Err(error)) => tracing::warn!(
                group_id = %self.settings.group_id,
                error = %error,
                "Leaving the group failed; the session timeout will drop this member"
            ),
            Err(_) => tracing::warn!(
                group_id = %self.settings.group_id,
                timeout = ?budget,
                "Leaving the group timed out; the session timeout will drop this member"
            ),
        }
    }

    fn send(&self, event: GroupEvent) {
        // A dropped receiver is noticed by `Control`, which stops the loop.
        let _ = self.events.send(event);
    }
}
