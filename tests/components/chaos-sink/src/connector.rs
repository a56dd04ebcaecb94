//! [`ChaosSinkConnector`]: the `ChaosSink` connector, the shared chaos connector plus the
//! sink's own keys.

use chaos_common::{ChaosConnector, Settings};
use wasm_connect_sdk::{Config, ConfigDef, ConfigKey, Connector, Result};

/// Records whose value contains these bytes fail.
pub const BAD_MARKER: &str = "chaos.bad.marker";
/// How far beyond the delivered offsets `pre_commit` answers (unsafe when not 0).
pub const PRE_COMMIT_AHEAD: &str = "chaos.pre.commit.ahead";
/// The topics to consume (a framework key, declared for documentation).
pub const TOPICS: &str = "topics";

/// The `ChaosSink` connector.
#[derive(Default)]
pub struct ChaosSinkConnector(ChaosConnector);

impl Connector for ChaosSinkConnector {
    fn name(&self) -> &str {
        "ChaosSink"
    }

    fn version(&self) -> &str {
        env!("CARGO_PKG_VERSION")
    }

    fn config_definition(&self) -> ConfigDef {
        let def = ConfigDef::new()
            .define(ConfigKey::list(TOPICS).doc("The topics to consume."))
            .define(
                ConfigKey::string(BAD_MARKER)
                    .default_value("BAD")
                    .doc("put fails every record whose value contains this text."),
            )
            .define(
                ConfigKey::long(PRE_COMMIT_AHEAD)
                    .default_value(0)
                    .doc("Offsets pre-commit returns beyond those delivered (unsafe when not 0)."),
            );
        Settings::define(def, "put")
    }

    fn start(&mut self, config: Config) -> Result<()> {
        self.0.start(config, "put")
    }

    fn task_configs(&mut self, max_tasks: u32) -> Result<Vec<Config>> {
        self.0.task_configs(max_tasks)
    }

    fn stop(&mut self) {}
}
