//! The leader's incremental cooperative assignment (KIP-415), as Kafka Connect's
//! `IncrementalCooperativeAssignor` computes it. Pure: no I/O, time passed in.
//!
//! Each round the leader compares the configured work with what members report and with
//! what it assigned last round, and hands each member only changes:
//! - deleted work (not configured) and work reported by several members is revoked from
//!   every holder;
//! - lost work (assigned last round, reported by no one) is held back for up to the
//!   maximum delay when a member departed, so that it can come back for it; members that
//!   join empty meanwhile are candidates for it, and when the delay expires it is spread
//!   over them (or treated as new if there are none);
//! - new work goes to the least-loaded members, connector instances and tasks balanced
//!   independently;
//! - while nothing is held back, overloaded members give up their surplus, which is
//!   assigned in the next round (the second cooperative round). Revoking in two
//!   consecutive rounds postpones the revocations by an exponential backoff.
//!
//! Owns the assignment and the leader's memory between rounds; must not read clocks,
//! configs or the network.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use wasm_connect_backoff::Backoff;

use crate::protocol::{Allocation, TaskId};

#[path = "assignor_pool.rs"]
mod pool;

use pool::{Loads, Pool};

/// Growth factor of the back-off between consecutive revoking rounds, from 1 ms: 40 ms,
/// 1.6 s, 64 s, then the maximum delay. Kafka Connect's values, so a cluster that keeps
/// changing settles on the same schedule as theirs.
const REVOCATION_BACKOFF_FACTOR: f64 = 40.0;

/// The longest delay the assignment can carry (int32 milliseconds); longer maximum delays
/// are cut to it.
const MAX_WIRE_DELAY_MS: u64 = i32::MAX as u64;

/// What one member must change.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemberPlan {
    /// Newly assigned to it.
    pub assigned: Allocation,
    /// To stop on it.
    pub revoked: Allocation,
}

/// One rebalance's result.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Plan {
    /// Every member's changes, by member id (every member present, even with nothing).
    pub members: BTreeMap<String, MemberPlan>,
    /// Positive when lost work is held back or revocations postponed: everyone rejoins
    /// after this long.
    pub delay: Duration,
}

/// What the leader remembers between rebalances (the previous assignment, a running
/// delay for departed members, consecutive revoking rounds).
#[derive(Clone, Debug, Default)]
pub struct AssignorState {
    /// The last round's outcome; `None` before the first round and after [`Self::forget`].
    previous: Option<Previous>,
    /// Lost work held back for departed members.
    lost_hold: Option<LostHold>,
    /// Load-balancing revocations are postponed until then.
    revocation_hold: Option<Instant>,
    /// Whether the last round revoked to balance the load.
    revoked_in_previous: bool,
    /// Consecutive revoking rounds: the index into the revocation backoff.
    revoking_rounds: u32,
}

/// The last round's outcome.
#[derive(Clone, Debug)]
struct Previous {
    /// Each member's allocation once the plan is applied.
    members: BTreeMap<String, Allocation>,
    /// Lost work held back, assigned to no one.
    held: Allocation,
}

/// A running delay for departed members' work.
#[derive(Clone, Debug)]
struct LostHold {
    /// When the lost work is reassigned.
    deadline: Instant,
    /// Members seen with nothing to run during the delay.
    candidates: BTreeSet<String>,
}

/// What to do with lost work this round.
enum LostOutcome {
    /// Assign it as new work.
    New,
    /// Spread it over these members.
    Candidates(Vec<String>),
    /// Keep it unassigned; rejoin after this long.
    Hold(Duration),
}

impl AssignorState {
    /// Computes a rebalance. `configured` maps each connector that should run to its task
    /// count; `members` maps each member id of this generation to what it runs now (the
    /// allocation in its metadata).
    ///
    /// Call it once for each generation this member leads, at the time of the assignment;
    /// call [`Self::forget`] first when the last plan it computed may not have reached
    /// the members. The plan's delay goes to every member; `max_delay` is
    /// `scheduled.rebalance.max.delay.ms` (0 reassigns lost work and revokes at once).
    pub fn assign(
        &mut self,
        now: Instant,
        max_delay: Duration,
        configured: &BTreeMap<String, u32>,
        members: &BTreeMap<String, Allocation>,
    ) -> Plan {
        let max_delay_ms = u64::try_from(max_delay.as_millis()).unwrap_or(u64::MAX);
        let max_delay = Duration::from_millis(max_delay_ms.min(MAX_WIRE_DELAY_MS));
        let (previous, departed) = match &self.previous {
            Some(p) => {
                let all = p.members.values().chain([&p.held]);
                (union(all), p.members.keys().any(|m| !members.contains_key(m)))
            }
            None => (union(members.values()), false),
        };
        let (conf_connectors, conf_tasks) = configured_work(configured);
        let mut connectors =
            Pool::new(conf_connectors, loads(members, |a| &a.connectors), &previous.connectors);
        let mut tasks = Pool::new(conf_tasks, loads(members, |a| &a.tasks), &previous.tasks);

        let lost = !connectors.lost.is_empty() || !tasks.lost.is_empty();
        let empty = members
            .keys()
            .filter(|m| connectors.loads[*m].is_empty() && tasks.loads[*m].is_empty())
            .cloned();
        let mut delay = Duration::ZERO;
        match self.lost_outcome(now, max_delay, lost, departed, empty, members) {
            None => {}
            Some(LostOutcome::New) => {
                connectors.lost_as_new();
                tasks.lost_as_new();
            }
            Some(LostOutcome::Candidates(to)) => {
                connectors.lost_to(&to);
                tasks.lost_to(&to);
            }
            Some(LostOutcome::Hold(remaining)) => delay = remaining,
        }
        if delay.is_zero() {
            delay = self.balance(now, max_delay, &mut connectors, &mut tasks);
        } else {
            // Revocations would only move work that the returning member may need.
            self.revocation_hold = None;
            self.revoked_in_previous = false;
        }
        connectors.assign_unassigned();
        tasks.assign_unassigned();
        self.remember(&mut connectors, &mut tasks);
        plan(connectors, tasks, delay)
    }

    /// Forgets the previous assignment (its generation did not complete, or another
    /// member led since), and with it any delay held for lost work: from now on the
    /// previous assignment is what members report.
    pub fn forget(&mut self) {
        self.previous = None;
        self.lost_hold = None;
    }

    /// Each member's allocation once the last plan is applied, as far as this leader
    /// knows; `None` before the first round and after [`Self::forget`].
    pub fn assignment(&self) -> Option<&BTreeMap<String, Allocation>> {
        self.previous.as_ref().map(|p| &p.members)
    }

    /// Decides about lost work; `None` when there is none.
    fn lost_outcome(
        &mut self,
        now: Instant,
        max_delay: Duration,
        lost: bool,
        departed: bool,
        empty: impl Iterator<Item = String>,
        members: &BTreeMap<String, Allocation>,
    ) -> Option<LostOutcome> {
        if !lost {
            self.lost_hold = None;
            return None;
        }
        // Never assigned, or a member dropped it without leaving: nobody comes back for it.
        let nobody_returns = self.lost_hold.is_none() && !departed;
        if nobody_returns || max_delay.is_zero() {
            self.lost_hold = None;
            return Some(LostOutcome::New);
        }
        let hold = self.lost_hold.get_or_insert_with(|| LostHold {
            deadline: now + max_delay,
            candidates: BTreeSet::new(),
        });
        if now < hold.deadline {
            hold.candidates.extend(empty);
            return Some(LostOutcome::Hold(remaining(hold.deadline, now)));
        }
        let candidates: Vec<String> =
            hold.candidates.iter().filter(|m| members.contains_key(*m)).cloned().collect();
        self.lost_hold = None;
        Some(if candidates.is_empty() {
            LostOutcome::New
        } else {
            LostOutcome::Candidates(candidates)
        })
    }

    /// Revokes surplus work from overloaded members, unless the last round did too: then
    /// the revocations wait for a backoff, which this returns.
    fn balance(
        &mut self,
        now: Instant,
        max_delay: Duration,
        connectors: &mut Pool<String>,
        tasks: &mut Pool<TaskId>,
    ) -> Duration {
        if let Some(deadline) = self.revocation_hold {
            if now < deadline {
                return remaining(deadline, now);
            }
            self.revocation_hold = None;
            self.revoked_in_previous = false;
        }
        let (c, t) = (connectors.surplus(), tasks.surplus());
        if c.is_empty() && t.is_empty() {
            self.revoked_in_previous = false;
            self.revoking_rounds = 0;
            return Duration::ZERO;
        }
        if self.revoked_in_previous {
            self.revoking_rounds = self.revoking_rounds.saturating_add(1);
            let backoff = Backoff {
                initial: Duration::from_millis(1),
                max: max_delay,
                multiplier: REVOCATION_BACKOFF_FACTOR,
                jitter: 0.0,
            }
            .delay(self.revoking_rounds, 0.5);
            if !backoff.is_zero() {
                self.revocation_hold = Some(now + backoff);
                return backoff;
            }
        }
        connectors.revoke(c);
        tasks.revoke(t);
        self.revoked_in_previous = true;
        Duration::ZERO
    }

    /// Remembers each member's allocation after the plan, and the lost work held back.
    fn remember(&mut self, connectors: &mut Pool<String>, tasks: &mut Pool<TaskId>) {
        let held = Allocation {
            connectors: std::mem::take(&mut connectors.lost),
            tasks: std::mem::take(&mut tasks.lost),
        };
        let members = connectors
            .loads
            .iter()
            .map(|(m, c)| {
                let t = tasks.loads[m].clone();
                (m.clone(), Allocation { connectors: c.clone(), tasks: t })
            })
            .collect();
        self.previous = Some(Previous { members, held });
    }
}

/// The time left until `deadline`, rounded up to a whole millisecond so that it never
/// reads as zero (no delay) on the wire.
fn remaining(deadline: Instant, now: Instant) -> Duration {
    let left = deadline.saturating_duration_since(now);
    Duration::from_millis(left.as_nanos().div_ceil(1_000_000) as u64)
}

/// All connectors and tasks in `allocations`.
fn union<'a>(allocations: impl Iterator<Item = &'a Allocation>) -> Allocation {
    let mut all = Allocation::default();
    for a in allocations {
        all.connectors.extend(a.connectors.iter().cloned());
        all.tasks.extend(a.tasks.iter().cloned());
    }
    all
}

/// The configured connector instances and tasks (0 up to each connector's count).
fn configured_work(configured: &BTreeMap<String, u32>) -> (BTreeSet<String>, BTreeSet<TaskId>) {
    let connectors = configured.keys().cloned().collect();
    let tasks = configured
        .iter()
        .flat_map(|(c, n)| (0..*n).map(|task| TaskId { connector: c.clone(), task }))
        .collect();
    (connectors, tasks)
}

/// One pool of each member's reported work.
fn loads<T: Clone>(
    members: &BTreeMap<String, Allocation>,
    pool: impl Fn(&Allocation) -> &BTreeSet<T>,
) -> Loads<T> {
    members.iter().map(|(m, a)| (m.clone(), pool(a).clone())).collect()
}

/// Every member's changes.
fn plan(connectors: Pool<String>, tasks: Pool<TaskId>, delay: Duration) -> Plan {
    let (mut tasks_assigned, mut tasks_revoked) = (tasks.assigned, tasks.revoked);
    let members = connectors
        .assigned
        .into_iter()
        .zip(connectors.revoked)
        .map(|((member, assigned), (_, revoked))| {
            let plan = MemberPlan {
                assigned: Allocation {
                    connectors: assigned,
                    tasks: tasks_assigned.remove(&member).unwrap_or_default(),
                },
                revoked: Allocation {
                    connectors: revoked,
                    tasks: tasks_revoked.remove(&member).unwrap_or_default(),
                },
            };
            (member, plan)
        })
        .collect();
    Plan { members, delay }
}

#[cfg(test)]
#[path = "assignor_tests.rs"]
mod tests;
