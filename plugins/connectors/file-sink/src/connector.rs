//! [`FileStreamSink`]: the connector half. It hands the same config to every task, as
//! Kafka Connect's `FileStreamSinkConnector` does; it writes nothing itself.

use wasm_connect_sdk::{Config, ConfigDef, Connector, Result};

use crate::config;

/// The `FileStreamSink` connector.
#[derive(Default)]
pub struct FileStreamSink {
    config: Config,
}

impl Connector for FileStreamSink {
    fn name(&self) -> &str {
        "org.apache.kafka.connect.file.FileStreamSinkConnector"
    }

    fn version(&self) -> &str {
        env!("CARGO_PKG_VERSION")
    }

    fn config_definition(&self) -> ConfigDef {
        config::definition()
    }

    fn start(&mut self, config: Config) -> Result<()> {
        config.require(config::FILE)?;
        self.config = config;
        Ok(())
    }

    fn task_configs(&mut self, max_tasks: u32) -> Result<Vec<Config>> {
        Ok(vec![self.config.clone(); max_tasks as usize])
    }

    fn stop(&mut self) {}
}
