//! Backing stores: the config log, the status store and the offsets store, as Kafka
//! Connect keeps them, over one keyed-log abstraction ([`LogTopic`]) with a Kafka backend
//! and an embedded SQLite backend.
//!
//! The herder is the only user of the config and status stores; source tasks use the
//! offsets store. This module knows nothing of the runtime, the herder or REST.

mod config_record;
mod config_state;
mod error;
mod log;
mod offsets;
mod status;

pub use config_record::{ConfigRecord, Properties, RecordError};
pub use config_state::{ConfigEvent, ConfigState};
pub use error::StoreError;
pub use log::{LogBackend, LogEntry, LogReader, LogRecord, LogTopic, TopicSpec};
pub use offsets::OffsetStore;
pub use status::{Status, StatusStore};
