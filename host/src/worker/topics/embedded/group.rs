//! [`Group`]: the membership of one consumer group and who holds which partition, with
//! the cooperative rebalance protocol: a partition moves to its new member only once its
//! old member has released it (it was told `Revoked`, then called `next` again), or once
//! the old member let [`Group::revoke_timeout`] pass without doing so.
//!
//! Plain state changed by the coordinator under its lock; time comes in as arguments. It
//! must not touch the database or wait.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;
use tokio::time::Instant;

use super::assignment::assign;
use super::subscription::Matcher;
use crate::model::TopicPartition;
use crate::store::TopicInfo;

/// One member of a group.
#[derive(Debug)]
struct Member {
    /// What it subscribes to.
    matcher: Arc<Matcher>,
    /// What the current assignment gives it.
    target: BTreeSet<TopicPartition>,
    /// What it holds: told `Assigned`, not yet released (including `revoking`).
    held: BTreeSet<TopicPartition>,
    /// Held partitions it was told are `Revoked`; released at its next `next`.
    revoking: BTreeSet<TopicPartition>,
    /// Partitions taken from it after the revoke timeout, not yet told.
    lost: BTreeSet<TopicPartition>,
    /// Since when it holds a partition its target does not include.
    revoke_since: Option<Instant>,
}

/// What a member should report next.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Step {
    /// Report these partitions revoked (hold on to them until the next `next`).
    Revoke(Vec<TopicPartition>),
    /// Report these partitions assigned (they are held now).
    Assign(Vec<TopicPartition>),
    /// Nothing to report; partitions it waits for may be taken at `retry_at`.
    Idle {
        /// When a slow member's partitions may be taken over.
        retry_at: Option<Instant>,
    },
}

/// A consumer group in this process.
#[derive(Debug)]
pub(super) struct Group {
    members: BTreeMap<u64, Member>,
    /// How long a member may hold partitions it should give up.
    revoke_timeout: Duration,
    /// Bumped on every change that may give a member something to report.
    changed: watch::Sender<u64>,
}

impl Group {
    /// An empty group.
    pub(super) fn new(revoke_timeout: Duration) -> Self {
        Self { members: BTreeMap::new(), revoke_timeout, changed: watch::channel(0).0 }
    }

    /// The group's change channel.
    pub(super) fn changes(&self) -> watch::Receiver<u64> {
        self.changed.subscribe()
    }

    /// Whether the group has no members.
    pub(super) fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// Adds member `id` and rebalances.
    pub(super) fn join(
        &mut self,
        id: u64,
        matcher: Arc<Matcher>,
        topics: &[TopicInfo],
        now: Instant,
    ) {
        let member = Member {
            matcher,
            target: BTreeSet::new(),
            held: BTreeSet::new(),
            revoking: BTreeSet::new(),
            lost: BTreeSet::new(),
            revoke_since: None,
        };
        self.members.insert(id, member);
        self.rebalance(topics, now);
    }

    /// Removes member `id` (its partitions are free at once) and rebalances.
    pub(super) fn leave(&mut self, id: u64, topics: &[TopicInfo], now: Instant) {
        if self.members.remove(&id).is_some() {
            self.rebalance(topics, now);
            self.changed.send_modify(|v| *v += 1);
        }
    }

    /// Recomputes every member's target for `topics`; wakes the members when one changed.
    pub(super) fn rebalance(&mut self, topics: &[TopicInfo], now: Instant) {
        let targets = assign(self.members.iter().map(|(id, m)| (*id, m.matcher.as_ref())), topics);
        let mut changed = false;
        for (id, target) in targets {
            let Some(member) = self.members.get_mut(&id) else { continue };
            if member.target != target {
                member.target = target;
                changed = true;
            }
            member.update_revoke_since(now);
        }
        if changed {
            self.changed.send_modify(|v| *v += 1);
        }
    }

    /// Releases what member `id` was told is revoked; wakes the members waiting for it.
    pub(super) fn release(&mut self, id: u64, now: Instant) {
        let Some(member) = self.members.get_mut(&id) else { return };
        if member.revoking.is_empty() {
            return;
        }
        for tp in std::mem::take(&mut member.revoking) {
            member.held.remove(&tp);
        }
        member.update_revoke_since(now);
        self.changed.send_modify(|v| *v += 1);
    }

    /// Whether member `id` holds `tp` (so may commit its offset).
    pub(super) fn holds(&self, id: u64, tp: &TopicPartition) -> bool {
        self.members.get(&id).is_some_and(|m| m.held.contains(tp))
    }

    /// What member `id` should report next, taking over the partitions of members that
    /// let the revoke timeout pass.
    pub(super) fn step(&mut self, id: u64, group: &str, now: Instant) -> Step {
        let Some(member) = self.members.get_mut(&id) else { return Step::Idle { retry_at: None } };
        if !member.lost.is_empty() {
            return Step::Revoke(std::mem::take(&mut member.lost).into_iter().collect());
        }
        let give_up: Vec<TopicPartition> = member
            .held
            .iter()
            .filter(|tp| !member.target.contains(*tp) && !member.revoking.contains(*tp))
            .cloned()
            .collect();
        if !give_up.is_empty() {
            member.revoking.extend(give_up.iter().cloned());
            return Step::Revoke(give_up);
        }
        let wanted: Vec<TopicPartition> =
            member.target.iter().filter(|tp| !member.held.contains(*tp)).cloned().collect();
        let mut gained = Vec::new();
        let mut retry_at: Option<Instant> = None;
        let mut took_over = false;
        for tp in wanted {
            let holder =
                self.members.iter().find(|(other, m)| **other != id && m.held.contains(&tp));
            match holder.map(|(other, m)| (*other, m.revoke_since)) {
                None => gained.push(tp),
                Some((other, since)) => {
                    let deadline = since.unwrap_or(now) + self.revoke_timeout;
                    if now < deadline {
                        retry_at = Some(retry_at.map_or(deadline, |at| at.min(deadline)));
                        continue;
                    }
                    tracing::warn!(
                        group, topic = %tp.topic, partition = tp.partition,
                        timeout_ms = self.revoke_timeout.as_millis() as u64,
                        "A consumer-group member did not release a revoked partition in time; \
                         moving it anyway"
                    );
                    let slow = self.members.get_mut(&other).expect("the holder is a member");
                    slow.held.remove(&tp);
                    slow.revoking.remove(&tp);
                    slow.lost.insert(tp.clone());
                    slow.update_revoke_since(now);
                    took_over = true;
                    gained.push(tp);
                }
            }
        }
        if gained.is_empty() {
            return Step::Idle { retry_at };
        }
        let member = self.members.get_mut(&id).expect("still a member");
        member.held.extend(gained.iter().cloned());
        if took_over {
            // Wake the slow members so they report what they lost.
            self.changed.send_modify(|v| *v += 1);
        }
        Step::Assign(gained)
    }
}

impl Member {
    /// Starts (or stops) the revoke clock as it holds (or no longer holds) partitions it
    /// should give up.
    fn update_revoke_since(&mut self, now: Instant) {
        let must_give_up = self.held.iter().any(|tp| !self.target.contains(tp));
        self.revoke_since = match (must_give_up, self.revoke_since) {
            (false, _) => None,
            (true, Some(since)) => Some(since),
            (true, None) => Some(now),
        };
    }
}
