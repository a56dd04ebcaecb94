//! Task reconfiguration: ask a running connector for its task configs (off the loop),
//! compare them with the committed ones by Kafka Connect's rules, and write the new set
//! (task records first, the commit record last). A task config the config topic cannot hold
//! ([`MAX_CONFIG_RECORD_BYTES`]) fails the connector and writes nothing. Failures retry with capped exponential
//! back-off (KAFKA-14732), one chain per connector ([`RetryChains`]), up to the optional
//! limit, after which the connector is FAILED with the last error. While retries fail, the
//! connector's RUNNING status carries a `reconfiguration` object: the last error, the
//! retry's number and when it runs.
//!
//! The connector computed its task configs from its config with the config provider
//! references resolved: before they are compared and written, every key whose value
//! holds a reference in the connector's config as written gets that value back
//! (Kafka Connect's reverse transform), so no resolved secret reaches the config topic.
//!
//! [`RetryChains`]: super::retry_chain::RetryChains
//! [`MAX_CONFIG_RECORD_BYTES`]: crate::store::MAX_CONFIG_RECORD_BYTES

use tokio::time::Instant;

use super::HerderError;
use super::actor::Herder;
use super::instances::Phase;
use super::reconcile::Action;
use super::retry_chain::AfterFailure;
use super::writes::{Then, Write};
use crate::config::providers::reverse_transform;
use crate::model::{
    ConnectorPolicies, InstanceId, PluginKind, Properties, State, TargetState, random_unit,
};
use crate::store::{ConfigRecord, RetryInfo};
use crate::telemetry::events::ReconfigurationFailed;
use crate::worker::{Parsed, TaskConfigsError};

/// Whether new task configs differ from the committed ones (Kafka Connect's rules: the
/// count, any config, or the connector config they were generated from).
pub fn task_configs_changed(
    committed: &[Properties],
    new: &[Properties],
    applied: Option<&Properties>,
    current: &Properties,
) -> bool {
    committed != new || applied != Some(current)
}

impl Herder {
    /// The failure handling of `name`: its config over the worker's defaults. A config
    /// that would not validate (written to the config topic by another producer) gets the
    /// defaults, with a warning.
    pub(super) fn policies(&self, name: &str) -> ConnectorPolicies {
        let defaults = &self.settings.reconfiguration;
        let Some(framework) = self.typed.framework(name) else {
            return ConnectorPolicies { reconfiguration: defaults.clone(), restart: None };
        };
        framework.policies.clone().unwrap_or_else(|problems| {
            let keys: Vec<&str> = problems.iter().map(|p| p.key.as_str()).collect();
            tracing::warn!(
                connector = %name,
                keys = ?keys,
                "Invalid retry or restart keys; using the defaults"
            );
            ConnectorPolicies { reconfiguration: defaults.clone(), restart: None }
        })
    }

    /// Asks a newly started (or resumed) connector for task configs: a fresh chain, whose
    /// count starts at zero.
    pub(super) fn reconfigure_fresh(&mut self, name: &str) {
        self.chains.begin(name);
        self.apply(Action::RequestTaskConfigs(name.to_owned()));
    }

    /// The connector asked to be reconfigured: a waiting retry is replaced by an attempt
    /// now (or right after the one in flight), in the same chain.
    pub(super) fn reconfigure(&mut self, name: &str) {
        if self.chains.trigger(name) {
            self.apply(Action::RequestTaskConfigs(name.to_owned()));
        }
    }

    /// `tasks.max` of `name` (1 when unreadable).
    pub(super) fn max_tasks(&self, name: &str) -> u32 {
        self.typed.framework(name).map_or(1, |f| f.tasks_max)
    }

    fn runs(&self, name: &str) -> bool {
        self.instances.phase(&InstanceId::Connector(name.to_owned())) == Some(Phase::Running)
    }

    /// Runs the retries that are due. A connector no longer running or started ends its
    /// chain silently, as in Kafka Connect.
    pub(super) fn run_due_retries(&mut self) {
        for name in self.chains.take_due(Instant::now()) {
            if self.runs(&name) && self.config.target_state(&name) == TargetState::Started {
                self.apply(Action::RequestTaskConfigs(name));
            } else {
                self.chains.cancel(&name);
            }
        }
    }

    /// Handles a connector's answer to `task-configs`. An attempt that writes new configs
    /// ends when they are durable ([`Herder::task_configs_written`]).
    pub(super) fn task_configs_answer(
        &mut self,
        name: &str,
        result: Result<Vec<crate::model::Config>, TaskConfigsError>,
    ) {
        match self.apply_task_configs(name, result) {
            Some(write) => self.write(write),
            None => self.attempt_done(name),
        }
    }

    /// The attempt is over: one more runs when a trigger asked for it meanwhile.
    fn attempt_done(&mut self, name: &str) {
        let rerun = self.chains.answered(name);
        if rerun && self.runs(name) && self.chains.get(name).is_some() {
            self.reconfigure(name);
        }
    }

    /// Whether new task configs of `name` may be written: it exists and is not STOPPED (a
    /// STOPPED connector has no tasks, KIP-875).
    pub(super) fn takes_task_configs(&self, name: &str) -> bool {
        self.config.contains(name) && self.config.target_state(name) != TargetState::Stopped
    }

    /// New task configs of `name` were not written: the connector was deleted or stopped
    /// before their turn came.
    pub(super) fn task_configs_dropped(&mut self, name: &str) {
        tracing::info!(connector = %name, "Not writing task configs: the connector was stopped or deleted meanwhile");
        self.attempt_done(name);
    }

    /// New task configs of `name` were written (or not).
    pub(super) fn task_configs_written(
        &mut self,
        name: &str,
        count: usize,
        result: Result<(), HerderError>,
    ) {
        match result {
            Ok(()) => {
                tracing::info!(connector = %name, tasks = count, "Wrote new task configs");
                self.reconfiguration_succeeded(name);
            }
            Err(e) => self.reconfiguration_failed(name, &e.to_string()),
        }
        self.attempt_done(name);
    }

    /// Compares the answer with the committed configs: the write to make, if any.
    fn apply_task_configs(
        &mut self,
        name: &str,
        result: Result<Vec<crate::model::Config>, TaskConfigsError>,
    ) -> Option<Write> {
        let max = self.max_tasks(name);
        let configs = match result {
            Ok(c) if c.len() > max as usize => {
                let trace = format!(
                    "The connector {name} has generated {} tasks, which is greater than {max}, the maximum number of tasks it is configured to create.",
                    c.len()
                );
                tracing::error!(connector = %name, "{trace}");
                self.apply(Action::Fail { id: InstanceId::Connector(name.to_owned()), trace });
                return None;
            }
            Ok(c) => c,
            Err(e) if e.instance_lost => {
                // The instance is gone: `ConnectorFailed` follows and ends the chain.
                return None;
            }
            Err(e) => {
                self.reconfiguration_failed(name, &e.trace);
                return None;
            }
        };
        let current = self.config.connector_config(name).cloned()?;
        let parsed = self.typed.get(name)?;
        let new: Vec<Properties> =
            configs.into_iter().map(|c| self.task_config(parsed, c)).collect();
        // Values the worker resolved for the connector go back to their references.
        let new = reverse_transform(&current, new);
        if !task_configs_changed(
            self.config.task_configs(name),
            &new,
            self.config.applied_config(name),
            &current,
        ) {
            self.reconfiguration_succeeded(name);
            return None;
        }
        let records = task_records(name, &new);
        if let Some(e) = records.iter().find_map(ConfigRecord::oversized) {
            // Retrying would compute the same configs: fail as Kafka Connect does on the
            // config topic's RecordTooLargeException, having written nothing.
            let trace = format!(
                "The connector {name} generated task configs the config topic cannot hold: {e}. \
                 Make the connector's task configs smaller."
            );
            tracing::error!(connector = %name, "{trace}");
            self.apply(Action::Fail { id: InstanceId::Connector(name.to_owned()), trace });
            return None;
        }
        if self.member.in_group() && !self.member.is_leader() {
            // Only the leader writes task configs: it gets them over REST.
            self.submit_to_leader(name, new);
            return None;
        }
        Some(Write {
            records,
            context: "Error writing task configurations to the config topic".into(),
            then: Then::TaskConfigs { connector: name.to_owned(), count: new.len() },
        })
    }

    /// Resets the chain; a status that showed failing retries shows RUNNING plainly again.
    pub(super) fn reconfiguration_succeeded(&mut self, name: &str) {
        if self.chains.succeeded(name) {
            tracing::info!(connector = %name, "Task reconfiguration succeeded after failures");
            let id = InstanceId::Connector(name.to_owned());
            let status = self.status_noted(&id, State::Running);
            self.show_status(&id, status);
        }
    }

    /// Schedules the next attempt of `name`'s chain and shows it in the status, or fails
    /// the connector once the retry limit is reached.
    pub(super) fn reconfiguration_failed(&mut self, name: &str, error: &str) {
        let policy = self.policies(name).reconfiguration;
        let outcome = self.chains.failed(name, Instant::now(), error, &policy, random_unit());
        match outcome {
            AfterFailure::Retry { retry, delay, .. } => {
                let event = ReconfigurationFailed {
                    connector: name,
                    attempt: retry,
                    next_delay: Some(delay),
                    error,
                };
                event.emit();
                let id = InstanceId::Connector(name.to_owned());
                let mut status = self.status_noted(&id, State::Running);
                let info = RetryInfo::after(retry, policy.max_retries, delay, Some(error.into()));
                status.reconfiguration = Some(Box::new(info));
                self.show_status(&id, status);
            }
            AfterFailure::GiveUp { failures } => {
                let event = ReconfigurationFailed {
                    connector: name,
                    attempt: failures,
                    next_delay: None,
                    error,
                };
                event.emit();
                let trace = gave_up_trace(error, failures);
                self.apply(Action::Fail { id: InstanceId::Connector(name.to_owned()), trace });
            }
        }
    }

    /// The task config as written: the plugin's, plus `task.class` and the connector's
    /// `topics` / `topics.regex`, as Kafka Connect adds them.
    fn task_config(&self, connector: &Parsed, config: crate::model::Config) -> Properties {
        let mut p: Properties = config.into_iter().collect();
        match connector {
            Ok(connector) => {
                p.insert("task.class".into(), task_class_of(&connector.plugin.info().name));
                if connector.kind() == PluginKind::Sink {
                    for key in ["topics", "topics.regex"] {
                        if let Some(v) = connector.raw().get(key) {
                            p.insert(key.into(), v.clone());
                        }
                    }
                }
            }
            Err(rejected) => {
                if let Some(class) = &rejected.framework.class {
                    p.insert("task.class".into(), class.clone());
                }
            }
        }
        p
    }
}

/// The trace of a connector failed by the retry limit: the last error, then why.
fn gave_up_trace(error: &str, failures: u32) -> String {
    format!(
        "{error}\n\nTask reconfiguration failed {failures} times; no more retries \
         (task.reconfiguration.retries.max = {}).",
        failures - 1
    )
}

/// The records of a task-config write: every task, then the commit.
pub(super) fn task_records(name: &str, configs: &[Properties]) -> Vec<ConfigRecord> {
    configs
        .iter()
        .enumerate()
        .map(|(i, c)| ConfigRecord::Task {
            connector: name.to_owned(),
            task: i as u32,
            config: Some(c.clone()),
        })
        .chain(std::iter::once(ConfigRecord::Commit {
            connector: name.to_owned(),
            tasks: configs.len() as u32,
        }))
        .collect()
}

/// The `task.class` Kafka Connect would write for a connector class: `…FooConnector`
/// becomes `…FooTask`, a short plugin name `Foo` becomes `FooTask`.
fn task_class_of(plugin: &str) -> String {
    format!("{}Task", plugin.strip_suffix("Connector").unwrap_or(plugin))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn change_rules() {
        let c = |v: &str| Properties::from([("k".to_string(), v.to_string())]);
        let current = c("conn");
        assert!(!task_configs_changed(&[c("a")], &[c("a")], Some(&current), &current));
        assert!(task_configs_changed(&[c("a")], &[c("a"), c("b")], Some(&current), &current));
        assert!(task_configs_changed(&[c("a")], &[c("b")], Some(&current), &current));
        assert!(task_configs_changed(&[c("a")], &[c("a")], Some(&c("old")), &current));
        assert!(task_configs_changed(&[], &[], None, &current));
    }

    #[test]
    fn the_limit_trace_starts_with_the_last_error() {
        let t = gave_up_trace("no database", 3);
        assert!(t.starts_with("no database\n\n"), "{t}");
        assert!(
            t.ends_with("failed 3 times; no more retries (task.reconfiguration.retries.max = 2).")
        );
    }

    #[test]
    fn task_classes_follow_the_connector_class() {
        assert_eq!(
            task_class_of("org.apache.kafka.connect.file.FileStreamSourceConnector"),
            "org.apache.kafka.connect.file.FileStreamSourceTask"
        );
        assert_eq!(task_class_of("Datagen"), "DatagenTask");
    }

    #[test]
    fn writes_put_the_commit_last() {
        let r = task_records("c", &[Properties::new(), Properties::new()]);
        assert_eq!(r.len(), 3);
        assert!(matches!(r[2], ConfigRecord::Commit { tasks: 2, .. }));
    }
}
