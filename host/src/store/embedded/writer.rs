//! What the writer connection does: create a topic, or check an existing one against its
//! spec (partition count and compaction are remembered in the `topics` table), and append
//! records. One transaction per call.
//!
//! Records of a compacted topic are flagged (`compacted = 1`) for the key index.
//! Reading is `reader.rs`'s business; removing records is `compaction.rs`'s.

use std::time::{SystemTime, UNIX_EPOCH};

use rusqlite::{Connection, OptionalExtension, Transaction, TransactionBehavior, params};

use super::compaction::compact;
use super::database::Database;
use crate::store::partitioner::partition_for_key;
use crate::store::requirements::{check_cleanup_policy, check_partitions, local_partitions};
use crate::store::{LogRecord, StoreError, TopicSpec};

/// A topic as the database remembers it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct TopicRow {
    /// Row id, the `topic_id` of its records.
    pub(super) id: i64,
    /// Partition count, fixed when the topic was created.
    pub(super) partitions: i32,
    /// Whether the topic is compacted when opened.
    pub(super) compacted: bool,
}

/// Creates `spec`'s topic, or checks the existing one (and compacts it when it is a
/// compacted topic), in one transaction.
pub(super) fn open_topic(
    db: &Database,
    conn: &mut Connection,
    spec: &TopicSpec,
) -> Result<TopicRow, StoreError> {
    let failed = |e: rusqlite::Error| db.error(&format!("cannot open topic '{}'", spec.name), e);
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(failed)?;
    let existing = find_topic(&tx, &spec.name).map_err(failed)?;
    let topic = match existing {
        Some(topic) => {
            check_partitions(spec, topic.partitions)?;
            check_cleanup_policy(spec, if topic.compacted { "compact" } else { "delete" })?;
            topic
        }
        None => {
            let partitions = local_partitions(spec)?;
            let topic =
                insert_topic(&tx, &spec.name, partitions, spec.compacted).map_err(failed)?;
            tracing::info!(
                topic = %spec.name, partitions, compacted = spec.compacted,
                file = %db.path().display(), "Created an embedded topic"
            );
            topic
        }
    };
    if topic.compacted {
        let removed = compact(&tx, topic.id).map_err(failed)?;
        if removed > 0 {
            tracing::info!(
                topic = %spec.name, removed, file = %db.path().display(),
                "Compacted an embedded topic"
            );
        }
    }
    tx.commit().map_err(failed)?;
    Ok(topic)
}

/// Looks up topic `name`.
pub(super) fn find_topic(conn: &Connection, name: &str) -> rusqlite::Result<Option<TopicRow>> {
    conn.prepare_cached("SELECT id, partitions, compacted FROM topics WHERE name = ?1")?
        .query_row([name], |row| {
            Ok(TopicRow { id: row.get(0)?, partitions: row.get(1)?, compacted: row.get(2)? })
        })
        .optional()
}

/// Inserts topic `name` with `partitions` partitions (at least 1), each at offset 0.
pub(super) fn insert_topic(
    tx: &Transaction<'_>,
    name: &str,
    partitions: i32,
    compacted: bool,
) -> rusqlite::Result<TopicRow> {
    tx.execute(
        "INSERT INTO topics (name, partitions, compacted) VALUES (?1, ?2, ?3)",
        params![name, partitions, compacted],
    )?;
    let id = tx.last_insert_rowid();
    let mut insert = tx.prepare_cached(
        "INSERT INTO partitions (topic_id, partition_no, next_offset) VALUES (?1, ?2, 0)",
    )?;
    for partition in 0..partitions {
        insert.execute(params![id, partition])?;
    }
    Ok(TopicRow { id, partitions, compacted })
}

/// Appends `records` to `topic` in one transaction: each goes to its key's partition at the
/// partition's next offset. Durable (`synchronous=FULL`) once this returns `Ok`.
pub(super) fn append(
    conn: &mut Connection,
    topic: TopicRow,
    records: &[LogRecord],
) -> rusqlite::Result<()> {
    let timestamp_ms = now_ms();
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    {
        let mut read_next = tx.prepare_cached(
            "SELECT next_offset FROM partitions WHERE topic_id = ?1 AND partition_no = ?2",
        )?;
        let mut insert = tx.prepare_cached(
            "INSERT INTO records (topic_id, partition_no, record_offset, key, value, \
             timestamp_ms, compacted) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )?;
        // Next offset of each partition this batch touches, read once per partition.
        let mut next: Vec<Option<i64>> = vec![None; topic.partitions as usize];
        for record in records {
            let partition = partition_for_key(&record.key, topic.partitions);
            let slot = &mut next[partition as usize];
            let offset = match *slot {
                Some(offset) => offset,
                None => read_next.query_row(params![topic.id, partition], |row| row.get(0))?,
            };
            insert.execute(params![
                topic.id,
                partition,
                offset,
                record.key,
                record.value,
                timestamp_ms,
                topic.compacted.then_some(1)
            ])?;
            *slot = Some(offset + 1);
        }
        let mut write_next = tx.prepare_cached(
            "UPDATE partitions SET next_offset = ?3 WHERE topic_id = ?1 AND partition_no = ?2",
        )?;
        for (partition, offset) in next.iter().enumerate() {
            if let Some(offset) = offset {
                write_next.execute(params![topic.id, partition as i32, offset])?;
            }
        }
    }
    tx.commit()
}

/// Milliseconds since the epoch, the timestamp of records written without one.
pub(super) fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |now| i64::try_from(now.as_millis()).unwrap_or(i64::MAX))
}
