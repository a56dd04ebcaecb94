//! The configuration of `FileStreamSink`: its keys and their definition.
//!
//! This module owns key names and documentation; it does no I/O.

use wasm_connect_sdk::{ConfigDef, ConfigKey, Grant, Importance, NonEmptyString};

/// The file to append to.
pub const FILE: &str = "file";
/// The topics to consume (a framework key, declared for documentation).
pub const TOPICS: &str = "topics";

/// The keys of the connector.
pub fn definition() -> ConfigDef {
    ConfigDef::new()
        .define(
            ConfigKey::string(FILE)
                .required()
                .ensure(NonEmptyString)
                .importance(Importance::High)
                .grant(Grant::WriteFile)
                .doc(
                    "Path of the file to append to; it is created if missing. A relative path \
                     is relative to the worker's working directory. The \
                     worker grants write access to its directory.",
                ),
        )
        .define(
            ConfigKey::list(TOPICS)
                .importance(Importance::High)
                .doc("The topics to consume, comma-separated."),
        )
}
