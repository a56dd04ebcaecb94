//! The conformance suite every [`LogBackend`] must pass, written once over a [`Harness`]
//! (how to open the backend under test) and instantiated per backend with
//! [`conformance_tests!`].
//!
//! Test code only. It checks the `LogTopic`/`LogReader` contract, and that the offsets store
//! built on it sees what another worker's store wrote on the same topic, nothing
//! backend-specific: those tests live next to each backend.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use async_trait::async_trait;

use super::partitioner::partition_for_key;
use super::{LogBackend, LogEntry, LogReader, LogRecord, OffsetStore, TopicSpec};

/// How a backend compacts a compacted topic.
pub(crate) enum Compaction {
    /// When the topic is opened (memory, embedded): a reopened topic holds only the newest
    /// record of each key.
    OnOpen,
    /// Whenever the broker's log cleaner runs: only the topic's `cleanup.policy` can be
    /// checked.
    ByBroker,
}

/// How to open the backend under test.
#[async_trait]
pub(crate) trait Harness: Send + Sync {
    /// A backend over this harness's storage. Each call is a reopen: a new backend instance
    /// over the same storage (memory: the same backend, which is its only storage).
    async fn open(&self) -> Arc<dyn LogBackend>;

    /// How the backend compacts.
    fn compaction(&self) -> Compaction;

    /// The `cleanup.policy` of `topic` as the cluster reports it (`ByBroker` backends).
    async fn cleanup_policy(&self, _topic: &str) -> String {
        unreachable!("only backends compacted by a broker report a cleanup policy")
    }
}

/// Instantiates every conformance test for the harness `$harness` (an expression evaluated
/// afresh by each test).
macro_rules! conformance_tests {
    ($harness:expr) => {
        $crate::store::conformance_tests::conformance_tests!(@tests $harness;
            send_then_read_to_end_returns_the_records_in_order,
            tombstones_come_back_as_none,
            keys_keep_their_partition_and_order,
            a_new_reader_starts_at_the_beginning,
            poll_returns_records_sent_while_it_waits,
            poll_returns_nothing_after_its_timeout,
            a_reopened_backend_sees_everything_sent,
            a_compacted_topic_keeps_the_newest_record_per_key,
            ten_thousand_records_read_back_in_batches,
            an_offsets_store_reads_what_another_wrote_before_a_first_poll,
        );
    };
    (@tests $harness:expr; $($test:ident),+ $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $test() {
                $crate::store::conformance_tests::$test(&$harness).await;
            }
        )+
    };
}
pub(crate) use conformance_tests;

/// A topic name no other test (or earlier run against the same broker) uses.
pub(crate) fn unique_topic(test: &str) -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_nanos();
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    format!("wc-test-{test}-{}-{nanos}-{n}", std::process::id())
}

/// A spec for a new topic of `partitions` partitions.
pub(crate) fn spec(name: &str, partitions: i32, compacted: bool) -> TopicSpec {
    TopicSpec {
        name: name.to_owned(),
        partitions,
        replication_factor: -1,
        compacted,
        single_partition: false,
        origin: None,
    }
}

/// A record with a value.
pub(crate) fn record(key: &str, value: &str) -> LogRecord {
    LogRecord::new(key, value)
}

/// The (key, value) of entries, as strings.
pub(crate) fn pairs(entries: &[LogEntry]) -> Vec<(String, Option<String>)> {
    entries
        .iter()
        .map(|e| {
            let key = String::from_utf8(e.key.clone().expect("every record has a key")).unwrap();
            (key, e.value.clone().map(|v| String::from_utf8(v).unwrap()))
        })
        .collect()
}

/// The (key, value) of records, as [`pairs`] gives them.
pub(crate) fn expected(records: &[LogRecord]) -> Vec<(String, Option<String>)> {
    records
        .iter()
        .map(|r| {
            let key = String::from_utf8(r.key.clone()).unwrap();
            (key, r.value.clone().map(|v| String::from_utf8(v).unwrap()))
        })
        .collect()
}

/// Polls until `count` records have arrived, or fails after `within`.
pub(crate) async fn poll_for(
    reader: &mut dyn LogReader,
    count: usize,
    within: Duration,
) -> Vec<LogEntry> {
    let deadline = Instant::now() + within;
    let mut entries = Vec::new();
    while entries.len() < count {
        let left = deadline.saturating_duration_since(Instant::now());
        assert!(
            !left.is_zero(),
            "only {} of {count} records arrived within {within:?}",
            entries.len()
        );
        entries.extend(reader.poll(left).await.expect("poll"));
    }
    entries
}

/// Asserts offsets increase within each partition and every key sits in its murmur2
/// partition of a `partitions`-partition topic.
fn assert_positions(entries: &[LogEntry], partitions: i32) {
    let mut last: HashMap<i32, i64> = HashMap::new();
    for entry in entries {
        let key = entry.key.as_deref().expect("every record has a key");
        assert_eq!(
            entry.partition,
            partition_for_key(key, partitions),
            "key {:?} is not in its murmur2 partition",
            String::from_utf8_lossy(key)
        );
        if let Some(previous) = last.insert(entry.partition, entry.offset) {
            assert!(
                entry.offset > previous,
                "offsets go backwards in partition {}",
                entry.partition
            );
        }
    }
}

pub(crate) async fn send_then_read_to_end_returns_the_records_in_order(h: &impl Harness) {
    let backend = h.open().await;
    let name = unique_topic("in-order");
    let topic = backend.topic(&spec(&name, 1, true)).await.unwrap();
    assert_eq!(topic.name(), name);
    let mut reader = topic.reader().await.unwrap();
    assert!(reader.read_to_end().await.unwrap().is_empty(), "a new topic is empty");

    let first = vec![record("a", "1"), record("b", "2"), record("a", "3")];
    topic.send(first.clone()).await.unwrap();
    topic.send(vec![]).await.unwrap();
    topic.send(vec![record("c", "4")]).await.unwrap();
    let entries = reader.read_to_end().await.unwrap();
    let mut all = first.clone();
    all.push(record("c", "4"));
    assert_eq!(pairs(&entries), expected(&all));
    let offsets: Vec<i64> = entries.iter().map(|e| e.offset).collect();
    assert_eq!(offsets, [0, 1, 2, 3], "one partition, offsets from 0");
    assert!(entries.iter().all(|e| e.partition == 0));

    assert!(reader.read_to_end().await.unwrap().is_empty(), "the position advanced");
    topic.send(vec![record("d", "5")]).await.unwrap();
    let entries = reader.read_to_end().await.unwrap();
    assert_eq!(pairs(&entries), expected(&[record("d", "5")]));
    assert_eq!(entries[0].offset, 4);
}

pub(crate) async fn tombstones_come_back_as_none(h: &impl Harness) {
    let backend = h.open().await;
    let topic = backend.topic(&spec(&unique_topic("tombstones"), 1, true)).await.unwrap();
    let sent = vec![record("k", "v"), LogRecord::tombstone("k"), record("j", "")];
    topic.send(sent.clone()).await.unwrap();
    let entries = topic.reader().await.unwrap().read_to_end().await.unwrap();
    assert_eq!(entries[1].value, None, "a tombstone is read back as None");
    assert_eq!(entries[2].value, Some(Vec::new()), "an empty value is not a tombstone");
    assert_eq!(pairs(&entries), expected(&sent));
}

pub(crate) async fn keys_keep_their_partition_and_order(h: &impl Harness) {
    const PARTITIONS: i32 = 4;
    let backend = h.open().await;
    let topic = backend.topic(&spec(&unique_topic("keys"), PARTITIONS, false)).await.unwrap();
    let keys: Vec<String> = (0..8).map(|k| format!("key-{k}")).collect();
    // Interleaved keys, in several batches.
    for batch in 0..5 {
        let records = (0..5)
            .flat_map(|round| {
                keys.iter().map(move |key| record(key, &format!("{}", batch * 5 + round)))
            })
            .collect();
        topic.send(records).await.unwrap();
    }
    let entries = topic.reader().await.unwrap().read_to_end().await.unwrap();
    assert_eq!(entries.len(), 8 * 25);
    assert_positions(&entries, PARTITIONS);
    let mut per_key: BTreeMap<String, Vec<u32>> = BTreeMap::new();
    for (key, value) in pairs(&entries) {
        per_key.entry(key).or_default().push(value.unwrap().parse().unwrap());
    }
    for (key, values) in &per_key {
        assert_eq!(values, &(0..25).collect::<Vec<u32>>(), "values of {key} out of order");
    }
    let used: std::collections::HashSet<i32> = entries.iter().map(|e| e.partition).collect();
    assert!(used.len() > 1, "8 keys over {PARTITIONS} partitions use more than one: {used:?}");
}

pub(crate) async fn a_new_reader_starts_at_the_beginning(h: &impl Harness) {
    let backend = h.open().await;
    let topic = backend.topic(&spec(&unique_topic("new-reader"), 3, true)).await.unwrap();
    let mut early = topic.reader().await.unwrap();
    let sent: Vec<LogRecord> =
        (0..30).map(|i| record(&format!("k{i}"), &format!("v{i}"))).collect();
    topic.send(sent[..20].to_vec()).await.unwrap();
    assert_eq!(early.read_to_end().await.unwrap().len(), 20, "a reader made before the sends");
    topic.send(sent[20..].to_vec()).await.unwrap();
    assert_eq!(early.read_to_end().await.unwrap().len(), 10);

    let mut late = topic.reader().await.unwrap();
    let mut entries = late.read_to_end().await.unwrap();
    assert_positions(&entries, 3);
    entries.sort_by_key(|e| (e.partition, e.offset));
    let mut got = pairs(&entries);
    got.sort();
    let mut want = expected(&sent);
    want.sort();
    assert_eq!(got, want, "a new reader sees everything from the start");
    assert!(late.read_to_end().await.unwrap().is_empty());
}

pub(crate) async fn poll_returns_records_sent_while_it_waits(h: &impl Harness) {
    let backend = h.open().await;
    let topic = backend.topic(&spec(&unique_topic("poll-wakes"), 1, true)).await.unwrap();
    let mut reader = topic.reader().await.unwrap();
    topic.send(vec![record("before", "0")]).await.unwrap();
    assert_eq!(reader.read_to_end().await.unwrap().len(), 1);

    let sender = topic.clone();
    let sent = vec![record("x", "1"), record("y", "2"), record("x", "3")];
    let to_send = sent.clone();
    let send = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        sender.send(to_send).await.unwrap();
    });
    let started = Instant::now();
    let first = reader.poll(Duration::from_secs(20)).await.unwrap();
    let waited = started.elapsed();
    assert!(!first.is_empty(), "poll returned nothing though records were sent");
    assert!(waited < Duration::from_secs(10), "poll took {waited:?} to see a record");
    assert!(waited >= Duration::from_millis(250), "poll returned before the send: {waited:?}");
    let mut entries = first;
    let rest = sent.len() - entries.len();
    entries.extend(poll_for(reader.as_mut(), rest, Duration::from_secs(10)).await);
    assert_eq!(pairs(&entries), expected(&sent));
    send.await.unwrap();
}

pub(crate) async fn poll_returns_nothing_after_its_timeout(h: &impl Harness) {
    let backend = h.open().await;
    let topic = backend.topic(&spec(&unique_topic("poll-times-out"), 2, true)).await.unwrap();
    topic.send(vec![record("a", "1")]).await.unwrap();
    let mut reader = topic.reader().await.unwrap();
    assert_eq!(reader.read_to_end().await.unwrap().len(), 1);
    let started = Instant::now();
    let entries = reader.poll(Duration::from_millis(600)).await.unwrap();
    let waited = started.elapsed();
    assert!(entries.is_empty(), "nothing was sent, yet poll returned {entries:?}");
    assert!(waited >= Duration::from_millis(550), "poll returned early: {waited:?}");
    assert!(waited < Duration::from_secs(5), "poll overran its timeout: {waited:?}");
}

pub(crate) async fn a_reopened_backend_sees_everything_sent(h: &impl Harness) {
    let name = unique_topic("reopen");
    let sent: Vec<LogRecord> =
        (0..50).map(|i| record(&format!("k{}", i % 7), &format!("v{i}"))).collect();
    {
        let backend = h.open().await;
        let topic = backend.topic(&spec(&name, 3, false)).await.unwrap();
        topic.send(sent[..25].to_vec()).await.unwrap();
        topic.send(sent[25..].to_vec()).await.unwrap();
    }
    let backend = h.open().await;
    let topic = backend.topic(&spec(&name, 3, false)).await.unwrap();
    let entries = topic.reader().await.unwrap().read_to_end().await.unwrap();
    assert_positions(&entries, 3);
    let mut per_key: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (key, value) in pairs(&entries) {
        per_key.entry(key).or_default().push(value.unwrap());
    }
    let mut want: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (key, value) in expected(&sent) {
        want.entry(key).or_default().push(value.unwrap());
    }
    assert_eq!(per_key, want, "the reopened backend sees every record, in order per key");
}

pub(crate) async fn a_compacted_topic_keeps_the_newest_record_per_key(h: &impl Harness) {
    let name = unique_topic("compacted");
    let sent = vec![
        record("a", "1"),
        record("b", "1"),
        record("a", "2"),
        record("c", "1"),
        LogRecord::tombstone("b"),
        record("a", "3"),
        record("d", "1"),
        LogRecord::tombstone("d"),
        record("d", "2"),
    ];
    {
        let backend = h.open().await;
        let topic = backend.topic(&spec(&name, 2, true)).await.unwrap();
        topic.send(sent.clone()).await.unwrap();
    }
    match h.compaction() {
        Compaction::OnOpen => {
            let backend = h.open().await;
            let topic = backend.topic(&spec(&name, 2, true)).await.unwrap();
            let entries = topic.reader().await.unwrap().read_to_end().await.unwrap();
            assert_positions(&entries, 2);
            let mut got = pairs(&entries);
            got.sort();
            let want: Vec<(String, Option<String>)> = vec![
                ("a".into(), Some("3".into())),
                ("b".into(), None),
                ("c".into(), Some("1".into())),
                ("d".into(), Some("2".into())),
            ];
            assert_eq!(got, want, "the newest record of each key, tombstones included");
            // Records keep the offsets they were written at: compaction does not renumber.
            let a = entries.iter().find(|e| e.key.as_deref() == Some(b"a")).unwrap();
            let last_a = sent.iter().rposition(|r| r.key == b"a").unwrap();
            let written_at = sent[..last_a]
                .iter()
                .filter(|r| partition_for_key(&r.key, 2) == a.partition)
                .count() as i64;
            assert_eq!(a.offset, written_at, "compaction keeps offsets");
        }
        Compaction::ByBroker => {
            assert_eq!(h.cleanup_policy(&name).await, "compact");
        }
    }
}

pub(crate) async fn ten_thousand_records_read_back_in_batches(h: &impl Harness) {
    const RECORDS: usize = 10_000;
    let backend = h.open().await;
    let topic = backend.topic(&spec(&unique_topic("ten-thousand"), 5, true)).await.unwrap();
    let value = "x".repeat(200);
    let started = Instant::now();
    for batch in 0..10 {
        let records =
            (0..RECORDS / 10).map(|i| record(&format!("key-{batch}-{i}"), &value)).collect();
        topic.send(records).await.unwrap();
    }
    let sent_in = started.elapsed();
    let started = Instant::now();
    let mut reader = topic.reader().await.unwrap();
    let entries = reader.read_to_end().await.unwrap();
    let read_in = started.elapsed();
    let started = Instant::now();
    let nothing_new = reader.read_to_end().await.unwrap();
    let reread_in = started.elapsed();
    eprintln!(
        "{RECORDS} records: sent in {sent_in:?}, read to end in {read_in:?}, \
         nothing new in {reread_in:?}"
    );
    assert_eq!(entries.len(), RECORDS);
    assert_positions(&entries, 5);
    assert!(nothing_new.is_empty());
    // Generous: a round trip per record would take far longer on any backend but memory.
    assert!(read_in < Duration::from_secs(20), "reading {RECORDS} records took {read_in:?}");
    // Finding out there is nothing new is a request or two, not a wait (Kafka: not stuck
    // behind a fetch waiting out `fetch.wait.max.ms`).
    assert!(reread_in < Duration::from_millis(450), "an empty read took {reread_in:?}");
}

/// Two offsets stores on one topic, each over its own backend instance, as two workers hold
/// them: a task moved from one to the other must start from the latest offset the first
/// committed, so the second reads the topic to its end before the task's first poll.
pub(crate) async fn an_offsets_store_reads_what_another_wrote_before_a_first_poll(
    h: &impl Harness,
) {
    use serde_json::json;
    let spec = spec(&unique_topic("offsets"), 3, true);
    let first = OffsetStore::open(h.open().await.topic(&spec).await.unwrap()).await.unwrap();
    let second = OffsetStore::open(h.open().await.topic(&spec).await.unwrap()).await.unwrap();
    let (file, other) = (json!({"filename": "in.txt"}), json!({"filename": "other.txt"}));
    let at = |n: u64| Some(json!({"position": n}));
    for n in [100, 200, 300] {
        first.put("c", vec![(file.clone(), at(n))]).await.unwrap();
    }
    first.put("c", vec![(other.clone(), at(7))]).await.unwrap();
    // The task starts on the second worker: the read before its first poll.
    second.read_to_end().await.unwrap();
    assert_eq!(second.get("c", &[file.clone(), other.clone()]), [at(300), at(7)]);
    // It commits; its offsets are its own until another worker writes again.
    second.put("c", vec![(file.clone(), at(400)), (other.clone(), None)]).await.unwrap();
    second.read_to_end().await.unwrap();
    assert_eq!(second.get("c", &[file.clone(), other.clone()]), [at(400), None]);
    // And back to the first worker, which saw none of that until it reads to the end.
    assert_eq!(first.get("c", std::slice::from_ref(&file)), [at(300)]);
    first.read_to_end().await.unwrap();
    assert_eq!(first.connector_offsets("c"), [(file.clone(), json!({"position": 400}))]);
    // KIP-875's read sees the latest too.
    second.put("c", vec![(file.clone(), at(500))]).await.unwrap();
    let read = first.read_connector_offsets("c").await.unwrap();
    assert_eq!(read, [(file, json!({"position": 500}))]);
}
