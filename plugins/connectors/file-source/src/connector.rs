//! [`FileStreamSource`]: the connector half. It checks the config and hands it, whole, to
//! exactly one task (one file cannot be split). It reads nothing itself.

use wasm_connect_sdk::{Config, ConfigDef, ConfigProblem, Connector, ExactlyOnceSupport, Result};

use crate::config::{self, Settings};

/// The `FileStreamSource` connector.
#[derive(Default)]
pub struct FileStreamSource {
    config: Config,
}

impl Connector for FileStreamSource {
    fn name(&self) -> &str {
        "org.apache.kafka.connect.file.FileStreamSourceConnector"
    }

    fn version(&self) -> &str {
        env!("CARGO_PKG_VERSION")
    }

    fn config_definition(&self) -> ConfigDef {
        config::definition()
    }

    fn validate(&self, config: &Config) -> Vec<ConfigProblem> {
        config::validate(config)
    }

    /// As Kafka Connect's FileStreamSourceConnector: exactly-once when reading a file (its
    /// byte position is the offset, as long as the file is only appended to); without a
    /// file there is nothing to resume from.
    fn exactly_once_support(&self, config: &Config) -> Option<ExactlyOnceSupport> {
        let file = config.get(config::FILE).map(str::trim).unwrap_or_default();
        Some(if file.is_empty() {
            ExactlyOnceSupport::Unsupported
        } else {
            ExactlyOnceSupport::Supported
        })
    }

    fn start(&mut self, config: Config) -> Result<()> {
        Settings::parse(&config)?;
        self.config = config;
        Ok(())
    }

    fn task_configs(&mut self, _max_tasks: u32) -> Result<Vec<Config>> {
        Ok(vec![self.config.clone()])
    }

    fn stop(&mut self) {}
}
