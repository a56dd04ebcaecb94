//! [`Departures`]: LeaveGroup, sent again for consumers that were closed while their
//! group's coordinator may have been out of reach.
//!
//! A consumer leaves its group when it closes; when the brokers are down at that moment the
//! LeaveGroup is lost, and a broker that comes back reloads the group with the closed
//! member in it. Its partitions then wait for the member's session timeout (45 s by
//! default), and a new member's join waits with them. A [`Departures`] takes the member ids
//! of every closed consumer and sends their LeaveGroup to the group's coordinator until
//! the coordinator answers (a member it no longer knows has left) or a bound passes.
//!
//! It owns the pending departures and their retries; it must not know which consumer a
//! member was or decide when consumers close.

use std::collections::BTreeMap;
use std::time::Duration;

use tokio::sync::mpsc;
use tokio::time::Instant;
use wasm_connect_backoff::{Attempts, Backoff};

use crate::coordinator::{Coordinator, CoordinatorSettings};
use crate::error::GroupError;
use crate::security::Security;

/// The reason sent with every LeaveGroup.
const REASON: &str = "the consumer closed while its coordinator was unreachable";

/// The first retry's delay; doubling to [`RETRY_MAX`].
const RETRY_INITIAL: Duration = Duration::from_millis(100);

/// The longest delay between attempts: a member is removed within about a second of its
/// coordinator's return.
const RETRY_MAX: Duration = Duration::from_secs(1);

/// How to reach the coordinators.
#[derive(Clone, Debug)]
pub struct DepartureSettings {
    /// `host:port` of each bootstrap broker.
    pub bootstrap_servers: Vec<String>,
    /// Sent in every request header.
    pub client_id: String,
    /// TLS and SASL for every connection.
    pub security: Security,
    /// Timeout for connecting and for each request.
    pub request_timeout: Duration,
    /// How long a departure is retried before it is left to the member's session timeout.
    pub give_up_after: Duration,
}

/// The handle: cheap to clone; the task ends when every handle is dropped.
#[derive(Clone, Debug)]
pub struct Departures {
    sender: mpsc::UnboundedSender<(String, String)>,
}

impl Departures {
    /// Starts the task that sends the departures (on the current tokio runtime).
    pub fn spawn(settings: DepartureSettings) -> Self {
        let (sender, receiver) = mpsc::unbounded_channel();
        tokio::spawn(run(settings, receiver));
        Self { sender }
    }

    /// Member `member_id` of `group` has closed and must be gone from the group; empty
    /// ids (a consumer that never joined) are ignored.
    pub fn depart(&self, group: &str, member_id: &str) {
        if !member_id.is_empty() {
            let _ = self.sender.send((group.to_owned(), member_id.to_owned()));
        }
    }
}

/// One group's members still to be removed.
struct Pending {
    coordinator: Coordinator,
    /// Each member with when it was handed over.
    members: BTreeMap<String, Instant>,
    next_attempt: Instant,
    backoff: Attempts,
}

async fn run(settings: DepartureSettings, mut receiver: mpsc::UnboundedReceiver<(String, String)>) {
    let mut groups: BTreeMap<String, Pending> = BTreeMap::new();
    loop {
        let next = groups.values().map(|p| p.next_attempt).min();
        let received = match next {
            Some(at) => tokio::select! {
                r = receiver.recv() => Some(r),
                () = tokio::time::sleep_until(at) => None,
            },
            None => Some(receiver.recv().await),
        };
        match received {
            Some(None) => return,
            Some(Some((group, member))) => {
                let pending = groups.entry(group.clone()).or_insert_with(|| Pending {
                    coordinator: Coordinator::new(coordinator_settings(&settings, &group)),
                    members: BTreeMap::new(),
                    next_attempt: Instant::now(),
                    backoff: Backoff::doubling(RETRY_INITIAL, RETRY_MAX).attempts(),
                });
                pending.members.entry(member).or_insert_with(Instant::now);
            }
            None => {}
        }
        let now = Instant::now();
        for (group, pending) in &mut groups {
            if pending.next_attempt <= now {
                attempt(group, pending, settings.give_up_after).await;
            }
        }
        groups.retain(|_, p| !p.members.is_empty());
    }
}

/// One LeaveGroup for every pending member of `group`; on failure, the next attempt is
/// scheduled and members past `give_up_after` are dropped.
async fn attempt(group: &str, pending: &mut Pending, give_up_after: Duration) {
    let ids: Vec<String> = pending.members.keys().cloned().collect();
    match pending.coordinator.leave_members(&ids, REASON).await {
        Ok(()) => {
            tracing::debug!(group_id = group, members = ?ids, "Closed consumers are out of their group");
            pending.members.clear();
        }
        Err(error) if retriable(&error) => {
            pending.next_attempt = Instant::now() + pending.backoff.next_delay();
            let before = pending.members.len();
            pending.members.retain(|_, since| since.elapsed() < give_up_after);
            if pending.members.len() < before {
                tracing::info!(
                    group_id = group,
                    members = before - pending.members.len(),
                    error = %error,
                    "Gave up removing closed consumers from their group; their session \
                     timeout will"
                );
            }
        }
        Err(error) => {
            tracing::info!(
                group_id = group,
                members = ids.len(),
                error = %error,
                "Could not remove closed consumers from their group; their session timeout will"
            );
            pending.members.clear();
        }
    }
}

/// Whether another attempt may succeed: the brokers or the coordinator are away, or the
/// group is between generations. A refused login or certificate, or an answer such as
/// "not authorized", stays the same.
fn retriable(error: &GroupError) -> bool {
    match error {
        GroupError::Connection(_) => !error.is_fatal(),
        GroupError::CoordinatorUnavailable(_) | GroupError::RebalanceInProgress => true,
        _ => false,
    }
}

fn coordinator_settings(settings: &DepartureSettings, group: &str) -> CoordinatorSettings {
    CoordinatorSettings {
        bootstrap_servers: settings.bootstrap_servers.clone(),
        group_id: group.to_owned(),
        client_id: settings.client_id.clone(),
        security: settings.security.clone(),
        request_timeout: settings.request_timeout,
        // Not sent with LeaveGroup.
        rebalance_timeout: settings.request_timeout,
        session_timeout: settings.request_timeout,
    }
}
