//! [`EmbeddedReader`]: reads one embedded topic through its own connection, so readers never
//! wait for the writer (WAL) or for each other.
//!
//! It learns of new records two ways: this process's writes bump the topic's `watch`
//! channel, and another process's writes (the same file, another backend) are found by
//! re-reading periodically (every [`FOREIGN_WRITE_CHECK`] by default). It must not write.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use async_trait::async_trait;
use rusqlite::{Connection, params};
use tokio::sync::watch;
use tokio::time::Instant;

use super::database::Database;
use super::topic_state::TopicState;
use super::writer::TopicRow;
use crate::store::{LogEntry, LogReader, StoreError};

/// How often a waiting `poll` re-reads to find records written by another process, which
/// cannot wake it. Each check is one indexed query per partition.
pub(super) const FOREIGN_WRITE_CHECK: Duration = Duration::from_millis(250);

/// Reads one embedded topic from the start.
pub(super) struct EmbeddedReader {
    db: Arc<Database>,
    /// The topic; holding it keeps `appended`'s sender alive.
    topic: Arc<TopicState>,
    /// This reader's connection; the mutex only lets blocking tasks borrow it.
    conn: Arc<Mutex<Connection>>,
    /// Next offset to read, per partition.
    positions: Vec<i64>,
    /// Bumped by this process's writes to the topic.
    appended: watch::Receiver<u64>,
    /// How often a waiting `poll` re-reads for another process's writes.
    foreign_write_check: Duration,
}

impl EmbeddedReader {
    /// A reader of `topic` at the start of every partition, with its own connection.
    pub(super) async fn open(
        db: Arc<Database>,
        topic: Arc<TopicState>,
        foreign_write_check: Duration,
    ) -> Result<Self, StoreError> {
        let appended = topic.appended.subscribe();
        let conn = Arc::new(Mutex::new(db.run(|db| db.connect()).await?));
        let positions = vec![0; topic.row.partitions as usize];
        Ok(Self { db, topic, conn, positions, appended, foreign_write_check })
    }

    /// Reads everything past the positions and advances them. Cancel-safe: the positions
    /// only move once the records are in hand.
    async fn read(&mut self) -> Result<Vec<LogEntry>, StoreError> {
        let conn = self.conn.clone();
        let (topic, positions) = (self.topic.clone(), self.positions.clone());
        let entries = self
            .db
            .run(move |db| {
                let mut conn = conn.lock().unwrap_or_else(PoisonError::into_inner);
                read_from(&mut conn, topic.row, &positions)
                    .map_err(|e| db.sql_error(&format!("cannot read topic '{}'", topic.name), &e))
            })
            .await?;
        for entry in &entries {
            self.positions[entry.partition as usize] = entry.offset + 1;
        }
        Ok(entries)
    }
}

#[async_trait]
impl LogReader for EmbeddedReader {
    async fn read_to_end(&mut self) -> Result<Vec<LogEntry>, StoreError> {
        self.appended.borrow_and_update();
        self.read().await
    }

    async fn poll(&mut self, timeout: Duration) -> Result<Vec<LogEntry>, StoreError> {
        let deadline = Instant::now() + timeout;
        loop {
            self.appended.borrow_and_update();
            let entries = self.read().await?;
            let now = Instant::now();
            if !entries.is_empty() || now >= deadline {
                return Ok(entries);
            }
            let wake = deadline.min(now + self.foreign_write_check);
            // Woken early by a write of this process; an error cannot happen while this
            // reader holds the topic, and would only mean re-reading sooner.
            let _ = tokio::time::timeout_at(wake, self.appended.changed()).await;
        }
    }
}

/// Every record of `topic` at or past `positions`, in offset order per partition, from one
/// snapshot of the database.
fn read_from(
    conn: &mut Connection,
    topic: TopicRow,
    positions: &[i64],
) -> rusqlite::Result<Vec<LogEntry>> {
    let tx = conn.transaction()?;
    let mut entries = Vec::new();
    {
        let mut select = tx.prepare_cached(
            "SELECT record_offset, key, value FROM records \
             WHERE topic_id = ?1 AND partition_no = ?2 AND record_offset >= ?3 \
             ORDER BY record_offset",
        )?;
        for (partition, position) in positions.iter().enumerate() {
            let partition = partition as i32;
            let rows = select.query_map(params![topic.id, partition, position], |row| {
                Ok(LogEntry {
                    partition,
                    offset: row.get(0)?,
                    key: row.get(1)?,
                    value: row.get(2)?,
                })
            })?;
            for entry in rows {
                entries.push(entry?);
            }
        }
    }
    tx.commit()?;
    Ok(entries)
}
