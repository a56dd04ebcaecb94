//! [`DataReader`]: reads data topics through its own connection (so, with WAL, it never
//! waits for the writer or for other readers), one partition range at a time, from one
//! snapshot of the database per call.
//!
//! A position below its partition's log start offset (records deleted by retention) is
//! reported as out of range by [`DataReader::read_checked`], for the consumer to reset as
//! its `auto.offset.reset` says; [`DataReader::read`] reads from the log start instead.
//!
//! It reads only what it is told to: positions and consumer groups belong to its caller.
//! It must not write.

use std::sync::{Arc, Mutex, PoisonError};

use rusqlite::{Connection, OptionalExtension, params};

use super::data_record::DataEntry;
use super::database::Database;
use super::headers::decode;
use crate::model::TopicPartitionOffset;
use crate::store::StoreError;

/// A position below its partition's log start offset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutOfRange {
    /// The position asked for.
    pub position: TopicPartitionOffset,
    /// The partition's log start offset (its first record, once retention deleted older).
    pub log_start: i64,
    /// The partition's log end offset (the next offset to be written).
    pub log_end: i64,
}

/// What [`DataReader::read_checked`] read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DataRead {
    /// Records, as [`DataReader::read`] returns them.
    pub entries: Vec<DataEntry>,
    /// Positions below their log start; these partitions were not read.
    pub out_of_range: Vec<OutOfRange>,
}

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
        Ok(self.read_partitions(from, max_records, false).await?.entries)
    }

    /// [`Self::read`], except that a position below its partition's log start offset is
    /// not read but reported in [`DataRead::out_of_range`].
    pub async fn read_checked(
        &self,
        from: Vec<TopicPartitionOffset>,
        max_records: usize,
    ) -> Result<DataRead, StoreError> {
        self.read_partitions(from, max_records, true).await
    }

    async fn read_partitions(
        &self,
        from: Vec<TopicPartitionOffset>,
        max_records: usize,
        check: bool,
    ) -> Result<DataRead, StoreError> {
        if from.is_empty() || max_records == 0 {
            return Ok(DataRead::default());
        }
        let conn = self.conn.clone();
        self.db
            .run(move |db| {
                let mut conn = conn.lock().unwrap_or_else(PoisonError::into_inner);
                read_partitions(&mut conn, &from, max_records, check).map_err(|e| match e {
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

/// The records of `from`, at most `max` of them, in one read transaction; with `check`,
/// positions below their log start are reported instead of read.
fn read_partitions(
    conn: &mut Connection,
    from: &[TopicPartitionOffset],
    max: usize,
    check: bool,
) -> Result<DataRead, ReadError> {
    let tx = conn.transaction()?;
    let mut entries = Vec::new();
    let mut out_of_range = Vec::new();
    {
        let mut bounds = tx.prepare_cached(
            "SELECT p.start_offset, p.next_offset FROM partitions AS p \
             JOIN topics AS t ON t.id = p.topic_id WHERE t.name = ?1 AND p.partition_no = ?2",
        )?;
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
            if check {
                let found = bounds
                    .query_row(params![position.topic, position.partition], |row| {
                        Ok((row.get::<_, i64>(0)?, row.get::<_, i64>(1)?))
                    })
                    .optional()?;
                if let Some((log_start, log_end)) = found
                    && position.offset < log_start
                {
                    out_of_range.push(OutOfRange {
                        position: position.clone(),
                        log_start,
                        log_end,
                    });
                    continue;
                }
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
    Ok(DataRead { entries, out_of_range })
}
