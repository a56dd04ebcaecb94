//! Conversions between the generated binding types and `crate::model`.
//!
//! Owns no state. Everything that crosses the sandbox boundary as a typed value goes
//! through here, so the rest of the runtime speaks domain types only.

use super::bindings::exactly_once::Support;
use super::bindings::types as wit;
use crate::model::{
    ConfigKey, ConfigProblem, ConfigType, ConnectorError, ConnectorSupport, Grant, Importance,
    RecordAck, RecordFailure, TopicPartition, TopicPartitionOffset,
};

impl From<Option<Support>> for ConnectorSupport {
    fn from(answer: Option<Support>) -> Self {
        match answer {
            Some(Support::Supported) => Self::Supported,
            Some(Support::Unsupported) => Self::Unsupported,
            None => Self::Unknown,
        }
    }
}

impl From<wit::Error> for ConnectorError {
    fn from(e: wit::Error) -> Self {
        match e {
            wit::Error::Retriable(m) => Self::Retriable(m),
            wit::Error::Config(m) => Self::Config(m),
            wit::Error::Fatal(m) => Self::Fatal(m),
        }
    }
}

impl From<wit::ConfigKey> for ConfigKey {
    fn from(k: wit::ConfigKey) -> Self {
        Self {
            name: k.name,
            ty: match k.type_ {
                wit::ConfigType::Boolean => ConfigType::Boolean,
                wit::ConfigType::Int => ConfigType::Int,
                wit::ConfigType::Long => ConfigType::Long,
                wit::ConfigType::Double => ConfigType::Double,
                wit::ConfigType::String => ConfigType::String,
                wit::ConfigType::List => ConfigType::List,
                wit::ConfigType::Password => ConfigType::Password,
            },
            default_value: k.default_value,
            importance: match k.importance {
                wit::Importance::High => Importance::High,
                wit::Importance::Medium => Importance::Medium,
                wit::Importance::Low => Importance::Low,
            },
            documentation: k.documentation,
            required: k.required,
            sensitive: k.sensitive,
            grant: k.grant.map(|g| match g {
                wit::Grant::ReadFile => Grant::ReadFile,
                wit::Grant::WriteFile => Grant::WriteFile,
                wit::Grant::Connect => Grant::Connect,
                wit::Grant::Clock => Grant::Clock,
            }),
        }
    }
}

impl From<wit::ConfigProblem> for ConfigProblem {
    fn from(p: wit::ConfigProblem) -> Self {
        Self { key: p.key, message: p.message }
    }
}

impl From<wit::RecordFailure> for RecordFailure {
    fn from(f: wit::RecordFailure) -> Self {
        Self { index: f.index, reason: f.reason }
    }
}

impl From<RecordAck> for wit::RecordAck {
    fn from(a: RecordAck) -> Self {
        Self { sequence: a.sequence, partition: a.partition, offset: a.offset }
    }
}

impl From<&TopicPartition> for wit::TopicPartition {
    fn from(tp: &TopicPartition) -> Self {
        Self { topic: tp.topic.clone(), partition: tp.partition }
    }
}

impl From<&TopicPartitionOffset> for wit::TopicPartitionOffset {
    fn from(t: &TopicPartitionOffset) -> Self {
        Self { topic: t.topic.clone(), partition: t.partition, offset: t.offset }
    }
}

impl From<wit::TopicPartitionOffset> for TopicPartitionOffset {
    fn from(t: wit::TopicPartitionOffset) -> Self {
        Self { topic: t.topic, partition: t.partition, offset: t.offset }
    }
}

impl From<ConnectorError> for wit::Error {
    fn from(e: ConnectorError) -> Self {
        match e {
            ConnectorError::Retriable(m) => Self::Retriable(m),
            ConnectorError::Config(m) => Self::Config(m),
            ConnectorError::Fatal(m) => Self::Fatal(m),
        }
    }
}
