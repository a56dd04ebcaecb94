//! [`EmbeddedTopic`]: the handle on one embedded topic, and [`TopicState`], what every
//! handle and reader of that topic in this process shares (its row and the channel that
//! wakes readers after a write).
//!
//! It hands SQL to `writer.rs` and `reader.rs`; it holds no connection itself.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use tokio::sync::watch;

use super::database::Database;
use super::reader::EmbeddedReader;
use super::writer::{TopicRow, append};
use crate::store::{LogReader, LogRecord, LogTopic, StoreError};

/// What the handles and readers of one topic share within this process.
#[derive(Debug)]
pub(super) struct TopicState {
    /// Topic name.
    pub(super) name: String,
    /// The topic as the database remembers it.
    pub(super) row: TopicRow,
    /// Bumped after every committed write of this process, to wake its readers.
    pub(super) appended: watch::Sender<u64>,
}

impl TopicState {
    /// The state of topic `name`, stored as `row`.
    pub(super) fn new(name: String, row: TopicRow) -> Self {
        Self { name, row, appended: watch::channel(0).0 }
    }
}

/// A handle on one embedded topic.
pub(super) struct EmbeddedTopic {
    pub(super) db: Arc<Database>,
    pub(super) state: Arc<TopicState>,
    /// How often its readers' waiting `poll`s re-read for another process's writes.
    pub(super) foreign_write_check: Duration,
}

#[async_trait]
impl LogTopic for EmbeddedTopic {
    fn name(&self) -> &str {
        &self.state.name
    }

    async fn send(&self, records: Vec<LogRecord>) -> Result<(), StoreError> {
        if records.is_empty() {
            return Ok(());
        }
        let state = self.state.clone();
        self.db
            .run(move |db| {
                db.with_writer(|conn| {
                    append(conn, state.row, &records).map_err(|e| {
                        let doing = format!(
                            "cannot append {} records to topic '{}'",
                            records.len(),
                            state.name
                        );
                        db.error(&doing, e)
                    })
                })
            })
            .await?;
        self.state.appended.send_modify(|version| *version += 1);
        Ok(())
    }

    async fn reader(&self) -> Result<Box<dyn LogReader>, StoreError> {
        Ok(Box::new(
            EmbeddedReader::open(self.db.clone(), self.state.clone(), self.foreign_write_check)
                .await?,
        ))
    }
}
