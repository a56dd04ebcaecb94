//! [`CdcConnector`]: the connector half of `io.debezium.connector.postgresql.PostgresConnector`.
//! It validates the config as Debezium does (its keys, defaults and cross-key problems),
//! and gives exactly one task config, as Debezium does, carrying `database.address`
//! (`hostname:port`, the key that grants the sandbox a socket to the database and nothing
//! else) and `poll.interval.ms` (the clock grant).
//!
//! It never connects to the database: the task does, and reports a server that is down
//! as retriable.

use wasm_connect_sdk::{Config, ConfigDef, ConfigProblem, Connector, ExactlyOnceSupport, Result};

use crate::config::{self, ADDRESS, HOSTNAME, POLL_INTERVAL_MS, PORT};
use crate::settings::Settings;

/// The source connector.
#[derive(Default)]
pub struct CdcConnector {
    config: Config,
}

impl Connector for CdcConnector {
    fn name(&self) -> &str {
        "io.debezium.connector.postgresql.PostgresConnector"
    }

    fn version(&self) -> &str {
        crate::source_info::DEBEZIUM_VERSION
    }

    fn config_definition(&self) -> ConfigDef {
        config::definition()
    }

    fn validate(&self, config: &Config) -> Vec<ConfigProblem> {
        config::problems(config)
    }

    /// Its offsets say exactly where a restart resumes, and a replayed transaction's
    /// delivered events are dropped: exactly once with the worker's transactions.
    fn exactly_once_support(&self, _config: &Config) -> Option<ExactlyOnceSupport> {
        Some(ExactlyOnceSupport::Supported)
    }

    fn start(&mut self, config: Config) -> Result<()> {
        Settings::parse(&config)?;
        self.config = config;
        Ok(())
    }

    fn task_configs(&mut self, _max_tasks: u32) -> Result<Vec<Config>> {
        let mut task = self.config.clone();
        let host = self.config.get(HOSTNAME).unwrap_or_default().trim().to_owned();
        let port = self.config.get(PORT).map(str::trim).filter(|p| !p.is_empty()).unwrap_or("5432");
        let host =
            if host.contains(':') && !host.starts_with('[') { format!("[{host}]") } else { host };
        task.set(ADDRESS, format!("{host}:{port}"));
        if task.get(POLL_INTERVAL_MS).is_none_or(|v| v.trim().is_empty()) {
            task.set(POLL_INTERVAL_MS, "500");
        }
        Ok(vec![task])
    }

    fn stop(&mut self) {}
}
