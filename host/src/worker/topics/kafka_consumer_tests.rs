//! Tests of the Kafka consumer's batch path: every field of a record comes through its batch
//! queue as it was written, each record once, in offset order per partition, and a second
//! member's join hands partitions over without losing or reordering records. They need the
//! broker at `KAFKA_BOOTSTRAP` (`scripts/kafka.sh start`) and fail without it.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use super::{
    ConsumerEvent, DataTopics, Header, InRecord, KafkaClientSettings, KafkaTopics, NewTopic,
    OutRecord, RecordConsumer, Subscription,
};

fn topics() -> KafkaTopics {
    let bootstrap = std::env::var("KAFKA_BOOTSTRAP")
        .expect("KAFKA_BOOTSTRAP is not set: run `scripts/kafka.sh start`");
    let settings = KafkaClientSettings { bootstrap_servers: bootstrap, ..Default::default() };
    KafkaTopics::new(settings).unwrap()
}

async fn new_topic(topics: &KafkaTopics, tag: &str, partitions: i32) -> String {
    let nanos =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    let name = format!("consumer-batch-{tag}-{nanos}");
    let spec = NewTopic { name: name.clone(), partitions, replication_factor: 1, configs: vec![] };
    assert!(topics.create_topic(&spec).await.unwrap());
    name
}

/// Record `i` of `topic`: partition `i % 2`, a key but for every 7th, a null value for every
/// 11th, a timestamp, and headers on every 3rd (one with a null value).
fn record(topic: &str, i: usize) -> OutRecord {
    let headers = if i.is_multiple_of(3) {
        vec![
            Header { key: "h".into(), value: Some(format!("v{i}").into_bytes()) },
            Header { key: "null".into(), value: None },
        ]
    } else {
        Vec::new()
    };
    OutRecord {
        topic: topic.into(),
        partition: Some((i % 2) as i32),
        timestamp: Some(1_700_000_000_000 + i as i64),
        key: (!i.is_multiple_of(7)).then(|| format!("k{i}").into_bytes().into()),
        value: (!i.is_multiple_of(11)).then(|| format!("value-{i}").into_bytes().into()),
        headers,
    }
}

/// Reads until `want` records came.
async fn read(consumer: &mut Box<dyn RecordConsumer>, want: usize) -> Vec<InRecord> {
    let mut out = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    while out.len() < want {
        assert!(tokio::time::Instant::now() < deadline, "only {} of {want} records", out.len());
        if let Some(ConsumerEvent::Records(records)) =
            consumer.next(Duration::from_millis(200), 500).await.unwrap()
        {
            assert!(records.len() <= 500, "a batch of {}", records.len());
            out.extend(records);
        }
    }
    out
}

#[tokio::test]
async fn records_come_through_the_batch_queue_whole_once_and_in_order() {
    let topics = topics();
    let topic = new_topic(&topics, "fields", 2).await;
    let producer = topics.producer("consumer-batch-test", &[]).unwrap();
    let n = 5_000;
    let written = (0..n).map(|i| record(&topic, i)).collect::<Vec<_>>();
    producer.send(written.clone()).await.unwrap();

    let subscription = Subscription::Topics(vec![topic.clone()]);
    let mut consumer =
        topics.consumer(&format!("{topic}-group"), "c0", &subscription, &[]).await.unwrap();
    let read = read(&mut consumer, n).await;
    consumer.close().await;

    assert_eq!(read.len(), n, "each record once");
    let mut next: BTreeMap<i32, i64> = BTreeMap::new();
    for r in &read {
        let expected = next.entry(r.partition).or_insert(0);
        assert_eq!(r.offset, *expected, "offset order in partition {}", r.partition);
        *expected += 1;
        // Partition p's k-th record is record 2k + p.
        let w = &written[(r.offset * 2 + i64::from(r.partition)) as usize];
        assert_eq!(*r.topic, *topic);
        assert_eq!(r.key.as_deref(), w.key.as_deref());
        assert_eq!(r.value.as_deref(), w.value.as_deref());
        assert_eq!(r.headers, w.headers);
        assert_eq!(r.timestamp, w.timestamp);
    }
}

#[tokio::test]
async fn a_second_member_takes_partitions_over_without_loss_or_reordering() {
    let topics = topics();
    let topic = new_topic(&topics, "rebalance", 4).await;
    let producer = topics.producer("consumer-batch-test", &[]).unwrap();
    let n = 4_000;
    let records = |from: usize| {
        (from..from + n)
            .map(|i| OutRecord { partition: Some((i % 4) as i32), ..record(&topic, i) })
            .collect::<Vec<_>>()
    };
    producer.send(records(0)).await.unwrap();
    let subscription = Subscription::Topics(vec![topic.clone()]);
    let group = format!("{topic}-group");
    let mut first = topics.consumer(&group, "c0", &subscription, &[]).await.unwrap();
    let mut seen = read(&mut first, 1).await;
    // A second member joins; the first commits what it read when its partitions are revoked.
    let mut second = topics.consumer(&group, "c1", &subscription, &[]).await.unwrap();
    let mut produced = false;
    let mut others = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(90);
    let unique = |a: &[InRecord], b: &[InRecord]| {
        a.iter().chain(b).map(|r| (r.partition, r.offset)).collect::<BTreeSet<_>>()
    };
    while unique(&seen, &others).len() < 2 * n {
        assert!(tokio::time::Instant::now() < deadline, "only {}", seen.len() + others.len());
        match first.next(Duration::from_millis(100), 500).await.unwrap() {
            Some(ConsumerEvent::Records(r)) => seen.extend(r),
            Some(ConsumerEvent::Revoked(tps)) => {
                let offsets = tps
                    .iter()
                    .filter_map(|tp| {
                        let last = seen.iter().filter(|r| r.topic_partition() == *tp).last()?;
                        Some(crate::model::TopicPartitionOffset {
                            topic: tp.topic.clone(),
                            partition: tp.partition,
                            offset: last.offset + 1,
                        })
                    })
                    .collect();
                first.commit(offsets).await.unwrap();
                if !produced {
                    // The second half goes to the partitions as they are split.
                    producer.send(records(n)).await.unwrap();
                    produced = true;
                }
            }
            _ => {}
        }
        if let Some(ConsumerEvent::Records(r)) =
            second.next(Duration::from_millis(100), 500).await.unwrap()
        {
            others.extend(r);
        }
    }
    first.close().await;
    second.close().await;
    // Each member reads each of its partitions in order; together they read everything.
    for member in [&seen, &others] {
        let mut last: BTreeMap<i32, i64> = BTreeMap::new();
        for r in member.iter() {
            if let Some(prev) = last.insert(r.partition, r.offset) {
                assert!(r.offset > prev, "partition {} went {prev} -> {}", r.partition, r.offset);
            }
        }
    }
    assert!(!others.is_empty(), "the second member got partitions");
}
