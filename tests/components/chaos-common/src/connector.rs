//! [`ChaosConnector`]: the connector half both chaos plugins share. It misbehaves at
//! `connector-start` or `task-configs` when told to, fails `task_configs` (retriable) the
//! first `chaos.task.configs.failures` times, and gives each of `tasks.max` tasks the
//! whole config plus `chaos.task.index` (and `chaos.task.configs.extra` tasks more, a
//! breach of the contract, when told to).

use wasm_connect_sdk::{Config, Error, Result, info};

use crate::{Call, Mode, Settings, keys, misbehave, probe};

/// The shared connector state; each plugin wraps it with its name and definition.
#[derive(Debug, Default)]
pub struct ChaosConnector {
    config: Config,
    settings: Option<Settings>,
    failures_left: i64,
    /// Task configs returned beyond `max_tasks`.
    extra: u32,
    /// A probe's outcome at `connector-start`, passed on to the tasks.
    probe_result: Option<String>,
}

impl ChaosConnector {
    /// Starts with `config`; `data_call` is `poll` or `put`.
    pub fn start(&mut self, config: Config, data_call: &str) -> Result<()> {
        let settings = Settings::parse(&config, data_call)?;
        self.failures_left = config.get_i64(keys::TASK_CONFIGS_FAILURES)?.unwrap_or(0);
        self.extra =
            u32::try_from(config.get_i32(keys::TASK_CONFIGS_EXTRA)?.unwrap_or(0)).unwrap_or(0);
        if settings.at(Call::ConnectorStart) {
            misbehave(settings.mode);
            self.probe_result = probe(&settings);
        }
        self.settings = Some(settings);
        self.config = config;
        Ok(())
    }

    /// One config per task, up to `max_tasks` (plus `chaos.task.configs.extra`).
    pub fn task_configs(&mut self, max_tasks: u32) -> Result<Vec<Config>> {
        let settings =
            self.settings.as_ref().ok_or_else(|| Error::fatal("task_configs before start"))?;
        let mut padding = None;
        if settings.at(Call::TaskConfigs) {
            misbehave(settings.mode);
            if let Some(result) = probe(settings) {
                self.probe_result = Some(result);
            }
            if settings.mode == Mode::Huge {
                padding = Some("x".repeat(settings.huge_bytes));
            }
        }
        if self.failures_left > 0 {
            self.failures_left -= 1;
            info!("Chaos: task_configs fails, {} failures left", self.failures_left);
            return Err(Error::retriable(format!(
                "chaos: task_configs told to fail ({} more times)",
                self.failures_left
            )));
        }
        Ok((0..max_tasks.saturating_add(self.extra))
            .map(|i| {
                let mut task = self.config.clone();
                task.set(keys::TASK_INDEX, i.to_string());
                if let Some(result) = &self.probe_result {
                    task.set(keys::PROBE_RESULT, result.clone());
                }
                if let Some(padding) = &padding {
                    task.set(keys::PADDING, padding.clone());
                }
                task
            })
            .collect())
    }

    /// Fails a task's start if `chaos.fail.tasks` names its index.
    pub fn check_task(config: &Config) -> Result<()> {
        let index = config.get_or(keys::TASK_INDEX, "").trim();
        if !index.is_empty() && config.get_list(keys::FAIL_TASKS).iter().any(|t| t == index) {
            return Err(Error::fatal(format!("chaos: task {index} told to fail")));
        }
        Ok(())
    }
}
