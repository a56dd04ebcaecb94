//! Tests of the Kafka backend against a real broker: the conformance suite, the topic
//! checks, and a broker restart under a reader and a writer.
//!
//! They need the broker at `KAFKA_BOOTSTRAP` (`scripts/kafka.sh start`, then
//! `KAFKA_BOOTSTRAP=127.0.0.1:9092`) and fail without it: a Kafka test that skips itself
//! cannot fail. Every test uses topics of its own, so they run in parallel on one broker.
//! The restart test starts, restarts and stops a private broker on another port;
//! `tests/secure.rs` uses the broker's SASL_SSL listener.

mod broker;
mod secure;

use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use rdkafka::ClientConfig;
use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, ResourceSpecifier, TopicReplication};
use rdkafka::client::DefaultClientContext;

use self::broker::PrivateBroker;
use super::KafkaBackend;
use crate::store::conformance_tests::{
    Compaction, Harness, conformance_tests, expected, pairs, poll_for, record, spec, unique_topic,
};
use crate::store::{LogBackend, LogEntry, LogRecord, StoreError, TopicOrigin};

/// Delivery timeout of the backends under test.
const DELIVERY_TIMEOUT: Duration = Duration::from_secs(10);

/// The shared test broker's address, or a failure saying how to start one.
fn bootstrap() -> String {
    match std::env::var("KAFKA_BOOTSTRAP") {
        Ok(servers) if !servers.trim().is_empty() => servers,
        _ => panic!(
            "KAFKA_BOOTSTRAP is not set: the Kafka backend tests need a broker. Run \
             `scripts/kafka.sh start` and set KAFKA_BOOTSTRAP=127.0.0.1:9092 (the broker's \
             address), then run the tests again."
        ),
    }
}

/// An admin client of the test's own, independent of the backend's code under test.
fn admin(bootstrap: &str) -> AdminClient<DefaultClientContext> {
    ClientConfig::new().set("bootstrap.servers", bootstrap).create().unwrap()
}

/// `cleanup.policy` of `topic`, as the broker reports it.
async fn cleanup_policy(bootstrap: &str, topic: &str) -> String {
    let described = admin(bootstrap)
        .describe_configs([&ResourceSpecifier::Topic(topic)], &AdminOptions::new())
        .await
        .unwrap();
    let resource = described.into_iter().next().unwrap().unwrap();
    resource.get("cleanup.policy").and_then(|e| e.value.clone()).unwrap()
}

/// Creates `topic` with `cleanup.policy=policy`, behind the backend's back.
async fn create_topic(bootstrap: &str, topic: &str, partitions: i32, policy: &str) {
    let new =
        NewTopic::new(topic, partitions, TopicReplication::Fixed(1)).set("cleanup.policy", policy);
    let results = admin(bootstrap).create_topics([&new], &AdminOptions::new()).await.unwrap();
    results.into_iter().next().unwrap().unwrap();
}

/// A new backend on the shared broker for every `open`.
struct KafkaHarness {
    bootstrap: String,
}

impl KafkaHarness {
    fn new() -> Self {
        Self { bootstrap: bootstrap() }
    }
}

#[async_trait]
impl Harness for KafkaHarness {
    async fn open(&self) -> Arc<dyn LogBackend> {
        Arc::new(KafkaBackend::new(&self.bootstrap, &[], DELIVERY_TIMEOUT).unwrap())
    }

    fn compaction(&self) -> Compaction {
        Compaction::ByBroker
    }

    async fn cleanup_policy(&self, topic: &str) -> String {
        cleanup_policy(&self.bootstrap, topic).await
    }
}

conformance_tests!(KafkaHarness::new());

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_config_topic_with_several_partitions_is_refused() {
    let servers = bootstrap();
    let backend = KafkaBackend::new(&servers, &[], DELIVERY_TIMEOUT).unwrap();
    let name = unique_topic("three-partitions");
    backend.topic(&spec(&name, 3, true)).await.unwrap();

    let mut config = spec(&name, 1, true);
    config.single_partition = true;
    config.origin = Some(TopicOrigin::new("config.storage.topic", "connector configurations"));
    let err = backend.topic(&config).await.err().expect("a 3-partition config topic is refused");
    assert!(matches!(err, StoreError::Topic(_)), "{err:?}");
    assert_eq!(
        err.to_string(),
        format!(
            "Topic '{name}' supplied via the 'config.storage.topic' property is required to \
             have a single partition in order to guarantee consistency of connector \
             configurations, but found 3 partitions."
        )
    );
    // Single-partition topics pass, and so do multi-partition ones that may have several.
    let single = unique_topic("one-partition");
    let mut one = spec(&single, 1, true);
    one.single_partition = true;
    backend.topic(&one).await.unwrap();
    backend.topic(&spec(&name, 3, true)).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_topic_that_is_not_compact_only_is_refused() {
    let servers = bootstrap();
    let backend = KafkaBackend::new(&servers, &[], DELIVERY_TIMEOUT).unwrap();

    // Created by the backend itself as a plain topic: the broker default, delete.
    let plain = unique_topic("delete-policy");
    backend.topic(&spec(&plain, 1, false)).await.unwrap();
    assert_eq!(cleanup_policy(&servers, &plain).await, "delete");
    let mut offsets = spec(&plain, 25, true);
    offsets.origin = Some(TopicOrigin::new("offset.storage.topic", "source connector offsets"));
    let err = backend.topic(&offsets).await.err().expect("a delete topic is refused");
    assert!(matches!(err, StoreError::Topic(_)), "{err:?}");
    assert_eq!(
        err.to_string(),
        format!(
            "Topic '{plain}' supplied via the 'offset.storage.topic' property is required to \
             have 'cleanup.policy=compact' to guarantee consistency and durability of source \
             connector offsets, but found the topic currently has 'cleanup.policy=delete'. \
             Continuing would likely result in eventually losing source connector offsets and \
             problems restarting this Connect cluster in the future. Change the \
             'offset.storage.topic' property in the Connect worker configurations to use a \
             topic with 'cleanup.policy=compact'."
        )
    );

    // compact,delete also deletes old records.
    let both = unique_topic("compact-delete");
    create_topic(&servers, &both, 1, "compact,delete").await;
    let err = backend.topic(&spec(&both, 1, true)).await.err().expect("compact,delete is refused");
    assert!(err.to_string().contains(&format!("Topic '{both}'")), "{err}");
    assert!(err.to_string().contains("'cleanup.policy=compact,delete'"), "{err}");

    // An existing compact topic made elsewhere is accepted as is.
    let compact = unique_topic("compact-made-elsewhere");
    create_topic(&servers, &compact, 2, "compact").await;
    backend.topic(&spec(&compact, 2, true)).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn topics_are_created_with_broker_defaults_or_refused_clearly() {
    let servers = bootstrap();
    let backend = KafkaBackend::new(&servers, &[], DELIVERY_TIMEOUT).unwrap();
    // -1 partitions and replication: the broker's defaults (scripts/kafka.sh: 1 and 1).
    let name = unique_topic("defaults");
    let mut config = spec(&name, -1, true);
    config.single_partition = true;
    let topic = backend.topic(&config).await.unwrap();
    assert_eq!(cleanup_policy(&servers, &name).await, "compact");
    topic.send((0..10).map(|i| record(&format!("k{i}"), "v")).collect()).await.unwrap();
    let entries = topic.reader().await.unwrap().read_to_end().await.unwrap();
    assert_eq!(entries.len(), 10);
    assert!(entries.iter().all(|e| e.partition == 0), "one partition by default");

    // A replication factor the single broker cannot meet.
    let mut replicated = spec(&unique_topic("replicated"), 1, true);
    replicated.replication_factor = 3;
    let err = backend.topic(&replicated).await.err().expect("3 replicas on one broker");
    assert!(matches!(err, StoreError::Topic(_)), "{err:?}");
    let message = err.to_string();
    assert!(message.contains(&replicated.name) && message.contains("replication factor 3"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_cluster_is_unavailable_within_the_timeout() {
    // Nothing listens on port 1.
    let timeout = Duration::from_secs(2);
    let backend = KafkaBackend::new("127.0.0.1:1", &[], timeout).unwrap();
    let started = Instant::now();
    let err = backend.topic(&spec("unreachable", 1, true)).await.err().expect("no cluster");
    assert!(matches!(err, StoreError::Unavailable(_)), "{err:?}");
    assert!(started.elapsed() < timeout + Duration::from_secs(3), "{:?}", started.elapsed());
}

#[tokio::test]
async fn bad_client_properties_are_a_config_error() {
    let props = [("no.such.property".to_owned(), "1".to_owned())];
    let err = KafkaBackend::new("127.0.0.1:9092", &props, DELIVERY_TIMEOUT).err().unwrap();
    assert!(matches!(err, StoreError::Config(_)), "{err:?}");
    assert!(err.to_string().contains("no.such.property"), "{err}");
}

/// The (key, value) of `entries` without the records of a send that failed (whether a failed
/// send's records were written is unknown by contract).
fn without_key(entries: &[LogEntry], key: &str) -> Vec<(String, Option<String>)> {
    pairs(entries).into_iter().filter(|(k, _)| k != key).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_broker_restart_is_survived_by_readers_and_writers() {
    let broker = PrivateBroker::start().await;
    let delivery_timeout = Duration::from_secs(8);
    let backend = KafkaBackend::new(&broker.bootstrap(), &[], delivery_timeout).unwrap();
    let topic = backend.topic(&spec("restart", 3, true)).await.unwrap();
    let mut reader = topic.reader().await.unwrap();

    let before: Vec<LogRecord> =
        (0..20).map(|i| record(&format!("k{}", i % 4), &format!("a{i}"))).collect();
    topic.send(before.clone()).await.unwrap();
    assert_eq!(reader.read_to_end().await.unwrap().len(), before.len());

    broker.stop_keeping_data().await;
    let started = Instant::now();
    let result = topic.send(vec![record("while-down", "x")]).await;
    let took = started.elapsed();
    let err = result.expect_err("a send while the broker is down must not succeed");
    eprintln!("A send while the broker was down failed after {took:?}: {err}");
    assert!(matches!(err, StoreError::Unavailable(_)), "{err:?}");
    assert!(took <= delivery_timeout + Duration::from_secs(2), "the send failed after {took:?}");
    // The reader waits out its poll, without failing, while the broker is away.
    let nothing = reader.poll(Duration::from_millis(500)).await.unwrap();
    assert!(without_key(&nothing, "while-down").is_empty());

    broker.start_again().await;
    let after: Vec<LogRecord> =
        (0..20).map(|i| record(&format!("k{}", i % 4), &format!("b{i}"))).collect();
    topic.send(after.clone()).await.expect("a send after the broker is back succeeds");

    // The reader made before the restart carries on where it stopped.
    let got = reader.read_to_end().await.expect("the reader works after the restart");
    let mut got = without_key(&got, "while-down");
    got.sort();
    let mut want = expected(&after);
    want.sort();
    assert_eq!(got, want);
    topic.send(vec![record("k9", "c")]).await.unwrap();
    let polled = poll_for(reader.as_mut(), 1, Duration::from_secs(10)).await;
    assert_eq!(without_key(&polled, "while-down"), expected(&[record("k9", "c")]));

    // And a new reader sees both sides of the restart, in order per key.
    let entries = topic.reader().await.unwrap().read_to_end().await.unwrap();
    let all = without_key(&entries, "while-down");
    for key in ["k0", "k1", "k2", "k3"] {
        let values: Vec<String> =
            all.iter().filter(|(k, _)| k == key).map(|(_, v)| v.clone().unwrap()).collect();
        let want: Vec<String> = before
            .iter()
            .chain(&after)
            .filter(|r| r.key == key.as_bytes())
            .map(|r| String::from_utf8(r.value.clone().unwrap()).unwrap())
            .collect();
        assert_eq!(values, want, "{key}");
    }
    drop(broker);
}
