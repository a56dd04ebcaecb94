//! Group membership as the herder sees it: who this worker is, the generation, whether
//! it leads, where the leader is, and which connectors and tasks are assigned to it.
//!
//! A [`Membership`] is either the whole cluster in one worker (standalone mode: it leads
//! and runs everything) or one member of a Kafka group (distributed mode), whose state
//! changes only through [`Membership::assigned`] and [`Membership::lost`], called by the
//! herder when the member loop reports. It holds no connection and does no I/O.

use std::collections::BTreeMap;

use wasm_connect_group::{Allocation, Assigned, TaskId};

use crate::model::InstanceId;
use crate::store::ConfigState;

/// Whether `allocation` (the group protocol's connectors and tasks) holds `id`. The
/// protocol's `TaskId` is its wire form; the herder names every instance by
/// [`InstanceId`], and this file is where the two meet.
pub fn allocates(allocation: &Allocation, id: &InstanceId) -> bool {
    match id {
        InstanceId::Connector(name) => allocation.connectors.contains(name),
        InstanceId::Task(name, task) => {
            allocation.tasks.contains(&TaskId { connector: name.clone(), task: *task })
        }
    }
}

/// The instances `allocation` holds, as the herder names them.
pub fn instances(allocation: &Allocation) -> impl Iterator<Item = InstanceId> + '_ {
    let connectors = allocation.connectors.iter().map(|c| InstanceId::Connector(c.clone()));
    let tasks = allocation.tasks.iter().map(|t| InstanceId::Task(t.connector.clone(), t.task));
    connectors.chain(tasks)
}

/// This worker's place in the group.
#[derive(Clone, Debug)]
pub struct Membership {
    worker_id: String,
    /// `None`: a group of one that runs everything. `Some`: what the group assigned here.
    owned: Option<Allocation>,
    generation: i64,
    leader: bool,
    leader_url: Option<String>,
    /// Leader only: every member's REST URL and allocation, to route requests to owners.
    routes: BTreeMap<String, Allocation>,
}

impl Membership {
    /// A group of one: this worker, `worker_id` at `url`, leads and runs everything.
    pub fn single(worker_id: impl Into<String>, url: impl Into<String>) -> Self {
        Self {
            worker_id: worker_id.into(),
            owned: None,
            generation: 1,
            leader: true,
            leader_url: Some(url.into()),
            routes: BTreeMap::new(),
        }
    }

    /// A member of a Kafka group that has not joined yet: it runs nothing and knows no
    /// leader.
    pub fn group(worker_id: impl Into<String>) -> Self {
        Self {
            worker_id: worker_id.into(),
            owned: Some(Allocation::default()),
            generation: -1,
            leader: false,
            leader_url: None,
            routes: BTreeMap::new(),
        }
    }

    /// Whether this worker is one member of a group (distributed mode).
    pub fn in_group(&self) -> bool {
        self.owned.is_some()
    }

    /// `host:port` of this worker, written into every status it reports.
    pub fn worker_id(&self) -> &str {
        &self.worker_id
    }

    /// The generation of the group this worker last joined.
    pub fn generation(&self) -> i64 {
        self.generation
    }

    /// Whether this worker leads (writes configs, task configs and restart records).
    pub fn is_leader(&self) -> bool {
        self.leader
    }

    /// The REST URL of the leader, when known.
    pub fn leader_url(&self) -> Option<&str> {
        self.leader_url.as_deref()
    }

    /// Whether `id` runs here (in a group of one: every connector, and every task its
    /// config has).
    pub fn owns(&self, config: &ConfigState, id: &InstanceId) -> bool {
        match &self.owned {
            None => config.has(id),
            Some(a) => allocates(a, id),
        }
    }

    /// Leader only: the REST URL of the worker `id` is assigned to, when one is.
    pub fn owner(&self, id: &InstanceId) -> Option<&str> {
        self.routes.iter().find(|(_, a)| allocates(a, id)).map(|(u, _)| u.as_str())
    }

    /// Leader only: the REST URLs of the other members (empty on any other worker and in a
    /// group of one).
    pub fn peers(&self) -> Vec<String> {
        let own = self.leader_url.as_deref().map(|u| u.trim_end_matches('/'));
        let others = self.routes.keys().filter(|u| Some(u.trim_end_matches('/')) != own);
        if self.leader { others.cloned().collect() } else { Vec::new() }
    }

    /// Applies a completed rebalance: drops the revoked work, adds the assigned.
    pub fn assigned(&mut self, a: &Assigned) {
        self.owned.get_or_insert_with(Allocation::default).apply(&a.revoked, &a.assigned);
        self.generation = i64::from(a.generation);
        self.leader = a.is_leader;
        self.leader_url = Some(a.leader_url.clone());
        self.routes = a.members.clone().unwrap_or_default();
    }

    /// Membership is lost: nothing runs here and no leader is known until the next
    /// assignment.
    pub fn lost(&mut self) {
        self.owned = Some(Allocation::default());
        self.leader = false;
        self.leader_url = None;
        self.routes.clear();
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use wasm_connect_group::AssignmentError;

    use super::*;

    fn c(name: &str) -> InstanceId {
        InstanceId::Connector(name.into())
    }

    fn t(name: &str, task: u32) -> InstanceId {
        InstanceId::Task(name.into(), task)
    }

    fn alloc(connectors: &[&str], tasks: &[(&str, u32)]) -> Allocation {
        Allocation {
            connectors: connectors.iter().map(|c| c.to_string()).collect(),
            tasks: tasks
                .iter()
                .map(|(c, t)| TaskId { connector: c.to_string(), task: *t })
                .collect(),
        }
    }

    fn assigned(assigned: Allocation, revoked: Allocation) -> Assigned {
        Assigned {
            generation: 3,
            member_id: "m1".into(),
            is_leader: false,
            leader_url: "http://leader:8083".into(),
            error: AssignmentError::None,
            config_offset: 7,
            assigned,
            revoked,
            delay: Duration::ZERO,
            members: None,
        }
    }

    #[test]
    fn a_member_owns_what_was_assigned_minus_what_was_revoked() {
        let config = ConfigState::default();
        let mut m = Membership::group("w1:8083");
        assert!(!m.owns(&config, &c("a")));
        assert_eq!(m.leader_url(), None);
        m.assigned(&assigned(alloc(&["a", "b"], &[("a", 0), ("b", 1)]), Allocation::default()));
        assert!(m.owns(&config, &c("a")) && m.owns(&config, &t("b", 1)));
        assert_eq!((m.generation(), m.leader_url()), (3, Some("http://leader:8083")));
        m.assigned(&assigned(Allocation::default(), alloc(&["a"], &[("b", 1)])));
        assert!(!m.owns(&config, &c("a")) && !m.owns(&config, &t("b", 1)));
        assert!(m.owns(&config, &c("b")) && m.owns(&config, &t("a", 0)));
        m.lost();
        assert!(!m.owns(&config, &c("b")) && m.leader_url().is_none());
    }

    #[test]
    fn the_leader_routes_to_owners() {
        let mut m = Membership::group("w1:8083");
        let mut a = assigned(Allocation::default(), Allocation::default());
        a.is_leader = true;
        a.members = Some(BTreeMap::from([
            ("http://w1:8083".to_string(), alloc(&["a"], &[])),
            ("http://w2:8083".to_string(), alloc(&["b"], &[("a", 0)])),
        ]));
        m.assigned(&a);
        assert_eq!(m.owner(&c("b")), Some("http://w2:8083"));
        assert_eq!(m.owner(&t("a", 0)), Some("http://w2:8083"));
        assert_eq!(m.owner(&c("zzz")), None);
    }

    #[test]
    fn the_leaders_peers_are_the_other_members() {
        let mut m = Membership::group("w1:8083");
        let mut a = assigned(Allocation::default(), Allocation::default());
        a.is_leader = true;
        a.leader_url = "http://w1:8083/".into();
        a.members = Some(BTreeMap::from([
            ("http://w1:8083".to_string(), alloc(&["a"], &[])),
            ("http://w2:8083".to_string(), alloc(&["b"], &[])),
            ("http://w3:8083".to_string(), alloc(&[], &[])),
        ]));
        m.assigned(&a);
        assert_eq!(m.peers(), ["http://w2:8083", "http://w3:8083"]);
        a.is_leader = false;
        m.assigned(&a);
        assert!(m.peers().is_empty(), "only the leader knows the members");
        assert!(Membership::single("w1:8083", "http://w1:8083").peers().is_empty());
    }
}
