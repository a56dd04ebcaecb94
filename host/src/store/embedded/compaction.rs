//! Compaction of an embedded topic, as Kafka's log cleaner does it: every record whose key
//! has a newer record in the same partition is removed; the newest record of each key stays,
//! tombstones included, and so do the offsets of the records that stay.
//!
//! Both forms resolve superseding records through the partial `records_by_compacted_key`
//! index (only records of compacted topics, `compacted = 1`, are in it). [`compact`] is one
//! `DELETE` per topic, for the small internal topics when they are opened; [`compact_window`]
//! handles a bounded window of one partition of a data topic, so the background cleaner
//! holds the writer only briefly. Neither touches keyless records, which compaction has no
//! meaning for.

use rusqlite::{OptionalExtension, Transaction, params};

/// Removes the superseded records of topic `topic_id`; returns how many were removed.
pub(super) fn compact(tx: &Transaction<'_>, topic_id: i64) -> rusqlite::Result<usize> {
    tx.execute(
        "DELETE FROM records AS old \
         WHERE old.topic_id = ?1 AND old.key IS NOT NULL AND old.compacted = 1 AND EXISTS ( \
             SELECT 1 FROM records AS newer \
             WHERE newer.topic_id = old.topic_id AND newer.partition_no = old.partition_no \
               AND newer.compacted = 1 AND newer.key = old.key \
               AND newer.record_offset > old.record_offset)",
        params![topic_id],
    )
}

/// What one window of [`compact_window`] did.
#[derive(Debug, Default)]
pub(super) struct Window {
    /// Records removed.
    pub(super) removed: usize,
    /// Their payload bytes (keys, values, headers).
    pub(super) bytes: i64,
    /// Where the next window starts; `None` when this one reached the partition's end.
    pub(super) next: Option<i64>,
}

/// Removes the superseded records among the `rows` records of a partition from offset
/// `from` on, and keeps `partitions.bytes` in step.
pub(super) fn compact_window(
    tx: &Transaction<'_>,
    topic_id: i64,
    partition: i32,
    from: i64,
    rows: i64,
) -> rusqlite::Result<Window> {
    let next: Option<i64> = tx
        .prepare_cached(
            "SELECT record_offset FROM records \
             WHERE topic_id = ?1 AND partition_no = ?2 AND record_offset >= ?3 \
             ORDER BY record_offset LIMIT 1 OFFSET ?4",
        )?
        .query_row(params![topic_id, partition, from, rows], |row| row.get(0))
        .optional()?;
    let mut delete = tx.prepare_cached(
        "DELETE FROM records AS old \
         WHERE old.topic_id = ?1 AND old.partition_no = ?2 AND old.record_offset >= ?3 \
           AND old.record_offset < ?4 AND old.key IS NOT NULL AND old.compacted = 1 \
           AND EXISTS ( \
             SELECT 1 FROM records AS newer \
             WHERE newer.topic_id = old.topic_id AND newer.partition_no = old.partition_no \
               AND newer.compacted = 1 AND newer.key = old.key \
               AND newer.record_offset > old.record_offset) \
         RETURNING coalesce(length(key), 0) + coalesce(length(value), 0) \
             + coalesce(length(headers), 0)",
    )?;
    let sizes = delete
        .query_map(params![topic_id, partition, from, next.unwrap_or(i64::MAX)], |row| {
            row.get::<_, i64>(0)
        })?;
    let mut window = Window { next, ..Window::default() };
    for size in sizes {
        window.removed += 1;
        window.bytes += size?;
    }
    if window.removed > 0 {
        tx.prepare_cached(
            "UPDATE partitions SET bytes = max(bytes - ?3, 0) \
             WHERE topic_id = ?1 AND partition_no = ?2",
        )?
        .execute(params![topic_id, partition, window.bytes])?;
    }
    Ok(window)
}
