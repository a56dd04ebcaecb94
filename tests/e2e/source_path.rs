//! A source task's data path while its plugin polls ahead (issue 39): the guest's next
//! `poll` runs while the task sends the batch before, so these tests check what that
//! overlap could break. Records keep their order; a task restarted mid-stream (a graceful
//! stop with a poll started ahead) resumes with no record lost or repeated; and a record
//! the producer refuses fails the task (errors.tolerance none) with no offset committed
//! past the last record acknowledged before it.

use std::path::Path;
use std::time::Duration;

use wasm_connect::app::App;
use wasm_connect::model::{Properties, State};

use crate::flow::counter;
use crate::harness::{Backing, eventually, props, t, wait_state};
use crate::topic_records::read_topic;

/// A unique name (Kafka topics outlive a test).
fn unique(name: &str) -> String {
    let nanos =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    format!("{name}-{nanos}")
}

fn line(i: usize) -> String {
    format!("line {i:07}")
}

/// Appends lines `from..to` to `file`.
fn append(file: &Path, from: usize, to: usize) {
    use std::io::Write;
    let mut text = String::with_capacity((to - from) * 13);
    for i in from..to {
        text.push_str(&line(i));
        text.push('\n');
    }
    let mut f = std::fs::OpenOptions::new().create(true).append(true).open(file).unwrap();
    f.write_all(text.as_bytes()).unwrap();
}

fn file_source(file: &Path, topic: &str, extra: &[(&str, &str)]) -> Properties {
    let string = "org.apache.kafka.connect.storage.StringConverter";
    let mut p = props(&[
        ("connector.class", "FileStreamSource"),
        ("file", file.to_str().unwrap()),
        ("topic", topic),
        ("key.converter", string),
        ("value.converter", string),
        ("topic.creation.default.partitions", "1"),
        ("topic.creation.default.replication.factor", "1"),
    ]);
    p.extend(props(extra));
    p
}

/// The committed `position` of the connector's file, or 0.
async fn committed_position(app: &App, name: &str) -> u64 {
    let offsets = app.herder.connector_offsets(name).await.unwrap().offsets;
    offsets.iter().filter_map(|o| o.offset.get("position")?.as_u64()).max().unwrap_or(0)
}

/// Lines polled so many at a time that a poll is started ahead on almost every batch, at a
/// rate that keeps the stream going for seconds after its first second (burst); the task
/// is restarted twice while it runs (each a graceful stop: writes awaited, offsets
/// flushed, the poll started ahead dropped unsent). The topic must hold every line once,
/// in file order.
async fn a_task_restarted_mid_stream_resumes_without_loss_or_repeat(b: Backing) {
    const LINES: usize = 600_000;
    const RATE: usize = 100_000;
    let app = b.start_with(&[("offset.flush.interval.ms", "200")]).await;
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.txt");
    append(&input, 0, LINES);
    let (name, topic) = (unique("src"), unique("source-path"));
    let config = file_source(
        &input,
        &topic,
        &[("batch.size", "500"), ("wasm.poll.records.per.second", &RATE.to_string())],
    );
    app.herder.put_connector_config(&name, config, None, false).await.unwrap();
    wait_state(&app, t(&name, 0), State::Running).await;
    let mut restarted_at = Vec::new();
    for at in [20_000, LINES / 3] {
        let produced = eventually(120, &format!("{at} records produced"), async || {
            let n = counter(&app, "produced", &name).await;
            (n >= at as u64).then_some(n)
        })
        .await;
        app.herder.restart_task(&name, 0).await.unwrap();
        restarted_at.push(produced);
        wait_state(&app, t(&name, 0), State::Running).await;
    }
    // The rate leaves at least (LINES - RATE) / RATE seconds after the first restart: both
    // restarts came mid-stream.
    assert!(restarted_at.iter().all(|&n| n < LINES as u64), "{restarted_at:?}");
    let file_end = std::fs::metadata(&input).unwrap().len();
    eventually(120, "every line's offset committed", async || {
        (committed_position(&app, &name).await == file_end).then_some(())
    })
    .await;
    let values: Vec<String> =
        read_topic(&b, &topic).await.into_iter().map(|r| r.value.unwrap_or_default()).collect();
    assert_eq!(values.len(), LINES, "records lost or repeated across the restarts");
    if let Some(i) = (0..LINES).find(|&i| values[i] != line(i)) {
        panic!("record {i} is {:?}, expected {:?}", values[i], line(i));
    }
    app.shutdown().await;
}

on_both_backends!(a_task_restarted_mid_stream_resumes_without_loss_or_repeat);

/// A line larger than the producer's `message.max.bytes` (1,000,000) is refused when it is
/// enqueued. With the default errors.tolerance (none) the task fails, and the offsets
/// committed stop at the last line acknowledged before it, although lines after it were
/// polled (ahead) and may have been sent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_record_fails_the_task_and_no_offset_passes_it() {
    let b = Backing::kafka();
    let app = b.start_with(&[("offset.flush.interval.ms", "200")]).await;
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.txt");
    append(&input, 0, 20_000);
    let before = std::fs::metadata(&input).unwrap().len();
    let (name, topic) = (unique("src"), unique("source-refused"));
    let config = file_source(&input, &topic, &[("batch.size", "100")]);
    app.herder.put_connector_config(&name, config, None, false).await.unwrap();
    eventually(120, "the first lines' offsets committed", async || {
        (committed_position(&app, &name).await == before).then_some(())
    })
    .await;
    // The big line first in its batch, then more batches the task polls ahead.
    {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new().append(true).open(&input).unwrap();
        f.write_all(&vec![b'x'; 2_000_000]).unwrap();
        f.write_all(b"\n").unwrap();
    }
    append(&input, 20_000, 30_000);
    wait_state(&app, t(&name, 0), State::Failed).await;
    let status = app.herder.connector_status(&name).await.unwrap();
    let trace = status.tasks[0].1.trace.clone().unwrap_or_default();
    assert!(trace.to_lowercase().contains("too large"), "{trace}");
    // Nothing after the refused line is committed, whatever was polled or sent after it.
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert_eq!(committed_position(&app, &name).await, before);
    let values: Vec<String> =
        read_topic(&b, &topic).await.into_iter().map(|r| r.value.unwrap_or_default()).collect();
    assert!(values.len() >= 20_000, "{} records", values.len());
    for (i, v) in values.iter().take(20_000).enumerate() {
        assert_eq!(*v, line(i), "record {i}");
    }
    assert!(!values.iter().any(|v| v.len() > 1000), "the refused line was written");
    app.shutdown().await;
}
