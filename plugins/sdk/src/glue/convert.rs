//! Conversions between the generated WIT types and the SDK's own types. Pure functions,
//! no state, no I/O.

use crate::bindings::source::wasm_connect::connector::types as wit;
use crate::{
    Config, ConfigKey, ConfigProblem, ConfigType, Error, Grant, Importance, RecordAck,
    RecordFailure, TopicPartition, TopicPartitionOffset,
};

pub(crate) fn error_to_wit(e: Error) -> wit::Error {
    match e {
        Error::Retriable(m) => wit::Error::Retriable(m),
        Error::Config(m) => wit::Error::Config(m),
        Error::Fatal(m) => wit::Error::Fatal(m),
    }
}

pub(crate) fn result_to_wit<T>(r: crate::Result<T>) -> Result<T, wit::Error> {
    r.map_err(error_to_wit)
}

pub(crate) fn config_from_wit(config: wit::Config) -> Config {
    Config::from(config)
}

pub(crate) fn config_to_wit(config: Config) -> wit::Config {
    config.into_pairs()
}

pub(crate) fn key_to_wit(k: ConfigKey) -> wit::ConfigKey {
    wit::ConfigKey {
        name: k.name,
        type_: match k.ty {
            ConfigType::Boolean => wit::ConfigType::Boolean,
            ConfigType::Int => wit::ConfigType::Int,
            ConfigType::Long => wit::ConfigType::Long,
            ConfigType::Double => wit::ConfigType::Double,
            ConfigType::String => wit::ConfigType::String,
            ConfigType::List => wit::ConfigType::List,
            ConfigType::Password => wit::ConfigType::Password,
        },
        default_value: k.default_value,
        importance: match k.importance {
            Importance::High => wit::Importance::High,
            Importance::Medium => wit::Importance::Medium,
            Importance::Low => wit::Importance::Low,
        },
        documentation: k.documentation,
        required: k.required,
        sensitive: k.sensitive,
        grant: k.grant.map(|g| match g {
            Grant::ReadFile => wit::Grant::ReadFile,
            Grant::WriteFile => wit::Grant::WriteFile,
            Grant::Connect => wit::Grant::Connect,
            Grant::Clock => wit::Grant::Clock,
        }),
    }
}

pub(crate) fn problem_to_wit(p: ConfigProblem) -> wit::ConfigProblem {
    wit::ConfigProblem { key: p.key, message: p.message }
}

pub(crate) fn partition_from_wit(tp: wit::TopicPartition) -> TopicPartition {
    TopicPartition { topic: tp.topic, partition: tp.partition }
}

pub(crate) fn offset_from_wit(o: wit::TopicPartitionOffset) -> TopicPartitionOffset {
    TopicPartitionOffset { topic: o.topic, partition: o.partition, offset: o.offset }
}

pub(crate) fn offset_to_wit(o: TopicPartitionOffset) -> wit::TopicPartitionOffset {
    wit::TopicPartitionOffset { topic: o.topic, partition: o.partition, offset: o.offset }
}

pub(crate) fn ack_from_wit(a: wit::RecordAck) -> RecordAck {
    RecordAck { sequence: a.sequence, partition: a.partition, offset: a.offset }
}

pub(crate) fn failure_to_wit(f: RecordFailure) -> wit::RecordFailure {
    wit::RecordFailure { index: f.index, reason: f.reason }
}

// The way back, for the native test harness only: it plays the worker's side.

#[cfg(any(test, doc, feature = "testing"))]
pub(crate) fn error_from_wit(e: wit::Error) -> Error {
    match e {
        wit::Error::Retriable(m) => Error::Retriable(m),
        wit::Error::Config(m) => Error::Config(m),
        wit::Error::Fatal(m) => Error::Fatal(m),
    }
}

#[cfg(any(test, doc, feature = "testing"))]
pub(crate) fn problem_from_wit(p: wit::ConfigProblem) -> ConfigProblem {
    ConfigProblem { key: p.key, message: p.message }
}

#[cfg(any(test, doc, feature = "testing"))]
pub(crate) fn partition_to_wit(tp: &TopicPartition) -> wit::TopicPartition {
    wit::TopicPartition { topic: tp.topic.clone(), partition: tp.partition }
}

#[cfg(any(test, doc, feature = "testing"))]
pub(crate) fn ack_to_wit(a: RecordAck) -> wit::RecordAck {
    wit::RecordAck { sequence: a.sequence, partition: a.partition, offset: a.offset }
}

#[cfg(any(test, doc, feature = "testing"))]
pub(crate) fn failure_from_wit(f: wit::RecordFailure) -> RecordFailure {
    RecordFailure { index: f.index, reason: f.reason }
}
