//! Tests of the embedded backend: the conformance suite over a database file in a temporary
//! directory, and what only this backend does (another process on the same file, the file's
//! settings, remembered topics, errors naming the file).

use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use tempfile::TempDir;

use super::EmbeddedBackend;
use crate::store::conformance_tests::{
    Compaction, Harness, conformance_tests, pairs, poll_for, record, spec,
};
use crate::store::{LogBackend, StoreError, TopicOrigin};

/// A database file in a temporary directory; each `open` is a new backend on it.
struct EmbeddedHarness {
    dir: TempDir,
}

impl EmbeddedHarness {
    fn new() -> Self {
        Self { dir: tempfile::tempdir().unwrap() }
    }

    fn backend(&self) -> EmbeddedBackend {
        EmbeddedBackend::open(self.dir.path().join("store.db")).unwrap()
    }
}

#[async_trait]
impl Harness for EmbeddedHarness {
    async fn open(&self) -> Arc<dyn LogBackend> {
        Arc::new(self.backend())
    }

    fn compaction(&self) -> Compaction {
        Compaction::OnOpen
    }
}

conformance_tests!(EmbeddedHarness::new());

/// Another backend on the same file stands for another process: its writes cannot wake
/// this backend's readers, so they must be found by the periodic check.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_waiting_poll_sees_writes_of_another_process() {
    let h = EmbeddedHarness::new();
    let (mine, theirs) = (h.backend(), h.backend());
    let topic = mine.topic(&spec("shared", 2, true)).await.unwrap();
    let mut reader = topic.reader().await.unwrap();
    let other = theirs.topic(&spec("shared", 2, true)).await.unwrap();

    let writer = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(200)).await;
        other.send(vec![record("a", "1"), record("b", "2")]).await.unwrap();
    });
    let started = Instant::now();
    let entries = poll_for(reader.as_mut(), 2, Duration::from_secs(5)).await;
    let waited = started.elapsed();
    writer.await.unwrap();
    let mut got = pairs(&entries);
    got.sort();
    assert_eq!(got, [("a".into(), Some("1".into())), ("b".into(), Some("2".into()))]);
    assert!(waited < Duration::from_millis(1500), "took {waited:?}, more than ~1 s");
}

/// With the periodic check out of the way, only the in-process wake-up can end the wait.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_waiting_poll_is_woken_by_writes_of_this_process() {
    let h = EmbeddedHarness::new();
    let path = h.dir.path().join("store.db");
    let backend = EmbeddedBackend::open_checking_every(&path, Duration::from_secs(3600)).unwrap();
    let topic = backend.topic(&spec("local", 1, true)).await.unwrap();
    let mut reader = topic.reader().await.unwrap();
    assert!(reader.read_to_end().await.unwrap().is_empty());
    let writer = topic.clone();
    let send = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(200)).await;
        writer.send(vec![record("a", "1")]).await.unwrap();
    });
    let started = Instant::now();
    let entries = reader.poll(Duration::from_secs(30)).await.unwrap();
    assert_eq!(pairs(&entries), [("a".into(), Some("1".into()))]);
    assert!(started.elapsed() < Duration::from_secs(10), "took {:?}", started.elapsed());
    send.await.unwrap();
}

#[tokio::test]
async fn the_file_is_in_wal_mode_with_full_sync() {
    let h = EmbeddedHarness::new();
    let backend = h.backend();
    let mode: String = backend
        .db
        .with_writer(|c| Ok(c.pragma_query_value(None, "journal_mode", |r| r.get(0)).unwrap()))
        .unwrap();
    assert_eq!(mode, "wal");
    // synchronous: 2 = FULL, on the writer and on reader connections.
    let writer_sync: i64 = backend
        .db
        .with_writer(|c| Ok(c.pragma_query_value(None, "synchronous", |r| r.get(0)).unwrap()))
        .unwrap();
    assert_eq!(writer_sync, 2);
    let reader = backend.db.connect().unwrap();
    let reader_sync: i64 = reader.pragma_query_value(None, "synchronous", |r| r.get(0)).unwrap();
    assert_eq!(reader_sync, 2);
    // WAL is a property of the file: a plain connection sees it too.
    let plain = rusqlite::Connection::open(backend.path()).unwrap();
    let mode: String = plain.pragma_query_value(None, "journal_mode", |r| r.get(0)).unwrap();
    assert_eq!(mode, "wal");
}

#[tokio::test]
async fn the_file_and_its_wal_are_private() {
    use std::os::unix::fs::PermissionsExt;
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    let h = EmbeddedHarness::new();
    let backend = h.backend();
    let topic = backend.topic(&spec("private", 1, true)).await.unwrap();
    topic.send(vec![record("k", "secret")]).await.unwrap();
    let db = backend.path().to_path_buf();
    let wal = std::path::PathBuf::from(format!("{}-wal", db.display()));
    assert_eq!(mode(&db), 0o600);
    assert_eq!(mode(&wal), 0o600, "the WAL holds the records too");
    drop(topic);
    drop(backend);
    // A file left readable by others (an older worker, a copy) is made private at open.
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o644)).unwrap();
    let reopened = h.backend();
    assert_eq!(mode(reopened.path()), 0o600);
}

#[tokio::test]
async fn the_partition_count_is_remembered_and_checked() {
    let h = EmbeddedHarness::new();
    h.backend().topic(&spec("configs", 3, true)).await.unwrap();

    // A default (-1) spec opens the topic with the partitions it was created with.
    let topic = h.backend().topic(&spec("configs", -1, true)).await.unwrap();
    let keys: Vec<String> = (0..20).map(|i| format!("k{i}")).collect();
    topic.send(keys.iter().map(|k| record(k, "v")).collect()).await.unwrap();
    let entries = topic.reader().await.unwrap().read_to_end().await.unwrap();
    assert!(entries.iter().all(|e| (0..3).contains(&e.partition)));
    assert!(entries.iter().any(|e| e.partition == 2), "3 partitions, not 1");

    let mut config = spec("configs", 1, true);
    config.single_partition = true;
    config.origin = Some(TopicOrigin::new("config.storage.topic", "connector configurations"));
    let err = h.backend().topic(&config).await.err().expect("three partitions are refused");
    assert_eq!(
        err.to_string(),
        "Topic 'configs' supplied via the 'config.storage.topic' property is required to have \
         a single partition in order to guarantee consistency of connector configurations, but \
         found 3 partitions."
    );
}

#[tokio::test]
async fn a_topic_created_uncompacted_is_refused_as_compacted() {
    let h = EmbeddedHarness::new();
    let topic = h.backend().topic(&spec("data", 1, false)).await.unwrap();
    topic.send(vec![record("k", "1"), record("k", "2")]).await.unwrap();
    let err = h.backend().topic(&spec("data", 1, true)).await.err().expect("refused");
    assert!(matches!(err, StoreError::Topic(_)), "{err:?}");
    assert!(err.to_string().contains("'cleanup.policy=delete'"), "{err}");
    // And an uncompacted topic is never compacted.
    let topic = h.backend().topic(&spec("data", 1, false)).await.unwrap();
    assert_eq!(topic.reader().await.unwrap().read_to_end().await.unwrap().len(), 2);
}

#[tokio::test]
async fn offsets_continue_after_compaction_removed_the_tail() {
    let h = EmbeddedHarness::new();
    let topic = h.backend().topic(&spec("c", 1, true)).await.unwrap();
    topic.send(vec![record("a", "1"), record("b", "1"), record("a", "2")]).await.unwrap();
    let topic = h.backend().topic(&spec("c", 1, true)).await.unwrap();
    topic.send(vec![record("c", "1")]).await.unwrap();
    let entries = topic.reader().await.unwrap().read_to_end().await.unwrap();
    let offsets: Vec<i64> = entries.iter().map(|e| e.offset).collect();
    assert_eq!(offsets, [1, 2, 3], "offset 0 was compacted away, offsets never reused");
}

#[test]
fn errors_name_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-dir").join("store.db");
    let err = EmbeddedBackend::open(&missing).expect_err("a missing directory");
    assert!(matches!(err, StoreError::Embedded(_)), "{err:?}");
    assert!(err.to_string().contains(&missing.display().to_string()), "{err}");

    let garbage = dir.path().join("garbage.db");
    std::fs::write(&garbage, vec![b'x'; 8192]).unwrap();
    let err = EmbeddedBackend::open(&garbage).expect_err("not a database");
    let message = err.to_string();
    assert!(message.contains(&garbage.display().to_string()), "{message}");
    assert!(message.contains("not a database"), "{message}");
}
