//! Compaction of an embedded topic, as Kafka's log cleaner does it: every record whose key
//! has a newer record in the same partition is removed; the newest record of each key stays,
//! tombstones included, and so do the offsets of the records that stay.
//!
//! One `DELETE` per topic, resolved through the `records_by_key` index (no per-record round
//! trips). It never touches keyless records, which compaction has no meaning for.

use rusqlite::{Transaction, params};

/// Removes the superseded records of topic `topic_id`; returns how many were removed.
pub(super) fn compact(tx: &Transaction<'_>, topic_id: i64) -> rusqlite::Result<usize> {
    tx.execute(
        "DELETE FROM records AS old \
         WHERE old.topic_id = ?1 AND old.key IS NOT NULL AND EXISTS ( \
             SELECT 1 FROM records AS newer \
             WHERE newer.topic_id = old.topic_id AND newer.partition_no = old.partition_no \
               AND newer.key = old.key AND newer.record_offset > old.record_offset)",
        params![topic_id],
    )
}
