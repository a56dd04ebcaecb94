//! The configuration of `FileStreamSource`: its keys, their definition, and
//! [`Settings`], the parsed values a task runs with.
//!
//! This module owns key names, defaults and the plugin's own validation rules; it does no
//! I/O.

use wasm_connect_sdk::{
    Config, ConfigDef, ConfigKey, ConfigProblem, Grant, Importance, NonEmptyString, Range, Result,
    serde_json::Value, serde_json::json,
};

/// The file to read.
pub const FILE: &str = "file";
/// The topic to write to.
pub const TOPIC: &str = "topic";
/// The most records one poll returns.
pub const BATCH_SIZE: &str = "batch.size";
/// Kafka Connect's default `batch.size`.
pub const DEFAULT_BATCH_SIZE: i32 = 2000;

/// The keys of the connector, in Kafka Connect's order.
pub fn definition() -> ConfigDef {
    ConfigDef::new()
        .define(
            ConfigKey::string(FILE)
                .required()
                .ensure(NonEmptyString)
                .importance(Importance::High)
                .grant(Grant::ReadFile)
                .doc(
                    "Path of the file to read; a relative path is relative to the worker's \
                     working directory. The worker grants read access to its \
                     directory.",
                ),
        )
        .define(
            ConfigKey::string(TOPIC)
                .required()
                .ensure(NonEmptyString)
                .importance(Importance::High)
                .doc("The topic to publish data to."),
        )
        .define(
            ConfigKey::int(BATCH_SIZE)
                .default_value(DEFAULT_BATCH_SIZE)
                .ensure(Range::at_least(1))
                .importance(Importance::Low)
                .doc("The maximum number of records the source task can read from the file each time it is polled."),
        )
}

/// The plugin's own checks, beyond the definition's (types, required keys, validators).
pub fn validate(config: &Config) -> Vec<ConfigProblem> {
    let mut problems = Vec::new();
    if config.get(TOPIC).is_some_and(|t| t.contains(',')) {
        problems.push(ConfigProblem::new(
            TOPIC,
            "'topic' in FileStreamSourceConnector configuration requires definition of a single topic",
        ));
    }
    problems
}

/// What a task runs with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// The file to read.
    pub file: String,
    /// The topic to write to.
    pub topic: String,
    /// The most records one poll returns.
    pub batch_size: usize,
}

impl Settings {
    /// Parses and checks a task config.
    pub fn parse(config: &Config) -> Result<Self> {
        let batch_size = config.get_i32(BATCH_SIZE)?.unwrap_or(DEFAULT_BATCH_SIZE);
        Ok(Self {
            file: config.require(FILE)?.trim().to_owned(),
            topic: config.require(TOPIC)?.trim().to_owned(),
            batch_size: usize::try_from(batch_size.max(1)).unwrap_or(1),
        })
    }

    /// The source partition of every record: the file name, as Kafka Connect writes it.
    pub fn source_partition(&self) -> Value {
        json!({ "filename": self.file })
    }
}
