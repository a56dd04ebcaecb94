//! The leader's part of a rebalance: read every member's metadata, bring its own config
//! view up to the highest offset a member has read, run the assignor and encode each
//! member's assignment.
//!
//! A member whose metadata does not decode gets an empty assignment; it must not stop the
//! group from forming. A config view still behind after `worker_sync_timeout` gives every
//! member CONFIG_MISMATCH and nothing to change. Owns no state of its own: the assignor's
//! memory lives in the member task.

use std::collections::BTreeMap;

use bytes::Bytes;
use tokio::time::Instant;

use super::ConfigView;
use super::task::MemberTask;
use crate::coordinator::Joined;
use crate::error::GroupError;
use crate::protocol::{Allocation, Assignment, AssignmentError, MemberMetadata};

/// What the leader sends and reports.
#[derive(Debug)]
pub(super) struct Led {
    /// Every member's id and encoded assignment, for SyncGroup.
    pub(super) assignments: Vec<(String, Bytes)>,
    /// Every member's URL and allocation after this rebalance.
    pub(super) members: BTreeMap<String, Allocation>,
}

impl MemberTask {
    /// Computes every member's assignment for `joined`, which this member leads.
    pub(super) async fn lead(&mut self, joined: &Joined) -> Result<Led, GroupError> {
        let mut metadata = BTreeMap::new();
        for (member_id, bytes) in &joined.members {
            match MemberMetadata::decode(bytes) {
                Ok(decoded) => {
                    metadata.insert(member_id.clone(), decoded);
                }
                Err(error) => tracing::warn!(
                    group_id = %self.settings.group_id,
                    member_id = %member_id,
                    error = %error,
                    "Member metadata does not decode; the member gets an empty assignment"
                ),
            }
        }
        let highest = metadata.values().map(|m| m.config_offset).max().unwrap_or(i64::MIN);
        let view = self.catch_up(joined.generation, highest).await?;
        let leader = Assignment {
            error: AssignmentError::None,
            leader: self.member_id.clone(),
            leader_url: self.settings.url.clone(),
            config_offset: view.offset,
            assigned: Allocation::default(),
            revoked: Allocation::default(),
            delay: std::time::Duration::ZERO,
        };
        if view.offset < highest {
            tracing::warn!(
                group_id = %self.settings.group_id,
                config_offset = view.offset,
                highest_member_offset = highest,
                "Config still behind a member's; every member gets CONFIG_MISMATCH"
            );
            let mismatch = Assignment { error: AssignmentError::ConfigMismatch, ..leader };
            let bytes = Bytes::from(mismatch.encode());
            return Ok(Led {
                assignments: joined
                    .members
                    .iter()
                    .map(|(id, _)| (id.clone(), bytes.clone()))
                    .collect(),
                members: by_url(metadata.values().map(|m| (&m.url, m.allocation.clone()))),
            });
        }
        if !self.led_last {
            self.assignor.forget();
        }
        let current: BTreeMap<String, Allocation> =
            metadata.iter().map(|(id, m)| (id.clone(), m.allocation.clone())).collect();
        let now = Instant::now().into_std();
        let max_delay = self.settings.scheduled_rebalance_max_delay;
        let plan = self.assignor.assign(now, max_delay, &view.connectors, &current);
        let mut assignments = Vec::with_capacity(joined.members.len());
        let mut after = Vec::with_capacity(metadata.len());
        for (member_id, _) in &joined.members {
            let changes = plan.members.get(member_id).cloned().unwrap_or_default();
            if let Some(m) = metadata.get(member_id) {
                after
                    .push((&m.url, apply_plan(&m.allocation, &changes.revoked, &changes.assigned)));
            }
            let assignment = Assignment {
                assigned: changes.assigned,
                revoked: changes.revoked,
                delay: plan.delay,
                ..leader.clone()
            };
            assignments.push((member_id.clone(), Bytes::from(assignment.encode())));
        }
        Ok(Led { assignments, members: by_url(after) })
    }

    /// Waits, heartbeating, until the config view reaches `highest` or
    /// `worker_sync_timeout` has passed; returns the view then.
    async fn catch_up(&mut self, generation: i32, highest: i64) -> Result<ConfigView, GroupError> {
        let deadline = Instant::now() + self.settings.worker_sync_timeout;
        let mut config_open = true;
        loop {
            let view = self.config.borrow_and_update().clone();
            if view.offset >= highest || Instant::now() >= deadline {
                return Ok(view);
            }
            let heartbeat_at = (Instant::now() + self.settings.heartbeat_interval).min(deadline);
            tokio::select! {
                changed = self.config.changed(), if config_open => config_open = changed.is_ok(),
                () = tokio::time::sleep_until(heartbeat_at) => {
                    if heartbeat_at < deadline {
                        self.coordinator.heartbeat(generation, &self.member_id).await?;
                    }
                }
            }
        }
    }
}

/// `current` minus `revoked` plus `assigned`.
pub(super) fn apply_plan(
    current: &Allocation,
    revoked: &Allocation,
    assigned: &Allocation,
) -> Allocation {
    let mut after = current.clone();
    after.apply(revoked, assigned);
    after
}

/// Allocations by member URL; members sharing a URL (a misconfiguration) are merged.
fn by_url<'a>(
    members: impl IntoIterator<Item = (&'a String, Allocation)>,
) -> BTreeMap<String, Allocation> {
    let mut by_url: BTreeMap<String, Allocation> = BTreeMap::new();
    for (url, allocation) in members {
        let entry = by_url.entry(url.clone()).or_default();
        entry.connectors.extend(allocation.connectors);
        entry.tasks.extend(allocation.tasks);
    }
    by_url
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::TaskId;

    fn alloc(connectors: &[&str], tasks: &[(&str, u32)]) -> Allocation {
        Allocation {
            connectors: connectors.iter().map(|c| (*c).to_owned()).collect(),
            tasks: tasks
                .iter()
                .map(|(c, t)| TaskId { connector: (*c).to_owned(), task: *t })
                .collect(),
        }
    }

    #[test]
    fn apply_plan_removes_revoked_then_adds_assigned() {
        let current = alloc(&["a", "b"], &[("a", 0), ("a", 1)]);
        let after = apply_plan(&current, &alloc(&["b"], &[("a", 1)]), &alloc(&["c"], &[("c", 0)]));
        assert_eq!(after, alloc(&["a", "c"], &[("a", 0), ("c", 0)]));
    }

    #[test]
    fn by_url_merges_members_sharing_a_url() {
        let u1 = "http://w1".to_owned();
        let u2 = "http://w2".to_owned();
        let merged = by_url([
            (&u1, alloc(&["a"], &[])),
            (&u2, alloc(&["b"], &[])),
            (&u1, alloc(&[], &[("a", 0)])),
        ]);
        assert_eq!(merged.len(), 2);
        assert_eq!(merged[&u1], alloc(&["a"], &[("a", 0)]));
    }
}
