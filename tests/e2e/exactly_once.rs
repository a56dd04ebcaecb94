//! Exactly-once source delivery (KIP-618), with real kills: a worker killed with `kill -9`
//! while its source task produces, restarted, killed again, leaves every source record in
//! the topic exactly once, because each batch and the source offsets it carries commit
//! together (one SQLite transaction on the embedded store).

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::json;

use crate::harness::eventually;
use crate::spawned::Spawned;
use crate::support::root;

/// Lines of the input file.
const LINES: usize = 1_000_000;

/// Kills while the source produces.
const KILLS: usize = 5;

/// How many times each value occurs in data topic `topic` of the embedded store `db`.
/// Reads the file through SQLite directly (the worker may be running: WAL lets it).
fn counts(db: &Path, topic: &str) -> BTreeMap<Vec<u8>, usize> {
    let conn =
        rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap();
    let mut select = conn
        .prepare(
            "SELECT r.value FROM records r JOIN topics t ON t.id = r.topic_id WHERE t.name = ?1",
        )
        .unwrap();
    let mut counts = BTreeMap::new();
    let rows = select.query_map([topic], |row| row.get::<_, Option<Vec<u8>>>(0)).unwrap();
    for value in rows {
        *counts.entry(value.unwrap().unwrap_or_default()).or_insert(0) += 1;
    }
    counts
}

/// Records in `topic` so far (0 before the topic exists).
fn records(db: &Path, topic: &str) -> usize {
    if !db.exists() {
        return 0;
    }
    let conn =
        rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap();
    conn.query_row(
        "SELECT COUNT(*) FROM records r JOIN topics t ON t.id = r.topic_id WHERE t.name = ?1",
        [topic],
        |row| row.get::<_, i64>(0),
    )
    .unwrap_or(0) as usize
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn standalone_kill_9_leaves_each_line_in_the_topic_exactly_once() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.txt");
    let mut text = String::with_capacity(LINES * 13);
    for n in 0..LINES {
        text.push_str(&format!("line {n:07}\n"));
    }
    std::fs::write(&input, text).unwrap();
    let db = dir.path().join("worker.db");
    // Offsets would be flushed once a minute at-least-once: every kill would repeat all
    // that was produced since the start.
    let extra = "exactly.once.source.support=enabled\noffset.flush.interval.ms=60000\n\
                 value.converter=org.apache.kafka.connect.storage.StringConverter\n";
    let plugins = root().join("build/plugins");
    for round in 0..=KILLS {
        let worker = Spawned::start(dir.path(), &plugins, extra, &[], &[]);
        let base = worker.base(120).await;
        if round == 0 {
            let config = json!({"name": "eos", "config": {
                "connector.class": "FileStreamSource", "tasks.max": "1",
                "file": input.display().to_string(), "topic": "lines"}});
            let created = reqwest::Client::new()
                .post(format!("{base}/connectors"))
                .json(&config)
                .send()
                .await
                .unwrap();
            assert_eq!(created.status(), 201, "{}", created.text().await.unwrap());
        }
        if round < KILLS {
            // Each run gets further than the last before it is killed mid-stream.
            let target = LINES * (round + 1) / (KILLS + 2);
            eventually(300, "the source to get further before the kill", async || {
                (records(&db, "lines") >= target).then_some(())
            })
            .await;
            drop(worker); // SIGKILL
        } else {
            eventually(300, "every line to reach the topic", async || {
                (records(&db, "lines") >= LINES).then_some(())
            })
            .await;
            // Time for a repeat, if any, to land after the last line.
            tokio::time::sleep(std::time::Duration::from_secs(2)).await;
            drop(worker);
        }
    }
    let counts = counts(&db, "lines");
    let repeated: Vec<_> = counts
        .iter()
        .filter(|(_, n)| **n > 1)
        .take(5)
        .map(|(line, n)| (String::from_utf8_lossy(line).into_owned(), *n))
        .collect();
    assert!(repeated.is_empty(), "records written more than once, e.g. {repeated:?}");
    assert_eq!(counts.len(), LINES, "distinct lines in the topic");
    for n in [0, LINES / 2, LINES - 1] {
        assert_eq!(counts.get(format!("line {n:07}").as_bytes()), Some(&1), "line {n}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn distributed_kill_9_leaves_each_line_once_for_read_committed_readers() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    use crate::cluster::Cluster;
    use crate::distributed::{file_source, settings, write_lines};
    use crate::failover::{duplicates, read_topic_as, unique};

    let mut settings = settings(1000);
    settings.extra.push_str("exactly.once.source.support=enabled\n");
    let mut cluster = Cluster::start(3, settings).await;
    let dir = tempfile::tempdir().unwrap();
    // Three sources fed 20 lines every 20 ms each while the workers are killed: the kills
    // come while every source produces.
    let stop = Arc::new(AtomicBool::new(false));
    let mut sources = Vec::new();
    for i in 0..3 {
        let input = dir.path().join(format!("in-{i}.txt"));
        std::fs::write(&input, "").unwrap();
        let topic = unique(&format!("eos-{i}"));
        let mut config = file_source(&input, &topic);
        // Transactions open for 2 s at a time: a kill almost always cuts one short.
        config["transaction.boundary"] = json!("interval");
        config["transaction.boundary.interval.ms"] = json!("2000");
        let (code, body) = cluster.create(i, &format!("eos-{i}"), config).await;
        assert_eq!(code, 201, "{body}");
        sources.push((topic, write_lines(input, 20, stop.clone())));
    }
    for i in 0..3 {
        cluster.wait_running(0, &format!("eos-{i}"), 1, 120).await;
    }
    for kill in 0..KILLS {
        tokio::time::sleep(std::time::Duration::from_secs(4)).await;
        let victim = kill % 3;
        cluster.kill(victim);
        tokio::time::sleep(std::time::Duration::from_secs(2)).await;
        cluster.restart(victim).await;
    }
    stop.store(true, Ordering::SeqCst);
    let mut aborted_seen = 0;
    for (topic, writer) in sources {
        let written = writer.join().unwrap();
        let committed =
            tokio::task::block_in_place(|| read_topic_as(&topic, written, 300, "read_committed"));
        assert_eq!(duplicates(&committed), 0, "{topic}: lines seen twice by read_committed");
        assert_eq!(committed.len(), written, "{topic}: lines seen by read_committed");
        let all =
            tokio::task::block_in_place(|| read_topic_as(&topic, written, 300, "read_uncommitted"));
        aborted_seen += all.len() - committed.len();
    }
    // What the kills cut short is in the log, aborted: a reader that ignores transactions
    // sees it again. Were the transactions doing nothing, this would be 0 (and at-least-once
    // delivery's repeats would reach the read_committed reader above).
    assert!(aborted_seen > 0, "no aborted record in the topics: the kills cut no transaction");
}
