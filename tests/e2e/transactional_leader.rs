//! The transactional leader (KIP-618, `exactly.once.source.support=preparing`) on the real
//! broker: the leader writes the config topic in transactions of its producer with
//! `transactional.id` `connect-cluster-<group.id>` (the commit markers take offsets that
//! no record has), and a newer producer with that id fences it: the next write fails with
//! Kafka Connect's message, and a retry succeeds once the leader has claimed again.

use std::collections::BTreeMap;
use std::time::Duration;

use reqwest::Method;
use serde_json::json;

use crate::cluster::Cluster;
use crate::distributed::{file_source, settings};
use crate::failover::unique;
use crate::harness::{bootstrap, eventually};

/// Kafka Connect's answer when a privileged write fails.
const PRIVILEGED_WRITE_FAILED: &str = "Failed to write to config topic; this may be due to a \
     transient error and the request can be safely retried";

/// Every record of the single-partition `topic` read with `isolation`: offset → key, and
/// the high watermark.
fn records(topic: &str, isolation: &str) -> (BTreeMap<i64, String>, i64) {
    use rdkafka::consumer::{BaseConsumer, Consumer};
    use rdkafka::{ClientConfig, Message, Offset, TopicPartitionList};
    let consumer: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", bootstrap())
        .set("group.id", unique("config-check"))
        .set("enable.auto.commit", "false")
        .set("isolation.level", isolation)
        .create()
        .unwrap();
    let (_, high) = consumer.fetch_watermarks(topic, 0, Duration::from_secs(10)).unwrap();
    let mut assignment = TopicPartitionList::new();
    assignment.add_partition_offset(topic, 0, Offset::Beginning).unwrap();
    consumer.assign(&assignment).unwrap();
    let mut out = BTreeMap::new();
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let position = match consumer.position().unwrap().elements().first().map(|e| e.offset()) {
            Some(Offset::Offset(p)) => p,
            _ => 0,
        };
        if position >= high {
            return (out, high);
        }
        assert!(std::time::Instant::now() < deadline, "{topic} not read to {high}");
        let Some(Ok(m)) = consumer.poll(Duration::from_millis(200)) else { continue };
        let key = String::from_utf8_lossy(m.key().unwrap_or_default()).into_owned();
        out.insert(m.offset(), key);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_leader_writes_the_config_topic_in_transactions_and_is_fenced_by_a_newer_one() {
    let mut s = settings(1000);
    s.extra.push_str("exactly.once.source.support=preparing\n");
    let cluster = Cluster::start(1, s).await;
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.txt");
    std::fs::write(&input, "a\n").unwrap();
    let (code, body) = cluster.create(0, "txn", file_source(&input, &unique("txn-data"))).await;
    assert_eq!(code, 201, "{body}");
    cluster.wait_running(0, "txn", 1, 120).await;

    // The connector's records and its task configs are in committed transactions: after
    // each transaction's last record comes an offset no record has (its commit marker).
    let topic = cluster.internal_topic("configs");
    let (all, high) = tokio::task::block_in_place(|| records(&topic, "read_uncommitted"));
    let (committed, _) = tokio::task::block_in_place(|| records(&topic, "read_committed"));
    for key in ["connector-txn", "task-txn-0", "commit-txn"] {
        let (&at, _) =
            all.iter().find(|(_, k)| *k == key).unwrap_or_else(|| panic!("{key}: {all:?}"));
        assert!(committed.get(&at).is_some_and(|k| k == key), "{key} committed: {committed:?}");
        let mut end = at;
        while all.contains_key(&end) {
            end += 1;
        }
        assert!(end < high, "{key} at {at}: no marker after its transaction ({all:?}, end {high})");
    }

    // A newer producer with the leader's transactional id fences the leader's: the next
    // privileged write fails with Kafka Connect's message, a retry succeeds.
    let id = format!("connect-cluster-{}", cluster.group_id());
    tokio::task::block_in_place(|| {
        use rdkafka::ClientConfig;
        use rdkafka::producer::{BaseProducer, Producer};
        let zombie: BaseProducer = ClientConfig::new()
            .set("bootstrap.servers", bootstrap())
            .set("transactional.id", &id)
            .create()
            .unwrap();
        zombie.init_transactions(Duration::from_secs(60)).unwrap();
    });
    let config = file_source(&input, &unique("txn-data-2"));
    let put = async || {
        cluster.call(0, Method::PUT, "/connectors/txn-2/config", Some(config.clone())).await
    };
    let (code, body) = put().await;
    assert_eq!((code, &body["message"]), (500, &json!(PRIVILEGED_WRITE_FAILED)), "{body}");
    let (code, body) = eventually(60, "a retried write", async || {
        let (code, body) = put().await;
        (code != 500).then_some((code, body))
    })
    .await;
    assert_eq!(code, 201, "{body}");
    cluster.wait_running(0, "txn-2", 1, 120).await;
}
