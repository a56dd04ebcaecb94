//! One pool of work the assignor balances: connector instances or tasks. The two pools are
//! balanced independently, so a connector's tasks may run on other members than its
//! instance. A pool sorts what members report into kept, revoked, lost and unassigned
//! work and hands out the latter; the decisions on delays stay with `AssignorState`.

use std::collections::{BTreeMap, BTreeSet};

/// Each member's work of one pool, by member id.
pub(super) type Loads<T> = BTreeMap<String, BTreeSet<T>>;

/// One pool's bookkeeping during a rebalance.
pub(super) struct Pool<T> {
    /// How many items are configured: the balance targets derive from it.
    total: usize,
    /// What each member runs once this round's plan is applied.
    pub(super) loads: Loads<T>,
    /// Newly assigned, by member.
    pub(super) assigned: Loads<T>,
    /// To stop, by member.
    pub(super) revoked: Loads<T>,
    /// Configured and previously assigned, but reported by no one: a departed member's work.
    pub(super) lost: BTreeSet<T>,
    /// To assign to the least-loaded members: created, and lost work treated as new.
    pub(super) unassigned: BTreeSet<T>,
}

impl<T: Ord + Clone> Pool<T> {
    /// Sorts the reported work. Deleted items (reported or previous, but not configured)
    /// and items reported by more than one member are revoked from every holder; the
    /// latter come back as new work in the next round, once nobody runs them.
    pub(super) fn new(configured: BTreeSet<T>, reported: Loads<T>, previous: &BTreeSet<T>) -> Self {
        let mut holders: BTreeMap<&T, usize> = BTreeMap::new();
        for item in reported.values().flatten() {
            *holders.entry(item).or_default() += 1;
        }
        let mut loads = Loads::new();
        let mut revoked = Loads::new();
        for (member, items) in &reported {
            let (keep, stop) = items
                .iter()
                .cloned()
                .partition(|item| configured.contains(item) && holders[item] == 1);
            loads.insert(member.clone(), keep);
            revoked.insert(member.clone(), stop);
        }
        let reported_any = |item: &T| holders.contains_key(item);
        let lost = previous
            .iter()
            .filter(|item| configured.contains(item) && !reported_any(item))
            .cloned()
            .collect();
        let unassigned = configured
            .iter()
            .filter(|item| !previous.contains(item) && !reported_any(item))
            .cloned()
            .collect();
        let assigned = reported.keys().map(|m| (m.clone(), BTreeSet::new())).collect();
        Pool { total: configured.len(), loads, assigned, revoked, lost, unassigned }
    }

    /// Gives an item to a member.
    fn give(&mut self, member: &str, item: T) {
        self.loads.get_mut(member).expect("a member").insert(item.clone());
        self.assigned.get_mut(member).expect("a member").insert(item);
    }

    /// Treats the lost work as new.
    pub(super) fn lost_as_new(&mut self) {
        self.unassigned.append(&mut self.lost);
    }

    /// Spreads the lost work over `candidates` (members of this round) in turn.
    pub(super) fn lost_to(&mut self, candidates: &[String]) {
        for (item, member) in
            std::mem::take(&mut self.lost).into_iter().zip(candidates.iter().cycle())
        {
            self.give(member, item);
        }
    }

    /// Assigns the unassigned work one item at a time to the member with the fewest
    /// items, ties going to the lowest member id.
    pub(super) fn assign_unassigned(&mut self) {
        let mut by_load: BTreeSet<(usize, String)> =
            self.loads.iter().map(|(m, items)| (items.len(), m.clone())).collect();
        for item in std::mem::take(&mut self.unassigned) {
            let Some((load, member)) = by_load.pop_first() else {
                return; // No members: nothing can be assigned.
            };
            self.give(&member, item);
            by_load.insert((load + 1, member));
        }
    }

    /// The surplus of overloaded members: with `total / members` each and the remainder
    /// allowed one extra, the extras going to the most loaded members (ties by id) so
    /// that as little as possible moves. Takes from the end of each member's work, never
    /// what it was handed this round (a later round evens that out if need be).
    pub(super) fn surplus(&self) -> Vec<(String, T)> {
        let Some(min) = self.total.checked_div(self.loads.len()) else {
            return Vec::new();
        };
        let mut extras = self.total % self.loads.len();
        let mut by_load: Vec<_> = self.loads.iter().collect();
        by_load.sort_by(|(a, x), (b, y)| y.len().cmp(&x.len()).then(a.cmp(b)));
        let mut surplus = Vec::new();
        for (member, items) in by_load {
            let allowed = if extras > 0 { min + 1 } else { min };
            extras = extras.saturating_sub(1);
            let excess = items.len().saturating_sub(allowed);
            let fresh = &self.assigned[member];
            let kept = items.iter().rev().filter(|item| !fresh.contains(*item));
            surplus.extend(kept.take(excess).map(|item| (member.clone(), item.clone())));
        }
        surplus
    }

    /// Revokes items chosen by [`Pool::surplus`].
    pub(super) fn revoke(&mut self, surplus: Vec<(String, T)>) {
        for (member, item) in surplus {
            self.loads.get_mut(&member).expect("a member").remove(&item);
            self.revoked.get_mut(&member).expect("a member").insert(item);
        }
    }
}
