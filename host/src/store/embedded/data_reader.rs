//! [`DataReader`]: reads data topics through its own connection (so, with WAL, it never
//! waits for the writer or for other readers), one partition range at a time, from one
//! snapshot of the database per call.
//!
//! It reads only what it is told to: positions and consumer groups belong to its caller.
//! It must not write.

use std::sync::{Arc, Mutex, PoisonError};

use rusqlite::{Connection, params};

use super::data_record::DataEntry;
use super::database::Database;
use super::headers::decode;
use crate::model::TopicPartitionOffset;
use crate::store::StoreError;

/// A reader of data topics with its own connection. Cheap to keep; one per consumer.
#[derive(Clone, Debug)]
pub struct DataReader {
    pub(super) db: Arc<Database>,
    /// The connection; the mutex only lets blocking tasks borrow it.
    pub(super) conn: Arc<Mutex<Connection>>,
}

impl DataReader {
    /// Up to `max_records` records, taken from each of `from` (a topic-partition and the
    /// first offset to read) in turn, in offset order within each partition; a partition
    /// is read only once the ones before it are exhausted. A missing topic or partition
    /// reads as empty.
    pub async fn read(
        &self,
        from: Vec<TopicPartitionOffset>,
        max_records: usize,
    ) -> Result<Vec<DataEntry>, StoreError> {
        if from.is_empty() || max_records == 0 {
            return Ok(Vec::new());
        }
        let conn = self.conn.clone();
        self.db
            .run(move |db| {
                let mut conn = conn.lock().unwrap_or_else(PoisonError::into_inner);
                read_partitions(&mut conn, &from, max_records).map_err(|e| match e {
                    ReadError::Sql(e) => db.sql_error("cannot read data topics", &e),
                    // Stored bytes that do not decode: damaged, and so on every read.
                    damaged @ ReadError::Headers { .. } => StoreError::Unreadable(format!(
                        "{}: cannot read data topics: {damaged}",
                        db.path().display()
                    )),
                })
            })
            .await
    }
}

/// Why a read failed.
#[derive(Debug, thiserror::Error)]
enum ReadError {
    /// Stored headers cannot be decoded.
    #[error("record {offset} of '{topic}'-{partition} has damaged headers: {source}")]
    Headers { topic: String, partition: i32, offset: i64, source: super::headers::HeadersError },
    /// SQLite failed.
    #[error(transparent)]
    Sql(#[from] rusqlite::Error),
}

/// The records of `from`, at most `max` of them, in one read transaction.
fn read_partitions(
    conn: &mut Connection,
    from: &[TopicPartitionOffset],
    max: usize,
) -> Result<Vec<DataEntry>, ReadError> {
    let tx = conn.transaction()?;
    let mut entries = Vec::new();
    {
        let mut select = tx.prepare_cached(
            "SELECT record_offset, timestamp_ms, key, value, headers FROM records \
             WHERE topic_id = (SELECT id FROM topics WHERE name = ?1) \
               AND partition_no = ?2 AND record_offset >= ?3 \
             ORDER BY record_offset LIMIT ?4",
        )?;
        for position in from {
            let left = max - entries.len();
            if left == 0 {
                break;
            }
            let limit = i64::try_from(left).unwrap_or(i64::MAX);
            let mut rows = select.query(params![
                position.topic,
                position.partition,
                position.offset,
                limit
            ])?;
            while let Some(row) = rows.next()? {
                let offset: i64 = row.get(0)?;
                let headers: Option<Vec<u8>> = row.get(4)?;
                let headers = decode(headers.as_deref()).map_err(|source| ReadError::Headers {
                    topic: position.topic.clone(),
                    partition: position.partition,
                    offset,
                    source,
                })?;
                entries.push(DataEntry {
                    topic: position.topic.clone(),
                    partition: position.partition,
                    offset,
                    timestamp_ms: row.get(1)?,
                    key: row.get(2)?,
                    value: row.get(3)?,
                    headers,
                });
            }
        }
    }
    tx.commit()?;
    Ok(entries)
}
