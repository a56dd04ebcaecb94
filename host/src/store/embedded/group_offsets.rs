//! The SQL of consumer groups' committed offsets (`group_offsets`): commit, read, delete.
//! Rows name topics by id; these functions speak topic names.
//!
//! Group membership is not here: the in-process coordinator of `worker/topics/embedded`
//! owns it. This module only keeps what must survive a restart.

use rusqlite::{Connection, TransactionBehavior, params};

use super::writer::find_topic;
use crate::model::{TopicPartition, TopicPartitionOffset};

/// Why a commit failed.
#[derive(Debug, thiserror::Error)]
pub(super) enum CommitError {
    /// The topic does not exist.
    #[error("topic '{topic}' does not exist")]
    NoTopic {
        /// Topic.
        topic: String,
    },
    /// The topic has no such partition.
    #[error("topic '{topic}' has no partition {partition} (it has {partitions})")]
    NoPartition {
        /// Topic.
        topic: String,
        /// The partition asked for.
        partition: i32,
        /// The topic's partition count.
        partitions: i32,
    },
    /// SQLite failed.
    #[error(transparent)]
    Sql(#[from] rusqlite::Error),
}

/// Sets the committed offsets of `group` to `offsets` (each the next offset to consume),
/// in one transaction: all or none.
pub(super) fn commit(
    conn: &mut Connection,
    group: &str,
    offsets: &[TopicPartitionOffset],
) -> Result<(), CommitError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    {
        let mut upsert = tx.prepare_cached(
            "INSERT INTO group_offsets (group_id, topic_id, partition_no, next_offset) \
             VALUES (?1, ?2, ?3, ?4) ON CONFLICT (group_id, topic_id, partition_no) \
             DO UPDATE SET next_offset = excluded.next_offset",
        )?;
        for offset in offsets {
            let Some(topic) = find_topic(&tx, &offset.topic)? else {
                return Err(CommitError::NoTopic { topic: offset.topic.clone() });
            };
            if !(0..topic.partitions).contains(&offset.partition) {
                return Err(CommitError::NoPartition {
                    topic: offset.topic.clone(),
                    partition: offset.partition,
                    partitions: topic.partitions,
                });
            }
            upsert.execute(params![group, topic.id, offset.partition, offset.offset])?;
        }
    }
    tx.commit()?;
    Ok(())
}

/// Every committed offset of `group`, sorted by topic and partition.
pub(super) fn fetch(conn: &Connection, group: &str) -> rusqlite::Result<Vec<TopicPartitionOffset>> {
    let mut select = conn.prepare_cached(
        "SELECT t.name, g.partition_no, g.next_offset FROM group_offsets AS g \
         JOIN topics AS t ON t.id = g.topic_id WHERE g.group_id = ?1 \
         ORDER BY t.name, g.partition_no",
    )?;
    let rows = select.query_map([group], |row| {
        Ok(TopicPartitionOffset { topic: row.get(0)?, partition: row.get(1)?, offset: row.get(2)? })
    })?;
    rows.collect()
}

/// Deletes the committed offsets of `group` for `partitions`, or all of them for `None`.
pub(super) fn delete(
    conn: &mut Connection,
    group: &str,
    partitions: Option<&[TopicPartition]>,
) -> rusqlite::Result<()> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    match partitions {
        None => {
            tx.execute("DELETE FROM group_offsets WHERE group_id = ?1", [group])?;
        }
        Some(partitions) => {
            let mut delete = tx.prepare_cached(
                "DELETE FROM group_offsets WHERE group_id = ?1 AND partition_no = ?3 \
                 AND topic_id = (SELECT id FROM topics WHERE name = ?2)",
            )?;
            for tp in partitions {
                delete.execute(params![group, tp.topic, tp.partition])?;
            }
        }
    }
    tx.commit()
}
