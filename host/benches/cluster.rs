//! Distributed-mode benchmark: three `wasm-connect distributed` processes on loopback in one
//! group on the broker at `KAFKA_BOOTSTRAP`, 100 connectors (one task each). Measures, over
//! REST, the time until everything runs after the connectors are created, the rebalance
//! when a fourth worker joins and when it leaves gracefully, and the time from `kill -9` of
//! a worker to all of its connectors and tasks RUNNING elsewhere, without and with a delay
//! for departed workers (`scheduled.rebalance.max.delay.ms`). Prints a Markdown table.
//!
//! Run with `cargo bench --bench cluster` after `scripts/build-guests.sh`, with the broker
//! from `scripts/kafka.sh start` and `KAFKA_BOOTSTRAP=127.0.0.1:9092`.

#[path = "../../tests/e2e/cluster.rs"]
#[allow(dead_code)]
mod cluster;
#[path = "../../tests/e2e/panics.rs"]
mod panics;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use cluster::{Cluster, ClusterSettings};
use serde_json::{Value, json};

const CONNECTORS: usize = 100;

/// Every connector's status, from worker `i` (`expand=status`).
async fn statuses(cluster: &Cluster, i: usize) -> Vec<Value> {
    let (_, v) = cluster.call(i, reqwest::Method::GET, "/connectors?expand=status", None).await;
    v.as_object().map(|m| m.values().map(|s| s["status"].clone()).collect()).unwrap_or_default()
}

/// `worker_id` → instances (connectors and tasks) RUNNING there; `None` unless all
/// `CONNECTORS` connectors and their task run.
async fn placement(cluster: &Cluster, i: usize) -> Option<BTreeMap<String, usize>> {
    let all = statuses(cluster, i).await;
    if all.len() != CONNECTORS || !all.iter().all(|s| cluster::all_running(s, 1)) {
        return None;
    }
    let mut by_worker = BTreeMap::new();
    for s in &all {
        for v in std::iter::once(&s["connector"]).chain(s["tasks"].as_array().unwrap()) {
            *by_worker.entry(v["worker_id"].as_str().unwrap().to_owned()).or_insert(0) += 1;
        }
    }
    Some(by_worker)
}

/// Waits until `ok` holds for the placement seen by worker `i`; returns the time taken.
async fn settle(
    cluster: &Cluster,
    i: usize,
    ok: impl Fn(&BTreeMap<String, usize>) -> bool,
) -> Duration {
    let start = Instant::now();
    loop {
        if placement(cluster, i).await.is_some_and(|p| ok(&p)) {
            return start.elapsed();
        }
        assert!(
            start.elapsed() < Duration::from_secs(300),
            "the cluster did not settle\n{}",
            cluster.logs()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn worker_id(cluster: &Cluster, i: usize) -> String {
    format!("127.0.0.1:{}", cluster.workers[i].port)
}

/// Creates the connectors (idle sources, one task each) round-robin through the workers.
async fn create_all(cluster: &Cluster) {
    for n in 0..CONNECTORS {
        let config = json!({"connector.class": "ChaosSource", "tasks.max": "1",
            "chaos.mode": "ok", "batch.size": "0"});
        let (code, body) = cluster.create(n % 3, &format!("bench-{n}"), config).await;
        assert_eq!(code, 201, "{body}");
    }
}

/// Kills a follower with `kill -9`; returns the time until all of its work runs elsewhere.
async fn kill_follower(cluster: &mut Cluster) -> Duration {
    let victim = (0..3).find(|i| Some(*i) != cluster.leader()).unwrap();
    let victim_id = worker_id(cluster, victim);
    let survivor = (0..3).find(|i| *i != victim).unwrap();
    let killed = Instant::now();
    cluster.kill(victim);
    settle(cluster, survivor, |p| !p.contains_key(&victim_id)).await;
    killed.elapsed()
}

#[tokio::main]
async fn main() {
    let bootstrap = std::env::var("KAFKA_BOOTSTRAP")
        .expect("KAFKA_BOOTSTRAP is not set: run scripts/kafka.sh start first");
    let cache = tempfile::tempdir().unwrap();
    // No delay for departed workers: the times below are the group's own; a configured
    // `scheduled.rebalance.max.delay.ms` adds to the kill -9 time.
    let settings = ClusterSettings::new(bootstrap.clone(), 0, cache.path().to_path_buf());
    let mut cluster = Cluster::start(3, settings).await;
    let mut rows = Vec::new();

    let start = Instant::now();
    create_all(&cluster).await;
    let created = start.elapsed();
    settle(&cluster, 0, |p| p.len() == 3).await;
    rows.push(("create 100 connectors through 3 workers (until each answered 201)", created));
    rows.push(("… until all 200 instances RUNNING", start.elapsed()));

    let joined = Instant::now();
    let fourth = cluster.add_worker().await;
    let id = worker_id(&cluster, fourth);
    settle(&cluster, 0, |p| p.get(&id).is_some_and(|n| *n >= 2 * CONNECTORS / 4 - 1)).await;
    rows.push(("a 4th worker joins: start to its share RUNNING", joined.elapsed()));

    let left = Instant::now();
    cluster.stop(fourth).await;
    settle(&cluster, 0, |p| !p.contains_key(&id)).await;
    rows.push(("the 4th worker leaves (SIGTERM): to all RUNNING on 3", left.elapsed()));

    let killed = kill_follower(&mut cluster).await;
    rows.push(("kill -9 of a follower: to all its work RUNNING elsewhere (session 6 s)", killed));
    drop(cluster);

    // The same with a hold on a departed worker's work, as Kafka Connect has (5 minutes by
    // default), shortened to 3 s.
    let settings = ClusterSettings::new(bootstrap, 3000, cache.path().to_path_buf());
    let mut cluster = Cluster::start(3, settings).await;
    create_all(&cluster).await;
    settle(&cluster, 0, |p| p.len() == 3).await;
    let killed = kill_follower(&mut cluster).await;
    rows.push(("… with scheduled.rebalance.max.delay.ms = 3000", killed));

    println!("| 3 workers, {CONNECTORS} connectors × 1 task | time |");
    println!("|---|---|");
    for (what, d) in rows {
        println!("| {what} | {:.2} s |", d.as_secs_f64());
    }
}
