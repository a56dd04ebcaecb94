//! [`EmbeddedTopic`]: the handle on one embedded topic; what its handles and readers share
//! lives in `topic_state.rs`.
//!
//! It hands SQL to `writer.rs` and `reader.rs`; it holds no connection itself.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;

use super::database::Database;
use super::reader::EmbeddedReader;
use super::topic_state::TopicState;
use super::writer::append;
use crate::store::{LogReader, LogRecord, LogTopic, StoreError};

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
