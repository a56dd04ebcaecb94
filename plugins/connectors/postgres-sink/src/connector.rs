//! [`JdbcSinkConnector`]: the connector half. It checks the config and hands the same
//! config to every task, as Confluent's `JdbcSinkConnector` does; it connects nowhere.

use wasm_connect_sdk::{Config, ConfigDef, ConfigProblem, Connector, Result};

use crate::config::{self, Settings};

/// The sink connector.
#[derive(Default)]
pub struct JdbcSinkConnector {
    config: Config,
}

impl Connector for JdbcSinkConnector {
    fn name(&self) -> &str {
        "io.confluent.connect.jdbc.JdbcSinkConnector"
    }

    fn version(&self) -> &str {
        env!("CARGO_PKG_VERSION")
    }

    fn config_definition(&self) -> ConfigDef {
        config::definition()
    }

    fn validate(&self, config: &Config) -> Vec<ConfigProblem> {
        let mut problems: Vec<ConfigProblem> =
            postgres_wire::url_problem(config).into_iter().collect();
        if config.get(config::CONNECTION_URL).is_some()
            && let Err(e) = Settings::parse(config)
        {
            problems.push(ConfigProblem::new(config::PK_MODE, e.message().to_owned()));
        }
        problems
    }

    fn start(&mut self, config: Config) -> Result<()> {
        Settings::parse(&config)?;
        self.config = config;
        Ok(())
    }

    fn task_configs(&mut self, max_tasks: u32) -> Result<Vec<Config>> {
        // The back-off needs the clock, which only a value in the task config grants.
        let mut task = self.config.clone();
        if task.get(config::RETRY_BACKOFF_MS).is_none_or(|v| v.trim().is_empty()) {
            task.set(config::RETRY_BACKOFF_MS, "3000");
        }
        Ok(vec![task; max_tasks as usize])
    }

    fn stop(&mut self) {}
}
