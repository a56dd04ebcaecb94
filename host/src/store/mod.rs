//! Backing stores: the config log, the status store and the offsets store, as Kafka
//! Connect keeps them, over one keyed-log abstraction ([`LogTopic`]) with a Kafka backend
//! and an embedded SQLite backend.
//!
//! The herder is the only user of the config and status stores; source tasks use the
//! offsets store. This module knows nothing of the runtime, the herder or REST.

mod error;
mod log;

pub use error::StoreError;
pub use log::{LogBackend, LogEntry, LogReader, LogRecord, LogTopic, TopicSpec};
