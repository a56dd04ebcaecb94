//! Tests of the data-topic API of the embedded backend: appends with positions, headers
//! and timestamps, partition choice, reads of ranges, group offsets across a reopen, and
//! the migration of a version-1 file.

use tempfile::TempDir;
use wasm_connect_batch::Header;

use super::data_record::{DataRecord, Position};
use super::{EmbeddedBackend, ReadLimits};
use crate::model::{TopicPartition, TopicPartitionOffset};
use crate::store::{LogBackend, StoreError, TopicSpec};

fn open(dir: &TempDir) -> EmbeddedBackend {
    EmbeddedBackend::open(dir.path().join("store.db")).unwrap()
}

fn data(topic: &str, key: Option<&str>, value: Option<&str>) -> DataRecord {
    DataRecord {
        topic: topic.into(),
        key: key.map(|k| k.as_bytes().to_vec()),
        value: value.map(|v| v.as_bytes().to_vec()),
        ..Default::default()
    }
}

fn at(topic: &str, partition: i32, offset: i64) -> TopicPartitionOffset {
    TopicPartitionOffset { topic: topic.into(), partition, offset }
}

#[tokio::test]
async fn appends_return_positions_and_read_back_whole() {
    let dir = tempfile::tempdir().unwrap();
    let backend = open(&dir);
    let mut first = data("t", Some("k"), None);
    first.timestamp_ms = Some(42);
    first.headers = vec![Header { key: "h".into(), value: Some(b"v".to_vec()) }];
    let positions =
        backend.append_data(vec![first.clone(), data("t", None, Some("x"))]).await.unwrap();
    // A missing topic is created with one partition.
    assert_eq!(
        positions,
        [Position { partition: 0, offset: 0 }, Position { partition: 0, offset: 1 }]
    );
    let reader = backend.data_reader().await.unwrap();
    let entries = reader.read(vec![at("t", 0, 0)], 10).await.unwrap();
    assert_eq!(entries.len(), 2);
    assert_eq!((entries[0].timestamp_ms, &entries[0].headers), (42, &first.headers));
    assert_eq!((entries[0].key.as_deref(), entries[0].value.as_deref()), (Some(&b"k"[..]), None));
    assert!(entries[1].timestamp_ms > 1_600_000_000_000, "stamped at append");
    assert!(entries[1].headers.is_empty() && entries[1].key.is_none());
    assert_eq!(reader.read(vec![at("t", 0, 1)], 10).await.unwrap()[0].offset, 1);
    assert!(reader.read(vec![at("missing", 0, 0)], 10).await.unwrap().is_empty());
}

#[tokio::test]
async fn a_read_stops_at_its_byte_limits_but_returns_a_first_record_of_any_size() {
    let dir = tempfile::tempdir().unwrap();
    let backend = open(&dir);
    assert!(backend.create_data_topic("b", 2, Default::default()).await.unwrap());
    // Partition 0: one record of 1,000 bytes, then nine of 100 (key "k" and a value).
    let mut records =
        vec![DataRecord { partition: Some(0), ..data("b", Some("k"), Some(&"x".repeat(999))) }];
    for _ in 0..9 {
        records
            .push(DataRecord { partition: Some(0), ..data("b", Some("k"), Some(&"y".repeat(99))) });
    }
    for _ in 0..10 {
        records
            .push(DataRecord { partition: Some(1), ..data("b", Some("k"), Some(&"z".repeat(99))) });
    }
    backend.append_data(records).await.unwrap();
    let reader = backend.data_reader().await.unwrap();
    let from = || vec![at("b", 0, 0), at("b", 1, 0)];
    let read = |limits| {
        let reader = reader.clone();
        async move {
            let read = reader.read_checked(from(), limits).await.unwrap();
            let per = |p| read.entries.iter().filter(|e| e.partition == p).count();
            (per(0), per(1), read.bytes)
        }
    };
    let limits = |bytes, partition_bytes| ReadLimits { records: 100, bytes, partition_bytes };
    // Under the record bound only.
    assert_eq!(read(ReadLimits::records(100)).await, (10, 10, 2900));
    // The first record is larger than either bound: it comes alone from its partition.
    assert_eq!(read(limits(10_000, 500)).await, (1, 5, 1500));
    // At most 1,000 (then 1,100) bytes from each partition, 1,500 (then 1,600) in all.
    assert_eq!(read(limits(1500, 1000)).await, (1, 5, 1500));
    assert_eq!(read(limits(1600, 1100)).await, (2, 5, 1600));
    // A record that does not fit ends the partition; the next partition still gets read.
    assert_eq!(read(limits(10_000, 1050)).await, (1, 10, 2000));
}

#[tokio::test]
async fn partitions_are_explicit_keyed_or_sticky() {
    let dir = tempfile::tempdir().unwrap();
    let backend = open(&dir);
    assert!(backend.create_data_topic("p", 3, Default::default()).await.unwrap());
    assert!(
        !backend.create_data_topic("p", 5, Default::default()).await.unwrap(),
        "exists already"
    );
    let mut explicit = data("p", Some("k"), Some("v"));
    explicit.partition = Some(2);
    assert_eq!(backend.append_data(vec![explicit.clone()]).await.unwrap()[0].partition, 2);

    explicit.partition = Some(3);
    let err = backend.append_data(vec![explicit]).await.unwrap_err();
    assert!(matches!(err, StoreError::Topic(_)), "{err:?}");
    assert!(err.to_string().contains("no partition 3"), "{err}");

    // Keyless: one partition per append, the next append the next partition.
    let mut seen = Vec::new();
    for _ in 0..3 {
        let batch = vec![data("p", None, Some("a")), data("p", None, Some("b"))];
        let positions = backend.append_data(batch).await.unwrap();
        assert_eq!(positions[0].partition, positions[1].partition);
        seen.push(positions[0].partition);
    }
    seen.sort();
    assert_eq!(seen, [0, 1, 2]);
    let topics = backend.list_topics().await.unwrap();
    assert_eq!(
        topics.iter().map(|t| (t.name.as_str(), t.partitions)).collect::<Vec<_>>(),
        [("p", 3)]
    );
}

#[tokio::test]
async fn group_offsets_survive_a_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let backend = open(&dir);
    backend.create_data_topic("a", 2, Default::default()).await.unwrap();
    backend.commit_group_offsets("g", vec![at("a", 1, 7), at("a", 0, 3)]).await.unwrap();
    backend.commit_group_offsets("g", vec![at("a", 0, 5)]).await.unwrap();
    backend.commit_group_offsets("other", vec![at("a", 0, 1)]).await.unwrap();
    let err = backend.commit_group_offsets("g", vec![at("nope", 0, 1)]).await.unwrap_err();
    assert!(err.to_string().contains("'nope' does not exist"), "{err}");
    drop(backend);

    let backend = open(&dir);
    assert_eq!(backend.group_offsets("g").await.unwrap(), [at("a", 0, 5), at("a", 1, 7)]);
    let only = vec![TopicPartition { topic: "a".into(), partition: 0 }];
    backend.delete_group_offsets("g", Some(only)).await.unwrap();
    assert_eq!(backend.group_offsets("g").await.unwrap(), [at("a", 1, 7)]);
    backend.delete_group_offsets("g", None).await.unwrap();
    assert!(backend.group_offsets("g").await.unwrap().is_empty());
    assert_eq!(backend.group_offsets("other").await.unwrap(), [at("a", 0, 1)]);
}

/// The version-1 schema, as the first embedded backend wrote it.
const V1_SCHEMA: &str = "
CREATE TABLE topics (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE,
    partitions INTEGER NOT NULL, compacted INTEGER NOT NULL);
CREATE TABLE partitions (topic_id INTEGER NOT NULL REFERENCES topics (id),
    partition_no INTEGER NOT NULL, next_offset INTEGER NOT NULL,
    PRIMARY KEY (topic_id, partition_no));
CREATE TABLE records (topic_id INTEGER NOT NULL REFERENCES topics (id),
    partition_no INTEGER NOT NULL, record_offset INTEGER NOT NULL, key BLOB, value BLOB,
    timestamp_ms INTEGER NOT NULL, PRIMARY KEY (topic_id, partition_no, record_offset));
CREATE INDEX records_by_key ON records (topic_id, partition_no, key, record_offset);
INSERT INTO topics VALUES (1, 'configs', 1, 1);
INSERT INTO partitions VALUES (1, 0, 1);
INSERT INTO records VALUES (1, 0, 0, CAST('k' AS BLOB), CAST('v' AS BLOB), 5);
PRAGMA user_version = 1;
";

#[tokio::test]
async fn a_version_1_file_is_migrated_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("store.db");
    rusqlite::Connection::open(&path).unwrap().execute_batch(V1_SCHEMA).unwrap();

    let backend = EmbeddedBackend::open(&path).unwrap();
    let version: i64 = rusqlite::Connection::open(&path)
        .unwrap()
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .unwrap();
    assert_eq!(version, 3);
    // The old record reads back, through both APIs, and new ones follow it.
    let topic = backend.topic(&TopicSpec::new("configs", 1, true)).await.unwrap();
    let entries = topic.reader().await.unwrap().read_to_end().await.unwrap();
    assert_eq!((entries[0].key.as_deref(), entries[0].offset), (Some(&b"k"[..]), 0));
    let mut record = data("configs", Some("k2"), Some("v2"));
    record.headers = vec![Header { key: "h".into(), value: None }];
    let positions = backend.append_data(vec![record.clone()]).await.unwrap();
    assert_eq!(positions, [Position { partition: 0, offset: 1 }]);
    let read = backend.data_reader().await.unwrap().read(vec![at("configs", 0, 0)], 10).await;
    let read = read.unwrap();
    assert_eq!((read[0].timestamp_ms, read[0].headers.len()), (5, 0));
    assert_eq!(read[1].headers, record.headers);
    backend.commit_group_offsets("g", vec![at("configs", 0, 2)]).await.unwrap();
    drop((topic, backend));

    // Opening again changes nothing; a newer file is refused.
    EmbeddedBackend::open(&path).unwrap();
    rusqlite::Connection::open(&path).unwrap().pragma_update(None, "user_version", 4).unwrap();
    let err = EmbeddedBackend::open(&path).unwrap_err();
    assert!(err.to_string().contains("schema version 4 is newer than this worker's 3"), "{err}");
}

#[tokio::test]
async fn appends_wake_data_change_receivers() {
    let dir = tempfile::tempdir().unwrap();
    let backend = open(&dir);
    let mut changes = backend.data_changes();
    backend.append_data(vec![data("w", None, Some("1"))]).await.unwrap();
    assert!(changes.has_changed().unwrap());
    let seen = changes.borrow_and_update().clone();
    assert_eq!((seen.appended("w"), seen.appended("other"), seen.topics_created()), (1, 0, 1));
    backend.create_data_topic("w2", 2, Default::default()).await.unwrap();
    assert_eq!(changes.borrow_and_update().topics_created(), 2);
}
