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
    /// The stored size of `entries` ([`ReadLimits`] counts it).
    pub bytes: usize,
}

/// How much one read may return: at most `records` records, and, past the first record
/// (returned whatever its size), at most `bytes` bytes in all and `partition_bytes` from
/// any one partition. A record's size is its key, value and stored headers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadLimits {
    /// Most records.
    pub records: usize,
    /// Most bytes in all.
    pub bytes: usize,
    /// Most bytes from one partition.
    pub partition_bytes: usize,
}

impl ReadLimits {
    /// At most `records` records, of any size.
    pub fn records(records: usize) -> Self {
        Self { records, bytes: usize::MAX, partition_bytes: usize::MAX }
    }
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
        Ok(self.read_partitions(from, ReadLimits::records(max_records), false).await?.entries)
    }

    /// [`Self::read`] within `limits`, except that a position below its partition's log
    /// start offset is not read but reported in [`DataRead::out_of_range`].
    pub async fn read_checked(
        &self,
        from: Vec<TopicPartitionOffset>,
        limits: ReadLimits,
    ) -> Result<DataRead, StoreError> {
        self.read_partitions(from, limits, true).await
    }

    async fn read_partitions(
        &self,
        from: Vec<TopicPartitionOffset>,
        limits: ReadLimits,
        check: bool,
    ) -> Result<DataRead, StoreError> {
        if from.is_empty() || limits.records == 0 {
            return Ok(DataRead::default());
        }
        let conn = self.conn.clone();
        self.db
            .run(move |db| {
                let mut conn = conn.lock().unwrap_or_else(PoisonError::into_inner);
                read_partitions(&mut conn, &from, limits, check).map_err(|e| match e {
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

/// The records of `from` within `limits`, in one read transaction; with `check`, positions
/// below their log start are reported instead of read.
fn read_partitions(
    conn: &mut Connection,
    from: &[TopicPartitionOffset],
    limits: ReadLimits,
    check: bool,
) -> Result<DataRead, ReadError> {
    let tx = conn.transaction()?;
    let mut entries: Vec<DataEntry> = Vec::new();
    let mut out_of_range = Vec::new();
    let mut bytes = 0usize;
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
            let left = limits.records - entries.len();
            if left == 0 || bytes >= limits.bytes {
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
            let mut partition_bytes = 0usize;
            while let Some(row) = rows.next()? {
                let size = stored_size(row)?;
                let fits = partition_bytes.saturating_add(size) <= limits.partition_bytes
                    && bytes.saturating_add(size) <= limits.bytes;
                if !fits && !entries.is_empty() {
                    break;
                }
                partition_bytes += size;
                bytes += size;
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
    Ok(DataRead { entries, out_of_range, bytes })
}

/// The bytes of a `records` row's key, value and headers (columns 2, 3, 4).
fn stored_size(row: &rusqlite::Row<'_>) -> rusqlite::Result<usize> {
    let mut size = 0;
    for column in 2..=4 {
        size += match row.get_ref(column)? {
            rusqlite::types::ValueRef::Blob(b) | rusqlite::types::ValueRef::Text(b) => b.len(),
            _ => 0,
        };
    }
    Ok(size)
}
