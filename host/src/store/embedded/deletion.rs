//! Deletion by retention, as Kafka's `cleanup.policy=delete` does it: records leave a
//! partition from its start only (the log start offset moves up; no holes), while the
//! oldest record is older than `retention.ms` (by its timestamp) or the partition holds
//! more than `retention.bytes` of payload (keys, values, headers). Kafka deletes whole
//! segments; here the unit is the record, so the partition keeps at most `retention.bytes`.
//!
//! [`delete_prefix`] removes at most a bounded number of records per transaction, so the
//! background cleaner holds the writer only briefly. It knows nothing of when it runs.

use rusqlite::{Transaction, params};

/// What one call of [`delete_prefix`] did.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Deleted {
    /// Records deleted.
    pub(super) records: usize,
    /// Their payload bytes.
    pub(super) bytes: i64,
}

/// What bounds a partition: records older than `cutoff_ms`, or beyond `max_bytes`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Bounds {
    /// The oldest timestamp that stays, if time bounds the partition.
    pub(super) cutoff_ms: Option<i64>,
    /// The most payload bytes that stay, if size bounds the partition.
    pub(super) max_bytes: Option<i64>,
}

/// Deletes up to `limit` records from the start of a partition while `bounds` say so, and
/// moves its log start offset and byte count.
pub(super) fn delete_prefix(
    tx: &Transaction<'_>,
    topic_id: i64,
    partition: i32,
    bounds: Bounds,
    limit: i64,
) -> rusqlite::Result<Deleted> {
    let mut left: i64 = tx
        .prepare_cached("SELECT bytes FROM partitions WHERE topic_id = ?1 AND partition_no = ?2")?
        .query_row(params![topic_id, partition], |row| row.get(0))?;
    let mut select = tx.prepare_cached(
        "SELECT record_offset, timestamp_ms, coalesce(length(key), 0) \
             + coalesce(length(value), 0) + coalesce(length(headers), 0) \
         FROM records WHERE topic_id = ?1 AND partition_no = ?2 \
         ORDER BY record_offset LIMIT ?3",
    )?;
    let mut rows = select.query(params![topic_id, partition, limit])?;
    let mut deleted = Deleted::default();
    let mut end = None;
    while let Some(row) = rows.next()? {
        let (offset, timestamp, size): (i64, i64, i64) = (row.get(0)?, row.get(1)?, row.get(2)?);
        let expired = bounds.cutoff_ms.is_some_and(|cutoff| timestamp < cutoff);
        let too_big = bounds.max_bytes.is_some_and(|max| left > max);
        if !expired && !too_big {
            break;
        }
        left -= size;
        deleted.records += 1;
        deleted.bytes += size;
        end = Some(offset + 1);
    }
    drop(rows);
    let Some(end) = end else { return Ok(deleted) };
    tx.prepare_cached(
        "DELETE FROM records WHERE topic_id = ?1 AND partition_no = ?2 AND record_offset < ?3",
    )?
    .execute(params![topic_id, partition, end])?;
    tx.prepare_cached(
        "UPDATE partitions SET start_offset = max(start_offset, ?3), bytes = max(bytes - ?4, 0) \
         WHERE topic_id = ?1 AND partition_no = ?2",
    )?
    .execute(params![topic_id, partition, end, deleted.bytes])?;
    Ok(deleted)
}
