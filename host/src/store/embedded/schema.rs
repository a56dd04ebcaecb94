//! The tables of the embedded database file and their versions: creating them in a new
//! file, migrating an older file in place, refusing a file newer than this worker.
//!
//! Version 1 had `topics`, `partitions` and `records`; version 2 adds `records.headers` (see
//! `headers.rs` for its encoding) and `group_offsets`, the committed offsets of consumer
//! groups reading data topics. `worker_meta` (the file's cluster id) came later within
//! version 2: it is created when missing, and a worker that does not know it ignores it.
//! Version 3 adds retention: `topic_retention` (a row per data topic: its `retention.ms`,
//! `retention.bytes`, NULL following the worker's default, and its `cleanup.policy`),
//! `partitions.start_offset` (the log start offset, moved by deletion) and
//! `partitions.bytes` (the payload bytes of a data partition, what `retention.bytes`
//! bounds), and `records.compacted`, which limits the key index to compacted topics.
//! It must not hold the SQL of topics or records: only DDL.

use rusqlite::{Connection, TransactionBehavior};

/// Schema version written to `PRAGMA user_version`; a file with a newer one is refused.
pub(super) const SCHEMA_VERSION: i64 = 3;

/// The tables. `records` is keyed by position; `records_by_compacted_key` makes compaction
/// a range scan per key instead of a scan per record. It is partial: only records of
/// compacted topics (`records.compacted = 1`) are in it, so appends to other topics do not
/// pay for it. `key` is nullable so keyless records (data topics of standalone mode) fit;
/// `partitions.next_offset` survives deletion and compaction removing the last records of
/// a partition; `partitions.start_offset` is its log start offset. `group_offsets` holds, per consumer group and
/// partition, the next offset to consume; `worker_meta` holds the file's own facts (its
/// cluster id).
const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS topics (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    partitions INTEGER NOT NULL,
    compacted INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS partitions (
    topic_id INTEGER NOT NULL REFERENCES topics (id),
    partition_no INTEGER NOT NULL,
    next_offset INTEGER NOT NULL,
    start_offset INTEGER NOT NULL DEFAULT 0,
    bytes INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (topic_id, partition_no)
);
CREATE TABLE IF NOT EXISTS records (
    topic_id INTEGER NOT NULL REFERENCES topics (id),
    partition_no INTEGER NOT NULL,
    record_offset INTEGER NOT NULL,
    key BLOB,
    value BLOB,
    timestamp_ms INTEGER NOT NULL,
    headers BLOB,
    compacted INTEGER,
    PRIMARY KEY (topic_id, partition_no, record_offset)
);
CREATE INDEX IF NOT EXISTS records_by_compacted_key
    ON records (topic_id, partition_no, key, record_offset) WHERE compacted = 1;
CREATE TABLE IF NOT EXISTS topic_retention (
    topic_id INTEGER PRIMARY KEY REFERENCES topics (id),
    retention_ms INTEGER,
    retention_bytes INTEGER,
    cleanup_policy TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS group_offsets (
    group_id TEXT NOT NULL,
    topic_id INTEGER NOT NULL REFERENCES topics (id),
    partition_no INTEGER NOT NULL,
    next_offset INTEGER NOT NULL,
    PRIMARY KEY (group_id, topic_id, partition_no)
);
CREATE TABLE IF NOT EXISTS worker_meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
";

/// Version 2 → 3, before [`SCHEMA`] creates what is new. The full key index goes (the
/// partial one replaces it); records of compacted topics are flagged; every topic that is
/// not compacted is a data topic with `cleanup.policy=delete` and the worker's default
/// retention; each partition's log start and payload bytes are computed once.
const TO_VERSION_3: &str = "
DROP INDEX IF EXISTS records_by_key;
ALTER TABLE records ADD COLUMN compacted INTEGER;
ALTER TABLE partitions ADD COLUMN start_offset INTEGER NOT NULL DEFAULT 0;
ALTER TABLE partitions ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0;
UPDATE records SET compacted = 1
    WHERE key IS NOT NULL AND topic_id IN (SELECT id FROM topics WHERE compacted = 1);
CREATE TABLE topic_retention (
    topic_id INTEGER PRIMARY KEY REFERENCES topics (id),
    retention_ms INTEGER,
    retention_bytes INTEGER,
    cleanup_policy TEXT NOT NULL
);
INSERT INTO topic_retention (topic_id, cleanup_policy)
    SELECT id, 'delete' FROM topics WHERE compacted = 0;
UPDATE partitions SET
    start_offset = coalesce((SELECT min(r.record_offset) FROM records AS r
        WHERE r.topic_id = partitions.topic_id AND r.partition_no = partitions.partition_no),
        next_offset),
    bytes = (SELECT coalesce(sum(coalesce(length(r.key), 0) + coalesce(length(r.value), 0)
            + coalesce(length(r.headers), 0)), 0) FROM records AS r
        WHERE r.topic_id = partitions.topic_id AND r.partition_no = partitions.partition_no)
    WHERE topic_id IN (SELECT topic_id FROM topic_retention);
";

/// Why the schema could not be brought to [`SCHEMA_VERSION`].
#[derive(Debug, thiserror::Error)]
pub(super) enum SchemaError {
    /// The file was written by a newer worker.
    #[error("schema version {found} is newer than this worker's {SCHEMA_VERSION}")]
    Newer {
        /// The file's version.
        found: i64,
    },
    /// SQLite failed.
    #[error(transparent)]
    Sql(#[from] rusqlite::Error),
}

/// Creates the tables of a new file, or migrates an older file to [`SCHEMA_VERSION`], in
/// one transaction (SQLite's DDL is transactional: a failed migration leaves the file as
/// it was). Returns the version the file had.
pub(super) fn migrate(conn: &mut Connection) -> Result<i64, SchemaError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let found: i64 = tx.pragma_query_value(None, "user_version", |row| row.get(0))?;
    if found > SCHEMA_VERSION {
        return Err(SchemaError::Newer { found });
    }
    if found == 1 {
        // Version 1 → 2: `records` gains `headers`; `group_offsets` is created below.
        tx.execute_batch("ALTER TABLE records ADD COLUMN headers BLOB")?;
    }
    if (1..3).contains(&found) {
        tx.execute_batch(TO_VERSION_3)?;
    }
    tx.execute_batch(SCHEMA)?;
    tx.pragma_update(None, "user_version", SCHEMA_VERSION)?;
    tx.commit()?;
    Ok(found)
}
