//! Backing stores, as Kafka Connect keeps them: the config topic's records and the state
//! they fold into ([`ConfigRecord`], [`ConfigState`]), the status store and the offsets
//! store, over one keyed-log abstraction ([`LogTopic`]) with a Kafka backend
//! ([`KafkaBackend`]), an embedded SQLite backend ([`EmbeddedBackend`], which also holds
//! standalone mode's data topics and their consumer groups) and an in-memory backend for
//! tests ([`MemoryBackend`]).
//!
//! The herder reads and writes the config topic (through its `config_log`) and the status
//! store; source tasks use the offsets store, and the herder reads and alters it (KIP-875);
//! the worker's embedded data topics use the embedded backend's data API. This module uses
//! only `model` and, for the Kafka clients' security settings, `config::security`: it knows
//! nothing of the runtime, the worker, the herder or REST.
//!
//! Layout: `log` (the [`LogTopic`] abstraction), `memory`, `embedded/` and `kafka/` (its
//! backends), `partitioner` (murmur2 for the local backends), `requirements` (what a topic
//! must satisfy to back a store), `config_record` and `config_state` (the config topic),
//! `status` (the status store), `offsets` (the offsets store), `connector_offset_store` (a
//! source connector's offsets: its own topic's store before the worker's), `offset_stores`
//! (the worker's offsets store and the connectors' own topics), `error`;
//! `conformance_tests` is the suite every backend passes in tests.

mod config_record;
mod config_state;
mod connector_offset_store;
mod embedded;
mod error;
mod kafka;
mod log;
mod memory;
mod offset_stores;
mod offsets;
mod partitioner;
mod requirements;
mod status;

#[cfg(test)]
mod conformance_tests;

pub use config_record::{
    ConfigRecord, MAX_CONFIG_RECORD_BYTES, RecordError, oversized_config_record,
};
pub use config_state::{ConfigEvent, ConfigState};
pub use connector_offset_store::ConnectorOffsetStore;
pub use embedded::{
    CleanReport, DataChanges, DataEntry, DataRead, DataReader, DataRecord, EmbeddedBackend,
    OutOfRange, Position, ReadLimits, TopicInfo,
};
pub use error::StoreError;
pub use kafka::KafkaBackend;
pub use log::{
    LogBackend, LogEntry, LogReader, LogRecord, LogTopic, TopicOrigin, TopicSpec, TransactionalLog,
};
pub use memory::MemoryBackend;
pub use offset_stores::OffsetStores;
pub use offsets::{OffsetStore, records as offset_records};
pub use status::{ConnectorStatuses, RetryInfo, Status, StatusStore, Unwritten};
