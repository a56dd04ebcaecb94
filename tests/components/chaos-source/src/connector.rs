//! [`ChaosSourceConnector`]: the `ChaosSource` connector, the shared chaos connector plus
//! the source's own keys.

use chaos_common::{ChaosConnector, Settings};
use wasm_connect_sdk::{Config, ConfigDef, ConfigKey, Connector, ExactlyOnceSupport, Result};

/// The topic records go to.
pub const TOPIC: &str = "topic";
/// Records per poll in `ok` mode (also capped by `max-records`).
pub const BATCH_SIZE: &str = "batch.size";
/// Value size in bytes in `ok` mode.
pub const VALUE_SIZE: &str = "value.size";
/// Start from 0 after a restart instead of after the committed offset.
pub const IGNORE_OFFSETS: &str = "chaos.offsets.ignore";
/// Count per task: each task has its own source partition and keys its records
/// `<task>-<n>`, so that several tasks' sequences can be told apart on one topic.
pub const PER_TASK: &str = "chaos.partition.per.task";

/// The connector's answer to `exactly-once-support`: `supported`, `unsupported`, or
/// anything else for none (Kafka Connect's `null`). Read raw, not in the definition.
pub const EXACTLY_ONCE: &str = "chaos.exactly.once.support";
/// The connector's answer to `can-define-transaction-boundaries` (`true`; default
/// `false`). Read raw, not in the definition.
pub const BOUNDARIES: &str = "chaos.transaction.boundaries";

/// The transaction requests every `ok` poll makes when the task has a transaction
/// context: a list of `commit`, `abort`, `commit@i`, `abort@i`. Read raw.
pub const TRANSACTION_REQUESTS: &str = "chaos.transaction.requests";

/// The `ChaosSource` connector.
#[derive(Default)]
pub struct ChaosSourceConnector(ChaosConnector);

impl Connector for ChaosSourceConnector {
    fn name(&self) -> &str {
        "ChaosSource"
    }

    fn version(&self) -> &str {
        // `scripts/build-guests.sh` builds copies that report other versions (KIP-891 tests).
        option_env!("CHAOS_PLUGIN_VERSION").unwrap_or(env!("CARGO_PKG_VERSION"))
    }

    fn config_definition(&self) -> ConfigDef {
        let def = ConfigDef::new()
            .define(ConfigKey::string(TOPIC).default_value("chaos").doc("The topic to write to."))
            .define(ConfigKey::int(BATCH_SIZE).default_value(100).doc("Records per poll."))
            .define(ConfigKey::int(VALUE_SIZE).default_value(100).doc("Value size in bytes."))
            .define(ConfigKey::boolean(IGNORE_OFFSETS).default_value(false).doc(
                "Set to true to ignore committed offsets: a restarted task repeats its records.",
            ))
            .define(ConfigKey::boolean(PER_TASK).default_value(false).doc(
                "Set to true to count per task: a source partition per task, keys `<task>-<n>`.",
            ));
        Settings::define(def, "poll")
    }

    fn exactly_once_support(&self, config: &Config) -> Option<ExactlyOnceSupport> {
        match config.get(EXACTLY_ONCE).map(str::trim) {
            Some("supported") => Some(ExactlyOnceSupport::Supported),
            Some("unsupported") => Some(ExactlyOnceSupport::Unsupported),
            _ => None,
        }
    }

    fn can_define_transaction_boundaries(&self, config: &Config) -> bool {
        config.get(BOUNDARIES).is_some_and(|v| v.trim() == "true")
    }

    fn start(&mut self, config: Config) -> Result<()> {
        self.0.start(config, "poll")
    }

    fn task_configs(&mut self, max_tasks: u32) -> Result<Vec<Config>> {
        self.0.task_configs(max_tasks)
    }

    fn stop(&mut self) {}
}
