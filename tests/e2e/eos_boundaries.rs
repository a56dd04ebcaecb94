//! Connector-defined transaction boundaries (KIP-618, `transaction.boundary=connector`),
//! on the embedded store (standalone) and on Kafka (distributed), with `ChaosSource`
//! asking for commits and aborts after records and after its batches of ten: committed
//! ranges reach every reader that honours transactions, aborted ones never do (on Kafka a
//! `read_uncommitted` reader sees them, so the test can tell), and an abort still commits
//! its offsets: a restarted task resumes after the aborted range instead of sending it
//! again.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use wasm_connect::app::App;
use wasm_connect::model::State;

use crate::failover::unique;
use crate::harness::{Backing, bootstrap, c, chaos_source, eventually, state, wait_state};

/// Records per poll.
const BATCH: u64 = 10;

/// The connectors: name, the requests every poll makes, and which records of each batch
/// (by position) end up committed.
const CASES: [(&str, &str, [bool; BATCH as usize]); 2] = [
    // An abort after record 2, a commit after record 6, an abort of the rest of the batch.
    (
        "split-a",
        "abort@2,commit@6,abort",
        [false, false, false, true, true, true, true, false, false, false],
    ),
    // A commit after record 3, an abort after record 6, a commit of the rest of the batch.
    (
        "split-b",
        "commit@3,abort@6,commit",
        [true, true, true, true, false, false, false, true, true, true],
    ),
];

on_both_backends!(committed_ranges_reach_readers_and_aborted_ones_never_do);

async fn committed_ranges_reach_readers_and_aborted_ones_never_do(b: Backing) {
    let eos = [("exactly.once.source.support", "enabled")];
    let app = b.start_with(&eos).await;
    let mut topics = BTreeMap::new();
    for (name, requests, _) in CASES {
        let topic = unique(name);
        let config = chaos_source(&[
            ("tasks.max", "1"),
            ("topic", &topic),
            ("batch.size", &BATCH.to_string()),
            ("value.size", "8"),
            ("key.converter", "org.apache.kafka.connect.storage.StringConverter"),
            ("value.converter", "org.apache.kafka.connect.converters.ByteArrayConverter"),
            ("transaction.boundary", "connector"),
            ("chaos.transaction.boundaries", "true"),
            ("chaos.transaction.requests", requests),
        ]);
        app.herder.put_connector_config(name, config, None, false).await.unwrap();
        topics.insert(name, topic);
    }
    // Two runs: the second, after a restart of the worker, resumes where the first ended.
    let first = stop_after(&app, 100).await;
    app.shutdown().await;
    let app = b.start_with(&eos).await;
    for (name, _, _) in CASES {
        app.herder.resume(name).await.unwrap();
    }
    let last = stop_after(&app, first.values().max().unwrap() + 100).await;
    app.shutdown().await;

    for (name, _, committed) in CASES {
        // Every batch ends with a request: a stop finds no transaction open, and the
        // offsets committed last are those of the batch's last record, aborted or not.
        assert_eq!(first[name] % BATCH, BATCH - 1, "{name}: offsets committed at the first stop");
        assert_eq!(last[name] % BATCH, BATCH - 1, "{name}: offsets committed at the last stop");
        let end = last[name] + 1;
        let want: Vec<u64> = (0..end).filter(|n| committed[(n % BATCH) as usize]).collect();
        let topic = &topics[name];
        let seen = match &b {
            Backing::Embedded(db) => embedded_values(db, topic),
            Backing::Kafka(..) => {
                let all = tokio::task::block_in_place(|| kafka_values(topic, "read_uncommitted"));
                // What was aborted is in the log, once: sent once, never again after the
                // restart (its offsets were committed with the abort).
                assert_eq!(all, (0..end).collect::<Vec<_>>(), "{name}: read_uncommitted");
                tokio::task::block_in_place(|| kafka_values(topic, "read_committed"))
            }
        };
        assert_eq!(seen, want, "{name}: the committed records, each once, in order");
    }
}

/// Waits until every connector's committed offset reaches `at_least`, then stops them all
/// (KIP-875 `STOPPED`) and returns the offset each committed last.
async fn stop_after(app: &App, at_least: u64) -> BTreeMap<&'static str, u64> {
    for (name, _, _) in CASES {
        let deadline = Instant::now() + Duration::from_secs(120);
        while offset(app, name).await.is_none_or(|n| n < at_least) {
            if Instant::now() > deadline {
                let status = app.herder.connector_status(name).await;
                panic!(
                    "{name} did not commit past {at_least}: {:?}; {status:?}",
                    offset(app, name).await
                );
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    let mut last = BTreeMap::new();
    for (name, _, _) in CASES {
        app.herder.stop(name).await.unwrap();
        wait_state(app, c(name), State::Stopped).await;
        // Stopped means no tasks too: the last one has stopped.
        eventually(30, &format!("{name}'s task to be gone"), async || {
            let status = app.herder.connector_status(name).await.ok()?;
            status.tasks.is_empty().then_some(())
        })
        .await;
        assert_ne!(state(app, &c(name)).await, Some(State::Failed), "{name} failed");
        last.insert(name, offset(app, name).await.expect("an offset committed"));
    }
    last
}

/// The `n` of the offset `name`'s task committed last.
async fn offset(app: &App, name: &str) -> Option<u64> {
    let offsets = app.herder.connector_offsets(name).await.ok()?;
    offsets.offsets.iter().find_map(|o| o.offset.get("n")?.as_u64())
}

/// The values (as numbers) of `topic` in the embedded store `db`, in write order.
fn embedded_values(db: &Path, topic: &str) -> Vec<u64> {
    let conn =
        rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap();
    let mut select = conn
        .prepare(
            "SELECT r.value FROM records r JOIN topics t ON t.id = r.topic_id \
             WHERE t.name = ?1 ORDER BY r.rowid",
        )
        .unwrap();
    let rows = select.query_map([topic], |row| row.get::<_, Option<Vec<u8>>>(0)).unwrap();
    rows.map(|v| number(&v.unwrap().unwrap_or_default())).collect()
}

/// The values (as numbers) of `topic` on Kafka, read from the start to the end it has now
/// with `isolation` (`isolation.level`), in order (the topic has one partition).
fn kafka_values(topic: &str, isolation: &str) -> Vec<u64> {
    use rdkafka::consumer::{BaseConsumer, Consumer};
    use rdkafka::{ClientConfig, Message, Offset, TopicPartitionList};
    let consumer: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", bootstrap())
        .set("group.id", format!("{topic}-check-{isolation}"))
        .set("enable.auto.commit", "false")
        .set("isolation.level", isolation)
        .create()
        .unwrap();
    let (_, end) = consumer.fetch_watermarks(topic, 0, Duration::from_secs(10)).unwrap();
    let mut assignment = TopicPartitionList::new();
    assignment.add_partition_offset(topic, 0, Offset::Beginning).unwrap();
    consumer.assign(&assignment).unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut values = Vec::new();
    let mut next = 0;
    while next < end {
        assert!(Instant::now() < deadline, "{topic} ({isolation}): stuck at {next} of {end}");
        if let Some(m) = consumer.poll(Duration::from_millis(200)) {
            let m = m.unwrap();
            next = m.offset() + 1;
            values.push(number(m.payload().unwrap_or_default()));
        }
        // A read_committed reader skips aborted records and markers: its position says
        // how far it got.
        if let Ok(positions) = consumer.position()
            && let Some(Offset::Offset(p)) = positions.elements().first().map(|e| e.offset())
        {
            next = next.max(p);
        }
    }
    values
}

fn number(value: &[u8]) -> u64 {
    std::str::from_utf8(value).unwrap().parse().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn commit_and_abort_of_one_batch_or_record_fail_the_task() {
    let dir = tempfile::tempdir().unwrap();
    let app =
        Backing::embedded(&dir).start_with(&[("exactly.once.source.support", "enabled")]).await;
    let cases = [
        (
            "both-batch",
            "commit,abort",
            "Connector requested both commit and abort of same transaction",
        ),
        (
            "both-record",
            "commit@1,abort@1",
            "Connector requested both commit and abort of same record",
        ),
    ];
    for (name, requests, message) in cases {
        let config = chaos_source(&[
            ("tasks.max", "1"),
            ("topic", name),
            ("batch.size", "3"),
            ("transaction.boundary", "connector"),
            ("chaos.transaction.boundaries", "true"),
            ("chaos.transaction.requests", requests),
        ]);
        app.herder.put_connector_config(name, config, None, false).await.unwrap();
        let trace = eventually(60, &format!("{name}'s task to fail"), async || {
            let status = app.herder.task_status(name, 0).ok()?;
            (status.state == State::Failed).then(|| status.trace.unwrap_or_default())
        })
        .await;
        assert!(trace.contains(message), "{name}: {trace}");
        // Nothing of the failed batch was committed.
        assert_eq!(offset(&app, name).await, None, "{name}");
    }
    app.shutdown().await;
}
