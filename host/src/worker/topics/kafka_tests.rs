//! Tests of the shared Kafka producer: which tasks share one, and that sharing keeps each
//! task's acknowledgements and failures its own. The broker tests need the broker at
//! `KAFKA_BOOTSTRAP` (`scripts/kafka.sh start`) and fail without it.

use std::sync::Arc;
use std::time::Duration;

use super::{
    DataTopics, KafkaClientSettings, KafkaTopics, NewTopic, OutRecord, RecordProducer, SendFuture,
    TopicError,
};

/// The shared test broker's address, or a failure saying how to start one.
fn bootstrap() -> String {
    match std::env::var("KAFKA_BOOTSTRAP") {
        Ok(servers) if !servers.trim().is_empty() => servers,
        _ => panic!(
            "KAFKA_BOOTSTRAP is not set: the shared producer tests need a broker. Run \
             `scripts/kafka.sh start` and set KAFKA_BOOTSTRAP=127.0.0.1:9092."
        ),
    }
}

fn topics(bootstrap: &str) -> KafkaTopics {
    let settings =
        KafkaClientSettings { bootstrap_servers: bootstrap.to_owned(), ..Default::default() };
    KafkaTopics::new(settings).unwrap()
}

fn same(a: &Arc<dyn RecordProducer>, b: &Arc<dyn RecordProducer>) -> bool {
    std::ptr::addr_eq(Arc::as_ptr(a), Arc::as_ptr(b))
}

fn overrides(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

fn record(topic: &str, value: &str, partition: Option<i32>) -> OutRecord {
    OutRecord {
        topic: topic.into(),
        partition,
        value: Some(value.as_bytes().to_vec().into()),
        ..Default::default()
    }
}

async fn outcome(send: SendFuture) -> Result<Vec<super::Delivered>, TopicError> {
    tokio::time::timeout(Duration::from_secs(60), send).await.expect("the write ends")
}

async fn new_topic(topics: &KafkaTopics, tag: &str) -> String {
    let nanos =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    let name = format!("shared-producer-{tag}-{nanos}");
    let spec =
        NewTopic { name: name.clone(), partitions: 1, replication_factor: 1, configs: vec![] };
    assert!(topics.create_topic(&spec).await.unwrap());
    name
}

#[test]
fn tasks_with_the_same_client_settings_share_one_producer() {
    // Creating clients does not connect: no broker needed.
    let topics = topics("127.0.0.1:1");
    let a = topics.producer("connector-producer-a-0", &[]).unwrap();
    let b = topics.producer("connector-producer-b-3", &[]).unwrap();
    assert!(same(&a, &b), "the same settings share a producer");
    let linger = overrides(&[("linger.ms", "50")]);
    let c = topics.producer("connector-producer-c-0", &linger).unwrap();
    let d = topics.producer("connector-producer-c-1", &linger).unwrap();
    assert!(!same(&a, &c), "a producer.override.* key gets a producer of its own config");
    assert!(same(&c, &d), "tasks with the same overrides share theirs");
    let named = topics.producer("x", &overrides(&[("client.id", "mine")])).unwrap();
    assert!(!same(&a, &named));
    // Once every task let go, the next task gets a fresh producer.
    drop((a, b));
    let e = topics.producer("connector-producer-e-0", &[]).unwrap();
    assert!(!same(&e, &c));
}

#[tokio::test]
async fn each_task_gets_its_own_acknowledgements_and_failures() {
    let topics = topics(&bootstrap());
    let topic = new_topic(&topics, "acks").await;
    let a = topics.producer("connector-producer-a-0", &[]).unwrap();
    let b = topics.producer("connector-producer-b-0", &[]).unwrap();
    assert!(same(&a, &b));
    // Queued one after the other, awaited in the opposite order.
    let first_a = a.send((0..3).map(|i| record(&topic, &format!("a{i}"), None)).collect());
    let failing_b = b.send(vec![record(&topic, "b0", None), record(&topic, "b-bad", Some(7))]);
    let second_a = a.send((3..5).map(|i| record(&topic, &format!("a{i}"), None)).collect());
    let good_b = b.send(vec![record(&topic, "b1", None)]);

    let second = outcome(second_a).await.expect("task a's second write");
    let first = outcome(first_a).await.expect("task a's first write");
    let err = outcome(failing_b).await.expect_err("task b's bad record fails its write");
    assert!(err.to_string().contains(&topic), "{err}");
    let good = outcome(good_b).await.expect("task b's next write is unaffected");

    // Each write gets the positions of its own records, in its order.
    assert_eq!((first.len(), second.len(), good.len()), (3, 2, 1));
    let offsets: Vec<i64> = first.iter().chain(&second).map(|d| d.offset).collect();
    assert!(offsets.windows(2).all(|w| w[0] < w[1]), "{offsets:?}");
    assert!(first.iter().chain(&second).chain(&good).all(|d| d.partition == 0));
    assert!(!offsets.contains(&good[0].offset));
}

#[tokio::test]
async fn a_stopped_task_leaves_the_shared_producer_to_the_others() {
    let topics = topics(&bootstrap());
    let topic = new_topic(&topics, "stop").await;
    let a = topics.producer("connector-producer-a-0", &[]).unwrap();
    let b = topics.producer("connector-producer-b-0", &[]).unwrap();
    outcome(a.send(vec![record(&topic, "a0", None)])).await.unwrap();
    let pending = b.send((0..100).map(|i| record(&topic, &format!("b{i}"), None)).collect());
    drop(a);
    let written = outcome(pending).await.expect("b's write survives a's stop");
    assert_eq!(written.len(), 100);
    let again = outcome(b.send(vec![record(&topic, "b-last", None)])).await.unwrap();
    assert_eq!(again[0].offset, written[99].offset + 1);
    let c = topics.producer("connector-producer-c-0", &[]).unwrap();
    assert!(same(&b, &c), "the producer lives on while a task holds it");
}
