//! Task reconfiguration: ask a running connector for its task configs (off the loop),
//! compare them with the committed ones by Kafka Connect's rules, and write the new set
//! (task records first, the commit record last). Failures retry with capped exponential
//! back-off (KAFKA-14732), one retry chain per connector.

use std::time::Duration;

use tokio::time::Instant;

use super::actor::{Herder, Phase, Retry};
use crate::model::{InstanceId, PluginKind, State};
use crate::store::{ConfigRecord, Properties};
use crate::worker::TaskConfigsError;

/// Capped exponential back-off: `initial × multiplier^attempt`, at most `max`, with an
/// optional jitter fraction. The default is exactly KAFKA-14732's schedule: 250 ms
/// doubling to 60 s, no jitter.
#[derive(Clone, Debug, PartialEq)]
pub struct Backoff {
    /// Delay after the first failure.
    pub initial: Duration,
    /// The cap.
    pub max: Duration,
    /// Growth per attempt.
    pub multiplier: f64,
    /// Each delay is multiplied by a uniform factor in `[1 - jitter, 1 + jitter]`.
    pub jitter: f64,
}

impl Default for Backoff {
    fn default() -> Self {
        Self {
            initial: Duration::from_millis(250),
            max: Duration::from_secs(60),
            multiplier: 2.0,
            jitter: 0.0,
        }
    }
}

impl Backoff {
    /// The delay after failed attempt number `attempt` (0 for the first failure).
    /// `unit` is a random number in `[0, 1)` for the jitter.
    pub fn delay(&self, attempt: u32, unit: f64) -> Duration {
        let base = self.initial.as_secs_f64() * self.multiplier.powi(attempt.min(64) as i32);
        let capped = base.min(self.max.as_secs_f64());
        let factor = 1.0 + self.jitter * (2.0 * unit - 1.0);
        Duration::from_secs_f64((capped * factor).max(0.0))
    }
}

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
    /// Asks the running connector `name` for task configs (now, attempt 0). Any pending
    /// retry of it is replaced: one chain per connector.
    pub(super) fn reconfigure(&mut self, name: &str) {
        self.retries.remove(name);
        self.attempts.insert(name.to_owned(), 0);
        self.request_task_configs(name);
    }

    fn request_task_configs(&mut self, name: &str) {
        let max = self.max_tasks(name);
        if !self.worker.request_task_configs(name, max) {
            tracing::debug!(connector = %name, "Skipping reconfiguration: the connector is not running");
        }
    }

    fn max_tasks(&self, name: &str) -> u32 {
        self.config
            .connector_config(name)
            .and_then(|c| c.get("tasks.max"))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(1)
    }

    /// Runs the retries that are due.
    pub(super) fn run_due_retries(&mut self) {
        let now = Instant::now();
        let due: Vec<String> =
            self.retries.iter().filter(|(_, r)| r.due <= now).map(|(n, _)| n.clone()).collect();
        for name in due {
            self.retries.remove(&name);
            if self.connectors.get(&name).is_some_and(|r| r.phase == Phase::Running) {
                self.request_task_configs(&name);
            }
        }
    }

    /// Handles a connector's answer to `task-configs`.
    pub(super) async fn task_configs_answer(
        &mut self,
        name: &str,
        result: Result<Vec<crate::model::Config>, TaskConfigsError>,
    ) {
        let max = self.max_tasks(name);
        let configs = match result {
            Ok(c) if c.len() > max as usize => {
                let trace = format!(
                    "The connector {name} has generated {} tasks, which is greater than {max}, the maximum number of tasks it is configured to create.",
                    c.len()
                );
                tracing::error!(connector = %name, "{trace}");
                self.attempts.remove(name);
                self.status.put_safe(
                    InstanceId::Connector(name.to_owned()),
                    self.status_of(State::Failed, Some(trace)),
                );
                self.stop_connector(name, false);
                return;
            }
            Ok(c) => c,
            Err(e) if e.instance_lost => return,
            Err(e) => return self.schedule_retry(name, &e.trace),
        };
        let Some(current) = self.config.connector_config(name).cloned() else { return };
        let new: Vec<Properties> =
            configs.into_iter().map(|c| self.task_config(name, &current, c)).collect();
        if !task_configs_changed(
            self.config.task_configs(name),
            &new,
            self.config.applied_config(name),
            &current,
        ) {
            self.attempts.remove(name);
            return;
        }
        match self.config_log.write(&task_records(name, &new)).await {
            Ok(()) => {
                tracing::info!(connector = %name, tasks = new.len(), "Wrote new task configs");
                self.attempts.remove(name);
            }
            Err(e) => self.schedule_retry(
                name,
                &format!("Error writing task configurations to the config topic: {e}"),
            ),
        }
    }

    /// The task config as written: the plugin's, plus `task.class` and the connector's
    /// `topics` / `topics.regex`, as Kafka Connect adds them.
    fn task_config(
        &self,
        name: &str,
        connector: &Properties,
        config: crate::model::Config,
    ) -> Properties {
        let mut p: Properties = config.into_iter().collect();
        if let Some(class) = connector.get("connector.class") {
            let plugin = self.worker.registry().resolve(class);
            let task_class =
                plugin.map(|p| format!("{}Task", p.info().name)).unwrap_or_else(|| class.clone());
            p.insert("task.class".into(), task_class);
            if plugin.is_some_and(|p| p.info().kind == PluginKind::Sink) {
                for key in ["topics", "topics.regex"] {
                    if let Some(v) = connector.get(key) {
                        p.insert(key.into(), v.clone());
                    }
                }
            }
        }
        let _ = name;
        p
    }

    /// Schedules the next attempt of `name`'s chain.
    pub(super) fn schedule_retry(&mut self, name: &str, trace: &str) {
        let attempt = self.attempts.get(name).copied().unwrap_or(0);
        let delay = self.settings.reconfigure_backoff.delay(attempt, rand_unit());
        tracing::error!(
            connector = %name,
            attempt = attempt + 1,
            next_delay_ms = delay.as_millis() as u64,
            error = %trace,
            "Failed to reconfigure connector's tasks, retrying after backoff"
        );
        self.attempts.insert(name.to_owned(), attempt + 1);
        self.retries.insert(name.to_owned(), Retry { due: Instant::now() + delay });
    }
}

/// The records of a task-config write: every task, then the commit.
fn task_records(name: &str, configs: &[Properties]) -> Vec<ConfigRecord> {
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

fn rand_unit() -> f64 {
    use std::hash::{BuildHasher, RandomState};
    (RandomState::new().hash_one(std::time::SystemTime::now()) % 1_000_000) as f64 / 1_000_000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_schedule_is_kafka_14732() {
        let b = Backoff::default();
        let ms: Vec<u128> = (0..11).map(|a| b.delay(a, 0.5).as_millis()).collect();
        assert_eq!(ms, vec![250, 500, 1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000, 60000]);
    }

    #[test]
    fn jitter_stays_within_its_fraction() {
        let b = Backoff { jitter: 0.2, ..Backoff::default() };
        assert_eq!(b.delay(2, 0.0).as_millis(), 800);
        assert_eq!(b.delay(2, 1.0).as_millis(), 1200);
        assert_eq!(b.delay(20, 1.0).as_millis(), 72000);
    }

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
    fn writes_put_the_commit_last() {
        let r = task_records("c", &[Properties::new(), Properties::new()]);
        assert_eq!(r.len(), 3);
        assert!(matches!(r[2], ConfigRecord::Commit { tasks: 2, .. }));
    }
}
