//! One round of zombie fencing for an exactly-once source connector (KIP-618), as Kafka
//! Connect's `DistributedHerder.doFenceZombieSourceTasks` decides it: a pure
//! [`ZombieFencing`] computed from the config state, for the leader to execute (fence the
//! listed transactional ids through `wasm_connect_group::fence_producers`, then write the
//! task-count record).
//!
//! | config state | plan |
//! |---|---|
//! | not pending fencing | nothing |
//! | pending, a task-count record N, and not 1 → 1 tasks | fence `<group.id>-<connector>-0..N-1`, then record the current task count |
//! | pending, no record yet (first exactly-once start), or 1 → 1 | record the current task count only (a single task fences its predecessor itself, through `init_transactions`) |
//!
//! Owns the decision, the refusals (unknown connector, not a source, exactly-once source
//! support not enabled) and the fencing client's settings only: it sends nothing and writes
//! nothing.

use std::time::Duration;

use wasm_connect_group::{FenceSettings, MemberSettings};

use crate::model::{ExactlyOnceSourceSupport, PluginKind};
use crate::store::{ConfigRecord, ConfigState};

use super::HerderError;

/// How long fencing every id of a round may take, and the transaction timeout sent with
/// each: the 90 s Kafka Connect's `Worker.fenceZombies` gives `Admin.fenceProducers`.
const FENCING_TIMEOUT: Duration = Duration::from_secs(90);

/// Timeout for connecting and for each fencing request.
const FENCING_REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// How a worker of a group fences: its `group.id` (the prefix of its tasks'
/// transactional ids) and its fencing client's settings.
#[derive(Clone, Debug)]
pub(super) struct Fencing {
    pub group_id: String,
    pub settings: FenceSettings,
}

impl Fencing {
    /// The fencing of a worker in the group `member` describes: its brokers, security and
    /// client id.
    pub(super) fn new(member: &MemberSettings) -> Self {
        let settings = FenceSettings {
            bootstrap_servers: member.bootstrap_servers.clone(),
            client_id: format!("{}-fencing", member.client_id),
            security: member.security.clone(),
            request_timeout: FENCING_REQUEST_TIMEOUT,
            timeout: FENCING_TIMEOUT,
            transaction_timeout: FENCING_TIMEOUT,
        };
        Self { group_id: member.group_id.clone(), settings }
    }
}

/// What one fencing round does for a connector.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum ZombieFencing {
    /// The connector is not pending fencing.
    Nothing,
    /// Write the task-count record only.
    Record {
        /// The task count to record.
        tasks: u32,
    },
    /// Fence the producers of `ids`, then, unless task configs of a later generation than
    /// `generation` were committed meanwhile, write the task-count record.
    FenceThenRecord {
        /// The transactional ids of the previous generation's tasks.
        ids: Vec<String>,
        /// The task count to record.
        tasks: u32,
        /// The task-config generation the fencing was planned for.
        generation: u64,
    },
}

impl ZombieFencing {
    /// The plan for connector `name` of a worker in group `group_id`.
    pub(super) fn plan(config: &ConfigState, group_id: &str, name: &str) -> Self {
        if !config.pending_fencing(name) {
            return Self::Nothing;
        }
        let tasks = config.task_count(name);
        match config.task_count_record(name) {
            Some(fenced) if !(fenced == 1 && tasks == 1) => Self::FenceThenRecord {
                ids: (0..fenced).map(|task| task_transactional_id(group_id, name, task)).collect(),
                tasks,
                generation: config.task_config_generation(name),
            },
            _ => Self::Record { tasks },
        }
    }

    /// The task-count record to write once the fencing (if any) succeeded.
    pub(super) fn record(&self, name: &str) -> Option<ConfigRecord> {
        match self {
            Self::Nothing => None,
            Self::Record { tasks } | Self::FenceThenRecord { tasks, .. } => {
                Some(ConfigRecord::TaskCount { connector: name.to_owned(), tasks: *tasks })
            }
        }
    }
}

/// A source task's `transactional.id`, Kafka Connect's `Worker.taskTransactionalId`:
/// `<group.id>-<connector>-<task>`.
pub(super) fn task_transactional_id(group_id: &str, connector: &str, task: u32) -> String {
    format!("{group_id}-{connector}-{task}")
}

/// Refuses a fencing request this worker must not execute: exactly-once source support
/// not `enabled`, an unknown connector (404), a connector that is not a source (400;
/// `kind` is its plugin's, `None` when the plugin is not installed here).
pub(super) fn check(
    support: ExactlyOnceSourceSupport,
    config: &ConfigState,
    kind: Option<PluginKind>,
    name: &str,
) -> Result<(), HerderError> {
    if !support.enabled() {
        return Err(HerderError::BadRequest(format!(
            "Cannot fence zombies for connector {name}: exactly-once source support is not \
             enabled on this worker (exactly.once.source.support)"
        )));
    }
    if !config.contains(name) {
        return Err(HerderError::connector_not_found(name));
    }
    if kind != Some(PluginKind::Source) {
        return Err(HerderError::BadRequest(format!("Connector {name} is not a source connector")));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Properties;

    fn state(name: &str) -> ConfigState {
        let mut s = ConfigState::default();
        let config = Properties::from([("k".to_owned(), "v".to_owned())]);
        s.apply(ConfigRecord::Connector { name: name.into(), config: Some(config) });
        s
    }

    fn commit(s: &mut ConfigState, name: &str, tasks: u32) {
        for task in 0..tasks {
            let config = Properties::from([("t".to_owned(), task.to_string())]);
            s.apply(ConfigRecord::Task { connector: name.into(), task, config: Some(config) });
        }
        s.apply(ConfigRecord::Commit { connector: name.into(), tasks });
    }

    fn recorded(s: &mut ConfigState, name: &str, tasks: u32) {
        s.apply(ConfigRecord::TaskCount { connector: name.into(), tasks });
    }

    #[test]
    fn nothing_is_done_when_not_pending() {
        let mut s = state("c");
        assert_eq!(ZombieFencing::plan(&s, "g", "c"), ZombieFencing::Nothing);
        commit(&mut s, "c", 2);
        recorded(&mut s, "c", 2);
        let plan = ZombieFencing::plan(&s, "g", "c");
        assert_eq!(plan, ZombieFencing::Nothing);
        assert_eq!(plan.record("c"), None);
    }

    #[test]
    fn the_first_exactly_once_start_records_without_fencing() {
        let mut s = state("c");
        commit(&mut s, "c", 3);
        let plan = ZombieFencing::plan(&s, "g", "c");
        assert_eq!(plan, ZombieFencing::Record { tasks: 3 });
        assert_eq!(
            plan.record("c"),
            Some(ConfigRecord::TaskCount { connector: "c".into(), tasks: 3 })
        );
    }

    #[test]
    fn a_new_generation_fences_every_task_of_the_recorded_count() {
        let mut s = state("orders");
        commit(&mut s, "orders", 3);
        recorded(&mut s, "orders", 3);
        commit(&mut s, "orders", 5);
        assert_eq!(
            ZombieFencing::plan(&s, "connect-cluster", "orders"),
            ZombieFencing::FenceThenRecord {
                ids: vec![
                    "connect-cluster-orders-0".into(),
                    "connect-cluster-orders-1".into(),
                    "connect-cluster-orders-2".into(),
                ],
                tasks: 5,
                generation: 2,
            }
        );
        // 5 → 1 fences the five, and 1 → 3 fences the one.
        recorded(&mut s, "orders", 5);
        commit(&mut s, "orders", 1);
        let plan = ZombieFencing::plan(&s, "g", "orders");
        assert!(
            matches!(&plan, ZombieFencing::FenceThenRecord { ids, tasks: 1, .. } if ids.len() == 5),
            "{plan:?}"
        );
        recorded(&mut s, "orders", 1);
        commit(&mut s, "orders", 3);
        let plan = ZombieFencing::plan(&s, "g", "orders");
        assert!(
            matches!(&plan, ZombieFencing::FenceThenRecord { ids, tasks: 3, .. } if ids == &["g-orders-0"]),
            "{plan:?}"
        );
    }

    #[test]
    fn one_task_to_one_task_only_records() {
        let mut s = state("c");
        commit(&mut s, "c", 1);
        recorded(&mut s, "c", 1);
        commit(&mut s, "c", 1);
        assert_eq!(ZombieFencing::plan(&s, "g", "c"), ZombieFencing::Record { tasks: 1 });
    }

    #[test]
    fn a_stopped_connector_fences_its_tasks_and_records_zero() {
        // Stopping commits zero task configs: the running ones are fenced.
        let mut s = state("c");
        commit(&mut s, "c", 2);
        recorded(&mut s, "c", 2);
        commit(&mut s, "c", 0);
        let plan = ZombieFencing::plan(&s, "g", "c");
        assert!(
            matches!(&plan, ZombieFencing::FenceThenRecord { ids, tasks: 0, .. } if ids.len() == 2),
            "{plan:?}"
        );
    }

    #[test]
    fn requests_are_refused_unless_enabled_known_and_a_source() {
        let s = state("c");
        let enabled = ExactlyOnceSourceSupport::Enabled;
        assert!(check(enabled, &s, Some(PluginKind::Source), "c").is_ok());
        for support in [ExactlyOnceSourceSupport::Disabled, ExactlyOnceSourceSupport::Preparing] {
            let e = check(support, &s, Some(PluginKind::Source), "c").unwrap_err();
            assert!(matches!(e, HerderError::BadRequest(_)), "{e}");
        }
        let e = check(enabled, &s, Some(PluginKind::Source), "nope").unwrap_err();
        assert!(matches!(e, HerderError::NotFound(_)), "{e}");
        for kind in [Some(PluginKind::Sink), None] {
            let e = check(enabled, &s, kind, "c").unwrap_err();
            assert_eq!(e.to_string(), "Connector c is not a source connector");
        }
    }
}
