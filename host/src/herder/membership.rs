//! Group membership as the herder sees it: who this worker is, the generation, whether
//! it leads, and which connectors and tasks are assigned to it.
//!
//! Designed for several workers; the only implementation so far is [`SingleMember`], the
//! whole cluster in one worker (standalone mode, and distributed mode with one worker).

use crate::store::ConfigState;

/// Connectors and tasks assigned to this worker.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Assignment {
    /// Connector instances to run here.
    pub connectors: Vec<String>,
    /// Tasks to run here.
    pub tasks: Vec<(String, u32)>,
}

/// This worker's place in the group.
pub trait Membership: Send + Sync + 'static {
    /// `host:port` of this worker, written into every status it reports.
    fn worker_id(&self) -> &str;
    /// The generation of the group this worker last joined.
    fn generation(&self) -> i64;
    /// Whether this worker leads (writes task configs and restart records).
    fn is_leader(&self) -> bool;
    /// The REST URL of the leader, when known.
    fn leader_url(&self) -> Option<&str>;
    /// Whether the connector instance `name` runs here.
    fn owns_connector(&self, config: &ConfigState, name: &str) -> bool;
    /// Whether task `task` of `name` runs here.
    fn owns_task(&self, config: &ConfigState, name: &str, task: u32) -> bool;
}

/// A group of one: this worker leads and runs everything.
pub struct SingleMember {
    worker_id: String,
    url: String,
}

impl SingleMember {
    /// The member `worker_id` reachable at `url`.
    pub fn new(worker_id: impl Into<String>, url: impl Into<String>) -> Self {
        Self { worker_id: worker_id.into(), url: url.into() }
    }
}

impl Membership for SingleMember {
    fn worker_id(&self) -> &str {
        &self.worker_id
    }

    fn generation(&self) -> i64 {
        1
    }

    fn is_leader(&self) -> bool {
        true
    }

    fn leader_url(&self) -> Option<&str> {
        Some(&self.url)
    }

    fn owns_connector(&self, config: &ConfigState, name: &str) -> bool {
        config.contains(name)
    }

    fn owns_task(&self, config: &ConfigState, name: &str, task: u32) -> bool {
        (task as usize) < config.task_configs(name).len()
    }
}
