//! What the writer connection does for data topics: append records with explicit or
//! chosen partitions, headers and timestamps, returning where each landed; create a data
//! topic. One transaction per call.
//!
//! Partitions: an explicit partition must exist; a keyed record goes to its key's murmur2
//! partition; a keyless one goes to the topic's sticky partition, as Kafka's default
//! partitioner does (KIP-480): every keyless record of one append (one transaction) lands
//! in the same partition, and the next append moves to the next partition, round-robin.
//! A missing topic is created with one partition on first write, the embedded store's
//! stand-in for a broker's `auto.create.topics.enable`, with the worker's default
//! retention. A data topic's `topic_retention` row holds its own `retention.ms` and
//! `retention.bytes` (NULL: the worker's default, whatever it is when the cleaner runs)
//! and its `cleanup.policy`, fixed at creation; records of a compacted topic are flagged
//! for the key index. Each append adds its payload bytes to its partitions' count.
//!
//! It must not read records back (`data_reader.rs`) or know consumer groups.

use std::collections::HashMap;
use std::collections::hash_map::Entry;

use rusqlite::{Connection, Transaction, TransactionBehavior, params};

use super::data_record::{DataRecord, Position};
use super::headers::encode;
use super::writer::{TopicRow, find_topic, insert_topic, now_ms};
use crate::model::{CleanupPolicy, RetentionOverrides};
use crate::store::partitioner::partition_for_key;

/// Partition count of a data topic created by its first write.
pub(super) const AUTO_CREATED_PARTITIONS: i32 = 1;

/// Why an append failed.
#[derive(Debug, thiserror::Error)]
pub(super) enum AppendError {
    /// A record names a partition its topic does not have.
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

/// The next sticky partition of each topic (by row id) for keyless records.
#[derive(Debug, Default)]
pub(super) struct StickyPartitions {
    next: HashMap<i64, i32>,
}

impl StickyPartitions {
    /// The partition for the keyless records of one append to `topic`; the next append
    /// gets the following one.
    fn take(&mut self, topic: TopicRow) -> i32 {
        let next = self.next.entry(topic.id).or_insert(0);
        let partition = *next % topic.partitions;
        *next = (partition + 1) % topic.partitions;
        partition
    }
}

/// What one append knows of a topic it writes to.
struct Slot {
    row: TopicRow,
    /// Next offset of each partition the append touched, read once per partition.
    next: Vec<Option<i64>>,
    /// Payload bytes appended to each partition.
    bytes: Vec<i64>,
    /// The sticky partition of this append's keyless records, once one needed it.
    sticky: Option<i32>,
}

/// What an append did besides writing: the topics it wrote to and those it created.
#[derive(Debug, Default)]
pub(super) struct Appended {
    /// Where each record landed, in input order.
    pub(super) positions: Vec<Position>,
    /// Topics written to.
    pub(super) topics: Vec<String>,
    /// Topics created (a subset of `topics`).
    pub(super) created: Vec<String>,
}

/// Appends `records` in one transaction. Durable (`synchronous=FULL`) once this returns.
pub(super) fn append_data<'r>(
    conn: &mut Connection,
    sticky: &mut StickyPartitions,
    policy: CleanupPolicy,
    records: impl IntoIterator<Item = &'r DataRecord>,
) -> Result<Appended, AppendError> {
    let records = records.into_iter();
    let now = now_ms();
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let mut slots: HashMap<&str, Slot> = HashMap::new();
    let mut appended =
        Appended { positions: Vec::with_capacity(records.size_hint().0), ..Default::default() };
    {
        let mut read_next = tx.prepare_cached(
            "SELECT next_offset FROM partitions WHERE topic_id = ?1 AND partition_no = ?2",
        )?;
        let mut insert = tx.prepare_cached(
            "INSERT INTO records (topic_id, partition_no, record_offset, key, value, \
             timestamp_ms, headers, compacted) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        )?;
        for record in records {
            let slot = match slots.entry(record.topic.as_str()) {
                Entry::Occupied(slot) => slot.into_mut(),
                Entry::Vacant(vacant) => {
                    let row = match find_topic(&tx, &record.topic)? {
                        Some(row) => row,
                        None => {
                            appended.created.push(record.topic.clone());
                            let defaults = RetentionOverrides::default();
                            let partitions = AUTO_CREATED_PARTITIONS;
                            insert_data_topic(&tx, &record.topic, partitions, defaults, policy)?
                        }
                    };
                    appended.topics.push(record.topic.clone());
                    let next = vec![None; row.partitions as usize];
                    let bytes = vec![0; row.partitions as usize];
                    vacant.insert(Slot { row, next, bytes, sticky: None })
                }
            };
            let partition = match (record.partition, &record.key) {
                (Some(partition), _) => {
                    if !(0..slot.row.partitions).contains(&partition) {
                        return Err(AppendError::NoPartition {
                            topic: record.topic.clone(),
                            partition,
                            partitions: slot.row.partitions,
                        });
                    }
                    partition
                }
                (None, Some(key)) => partition_for_key(key, slot.row.partitions),
                (None, None) => *slot.sticky.get_or_insert_with(|| sticky.take(slot.row)),
            };
            let next = &mut slot.next[partition as usize];
            let offset = match *next {
                Some(offset) => offset,
                None => read_next.query_row(params![slot.row.id, partition], |row| row.get(0))?,
            };
            let headers = encode(&record.headers);
            insert.execute(params![
                slot.row.id,
                partition,
                offset,
                record.key,
                record.value,
                record.timestamp_ms.unwrap_or(now),
                headers,
                (slot.row.compacted && record.key.is_some()).then_some(1),
            ])?;
            *next = Some(offset + 1);
            slot.bytes[partition as usize] += payload(record, headers.as_deref());
            appended.positions.push(Position { partition, offset });
        }
        let mut write_next = tx.prepare_cached(
            "UPDATE partitions SET next_offset = ?3, bytes = bytes + ?4 \
             WHERE topic_id = ?1 AND partition_no = ?2",
        )?;
        for slot in slots.values() {
            for (partition, next) in slot.next.iter().enumerate() {
                if let Some(next) = next {
                    let bytes = slot.bytes[partition];
                    write_next.execute(params![slot.row.id, partition as i32, next, bytes])?;
                }
            }
        }
    }
    tx.commit()?;
    Ok(appended)
}

/// Creates data topic `name` with `partitions` partitions (at least 1) and the retention
/// `overrides` (`policy` when they set no `cleanup.policy`) unless it exists; returns
/// whether it created it.
pub(super) fn create_data_topic(
    conn: &mut Connection,
    name: &str,
    partitions: i32,
    overrides: RetentionOverrides,
    policy: CleanupPolicy,
) -> rusqlite::Result<bool> {
    let tx: Transaction<'_> = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    if find_topic(&tx, name)?.is_some() {
        return Ok(false);
    }
    insert_data_topic(&tx, name, partitions, overrides, policy)?;
    tx.commit()?;
    Ok(true)
}

/// Inserts data topic `name` and its retention row.
fn insert_data_topic(
    tx: &Transaction<'_>,
    name: &str,
    partitions: i32,
    overrides: RetentionOverrides,
    default_policy: CleanupPolicy,
) -> rusqlite::Result<TopicRow> {
    let policy = overrides.policy.unwrap_or(default_policy);
    let row = insert_topic(tx, name, partitions, policy.compact)?;
    tx.execute(
        "INSERT INTO topic_retention (topic_id, retention_ms, retention_bytes, cleanup_policy) \
         VALUES (?1, ?2, ?3, ?4)",
        params![row.id, overrides.ms, overrides.bytes, policy.to_string()],
    )?;
    Ok(row)
}

/// The payload bytes of `record` as `retention.bytes` counts them: key, value, headers.
fn payload(record: &DataRecord, headers: Option<&[u8]>) -> i64 {
    let len = |b: Option<&[u8]>| b.map_or(0, <[u8]>::len);
    i64::try_from(len(record.key.as_deref()) + len(record.value.as_deref()) + len(headers))
        .unwrap_or(i64::MAX)
}
