//! Backing stores: the config log, the status store and the offsets store, as Kafka
//! Connect keeps them, over one keyed-log abstraction ([`LogTopic`]) with a Kafka backend
//! ([`KafkaBackend`]), an embedded SQLite backend ([`EmbeddedBackend`]) and an in-memory
//! backend for tests ([`MemoryBackend`]).
//!
//! The herder is the only user of the config and status stores; source tasks use the
//! offsets store. This module knows nothing of the runtime, the herder or REST.

mod config_record;
mod config_state;
mod embedded;
mod error;
mod kafka;
mod log;
mod memory;
mod offsets;
mod partitioner;
mod requirements;
mod status;

#[cfg(test)]
mod conformance;

pub use config_record::{ConfigRecord, Properties, RecordError};
pub use config_state::{ConfigEvent, ConfigState};
pub use embedded::{
    DataChanges, DataEntry, DataReader, DataRecord, EmbeddedBackend, Position, TopicInfo,
};
pub use error::StoreError;
pub use kafka::KafkaBackend;
pub use log::{LogBackend, LogEntry, LogReader, LogRecord, LogTopic, TopicOrigin, TopicSpec};
pub use memory::MemoryBackend;
pub use offsets::OffsetStore;
pub use status::{ConnectorStatuses, RetryInfo, Status, StatusStore};
