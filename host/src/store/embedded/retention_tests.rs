//! Tests of retention in the embedded store: deletion by time and by size from a
//! partition's start, the worker's default for topics that set nothing, compaction of data
//! topics, the key index kept to compacted topics, the file giving its pages back under
//! continuous writes, and producers writing while a pass runs.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use tempfile::TempDir;

use super::cleaner::BATCH_RECORDS;
use super::data_record::{DataRecord, Position};
use super::writer::now_ms;
use super::{EmbeddedBackend, ReadLimits};
use crate::model::{CleanupPolicy, Retention, RetentionOverrides, TopicPartitionOffset};
use crate::store::{LogBackend, LogRecord, TopicSpec};

const HOUR_MS: i64 = 3_600_000;

fn open(dir: &TempDir) -> EmbeddedBackend {
    EmbeddedBackend::open(dir.path().join("store.db")).unwrap()
}

fn record(topic: &str, key: Option<&str>, value: &[u8], timestamp_ms: i64) -> DataRecord {
    DataRecord {
        topic: topic.into(),
        key: key.map(|k| k.as_bytes().to_vec()),
        value: Some(value.to_vec()),
        timestamp_ms: Some(timestamp_ms),
        ..Default::default()
    }
}

fn at(topic: &str, offset: i64) -> TopicPartitionOffset {
    TopicPartitionOffset { topic: topic.into(), partition: 0, offset }
}

fn overrides(ms: Option<i64>, bytes: Option<i64>, policy: Option<&str>) -> RetentionOverrides {
    RetentionOverrides { ms, bytes, policy: policy.map(|p| CleanupPolicy::parse(p).unwrap()) }
}

/// Offsets of partition 0 of `topic`, from its start.
async fn offsets(backend: &EmbeddedBackend, topic: &str) -> Vec<i64> {
    let reader = backend.data_reader().await.unwrap();
    let entries = reader.read(vec![at(topic, 0)], usize::MAX).await.unwrap();
    entries.iter().map(|e| e.offset).collect()
}

fn pragma(path: &Path, name: &str) -> i64 {
    rusqlite::Connection::open(path).unwrap().pragma_query_value(None, name, |r| r.get(0)).unwrap()
}

#[tokio::test]
async fn retention_ms_deletes_old_records_from_the_start_and_keeps_new_ones() {
    let dir = tempfile::tempdir().unwrap();
    let backend = open(&dir);
    let hour = overrides(Some(HOUR_MS), None, None);
    assert!(backend.create_data_topic("t", 1, hour).await.unwrap());
    let now = now_ms();
    let mut batch: Vec<DataRecord> =
        (0..7).map(|i| record("t", None, b"old", now - 2 * HOUR_MS + i)).collect();
    // A new record between old ones stops deletion there: records leave from the start only.
    batch.push(record("t", None, b"new", now));
    batch.push(record("t", None, b"old", now - 2 * HOUR_MS));
    batch.push(record("t", None, b"new", now));
    backend.append_data(batch).await.unwrap();

    let report = backend.clean().await.unwrap();
    assert_eq!(report.deleted, 7);
    assert_eq!(offsets(&backend, "t").await, [7, 8, 9]);
    let read = backend
        .data_reader()
        .await
        .unwrap()
        .read_checked(vec![at("t", 2)], ReadLimits::records(10))
        .await;
    let read = read.unwrap();
    assert!(read.entries.is_empty());
    assert_eq!((read.out_of_range[0].log_start, read.out_of_range[0].log_end), (7, 10));
    // Nothing more is due: a second pass deletes nothing, and offsets go on.
    assert_eq!(backend.clean().await.unwrap().deleted, 0);
    let next = backend.append_data(vec![record("t", None, b"x", now)]).await.unwrap();
    assert_eq!(next[0].offset, 10);
}

#[tokio::test]
async fn retention_bytes_bounds_each_partition_oldest_first() {
    let dir = tempfile::tempdir().unwrap();
    let backend = open(&dir);
    // 1,000 bytes per partition; records of 100 bytes; unlimited time.
    let bounded = overrides(Some(-1), Some(1_000), None);
    backend.create_data_topic("b", 2, bounded).await.unwrap();
    let now = now_ms();
    let batch: Vec<DataRecord> = (0..30)
        .map(|i| DataRecord { partition: Some(i % 2), ..record("b", None, &[b'x'; 100], now) })
        .collect();
    backend.append_data(batch).await.unwrap();

    assert_eq!(backend.clean().await.unwrap().deleted, 10);
    assert_eq!(offsets(&backend, "b").await, (5..15).collect::<Vec<_>>());
    let reader = backend.data_reader().await.unwrap();
    let other = TopicPartitionOffset { partition: 1, ..at("b", 0) };
    assert_eq!(reader.read(vec![other], 100).await.unwrap().len(), 10);
}

#[tokio::test]
async fn topics_without_settings_get_the_worker_default_and_internal_topics_keep_theirs() {
    let dir = tempfile::tempdir().unwrap();
    let defaults = Retention { ms: HOUR_MS, ..Retention::default() };
    let backend = open(&dir).with_retention(defaults);
    let now = now_ms();
    // Created by its first write, with no settings of its own.
    backend.append_data(vec![record("auto", None, b"old", now - 2 * HOUR_MS)]).await.unwrap();
    backend.append_data(vec![record("auto", None, b"new", now)]).await.unwrap();
    // A topic that keeps records forever.
    let forever = overrides(Some(-1), None, None);
    backend.create_data_topic("kept", 1, forever).await.unwrap();
    backend.append_data(vec![record("kept", None, b"old", now - 2 * HOUR_MS)]).await.unwrap();
    // An internal (compacted) topic: its records carry the write time, but even a topic
    // untouched for ages is the store's, not retention's.
    let configs = backend.topic(&TopicSpec::new("configs", 1, true)).await.unwrap();
    configs.send(vec![LogRecord::new(b"k".to_vec(), b"v".to_vec())]).await.unwrap();
    let zero = Retention { ms: 0, bytes: 0, ..Retention::default() };
    let strict = backend.clone().with_retention(zero);

    assert_eq!(backend.clean().await.unwrap().deleted, 1);
    assert_eq!(offsets(&backend, "auto").await, [1]);
    assert_eq!(offsets(&backend, "kept").await, [0]);
    strict.clean().await.unwrap();
    assert_eq!(offsets(&backend, "configs").await, [0]);
}

#[tokio::test]
async fn compact_keeps_the_latest_record_of_each_key_at_its_offset() {
    let dir = tempfile::tempdir().unwrap();
    let backend = open(&dir);
    let compact = overrides(None, None, Some("compact"));
    backend.create_data_topic("c", 1, compact).await.unwrap();
    let old = now_ms() - 30 * 24 * HOUR_MS;
    // More records than one compaction window, over 10 keys, then a keyless one.
    let total = BATCH_RECORDS as usize * 2 + 500;
    let batch: Vec<DataRecord> = (0..total)
        .map(|i| record("c", Some(&format!("k{}", i % 10)), i.to_string().as_bytes(), old))
        .collect();
    backend.append_data(batch).await.unwrap();
    backend.append_data(vec![record("c", None, b"keyless", old)]).await.unwrap();

    let report = backend.clean().await.unwrap();
    // Compaction only: old timestamps do not matter to `compact` alone.
    assert_eq!((report.deleted, report.compacted), (0, total - 10));
    let expected: Vec<i64> = ((total - 10) as i64..=total as i64).collect();
    assert_eq!(offsets(&backend, "c").await, expected);

    // `compact,delete` does both.
    let both = overrides(Some(HOUR_MS), None, Some("compact,delete"));
    backend.create_data_topic("cd", 1, both).await.unwrap();
    let now = now_ms();
    let batch = vec![
        record("cd", Some("a"), b"1", old),
        record("cd", Some("a"), b"2", now),
        record("cd", Some("b"), b"1", now),
        record("cd", Some("b"), b"2", now),
    ];
    backend.append_data(batch).await.unwrap();
    let report = backend.clean().await.unwrap();
    assert_eq!((report.deleted, report.compacted), (1, 1));
    assert_eq!(offsets(&backend, "cd").await, [1, 3]);
}

#[tokio::test]
async fn the_key_index_holds_only_records_of_compacted_topics() {
    let dir = tempfile::tempdir().unwrap();
    let backend = open(&dir);
    backend
        .create_data_topic("compacted", 1, overrides(None, None, Some("compact")))
        .await
        .unwrap();
    let now = now_ms();
    let batch: Vec<DataRecord> = (0..50)
        .flat_map(|i| {
            let key = format!("k{i}");
            [record("plain", Some(&key), b"v", now), record("compacted", Some(&key), b"v", now)]
        })
        .collect();
    backend.append_data(batch).await.unwrap();
    let configs = backend.topic(&TopicSpec::new("configs", 1, true)).await.unwrap();
    configs.send(vec![LogRecord::new(b"k".to_vec(), b"v".to_vec())]).await.unwrap();
    let conn = rusqlite::Connection::open(backend.path()).unwrap();
    let indexed: i64 = conn
        .query_row(
            "SELECT count(*) FROM records INDEXED BY records_by_compacted_key WHERE compacted = 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(indexed, 51, "the compacted data topic's 50 records and the config record");
}

#[tokio::test]
async fn the_file_gives_its_pages_back_under_continuous_writes() {
    let dir = tempfile::tempdir().unwrap();
    let backend = open(&dir);
    let path = backend.path().to_path_buf();
    assert_eq!(pragma(&path, "auto_vacuum"), 2, "a new file is incremental");
    // 256 KiB per partition: four rounds of 1,000 records of 1 KiB are 4 MiB.
    let bounded = overrides(Some(-1), Some(256 * 1024), None);
    backend.create_data_topic("w", 1, bounded).await.unwrap();
    let mut pages = Vec::new();
    for round in 0..12 {
        let batch: Vec<DataRecord> = (0..1_000)
            .map(|i| record("w", None, &[(round * 7 + i) as u8; 1024], now_ms()))
            .collect();
        backend.append_data(batch).await.unwrap();
        let report = backend.clean().await.unwrap();
        assert!(round == 0 || report.deleted == 1_000, "round {round}: {report:?}");
        pages.push(pragma(&path, "page_count"));
    }
    // Without deletion 12 MiB would be written; the file stays near its first round.
    let first = pages[0];
    assert!(pages.iter().all(|&p| p <= first + first / 2), "page counts {pages:?}");
    assert_eq!(pragma(&path, "freelist_count"), 0);
}

#[tokio::test]
async fn producers_write_while_a_deletion_pass_runs() {
    let dir = tempfile::tempdir().unwrap();
    let backend = open(&dir);
    let hour = overrides(Some(HOUR_MS), None, None);
    backend.create_data_topic("p", 1, hour).await.unwrap();
    let old = now_ms() - 2 * HOUR_MS;
    let expired = BATCH_RECORDS as usize * 3;
    let batch: Vec<DataRecord> = (0..expired).map(|_| record("p", None, b"old", old)).collect();
    backend.append_data(batch).await.unwrap();

    // Between the pass's transactions, an append goes through (the pass would deadlock
    // here if it held the writer for all its deletions).
    let writer = backend.clone();
    let appended: Arc<Mutex<Vec<Position>>> = Arc::default();
    let calls = AtomicUsize::new(0);
    let report = tokio::time::timeout(
        std::time::Duration::from_secs(120),
        backend.clean_pacing(|| {
            let (writer, appended) = (writer.clone(), appended.clone());
            let first = calls.fetch_add(1, Ordering::SeqCst) == 0;
            async move {
                if first {
                    let fresh = record("p", None, b"fresh", now_ms());
                    let positions = writer.append_data(vec![fresh]).await.unwrap();
                    appended.lock().unwrap().extend(positions);
                }
            }
        }),
    )
    .await
    .expect("the pass ends")
    .unwrap();
    let appended = appended.lock().unwrap().clone();
    assert_eq!(appended.len(), 1, "an append landed during the pass");
    assert!(report.transactions > 3, "{report:?}");
    assert_eq!(report.deleted, expired);
    assert_eq!(offsets(&backend, "p").await, [expired as i64]);
}
