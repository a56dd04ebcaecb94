//! The leader's incremental cooperative assignment (KIP-415), as Kafka Connect's
//! `IncrementalCooperativeAssignor` computes it. Pure: no I/O, time passed in.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use crate::protocol::Allocation;

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
pub struct AssignorState {}

impl AssignorState {
    /// Computes a rebalance. `configured` maps each connector that should run to its task
    /// count; `members` maps each member id to what it runs now.
    pub fn assign(
        &mut self,
        now: Instant,
        max_delay: Duration,
        configured: &BTreeMap<String, u32>,
        members: &BTreeMap<String, Allocation>,
    ) -> Plan {
        let _ = (now, max_delay, configured, members);
        unimplemented!("SKELETON: the assignor")
    }

    /// Forgets the previous assignment (its generation did not complete, or another
    /// member led since).
    pub fn forget(&mut self) {
        unimplemented!("SKELETON: the assignor")
    }
}
