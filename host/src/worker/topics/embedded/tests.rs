//! Tests of the embedded data topics: producing and consuming through a database file in a
//! temporary directory, consumer groups rebalancing in process, offsets across a reopen.

use std::time::{Duration, Instant};

use tempfile::TempDir;

use super::EmbeddedTopics;
use crate::model::{TopicPartition, TopicPartitionOffset};
use crate::store::EmbeddedBackend;
use crate::worker::topics::{
    ConsumerEvent, DataTopics, Header, InRecord, NewTopic, OutRecord, RecordConsumer, Subscription,
};

const WAIT: Duration = Duration::from_secs(10);

fn topics(dir: &TempDir) -> EmbeddedTopics {
    EmbeddedTopics::new(EmbeddedBackend::open(dir.path().join("store.db")).unwrap())
}

fn out(topic: &str, key: Option<&str>, value: Option<&str>) -> OutRecord {
    OutRecord {
        topic: topic.into(),
        key: key.map(|k| k.as_bytes().to_vec().into()),
        value: value.map(|v| v.as_bytes().to_vec().into()),
        ..Default::default()
    }
}

fn to(topic: &str, partition: i32, value: &str) -> OutRecord {
    OutRecord { partition: Some(partition), ..out(topic, None, Some(value)) }
}

fn tp(topic: &str, partition: i32) -> TopicPartition {
    TopicPartition { topic: topic.into(), partition }
}

fn tpo(topic: &str, partition: i32, offset: i64) -> TopicPartitionOffset {
    TopicPartitionOffset { topic: topic.into(), partition, offset }
}

async fn create(topics: &EmbeddedTopics, name: &str, partitions: i32) {
    let topic = NewTopic { name: name.into(), partitions, replication_factor: -1, configs: vec![] };
    assert!(topics.create_topic(&topic).await.unwrap());
}

async fn join(
    topics: &EmbeddedTopics,
    group: &str,
    subscription: Subscription,
) -> Box<dyn RecordConsumer> {
    topics.consumer(group, "test-client", &subscription, &[]).await.unwrap()
}

fn subscribe(topic: &str) -> Subscription {
    Subscription::Topics(vec![topic.into()])
}

/// The next event, waiting up to [`WAIT`].
async fn event(consumer: &mut dyn RecordConsumer) -> ConsumerEvent {
    consumer.next(WAIT, 1000).await.unwrap().expect("an event in time")
}

/// Records until `count` arrived; any other event fails.
async fn records(consumer: &mut dyn RecordConsumer, count: usize) -> Vec<InRecord> {
    let mut got = Vec::new();
    while got.len() < count {
        match event(consumer).await {
            ConsumerEvent::Records(records) => got.extend(records),
            other => panic!("expected records, got {other:?}"),
        }
    }
    got
}

fn values(records: &[InRecord]) -> Vec<String> {
    records
        .iter()
        .map(|r| String::from_utf8(r.value.as_deref().unwrap_or_default().to_vec()).unwrap())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn records_round_trip_with_headers_timestamps_keys_and_null_values() {
    let dir = tempfile::tempdir().unwrap();
    let topics = topics(&dir);
    let producer = topics.producer("producer-0", &[]).unwrap();
    let mut first = out("data", Some("k"), None);
    first.timestamp = Some(1234);
    first.headers = vec![
        Header { key: "trace".into(), value: Some(b"abc".to_vec()) },
        Header { key: "empty".into(), value: None },
    ];
    let sent = vec![first.clone(), out("data", None, Some("v"))];
    let delivered = producer.send(sent).await.unwrap();
    assert_eq!(
        delivered.iter().map(|d| (d.partition, d.offset)).collect::<Vec<_>>(),
        [(0, 0), (0, 1)]
    );
    assert!(topics.topic_exists("data").await.unwrap(), "created on first write");
    assert!(!topics.topic_exists("other").await.unwrap());

    let mut consumer = join(&topics, "g", subscribe("data")).await;
    assert_eq!(event(consumer.as_mut()).await, ConsumerEvent::Assigned(vec![tp("data", 0)]));
    let got = records(consumer.as_mut(), 2).await;
    assert_eq!(
        got[0],
        InRecord {
            topic: "data".into(),
            partition: 0,
            offset: 0,
            timestamp: Some(1234),
            key: Some(b"k".to_vec().into()),
            value: None,
            headers: first.headers,
        }
    );
    assert_eq!((got[1].key.clone(), got[1].value.clone()), (None, Some(b"v".to_vec().into())));
    assert!(got[1].timestamp.unwrap() > 1_600_000_000_000);
    // Nothing more: `next` waits out its timeout.
    assert_eq!(consumer.next(Duration::from_millis(100), 10).await.unwrap(), None);
    // A write wakes the waiting consumer at once.
    let writer = producer.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        writer.send(vec![out("data", None, Some("late"))]).await.unwrap();
    });
    let started = Instant::now();
    assert_eq!(values(&records(consumer.as_mut(), 1).await), ["late"]);
    assert!(started.elapsed() < Duration::from_millis(900), "{:?}", started.elapsed());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn order_is_kept_across_many_concurrent_sends() {
    let dir = tempfile::tempdir().unwrap();
    let topics = topics(&dir);
    create(&topics, "ordered", 3).await;
    let producer = topics.producer("producer-0", &[]).unwrap();
    let (calls, per_call) = (400, 50);
    let started = Instant::now();
    // Queued one after the other, awaited concurrently.
    let futures: Vec<_> = (0..calls)
        .map(|call| {
            let records = (0..per_call)
                .map(|i| {
                    out("ordered", Some(&format!("key-{}", i % 7)), Some(&format!("{call}:{i}")))
                })
                .collect();
            tokio::spawn(producer.send(records))
        })
        .collect();
    let mut delivered = Vec::new();
    for future in futures {
        delivered.extend(future.await.unwrap().unwrap());
    }
    let elapsed = started.elapsed();
    let total = calls * per_call;
    println!(
        "embedded producer: {total} records in {calls} calls in {elapsed:?} ({:.0} records/s)",
        total as f64 / elapsed.as_secs_f64()
    );
    // Per partition, offsets follow the order of the calls.
    for partition in 0..3 {
        let offsets: Vec<i64> =
            delivered.iter().filter(|d| d.partition == partition).map(|d| d.offset).collect();
        assert!(offsets.windows(2).all(|w| w[1] == w[0] + 1), "partition {partition}");
    }
    let mut consumer = join(&topics, "g", subscribe("ordered")).await;
    assert!(matches!(event(consumer.as_mut()).await, ConsumerEvent::Assigned(p) if p.len() == 3));
    let got = records(consumer.as_mut(), total).await;
    assert_eq!(got.len(), total);
    for key in 0..7 {
        let sequence: Vec<(usize, usize)> = got
            .iter()
            .filter(|r| r.key.as_deref() == Some(format!("key-{key}").as_bytes()))
            .map(|r| {
                let value = String::from_utf8(r.value.as_deref().unwrap().to_vec()).unwrap();
                let (call, i) = value.split_once(':').unwrap();
                (call.parse().unwrap(), i.parse().unwrap())
            })
            .collect();
        assert!(sequence.windows(2).all(|w| w[0] < w[1]), "key-{key} out of order");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_record_calls_share_transactions() {
    let dir = tempfile::tempdir().unwrap();
    let topics = topics(&dir);
    let producer = topics.producer("producer-0", &[]).unwrap();
    let calls = 2000;
    let started = Instant::now();
    let futures: Vec<_> = (0..calls)
        .map(|i| producer.send(vec![out("single", None, Some(&i.to_string()))]))
        .collect();
    for (i, future) in futures.into_iter().enumerate() {
        assert_eq!(future.await.unwrap()[0].offset, i as i64);
    }
    let elapsed = started.elapsed();
    println!(
        "embedded producer: {calls} one-record calls in {elapsed:?} ({:.0} records/s)",
        calls as f64 / elapsed.as_secs_f64()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn committed_offsets_survive_a_reopen() {
    let dir = tempfile::tempdir().unwrap();
    {
        let topics = topics(&dir);
        let producer = topics.producer("p", &[]).unwrap();
        let batch = ["a", "b", "c", "d"].iter().map(|v| out("t", None, Some(v))).collect();
        producer.send(batch).await.unwrap();
        let mut consumer = join(&topics, "g", subscribe("t")).await;
        assert_eq!(event(consumer.as_mut()).await, ConsumerEvent::Assigned(vec![tp("t", 0)]));
        assert_eq!(values(&records(consumer.as_mut(), 4).await), ["a", "b", "c", "d"]);
        consumer.commit(vec![tpo("t", 0, 2)]).await.unwrap();
        // Like kill -9: nothing is closed.
        std::mem::forget(consumer);
    }
    let topics = topics(&dir);
    let mut consumer = join(&topics, "g", subscribe("t")).await;
    assert_eq!(event(consumer.as_mut()).await, ConsumerEvent::Assigned(vec![tp("t", 0)]));
    assert_eq!(values(&records(consumer.as_mut(), 2).await), ["c", "d"]);
    // Another group starts at the earliest offset.
    let mut other = join(&topics, "other", subscribe("t")).await;
    event(other.as_mut()).await;
    assert_eq!(records(other.as_mut(), 4).await[0].offset, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_members_split_partitions_then_one_takes_all() {
    let dir = tempfile::tempdir().unwrap();
    let topics = topics(&dir);
    create(&topics, "four", 4).await;
    let producer = topics.producer("p", &[]).unwrap();
    producer.send((0..4).map(|p| to("four", p, &format!("p{p}"))).collect()).await.unwrap();
    let all = vec![tp("four", 0), tp("four", 1), tp("four", 2), tp("four", 3)];

    let mut a = join(&topics, "g", subscribe("four")).await;
    assert_eq!(event(a.as_mut()).await, ConsumerEvent::Assigned(all.clone()));
    assert_eq!(records(a.as_mut(), 4).await.len(), 4);
    assert!(topics.group_has_members("g"));

    let mut b = join(&topics, "g", subscribe("four")).await;
    assert_eq!(event(a.as_mut()).await, ConsumerEvent::Revoked(vec![tp("four", 1), tp("four", 3)]));
    // Until `a` calls `next` again, it may commit the revoked partitions and `b` waits.
    a.commit(vec![tpo("four", 1, 1)]).await.unwrap();
    assert_eq!(b.next(Duration::from_millis(200), 10).await.unwrap(), None);
    let b_waiting = tokio::spawn(async move {
        let assigned = event(b.as_mut()).await;
        (b, assigned)
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(a.next(Duration::from_millis(50), 10).await.unwrap(), None);
    let (mut b, assigned) = b_waiting.await.unwrap();
    assert_eq!(assigned, ConsumerEvent::Assigned(vec![tp("four", 1), tp("four", 3)]));
    // Partition 1 resumes at a's commit; partition 3 had none and starts at 0.
    assert_eq!(values(&records(b.as_mut(), 1).await), ["p3"]);
    let err = a.commit(vec![tpo("four", 3, 1)]).await.unwrap_err();
    assert!(err.to_string().contains("four-3 is not assigned"), "{err}");

    b.close().await;
    assert_eq!(
        event(a.as_mut()).await,
        ConsumerEvent::Assigned(vec![tp("four", 1), tp("four", 3)])
    );
    // b committed nothing: partition 3 is read again (at least once), partition 1 is not.
    assert_eq!(values(&records(a.as_mut(), 1).await), ["p3"]);
    drop(a);
    assert!(!topics.group_has_members("g"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_member_that_does_not_release_loses_its_partitions_after_the_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let backend = EmbeddedBackend::open(dir.path().join("store.db")).unwrap();
    let topics = EmbeddedTopics::with_revoke_timeout(backend, Duration::from_millis(300));
    create(&topics, "two", 2).await;
    let mut a = join(&topics, "g", subscribe("two")).await;
    assert!(matches!(event(a.as_mut()).await, ConsumerEvent::Assigned(p) if p.len() == 2));
    let mut b = join(&topics, "g", subscribe("two")).await;
    let started = Instant::now();
    assert_eq!(event(b.as_mut()).await, ConsumerEvent::Assigned(vec![tp("two", 1)]));
    assert!(started.elapsed() >= Duration::from_millis(250), "{:?}", started.elapsed());
    assert_eq!(event(a.as_mut()).await, ConsumerEvent::Revoked(vec![tp("two", 1)]));
    assert!(a.commit(vec![tpo("two", 1, 5)]).await.is_err(), "a no longer holds it");
    a.commit(vec![tpo("two", 0, 0)]).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_regex_subscription_picks_up_a_topic_created_later() {
    let dir = tempfile::tempdir().unwrap();
    let topics = topics(&dir);
    create(&topics, "logs-a", 1).await;
    create(&topics, "metrics", 1).await;
    let mut consumer = join(&topics, "g", Subscription::Pattern("logs-.*".into())).await;
    assert_eq!(event(consumer.as_mut()).await, ConsumerEvent::Assigned(vec![tp("logs-a", 0)]));

    // Created in this process: picked up at once.
    let producer = topics.producer("p", &[]).unwrap();
    producer.send(vec![out("logs-b", None, Some("b"))]).await.unwrap();
    assert_eq!(event(consumer.as_mut()).await, ConsumerEvent::Assigned(vec![tp("logs-b", 0)]));
    assert_eq!(values(&records(consumer.as_mut(), 1).await), ["b"]);

    // Created by another process on the same file: picked up by the periodic listing.
    let other = EmbeddedBackend::open(dir.path().join("store.db")).unwrap();
    other.create_data_topic("logs-c", 2, Default::default()).await.unwrap();
    let started = Instant::now();
    assert_eq!(
        event(consumer.as_mut()).await,
        ConsumerEvent::Assigned(vec![tp("logs-c", 0), tp("logs-c", 1)])
    );
    assert!(started.elapsed() < Duration::from_secs(3), "{:?}", started.elapsed());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pause_stops_fetching_and_resume_restarts_it() {
    let dir = tempfile::tempdir().unwrap();
    let topics = topics(&dir);
    let producer = topics.producer("p", &[]).unwrap();
    producer.send(vec![out("t", None, Some("1"))]).await.unwrap();
    let mut consumer = join(&topics, "g", subscribe("t")).await;
    assert!(matches!(event(consumer.as_mut()).await, ConsumerEvent::Assigned(_)));
    consumer.pause().await.unwrap();
    producer.send(vec![out("t", None, Some("2"))]).await.unwrap();
    assert_eq!(consumer.next(Duration::from_millis(200), 10).await.unwrap(), None);
    consumer.resume().await.unwrap();
    assert_eq!(values(&records(consumer.as_mut(), 2).await), ["1", "2"]);
}

#[tokio::test]
async fn invalid_patterns_and_partitions_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let topics = topics(&dir);
    let pattern = Subscription::Pattern("[".into());
    let err = topics.consumer("g", "c", &pattern, &[]).await.err().expect("refused");
    assert!(err.to_string().contains("invalid topics.regex '['"), "{err}");
    create(&topics, "one", 1).await;
    let producer = topics.producer("p", &[]).unwrap();
    let good = producer.send(vec![to("one", 0, "ok")]);
    let bad = producer.send(vec![to("one", 1, "no")]);
    let err = bad.await.unwrap_err();
    assert!(err.to_string().contains("topic 'one' has no partition 1"), "{err}");
    assert_eq!(good.await.unwrap()[0].offset, 0, "a bad call does not fail the others");
}

/// A consumer of `group` with `auto.offset.reset` set to `reset` (unset for `None`).
async fn join_with_reset(
    topics: &EmbeddedTopics,
    group: &str,
    reset: Option<&str>,
) -> Box<dyn RecordConsumer> {
    let overrides: Vec<(String, String)> =
        reset.map(|r| ("auto.offset.reset".to_owned(), r.to_owned())).into_iter().collect();
    topics.consumer(group, "test-client", &subscribe("r"), &overrides).await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_position_below_the_log_start_resets_as_auto_offset_reset_says() {
    let dir = tempfile::tempdir().unwrap();
    let topics = topics(&dir);
    let hour = vec![("retention.ms".to_owned(), "3600000".to_owned())];
    let topic = NewTopic { name: "r".into(), partitions: 1, replication_factor: -1, configs: hour };
    assert!(topics.create_topic(&topic).await.unwrap());
    let now =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis()
            as i64;
    let producer = topics.producer("p", &[]).unwrap();
    let record = |value: &str, timestamp: i64| OutRecord {
        partition: Some(0),
        timestamp: Some(timestamp),
        ..out("r", None, Some(value))
    };
    let old: Vec<OutRecord> =
        (0..10).map(|i| record(&format!("old{i}"), now - 7_200_000)).collect();
    producer.send(old).await.unwrap();
    producer.send(vec![record("new10", now), record("new11", now)]).await.unwrap();
    // Three groups committed offset 3, then retention deleted offsets 0–9.
    for group in ["earliest", "latest", "none"] {
        topics.backend().commit_group_offsets(group, vec![tpo("r", 0, 3)]).await.unwrap();
    }
    assert_eq!(topics.backend().clean().await.unwrap().deleted, 10);

    // Kafka Connect's default for sinks, `earliest`: from the log start.
    let mut earliest = join_with_reset(&topics, "earliest", None).await;
    assert!(matches!(event(earliest.as_mut()).await, ConsumerEvent::Assigned(_)));
    let got = records(earliest.as_mut(), 2).await;
    assert_eq!((got[0].offset, values(&got)), (10, vec!["new10".to_owned(), "new11".into()]));

    // `latest`: from the log end, so only what comes next.
    let mut latest = join_with_reset(&topics, "latest", Some("latest")).await;
    assert!(matches!(event(latest.as_mut()).await, ConsumerEvent::Assigned(_)));
    assert_eq!(latest.next(Duration::from_millis(200), 10).await.unwrap(), None);
    producer.send(vec![record("new12", now)]).await.unwrap();
    let got = records(latest.as_mut(), 1).await;
    assert_eq!((got[0].offset, values(&got)), (12, vec!["new12".to_owned()]));

    // `none`: the consumer fails, in Kafka's words.
    let mut none = join_with_reset(&topics, "none", Some("none")).await;
    assert!(matches!(event(none.as_mut()).await, ConsumerEvent::Assigned(_)));
    let err = none.next(WAIT, 10).await.unwrap_err().to_string();
    assert!(
        err.contains(
            "Offsets out of range with no configured reset policy for partitions: {r-0=3}"
        ),
        "{err}"
    );

    // A group without a committed offset starts as its reset says too.
    let mut fresh = join_with_reset(&topics, "fresh", Some("none")).await;
    assert!(matches!(event(fresh.as_mut()).await, ConsumerEvent::Assigned(_)));
    let err = fresh.next(WAIT, 10).await.unwrap_err().to_string();
    assert!(err.contains("Undefined offset with no configured reset policy"), "{err}");
    let oldest = [("auto.offset.reset".to_owned(), "oldest".to_owned())];
    let bad = topics.consumer("g", "c", &subscribe("r"), &oldest).await;
    assert!(bad.err().expect("refused").to_string().contains("oldest"));
}

#[tokio::test]
async fn topic_creation_configs_set_the_retention_and_bad_ones_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let topics = topics(&dir);
    let configs = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
    };
    let bad = NewTopic {
        name: "bad".into(),
        partitions: 1,
        replication_factor: -1,
        configs: configs(&[("cleanup.policy", "shred")]),
    };
    let err = topics.create_topic(&bad).await.unwrap_err().to_string();
    assert!(err.contains("cleanup.policy") && err.contains("shred"), "{err}");
    assert!(!topics.topic_exists("bad").await.unwrap());
    let sized = NewTopic {
        configs: configs(&[("retention.bytes", "0"), ("retention.ms", "-1")]),
        name: "sized".into(),
        ..bad
    };
    assert!(topics.create_topic(&sized).await.unwrap());
    let producer = topics.producer("p", &[]).unwrap();
    producer.send(vec![out("sized", None, Some("gone"))]).await.unwrap();
    assert_eq!(topics.backend().clean().await.unwrap().deleted, 1);
}
