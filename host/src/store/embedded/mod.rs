//! [`EmbeddedBackend`]: log topics in one SQLite database file (rusqlite, bundled), for
//! standalone mode and single-worker setups. It owns that file; it must not know what the
//! records mean.
//!
//! Durability: WAL mode with `synchronous=FULL`; `send` commits one transaction for its
//! whole batch before it returns. Records live in one `records` table keyed by (topic,
//! partition, offset); each topic's partition count is remembered in `topics`, its next
//! offsets in `partitions`. Keys are partitioned with Kafka's murmur2, so partitions > 1
//! work as they do in Kafka. A compacted (internal) topic is compacted when it is opened.
//! Data topics have Kafka's retention (`retention.ms`, `retention.bytes`,
//! `cleanup.policy`), applied by a background cleaner in short transactions; the file is
//! made with incremental vacuum so the freed pages go back to the file system.
//!
//! Threads: rusqlite blocks, so every database call runs on tokio's blocking pool
//! (`spawn_blocking`), never on an async thread. Writes share one writer connection behind
//! a mutex (SQLite admits one writer at a time; this process's writers queue on the mutex
//! rather than on the file lock). Each reader has its own connection, so with WAL readers
//! never wait for the writer or for each other.
//!
//! Readers see this process's writes at once (a `watch` channel per topic wakes waiting
//! `poll`s) and another process's writes to the same file within a quarter of a second (a
//! waiting `poll` re-reads periodically).
//!
//! Data topics (standalone mode's source and sink records) live in the same tables,
//! through the methods of `data.rs`: appends with headers, timestamps and explicit
//! partitions that return positions, reads of partition ranges, and consumer groups'
//! committed offsets (`group_offsets`), which survive a restart. Group membership is not
//! this module's: `worker/topics/embedded` coordinates it in process.
//!
//! Layout: `database.rs` (the file, connections, errors), `schema.rs` (tables, versions,
//! migration), `vacuum.rs` (incremental vacuum), `cluster_id.rs` (the file's stable cluster
//! id), `writer.rs` (create or check a topic, append), `compaction.rs`, `deletion.rs`
//! (deleting by retention), `cleaner.rs` (the background pass, [`CleanReport`]), `topic_state.rs` (what the handles and readers of one
//! topic share), `topic.rs` (the [`LogTopic`] handle), `reader.rs` (the
//! [`LogReader`](super::LogReader)); for data topics `data.rs` (the backend's data API),
//! `data_record.rs` (its values), `data_writer.rs`, `data_reader.rs` ([`DataReader`]),
//! `headers.rs` (the headers column's encoding), `group_offsets.rs`, `changes.rs`
//! ([`DataChanges`]).

mod changes;
mod cleaner;
mod cluster_id;
mod compaction;
mod data;
mod data_reader;
mod data_record;
mod data_writer;
mod database;
mod deletion;
mod group_offsets;
mod headers;
mod reader;
mod schema;
mod topic;
mod topic_state;
mod vacuum;
mod writer;

#[cfg(test)]
mod data_tests;
#[cfg(test)]
mod retention_tests;
#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use async_trait::async_trait;
use tokio::sync::watch;

pub use self::changes::DataChanges;
pub use self::cleaner::CleanReport;
pub use self::data_reader::{DataRead, DataReader, OutOfRange, ReadLimits};
pub use self::data_record::{DataEntry, DataRecord, Position, TopicInfo};

use self::data_writer::StickyPartitions;
use self::database::Database;
use self::reader::FOREIGN_WRITE_CHECK;
use self::topic::EmbeddedTopic;
use self::topic_state::TopicState;
use self::writer::open_topic;
use super::{LogBackend, LogTopic, StoreError, TopicSpec};
use crate::model::Retention;

/// Log topics in one SQLite database file. Clones share the file and its connections.
#[derive(Clone, Debug)]
pub struct EmbeddedBackend {
    db: Arc<Database>,
    /// Topics opened through this backend, so all their handles wake the same readers.
    topics: Arc<Mutex<HashMap<String, Arc<TopicState>>>>,
    /// How often a waiting `poll` re-reads for another process's writes.
    foreign_write_check: Duration,
    /// The sticky partition of keyless data records, per topic.
    sticky: Arc<Mutex<StickyPartitions>>,
    /// Wakes data readers after this process's appends and topic creations.
    changes: Arc<watch::Sender<DataChanges>>,
    /// The worker's default retention of data topics (Kafka's defaults unless set).
    retention: Retention,
}

impl EmbeddedBackend {
    /// Opens the database file at `path`, creating it and its tables when missing. Blocks
    /// briefly on the disk: call it at startup (or from `spawn_blocking`).
    pub fn open(path: impl AsRef<Path>) -> Result<Self, StoreError> {
        Self::open_checking_every(path, FOREIGN_WRITE_CHECK)
    }

    /// [`Self::open`], with waiting `poll`s re-reading for another process's writes every
    /// `foreign_write_check`.
    pub(crate) fn open_checking_every(
        path: impl AsRef<Path>,
        foreign_write_check: Duration,
    ) -> Result<Self, StoreError> {
        let db = Database::open(path.as_ref())?;
        Ok(Self {
            db: Arc::new(db),
            topics: Arc::default(),
            foreign_write_check,
            sticky: Arc::default(),
            changes: Arc::new(watch::channel(DataChanges::default()).0),
            retention: Retention::default(),
        })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        self.db.path()
    }
}

#[async_trait]
impl LogBackend for EmbeddedBackend {
    async fn topic(&self, spec: &TopicSpec) -> Result<Arc<dyn LogTopic>, StoreError> {
        let opening = spec.clone();
        let row =
            self.db.run(move |db| db.with_writer(|conn| open_topic(db, conn, &opening))).await?;
        let state = {
            let mut topics = self.topics.lock().unwrap_or_else(PoisonError::into_inner);
            topics
                .entry(spec.name.clone())
                .or_insert_with(|| Arc::new(TopicState::new(spec.name.clone(), row)))
                .clone()
        };
        let foreign_write_check = self.foreign_write_check;
        Ok(Arc::new(EmbeddedTopic { db: self.db.clone(), state, foreign_write_check }))
    }

    async fn cluster_id(&self) -> Result<Option<String>, StoreError> {
        self.db.run(|db| db.with_writer(|conn| cluster_id::get_or_create(db, conn))).await.map(Some)
    }
}
