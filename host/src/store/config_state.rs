//! The read side of the config topic: Kafka Connect's state machine (section 2.4 of the
//! reference), applied one record at a time, with the events the herder reacts to.
//!
//! Pure: the herder owns one [`ConfigState`] and feeds it records. Task configs are
//! buffered until their commit record, and a commit that does not cover every task id
//! leaves the connector inconsistent (no tasks) instead of applying a partial set.
//!
//! The latest `session-key` record is kept ([`ConfigState::session_key`]) but reported by no
//! [`ConfigEvent`]: the herder hands it to its `cluster::KeyRing` after applying records
//! (`KeyRing::set` says whether it changed), whether it was read at start-up or later.
//!
//! Zombie fencing (KIP-618) is tracked as `KafkaConfigBackingStore` tracks it: every
//! commit record of an existing connector marks it pending fencing, a `tasks-fencing-<name>`
//! record keeps its task count and clears the mark, and each complete commit advances the
//! connector's task-config generation. Deleting a connector forgets its record and its mark.
//!
//! Cluster-wide log levels (`logger-cluster-<ns>`, KIP-976) are not state: each one read
//! after the initial read is reported once, for the herder to apply. Those read during the
//! initial read are dropped, as Kafka Connect drops them: a level set before this worker
//! started does not outlive the workers that were running then.

use std::collections::{BTreeMap, BTreeSet};

use super::config_record::ConfigRecord;
use crate::model::{InstanceId, Properties, RestartRequest, SessionKey, TargetState};

/// What changed, for the herder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConfigEvent {
    /// A connector config was created or replaced.
    ConnectorUpdated(String),
    /// A connector was deleted.
    ConnectorRemoved(String),
    /// A connector's target state changed.
    TargetStateChanged(String),
    /// A connector's committed task configs changed.
    TasksCommitted(String),
    /// A restart was requested (only reported once the initial read has finished).
    Restart(RestartRequest),
    /// A cluster-wide log level was set (only reported once the initial read has
    /// finished): namespace and level, as written.
    LoggerLevel(String, String),
    /// A connector's task count was recorded (`tasks-fencing-<name>`): its previous task
    /// generation is fenced out (KIP-618), so its new tasks may start.
    TaskCountRecorded(String),
}

/// The desired state of every connector, as read from the config topic.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConfigState {
    connectors: BTreeMap<String, Properties>,
    targets: BTreeMap<String, TargetState>,
    tasks: BTreeMap<String, Vec<Properties>>,
    task_counts: BTreeMap<String, u32>,
    deferred: BTreeMap<String, BTreeMap<u32, Properties>>,
    inconsistent: BTreeSet<String>,
    /// The connector config each committed task set was generated from.
    applied: BTreeMap<String, Properties>,
    /// The latest session key read.
    session_key: Option<SessionKey>,
    /// The task count of each connector's last `tasks-fencing-<name>` record.
    task_count_records: BTreeMap<String, u32>,
    /// Connectors whose task configs were committed after their last task count record.
    pending_fencing: BTreeSet<String>,
    /// How many complete task-config commits each connector has had; never reset, so a
    /// fencing can tell that new task configs came while it ran.
    generations: BTreeMap<String, u64>,
    started: bool,
}

impl ConfigState {
    /// Marks the end of the initial read: from now on restart records are reported.
    pub fn finish_initial_read(&mut self) {
        self.started = true;
    }

    /// Applies one record and returns what changed.
    pub fn apply(&mut self, record: ConfigRecord) -> Vec<ConfigEvent> {
        match record {
            ConfigRecord::Connector { name, config: Some(config) } => {
                self.targets.entry(name.clone()).or_default();
                self.connectors.insert(name.clone(), config);
                vec![ConfigEvent::ConnectorUpdated(name)]
            }
            ConfigRecord::Connector { name, config: None } => {
                let existed = self.connectors.remove(&name).is_some();
                self.task_counts.remove(&name);
                self.tasks.remove(&name);
                self.deferred.remove(&name);
                self.applied.remove(&name);
                self.inconsistent.remove(&name);
                self.task_count_records.remove(&name);
                self.pending_fencing.remove(&name);
                if existed { vec![ConfigEvent::ConnectorRemoved(name)] } else { vec![] }
            }
            ConfigRecord::TargetState { connector, state: Some(state) } => {
                let old = self.targets.insert(connector.clone(), state);
                if old != Some(state) && self.connectors.contains_key(&connector) {
                    vec![ConfigEvent::TargetStateChanged(connector)]
                } else {
                    vec![]
                }
            }
            ConfigRecord::TargetState { connector, state: None } => {
                if self.connectors.contains_key(&connector) {
                    let old = self.targets.insert(connector.clone(), TargetState::Started);
                    if old != Some(TargetState::Started) {
                        return vec![ConfigEvent::TargetStateChanged(connector)];
                    }
                } else {
                    self.targets.remove(&connector);
                }
                vec![]
            }
            ConfigRecord::Task { connector, task, config: Some(config) } => {
                self.deferred.entry(connector).or_default().insert(task, config);
                vec![]
            }
            ConfigRecord::Task { connector, task, config: None } => {
                tracing::warn!(connector = %connector, task, "Ignoring a task config tombstone");
                vec![]
            }
            ConfigRecord::Commit { connector, tasks } => self.commit(connector, tasks),
            ConfigRecord::Restart(request) => {
                if self.started {
                    vec![ConfigEvent::Restart(request)]
                } else {
                    vec![]
                }
            }
            ConfigRecord::SessionKey(key) => {
                self.session_key = Some(key);
                vec![]
            }
            ConfigRecord::LoggerLevel { namespace, level } => {
                if self.started {
                    vec![ConfigEvent::LoggerLevel(namespace, level)]
                } else {
                    tracing::trace!(namespace = %namespace, level = %level, "Ignoring a log level written to the config topic before this worker started");
                    vec![]
                }
            }
            ConfigRecord::TaskCount { connector, tasks } => {
                self.pending_fencing.remove(&connector);
                self.task_count_records.insert(connector.clone(), tasks);
                vec![ConfigEvent::TaskCountRecorded(connector)]
            }
        }
    }

    fn commit(&mut self, connector: String, count: u32) -> Vec<ConfigEvent> {
        let deferred = self.deferred.remove(&connector).unwrap_or_default();
        let Some(config) = self.connectors.get(&connector) else {
            // Deleted, and compaction removed the config and its tombstone (KAFKA-16838).
            self.task_counts.remove(&connector);
            self.tasks.remove(&connector);
            return vec![];
        };
        if (0..count).all(|t| deferred.contains_key(&t)) {
            let tasks = (0..count).map(|t| deferred[&t].clone()).collect();
            self.tasks.insert(connector.clone(), tasks);
            self.applied.insert(connector.clone(), config.clone());
            self.inconsistent.remove(&connector);
            *self.generations.entry(connector.clone()).or_default() += 1;
        } else {
            tracing::warn!(connector = %connector, tasks = count, "Task configs are incomplete; the connector is inconsistent until new task configs are written");
            self.inconsistent.insert(connector.clone());
        }
        self.task_counts.insert(connector.clone(), count);
        // Complete or not, the previous generation's producers may still run.
        self.pending_fencing.insert(connector.clone());
        vec![ConfigEvent::TasksCommitted(connector)]
    }

    /// Names of all connectors, sorted.
    pub fn connectors(&self) -> impl Iterator<Item = &str> {
        self.connectors.keys().map(String::as_str)
    }

    /// Whether `name` exists.
    pub fn contains(&self, name: &str) -> bool {
        self.connectors.contains_key(name)
    }

    /// Whether `id` exists: its connector does, and a task is among the committed ones.
    pub fn has(&self, id: &InstanceId) -> bool {
        match id {
            InstanceId::Connector(name) => self.contains(name),
            InstanceId::Task(name, task) => (*task as usize) < self.task_configs(name).len(),
        }
    }

    /// The config of `name`.
    pub fn connector_config(&self, name: &str) -> Option<&Properties> {
        self.connectors.get(name)
    }

    /// The target state of `name` (STARTED when none was written).
    pub fn target_state(&self, name: &str) -> TargetState {
        self.targets.get(name).copied().unwrap_or_default()
    }

    /// The committed task configs of `name`; empty while it is inconsistent.
    pub fn task_configs(&self, name: &str) -> &[Properties] {
        if self.inconsistent.contains(name) {
            return &[];
        }
        self.tasks.get(name).map(Vec::as_slice).unwrap_or_default()
    }

    /// Whether the committed tasks of `name` are incomplete.
    pub fn is_inconsistent(&self, name: &str) -> bool {
        self.inconsistent.contains(name)
    }

    /// The connector config the committed tasks of `name` were generated from.
    pub fn applied_config(&self, name: &str) -> Option<&Properties> {
        self.applied.get(name)
    }

    /// The latest session key read (KIP-507), if any record held one.
    pub fn session_key(&self) -> Option<&SessionKey> {
        self.session_key.as_ref()
    }

    /// The task count of the last commit record of `name` (0 before any), complete or not:
    /// Kafka Connect's `ClusterConfigState.taskCount`.
    pub fn task_count(&self, name: &str) -> u32 {
        self.task_counts.get(name).copied().unwrap_or_default()
    }

    /// The task count of the last `tasks-fencing-<name>` record of `name`, if any.
    pub fn task_count_record(&self, name: &str) -> Option<u32> {
        self.task_count_records.get(name).copied()
    }

    /// Whether task configs of `name` were committed since its last task count record.
    pub fn pending_fencing(&self, name: &str) -> bool {
        self.pending_fencing.contains(name)
    }

    /// How many complete task-config commits `name` has had (0 before the first).
    pub fn task_config_generation(&self, name: &str) -> u64 {
        self.generations.get(name).copied().unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn props(pairs: &[(&str, &str)]) -> Properties {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    fn connector(name: &str) -> ConfigRecord {
        ConfigRecord::Connector { name: name.into(), config: Some(props(&[("k", "v")])) }
    }

    fn task(name: &str, t: u32) -> ConfigRecord {
        ConfigRecord::Task {
            connector: name.into(),
            task: t,
            config: Some(props(&[("t", &t.to_string())])),
        }
    }

    fn commit(name: &str, n: u32) -> ConfigRecord {
        ConfigRecord::Commit { connector: name.into(), tasks: n }
    }

    #[test]
    fn tasks_apply_only_on_a_complete_commit() {
        let mut s = ConfigState::default();
        s.apply(connector("c"));
        s.apply(task("c", 0));
        s.apply(task("c", 1));
        assert!(s.task_configs("c").is_empty(), "buffered until the commit");
        assert_eq!(s.apply(commit("c", 2)), vec![ConfigEvent::TasksCommitted("c".into())]);
        assert_eq!(s.task_configs("c").len(), 2);
        assert_eq!(s.applied_config("c"), s.connector_config("c"));
    }

    #[test]
    fn an_incomplete_commit_makes_the_connector_inconsistent() {
        let mut s = ConfigState::default();
        s.apply(connector("c"));
        s.apply(task("c", 0));
        s.apply(commit("c", 2));
        assert!(s.is_inconsistent("c"));
        assert!(s.task_configs("c").is_empty());
        // A later complete set repairs it; extra stale ids are allowed.
        for t in 0..3 {
            s.apply(task("c", t));
        }
        s.apply(commit("c", 2));
        assert!(!s.is_inconsistent("c"));
        assert_eq!(s.task_configs("c").len(), 2);
    }

    #[test]
    fn deletion_forgets_everything_and_orphan_commits_are_ignored() {
        let mut s = ConfigState::default();
        s.apply(connector("c"));
        s.apply(task("c", 0));
        s.apply(commit("c", 1));
        assert_eq!(
            s.apply(ConfigRecord::Connector { name: "c".into(), config: None }),
            vec![ConfigEvent::ConnectorRemoved("c".into())]
        );
        assert!(!s.contains("c"));
        // After compaction removed the config, its tasks and commit are ignored.
        s.apply(task("c", 0));
        assert!(s.apply(commit("c", 1)).is_empty());
        assert!(s.task_configs("c").is_empty());
    }

    #[test]
    fn target_states_and_their_tombstones() {
        let mut s = ConfigState::default();
        s.apply(connector("c"));
        assert_eq!(s.target_state("c"), TargetState::Started);
        let paused =
            ConfigRecord::TargetState { connector: "c".into(), state: Some(TargetState::Paused) };
        assert_eq!(s.apply(paused.clone()), vec![ConfigEvent::TargetStateChanged("c".into())]);
        assert!(s.apply(paused).is_empty(), "no event when unchanged");
        s.apply(ConfigRecord::TargetState { connector: "c".into(), state: None });
        assert_eq!(s.target_state("c"), TargetState::Started);
    }

    #[test]
    fn restart_records_count_only_after_the_initial_read() {
        let mut s = ConfigState::default();
        s.apply(connector("c"));
        let r = ConfigRecord::Restart(RestartRequest {
            connector: "c".into(),
            only_failed: false,
            include_tasks: true,
        });
        assert!(s.apply(r.clone()).is_empty());
        s.finish_initial_read();
        assert!(matches!(s.apply(r).as_slice(), [ConfigEvent::Restart(_)]));
    }

    #[test]
    fn logger_levels_count_only_after_the_initial_read() {
        let mut s = ConfigState::default();
        let level =
            |l: &str| ConfigRecord::LoggerLevel { namespace: "a.b".into(), level: l.into() };
        assert!(s.apply(level("DEBUG")).is_empty(), "written before this worker started");
        s.finish_initial_read();
        assert_eq!(
            s.apply(level("TRACE")),
            vec![ConfigEvent::LoggerLevel("a.b".into(), "TRACE".into())]
        );
        assert_eq!(s, ConfigState { started: true, ..ConfigState::default() }, "not state");
    }

    fn task_count(name: &str, n: u32) -> ConfigRecord {
        ConfigRecord::TaskCount { connector: name.into(), tasks: n }
    }

    #[test]
    fn every_commit_marks_the_connector_pending_fencing() {
        let mut s = ConfigState::default();
        s.apply(connector("c"));
        assert!(!s.pending_fencing("c"));
        s.apply(task("c", 0));
        s.apply(commit("c", 1));
        assert!(s.pending_fencing("c"));
        assert!(!s.pending_fencing("other"));
        // An incomplete commit too: its previous generation's producers may still run.
        s.apply(task_count("c", 1));
        s.apply(commit("c", 2));
        assert!(s.is_inconsistent("c"));
        assert!(s.pending_fencing("c"));
    }

    #[test]
    fn a_task_count_record_is_kept_and_clears_pending_fencing() {
        let mut s = ConfigState::default();
        s.apply(connector("c"));
        assert_eq!(s.task_count_record("c"), None);
        s.apply(task("c", 0));
        s.apply(commit("c", 1));
        assert_eq!(s.apply(task_count("c", 1)), vec![ConfigEvent::TaskCountRecorded("c".into())]);
        assert_eq!(s.task_count_record("c"), Some(1));
        assert!(!s.pending_fencing("c"));
        // The next generation is pending again; the record stays until the next one.
        for t in 0..3 {
            s.apply(task("c", t));
        }
        s.apply(commit("c", 3));
        assert!(s.pending_fencing("c"));
        assert_eq!(s.task_count_record("c"), Some(1));
        s.apply(task_count("c", 3));
        assert_eq!(s.task_count_record("c"), Some(3));
        assert!(!s.pending_fencing("c"));
    }

    #[test]
    fn complete_commits_advance_the_task_config_generation() {
        let mut s = ConfigState::default();
        s.apply(connector("c"));
        assert_eq!(s.task_config_generation("c"), 0);
        s.apply(task("c", 0));
        s.apply(commit("c", 1));
        assert_eq!(s.task_config_generation("c"), 1);
        s.apply(commit("c", 1));
        assert_eq!(s.task_config_generation("c"), 1, "an incomplete commit applies nothing");
        s.apply(task("c", 0));
        s.apply(commit("c", 1));
        assert_eq!(s.task_config_generation("c"), 2);
        s.apply(task_count("c", 1));
        assert_eq!(s.task_config_generation("c"), 2, "a task count record is no generation");
    }

    #[test]
    fn a_deleted_connector_loses_its_task_count_record_and_pending_fencing() {
        let mut s = ConfigState::default();
        s.apply(connector("c"));
        s.apply(task("c", 0));
        s.apply(commit("c", 1));
        s.apply(task_count("c", 1));
        s.apply(connector("d"));
        s.apply(commit("d", 0));
        s.apply(ConfigRecord::Connector { name: "c".into(), config: None });
        s.apply(ConfigRecord::Connector { name: "d".into(), config: None });
        assert_eq!(s.task_count_record("c"), None);
        assert!(!s.pending_fencing("d"));
        // Re-created, it starts as a first exactly-once start: no record, nothing pending.
        s.apply(connector("c"));
        assert_eq!(s.task_count_record("c"), None);
        assert!(!s.pending_fencing("c"));
    }

    #[test]
    fn an_orphan_commit_marks_nothing_pending() {
        let mut s = ConfigState::default();
        s.apply(commit("gone", 2));
        assert!(!s.pending_fencing("gone"));
    }

    #[test]
    fn the_latest_session_key_wins() {
        let mut s = ConfigState::default();
        assert_eq!(s.session_key(), None);
        let key = |created_ms| SessionKey {
            key: vec![1, 2, 3],
            algorithm: "HmacSHA256".into(),
            created_ms,
        };
        assert!(s.apply(ConfigRecord::SessionKey(key(1))).is_empty());
        s.finish_initial_read();
        assert!(s.apply(ConfigRecord::SessionKey(key(2))).is_empty());
        assert_eq!(s.session_key(), Some(&key(2)));
    }
}
