//! [`HttpSink`]: the connector half. It checks the config and hands the same config to
//! every task; it sends nothing itself.

use wasm_connect_sdk::{Config, ConfigDef, Connector, Result};

use crate::config::{self, Settings};

/// The `HttpSink` connector.
#[derive(Default)]
pub struct HttpSink {
    config: Config,
}

impl Connector for HttpSink {
    fn name(&self) -> &str {
        "io.wasmconnect.http.HttpSinkConnector"
    }

    fn version(&self) -> &str {
        env!("CARGO_PKG_VERSION")
    }

    fn config_definition(&self) -> ConfigDef {
        config::definition()
    }

    fn start(&mut self, config: Config) -> Result<()> {
        Settings::parse(&config)?;
        self.config = config;
        Ok(())
    }

    fn task_configs(&mut self, max_tasks: u32) -> Result<Vec<Config>> {
        Ok(vec![self.config.clone(); max_tasks as usize])
    }

    fn stop(&mut self) {}
}
