//! [`Datagen`]: the connector half. It splits the record count over `tasks.max` tasks and
//! generates nothing itself.

use wasm_connect_sdk::{Config, ConfigDef, Connector, ExactlyOnceSupport, Result};

use crate::config::{self, Settings};

/// The `Datagen` connector.
#[derive(Default)]
pub struct Datagen {
    config: Config,
}

impl Connector for Datagen {
    fn name(&self) -> &str {
        "Datagen"
    }

    fn version(&self) -> &str {
        env!("CARGO_PKG_VERSION")
    }

    fn config_definition(&self) -> ConfigDef {
        config::definition()
    }

    /// Exactly-once with any config: a task's offset (its record number) says where
    /// to resume, and resuming regenerates the same records.
    fn exactly_once_support(&self, _config: &Config) -> Option<ExactlyOnceSupport> {
        Some(ExactlyOnceSupport::Supported)
    }

    fn start(&mut self, config: Config) -> Result<()> {
        Settings::parse(&config)?;
        self.config = config;
        Ok(())
    }

    fn task_configs(&mut self, max_tasks: u32) -> Result<Vec<Config>> {
        config::split(&self.config, max_tasks)
    }

    fn stop(&mut self) {}
}
