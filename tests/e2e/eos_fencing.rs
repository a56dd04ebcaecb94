//! Zombie fencing (KIP-618) on a real broker, as Kafka Connect's
//! `ExactlyOnceSourceIntegrationTest.testConnectorReconfiguration` proves it: three workers
//! with `exactly.once.source.support=enabled` run a source whose tasks each number their
//! records, while its `tasks.max` goes 3 → 5 → 1 → 3. Before each change, the test starts
//! a producer with every current task's `transactional.id` (which fences the running tasks:
//! each must fail with a trace that says so). Once the next generation runs, each of those
//! producers must be fenced in turn: the leader fenced every id of the previous task count
//! before the new tasks started, ids that no longer run included. At the end a
//! `read_committed` reader sees every task's sequence exactly once, with no gap.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use rdkafka::ClientConfig;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::producer::{BaseRecord, DefaultProducerContext, Producer, ThreadedProducer};
use rdkafka::{Message, Offset, TopicPartitionList};
use reqwest::Method;
use serde_json::json;

use crate::cluster::Cluster;
use crate::distributed::settings;
use crate::failover::unique;
use crate::harness::bootstrap;

const CONNECTOR: &str = "numbered";

type Zombie = ThreadedProducer<DefaultProducerContext>;

/// A producer with `transactional.id` `id`, its transactions initialised: the task that
/// had the id is fenced out now.
fn zombie(id: &str) -> Zombie {
    let producer: Zombie = ClientConfig::new()
        .set("bootstrap.servers", bootstrap())
        .set("transactional.id", id)
        .set("transaction.timeout.ms", "60000")
        .create()
        .unwrap();
    producer.init_transactions(Duration::from_secs(60)).unwrap();
    producer
}

/// What one transaction of `zombie` gives: an error once it is fenced.
fn try_commit(zombie: &Zombie, topic: &str) -> Result<(), KafkaError> {
    zombie.begin_transaction()?;
    zombie
        .send(BaseRecord::<str, str>::to(topic).key("zombie").payload("zombie"))
        .map_err(|(e, _)| e)?;
    zombie.commit_transaction(Duration::from_secs(60))
}

/// Every key of `topic`, read to its end with `isolation.level=read_committed`.
fn committed_keys(topic: &str) -> Vec<String> {
    let consumer: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", bootstrap())
        .set("group.id", format!("{topic}-check"))
        .set("enable.auto.commit", "false")
        .set("isolation.level", "read_committed")
        .create()
        .unwrap();
    let metadata = consumer.fetch_metadata(Some(topic), Duration::from_secs(10)).unwrap();
    let partitions = metadata.topics()[0].partitions().len() as i32;
    let mut assignment = TopicPartitionList::new();
    let mut ends = BTreeMap::new();
    for p in 0..partitions {
        assignment.add_partition_offset(topic, p, Offset::Beginning).unwrap();
        ends.insert(p, consumer.fetch_watermarks(topic, p, Duration::from_secs(10)).unwrap().1);
    }
    consumer.assign(&assignment).unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut keys = Vec::new();
    loop {
        if let Some(message) = consumer.poll(Duration::from_millis(200)) {
            let message = message.unwrap();
            keys.push(String::from_utf8_lossy(message.key().unwrap_or_default()).into_owned());
        }
        // The position passes the transaction markers a read_committed reader never sees.
        let done = consumer.position().unwrap().elements().iter().all(|e| match e.offset() {
            Offset::Offset(o) => o >= ends[&e.partition()],
            _ => ends[&e.partition()] == 0,
        });
        if done {
            return keys;
        }
        assert!(Instant::now() < deadline, "{topic} not read to its end");
    }
}

/// The states of the connector's tasks and their traces, as worker 0 sees them.
async fn tasks(cluster: &Cluster) -> Vec<(String, String)> {
    let status = cluster.status(0, CONNECTOR).await;
    status["tasks"]
        .as_array()
        .map(|tasks| {
            tasks
                .iter()
                .map(|t| {
                    let state = t["state"].as_str().unwrap_or_default().to_owned();
                    (state, t["trace"].as_str().unwrap_or_default().to_owned())
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Waits until the connector and `count` tasks are RUNNING; the failure shows what each
/// worker logged about them.
async fn wait_running(cluster: &Cluster, count: usize) {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let status = cluster.status(0, CONNECTOR).await;
        if crate::cluster::all_running(&status, count) {
            return;
        }
        if Instant::now() > deadline {
            let mut logs = String::new();
            for i in 0..cluster.workers.len() {
                logs.push_str(&format!("---- worker {i} ({}) ----\n", cluster.workers[i].url));
                for line in cluster.log(i).lines().filter(|l| {
                    (l.contains(CONNECTOR) || l.contains("ebalance") || l.contains("ence"))
                        && !l.contains("rest: Request")
                }) {
                    logs.push_str(line);
                    logs.push('\n');
                }
            }
            panic!("{CONNECTOR} not RUNNING with {count} tasks: {status}\n{logs}");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_previous_task_producer_is_fenced_when_tasks_max_changes() {
    let mut settings = settings(1000);
    settings.extra.push_str("exactly.once.source.support=enabled\n");
    let cluster = Cluster::start(3, settings).await;
    let topic = unique("fenced");
    let config = |tasks: usize| {
        json!({"connector.class": "ChaosSource", "tasks.max": tasks.to_string(),
            "topic": topic, "chaos.mode": "ok", "batch.size": "5",
            "chaos.partition.per.task": "true", "chaos.exactly.once.support": "supported",
            "exactly.once.support": "required"})
    };
    let (code, body) = cluster.create(1, CONNECTOR, config(3)).await;
    assert_eq!(code, 201, "{body}");
    wait_running(&cluster, 3).await;

    let mut current: usize = 3;
    for next in [5usize, 1, 3] {
        tokio::time::sleep(Duration::from_secs(2)).await;
        let ids: Vec<String> =
            (0..current).map(|t| format!("{}-{CONNECTOR}-{t}", cluster.group_id())).collect();
        let zombies: Vec<Zombie> =
            tokio::task::block_in_place(|| ids.iter().map(|id| zombie(id)).collect());
        // The running tasks lost their ids: each fails at its next commit, and says why.
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            let tasks = tasks(&cluster).await;
            if tasks.len() == current && tasks.iter().all(|(state, _)| state == "FAILED") {
                for (_, trace) in &tasks {
                    let said = trace.to_lowercase().contains("fence");
                    assert!(said, "a fenced task's trace does not say so: {trace}");
                }
                break;
            }
            assert!(Instant::now() < deadline, "the fenced tasks never failed: {tasks:?}");
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        let path = format!("/connectors/{CONNECTOR}/config");
        let (code, body) = cluster.call(2, Method::PUT, &path, Some(config(next))).await;
        assert_eq!(code, 200, "{body}");
        wait_running(&cluster, next).await;
        // The new generation runs: the leader fenced every id of the previous one first.
        for (id, zombie) in ids.iter().zip(&zombies) {
            let result = tokio::task::block_in_place(|| try_commit(zombie, &topic));
            let code = result.as_ref().err().and_then(KafkaError::rdkafka_error_code);
            let fenced =
                matches!(code, Some(RDKafkaErrorCode::Fenced | RDKafkaErrorCode::ProducerFenced));
            assert!(fenced, "the producer of {id} was not fenced out: {result:?}");
        }
        current = next;
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    let (code, body) =
        cluster.call(0, Method::PUT, &format!("/connectors/{CONNECTOR}/stop"), None).await;
    assert_eq!(code, 204, "{body}");
    // Stopped: no task is left, each having committed its last transaction.
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let status = cluster.status(0, CONNECTOR).await;
        if status["connector"]["state"] == "STOPPED"
            && status["tasks"].as_array().is_some_and(Vec::is_empty)
        {
            break;
        }
        assert!(Instant::now() < deadline, "{CONNECTOR} never stopped: {status}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }

    let keys = tokio::task::block_in_place(|| committed_keys(&topic));
    let mut by_task: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    for key in &keys {
        assert_ne!(key, "zombie", "a fenced producer's record was committed");
        let (task, n) = key.split_once('-').unwrap_or_else(|| panic!("key {key:?}"));
        by_task.entry(task.to_owned()).or_default().push(n.parse().unwrap());
    }
    assert_eq!(by_task.len(), 5, "tasks 0..4 all produced: {:?}", by_task.keys());
    for (task, mut seqs) in by_task {
        let n = seqs.len();
        seqs.sort_unstable();
        seqs.dedup();
        assert_eq!(seqs.len(), n, "task {task}: {} records repeated", n - seqs.len());
        assert_eq!(seqs.last().copied(), Some(n as u64 - 1), "task {task}: a gap in 0..{n}");
    }
}
