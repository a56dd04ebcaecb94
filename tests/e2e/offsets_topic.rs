//! Connector-specific offsets topics (`offsets.storage.topic`, KIP-618) in distributed
//! mode on the real broker, with exactly-once source delivery enabled and disabled: the
//! offsets of a FileStreamSource land in its own topic (created by the worker) and are
//! copied to the worker's offsets topic; a restarted worker resumes from them without
//! repeating a line; `GET /connectors/{name}/offsets` shows them; under exactly-once a
//! task that produces to its own offsets topic fails with Kafka Connect's message.

use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{Value, json};

use crate::cluster::Cluster;
use crate::distributed::{file_source, settings};
use crate::failover::{duplicates, read_topic_as, unique};
use crate::harness::{bootstrap, eventually};

/// Kafka Connect's message for a record bound for the task's own offsets topic.
const OWN_OFFSETS_TOPIC: &str =
    "Source tasks may not produce to their own offsets topics when exactly-once support is enabled";

/// The latest value of `key` in `topic`, read from the start to the end the topic has now
/// (`read_committed`: what committed transactions hold); `None` when the key is absent.
fn latest(topic: &str, key: &Value) -> Option<Value> {
    use rdkafka::consumer::{BaseConsumer, Consumer};
    use rdkafka::{ClientConfig, Message, Offset, TopicPartitionList};
    let consumer: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", bootstrap())
        .set("group.id", unique("offsets-check"))
        .set("enable.auto.commit", "false")
        .set("isolation.level", "read_committed")
        .create()
        .unwrap();
    let metadata = consumer.fetch_metadata(Some(topic), Duration::from_secs(10)).ok()?;
    let partitions = metadata.topics().first()?.partitions().len() as i32;
    let mut assignment = TopicPartitionList::new();
    let mut ends = Vec::new();
    for p in 0..partitions {
        assignment.add_partition_offset(topic, p, Offset::Beginning).unwrap();
        ends.push(consumer.fetch_watermarks(topic, p, Duration::from_secs(10)).unwrap().1);
    }
    consumer.assign(&assignment).unwrap();
    let mut found = None;
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        let positions: Vec<i64> = consumer
            .position()
            .unwrap()
            .elements()
            .iter()
            .map(|e| match e.offset() {
                Offset::Offset(o) => o,
                _ => 0,
            })
            .collect();
        if positions.len() == ends.len() && positions.iter().zip(&ends).all(|(p, e)| p >= e) {
            break;
        }
        let Some(Ok(m)) = consumer.poll(Duration::from_millis(200)) else { continue };
        let k: Option<Value> = m.key().and_then(|k| serde_json::from_slice(k).ok());
        if k.as_ref() == Some(key) {
            found = m.payload().and_then(|v| serde_json::from_slice(v).ok());
        }
    }
    found
}

/// `n` numbered lines from `from`.
fn lines(from: usize, n: usize) -> String {
    (from..from + n).map(|i| format!("{i}\n")).collect()
}

/// The byte length of the first `n` numbered lines.
fn length(n: usize) -> u64 {
    lines(0, n).len() as u64
}

async fn a_connector_offsets_topic_holds_the_offsets(exactly_once: bool) {
    let mut s = settings(1000);
    if exactly_once {
        s.extra.push_str("exactly.once.source.support=enabled\n");
    }
    let mut cluster = Cluster::start(1, s).await;
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.txt");
    std::fs::write(&input, lines(0, 100)).unwrap();
    let topic = unique("own-data");
    let own = unique("own-offsets");
    let mut config = file_source(&input, &topic);
    config["offsets.storage.topic"] = json!(own);
    let (code, body) = cluster.create(0, "own", config).await;
    assert_eq!(code, 201, "{body}");
    cluster.wait_running(0, "own", 1, 120).await;
    let values = tokio::task::block_in_place(|| read_topic_as(&topic, 100, 120, "read_committed"));
    assert_eq!(values.len(), 100, "lines in the topic");

    // The offsets: in the connector's own topic, and copied to the worker's.
    let key = json!(["own", {"filename": input.display().to_string()}]);
    let at = json!({"position": length(100)});
    let worker_topic = cluster.internal_topic("offsets");
    for t in [&own, &worker_topic] {
        eventually(60, &format!("the offset in {t}"), async || {
            let v = tokio::task::block_in_place(|| latest(t, &key));
            (v.as_ref() == Some(&at)).then_some(())
        })
        .await;
    }
    let (code, got) = cluster.call(0, Method::GET, "/connectors/own/offsets", None).await;
    assert_eq!(code, 200, "{got}");
    assert_eq!(
        got,
        json!({"offsets": [{"partition": {"filename": input.display().to_string()}, "offset": at}]})
    );

    // A restarted worker resumes from them: each line once.
    cluster.stop(0).await;
    let mut f = std::fs::OpenOptions::new().append(true).open(&input).unwrap();
    std::io::Write::write_all(&mut f, lines(100, 100).as_bytes()).unwrap();
    cluster.restart(0).await;
    cluster.wait_running(0, "own", 1, 120).await;
    let values = tokio::task::block_in_place(|| read_topic_as(&topic, 200, 120, "read_committed"));
    assert_eq!(duplicates(&values), 0, "lines sent twice after the restart");
    assert_eq!(values.len(), 200, "lines in the topic");
    eventually(60, "the new offset in the connector's topic", async || {
        let v = tokio::task::block_in_place(|| latest(&own, &key));
        (v == Some(json!({"position": length(200)}))).then_some(())
    })
    .await;

    if exactly_once {
        // A source producing to its own offsets topic fails (the worker's is allowed).
        let mut config = file_source(&input, &own);
        config["offsets.storage.topic"] = json!(own);
        let (code, body) = cluster.create(0, "naughty", config).await;
        assert_eq!(code, 201, "{body}");
        let trace = eventually(120, "the task to fail", async || {
            let s = cluster.status(0, "naughty").await;
            (s["tasks"][0]["state"] == "FAILED").then(|| s["tasks"][0]["trace"].clone())
        })
        .await;
        assert!(trace.as_str().unwrap_or("").contains(OWN_OFFSETS_TOPIC), "{trace}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connector_offsets_topic_holds_the_offsets_under_exactly_once() {
    a_connector_offsets_topic_holds_the_offsets(true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connector_offsets_topic_holds_the_offsets_at_least_once() {
    a_connector_offsets_topic_holds_the_offsets(false).await;
}
