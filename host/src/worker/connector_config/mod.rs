//! A connector's config, typed: [`parse`] reads it once, with the plugin registry, when the
//! herder accepts it from the config topic (and when validation reads a submitted one);
//! the herder, the worker and the task supervisors read its fields instead of the string
//! map. The raw properties stay beside the fields, for the plugin's own keys and for REST
//! answers, which echo the config as written.
//!
//! Two kinds of failure, as in Kafka Connect, which accepts into its config topic what it
//! cannot run:
//! - no plugin serves `connector.class`: the config is [`Rejected`], and the connector
//!   instance fails at start with the registry's message;
//! - a bad task-level setting (a converter, the error policy, the transformation chain,
//!   topic creation): the field holds the problems, the connector runs and its tasks fail
//!   at start with the same trace as before; validation reports the same problems before
//!   a write.
//!
//! The sandbox (file grants, addresses, `wasm.*` limits) is the one reading not kept:
//! file paths resolve against the file system, so [`ConnectorConfig::sandbox`] computes
//! it at each start.
//!
//! This module parses and holds; it starts nothing and decides nothing.
//!
//! Layout: `config` ([`ConnectorConfig`]), `framework` ([`Framework`]: the keys read
//! without a plugin), `settings` ([`TaskSettings`]), `rejected` ([`Rejected`]), `parse`
//! (the whole reading), `tests`.

mod config;
mod framework;
mod parse;
mod rejected;
mod settings;
#[cfg(test)]
mod tests;

pub use config::{ConnectorConfig, Parsed, Problems};
pub use framework::Framework;
pub use parse::{CONNECTOR_PLUGIN_VERSION, parse};
pub use rejected::{Rejected, RejectedReason, no_connector_type};
pub use settings::TaskSettings;
