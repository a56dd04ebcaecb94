//! [`ConvertError`]: why a converter could not be built from its config, or could not
//! convert one key or value.
//!
//! Messages follow Kafka Connect's (`ConfigException`, `DataException`) where Kafka has
//! one for the same failure, so that users can search for them. This module owns the
//! wording only; the converters decide when each error applies.

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use super::Kind;
use super::classes::CLASSES;

/// What a Schema Registry converter must ask its registry before it can convert some data
/// (an id for a new schema, the schema of an id it has not seen): opaque to everyone but
/// that converter, which [`resolve`](super::Converter::resolve)s it.
#[derive(Clone)]
pub struct Unresolved {
    /// The converter's own description of the lookup.
    pub(super) need: Arc<dyn Any + Send + Sync>,
    /// The lookup in words.
    pub(super) what: String,
}

impl fmt::Debug for Unresolved {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.what)
    }
}

impl PartialEq for Unresolved {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.need, &other.need)
    }
}

impl Eq for Unresolved {}

/// A converter config problem, or a key or value a converter cannot convert.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConvertError {
    /// The `key.converter` / `value.converter` value names no converter this worker has.
    #[error(
        "Invalid value {class} for configuration {key}: Class {class} could not be found. \
         Available converters are: {}",
        CLASSES.join(", ")
    )]
    UnknownClass {
        /// The config key (`key.converter` or `value.converter`).
        key: String,
        /// The value given.
        class: String,
    },
    /// A converter setting has a value the converter cannot take.
    #[error("Invalid value {value} for configuration {key}: {expected}")]
    InvalidSetting {
        /// The full config key, e.g. `value.converter.schemas.enable`.
        key: String,
        /// The value given.
        value: String,
        /// What the key takes.
        expected: String,
    },
    /// Data a Schema Registry converter can convert once it has asked its registry: the
    /// caller [`resolve`](super::Converter::resolve)s it and converts again.
    #[error("the schema registry must be asked for {0:?} first")]
    Unresolved(Unresolved),
    /// A Schema Registry converter could not get what it needs from its registry, or the
    /// registry refused it (an incompatible schema, an unknown id). `retriable`: the
    /// registry could not be reached, so trying again later may succeed.
    #[error("{message}")]
    Registry {
        /// Confluent's wording, with the registry's answer.
        message: String,
        /// Whether the registry was unavailable.
        retriable: bool,
    },
    /// Topic bytes that a Schema Registry converter cannot read as the Confluent wire
    /// format (`wire.rs`): why.
    #[error("The bytes are not in the schema registry's wire format: {0}")]
    NotFramed(String),
    /// Topic bytes that `JsonConverter` cannot parse as JSON.
    #[error("Converting byte[] to Kafka Connect data failed due to serialization error: {0}")]
    NotJson(String),
    /// JSON that is not the envelope `JsonConverter` with `schemas.enable` requires.
    #[error(
        "JsonConverter with schemas.enable requires \"schema\" and \"payload\" fields and may \
         not contain additional fields. If you are trying to deserialize plain JSON data, set \
         schemas.enable=false in your converter configuration."
    )]
    NotEnvelope,
    /// An envelope whose schema or payload Kafka Connect rejects, e.g. `Unknown schema
    /// type: text` or `Invalid null value for required STRING field`.
    #[error("{0}")]
    InvalidData(String),
    /// Data from the plugin that is not what its kind says (a `json` value that is not
    /// JSON, a `string` value that is not UTF-8).
    #[error(
        "Converting Kafka Connect data to byte[] failed due to serialization error: the \
         plugin's {kind} data is malformed: {reason}"
    )]
    MalformedPluginData {
        /// The kind the plugin gave.
        kind: Kind,
        /// What is wrong with it.
        reason: String,
    },
    /// Plugin data with a Connect schema type the converter cannot write.
    #[error("Invalid schema type for {converter}: {schema_type}")]
    SchemaType {
        /// The converter's simple class name.
        converter: &'static str,
        /// The schema type, upper case as Kafka Connect prints it (`STRING`).
        schema_type: String,
    },
    /// Plugin data of a kind the converter cannot write.
    #[error("{converter} is not compatible with objects of type {kind}")]
    Incompatible {
        /// The converter's simple class name.
        converter: &'static str,
        /// The kind the plugin gave.
        kind: Kind,
    },
}

impl ConvertError {
    /// The config key a config problem is about; `None` for data errors.
    pub fn config_key(&self) -> Option<&str> {
        match self {
            Self::UnknownClass { key, .. } | Self::InvalidSetting { key, .. } => Some(key),
            _ => None,
        }
    }

    /// Whether converting again later may succeed (a registry that could not be reached).
    pub fn is_retriable(&self) -> bool {
        matches!(self, Self::Registry { retriable: true, .. })
    }

    /// A data error with Kafka Connect's message.
    pub(super) fn data(message: impl Into<String>) -> Self {
        Self::InvalidData(message.into())
    }

    /// Plugin data of `kind` that is malformed for `reason`.
    pub(super) fn malformed(kind: Kind, reason: impl ToString) -> Self {
        Self::MalformedPluginData { kind, reason: reason.to_string() }
    }
}
