//! Distributed mode: three workers as separate processes in one group on the real broker.
//! Balance, forwarding to the leader, restarts executed by the owner, failover after
//! `kill -9`, a rolling restart, 409 while a rebalance is pending, and a worker that loses
//! the broker.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{Value, json};

use crate::broker::PrivateBroker;
use crate::cluster::{Cluster, ClusterSettings, all_running};
use crate::harness::{bootstrap, shared_cache_dir};

pub(crate) fn settings(max_delay_ms: u64) -> ClusterSettings {
    ClusterSettings::new(bootstrap(), max_delay_ms, shared_cache_dir())
}

fn idle_source(tasks: u32) -> Value {
    json!({"connector.class": "ChaosSource", "tasks.max": tasks.to_string(), "chaos.mode": "ok", "batch.size": "0"})
}

/// `worker_id` (`host:port`) → the instances it runs, from a connector status.
fn placements(statuses: &[Value]) -> (BTreeMap<String, usize>, BTreeMap<String, usize>) {
    let mut connectors = BTreeMap::new();
    let mut tasks = BTreeMap::new();
    for s in statuses {
        *connectors.entry(s["connector"]["worker_id"].as_str().unwrap().to_owned()).or_default() +=
            1;
        for t in s["tasks"].as_array().unwrap() {
            *tasks.entry(t["worker_id"].as_str().unwrap().to_owned()).or_default() += 1;
        }
    }
    (connectors, tasks)
}

fn spread(counts: &BTreeMap<String, usize>, workers: usize) -> usize {
    let max = counts.values().copied().max().unwrap_or(0);
    let min = if counts.len() < workers { 0 } else { counts.values().copied().min().unwrap_or(0) };
    max - min
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_workers_share_connectors_and_tasks_evenly() {
    let cluster = Cluster::start(3, settings(3000)).await;
    for n in 0..6 {
        let (code, body) = cluster.create(n % 3, &format!("bal-{n}"), idle_source(2)).await;
        assert_eq!(code, 201, "{body}");
    }
    let mut statuses = Vec::new();
    for n in 0..6 {
        statuses.push(cluster.wait_running(0, &format!("bal-{n}"), 2, 90).await);
    }
    // Cooperative rounds may still be moving work: wait until the placement is balanced.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let (c, t) = placements(&statuses);
        if spread(&c, 3) <= 1 && spread(&t, 3) <= 1 && statuses.iter().all(|s| all_running(s, 2)) {
            assert_eq!(c.len(), 3, "every worker runs connectors: {c:?}");
            assert_eq!(t.values().sum::<usize>(), 12);
            break;
        }
        assert!(Instant::now() < deadline, "unbalanced: {c:?} {t:?}\n{}", cluster.logs());
        tokio::time::sleep(Duration::from_millis(500)).await;
        statuses.clear();
        for n in 0..6 {
            statuses.push(cluster.status(0, &format!("bal-{n}")).await);
        }
    }
    // Every worker answers with the same statuses.
    for i in 1..3 {
        for (n, expected) in statuses.iter().enumerate() {
            let name = format!("bal-{n}");
            let deadline = Instant::now() + Duration::from_secs(10);
            loop {
                let s = cluster.status(i, &name).await;
                if s == *expected {
                    break;
                }
                assert!(Instant::now() < deadline, "worker {i} sees {s}, worker 0 {expected}");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writes_through_any_worker_reach_the_leader_with_the_callers_credentials() {
    let mut s = settings(3000);
    s.credentials = Some("admin: secret\n");
    let cluster = Cluster::start(3, s).await;
    // At least two of the three are followers: their writes are forwarded, and the leader
    // checks the same credentials.
    for i in 0..3 {
        let (code, body) = cluster.create(i, &format!("fwd-{i}"), idle_source(1)).await;
        assert_eq!(code, 201, "create through worker {i}: {body}\n{}", cluster.logs());
        assert_eq!(body["name"], format!("fwd-{i}"));
    }
    for i in 0..3 {
        let (code, body) = cluster.create(i, "fwd-0", idle_source(1)).await;
        assert_eq!(code, 409, "{body}");
        assert_eq!(body["message"], "Connector fwd-0 already exists");
    }
    // A replace answers 200, a create through PUT 201, from any worker.
    let (code, _) = put_config(&cluster, 1, "fwd-0", idle_source(2)).await;
    assert_eq!(code, 200);
    let (code, _) = put_config(&cluster, 2, "fwd-put", idle_source(1)).await;
    assert_eq!(code, 201);
    cluster.wait_running(1, "fwd-0", 2, 60).await;
    let (code, _) = retry_409(&cluster, 2, Method::DELETE, "/connectors/fwd-1", None).await;
    assert_eq!(code, 204);
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let (_, list) = cluster.call(0, Method::GET, "/connectors", None).await;
        let names: BTreeSet<String> =
            list.as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_owned()).collect();
        if names == BTreeSet::from(["fwd-0".into(), "fwd-2".into(), "fwd-put".into()]) {
            break;
        }
        assert!(Instant::now() < deadline, "connectors: {names:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // Without credentials a follower does not forward: it refuses.
    let resp = reqwest::Client::new()
        .post(format!("{}/connectors", cluster.workers[1].url))
        .json(&json!({"name": "anon", "config": idle_source(1)}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 401);
}

async fn put_config(cluster: &Cluster, i: usize, name: &str, config: Value) -> (u16, Value) {
    retry_409(cluster, i, Method::PUT, &format!("/connectors/{name}/config"), Some(config)).await
}

/// A request retried while the answer is a rebalance 409.
async fn retry_409(
    cluster: &Cluster,
    i: usize,
    method: Method,
    path: &str,
    body: Option<Value>,
) -> (u16, Value) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let (code, v) = cluster.call(i, method.clone(), path, body.clone()).await;
        if code != 409 || Instant::now() > deadline {
            return (code, v);
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Worker index of a `host:port` worker id.
pub(crate) fn index_of(cluster: &Cluster, worker_id: &str) -> usize {
    cluster
        .workers
        .iter()
        .position(|w| worker_id.ends_with(&format!(":{}", w.port)))
        .unwrap_or_else(|| panic!("no worker {worker_id}"))
}

/// How many times worker `i` logged `what` for `connector` (and `task`).
fn count_log(cluster: &Cluster, i: usize, what: &str, connector: &str, task: Option<u32>) -> usize {
    cluster
        .log(i)
        .lines()
        .filter(|l| {
            l.contains(what)
                && l.contains(&format!("connector={connector}"))
                && task.is_none_or(|t| l.contains(&format!("task={t}")))
        })
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn restarts_run_on_the_worker_that_owns_the_instance() {
    let cluster = Cluster::start(3, settings(3000)).await;
    let mut config = idle_source(2);
    config["chaos.fail.tasks"] = json!("1");
    let (code, body) = cluster.create(0, "rst", config).await;
    assert_eq!(code, 201, "{body}");
    let s = eventually_status(&cluster, "rst", |s| {
        s["connector"]["state"] == "RUNNING"
            && s["tasks"][0]["state"] == "RUNNING"
            && s["tasks"][1]["state"] == "FAILED"
    })
    .await;
    let connector_owner = index_of(&cluster, s["connector"]["worker_id"].as_str().unwrap());
    let task_owner = index_of(&cluster, s["tasks"][1]["worker_id"].as_str().unwrap());

    // Case A (restart the connector instance) through every worker: the owner restarts it.
    for i in 0..3 {
        let before = count_log(&cluster, connector_owner, "Connector started", "rst", None);
        let (code, body) =
            retry_409(&cluster, i, Method::POST, "/connectors/rst/restart", None).await;
        assert_eq!(code, 204, "through worker {i}: {body}\n{}", cluster.logs());
        let after = count_log(&cluster, connector_owner, "Connector started", "rst", None);
        assert!(after > before, "worker {connector_owner} did not restart the connector");
    }
    for i in (0..3).filter(|i| *i != connector_owner) {
        assert_eq!(count_log(&cluster, i, "Connector started", "rst", None), 0, "worker {i}");
    }

    // Case B (failed tasks) through every worker: the same answer, and the owner of task 1
    // restarts it.
    let mut answers = Vec::new();
    for i in 0..3 {
        let started = count_log(&cluster, task_owner, "Starting task", "rst", Some(1));
        let failed = count_log(&cluster, task_owner, "Task failed", "rst", Some(1));
        let (code, body) = retry_409(
            &cluster,
            i,
            Method::POST,
            "/connectors/rst/restart?includeTasks=true&onlyFailed=true",
            None,
        )
        .await;
        assert_eq!(code, 202, "{body}");
        assert_eq!(body["tasks"][1]["state"], "RESTARTING", "{body}");
        assert_eq!(body["tasks"][0]["state"], "RUNNING", "{body}");
        answers.push(body["tasks"].as_array().unwrap().len());
        // The owner restarts it, and it fails again; every worker sees it FAILED before
        // the next request plans from its statuses.
        let deadline = Instant::now() + Duration::from_secs(30);
        while count_log(&cluster, task_owner, "Starting task", "rst", Some(1)) <= started
            || count_log(&cluster, task_owner, "Task failed", "rst", Some(1)) <= failed
        {
            assert!(Instant::now() < deadline, "worker {task_owner} did not restart task 1");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        for j in 0..3 {
            let deadline = Instant::now() + Duration::from_secs(30);
            while cluster.status(j, "rst").await["tasks"][1]["state"] != "FAILED" {
                assert!(Instant::now() < deadline, "worker {j} does not see task 1 FAILED");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
    assert_eq!(answers, [2, 2, 2]);
    for i in (0..3).filter(|i| *i != task_owner) {
        assert_eq!(count_log(&cluster, i, "Starting task", "rst", Some(1)), 0, "worker {i}");
    }

    // A task restart through a worker that does not own the task: as Kafka Connect, 204
    // (the task was started), and the task is FAILED with its start's trace.
    let other = (0..3).find(|i| *i != task_owner).unwrap();
    let failed = count_log(&cluster, task_owner, "Task failed", "rst", Some(1));
    let (code, body) =
        retry_409(&cluster, other, Method::POST, "/connectors/rst/tasks/1/restart", None).await;
    assert_eq!(code, 204, "a task that fails at start: {body}");
    assert!(count_log(&cluster, task_owner, "Task failed", "rst", Some(1)) > failed);
    let (code, status) =
        cluster.call(task_owner, Method::GET, "/connectors/rst/tasks/1/status", None).await;
    assert_eq!(code, 200, "{status}");
    assert_eq!(status["state"], "FAILED", "{status}");
    assert!(status["trace"].as_str().unwrap().contains("told to fail"), "{status}");
}

async fn eventually_status(cluster: &Cluster, name: &str, ok: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let s = cluster.status(0, name).await;
        if ok(&s) {
            return s;
        }
        assert!(Instant::now() < deadline, "{name}: {s}\n{}", cluster.logs());
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Appends numbered lines to `file`, `per_tick` every 20 ms, until `stop`.
pub(crate) fn write_lines(
    file: std::path::PathBuf,
    per_tick: usize,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
) -> std::thread::JoinHandle<usize> {
    std::thread::spawn(move || {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new().create(true).append(true).open(&file).unwrap();
        let mut n = 0;
        while !stop.load(std::sync::atomic::Ordering::SeqCst) {
            let mut chunk = String::new();
            for _ in 0..per_tick {
                chunk.push_str(&format!("{n}\n"));
                n += 1;
            }
            f.write_all(chunk.as_bytes()).unwrap();
            f.flush().unwrap();
            std::thread::sleep(Duration::from_millis(20));
        }
        n
    })
}

/// Reads `topic` from the start until every number below `count` has been seen (at least
/// once), or fails after `secs`.
fn expect_every_line(topic: &str, count: usize, secs: u64) {
    use rdkafka::ClientConfig;
    use rdkafka::Message;
    use rdkafka::consumer::{BaseConsumer, Consumer};
    let consumer: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", bootstrap())
        .set("group.id", format!("{topic}-check"))
        .set("auto.offset.reset", "earliest")
        .set("enable.auto.commit", "false")
        .create()
        .unwrap();
    consumer.subscribe(&[topic]).unwrap();
    let mut seen = vec![false; count];
    let mut missing = count;
    let deadline = Instant::now() + Duration::from_secs(secs);
    while missing > 0 {
        assert!(Instant::now() < deadline, "{missing} of {count} lines never reached {topic}");
        let Some(Ok(m)) = consumer.poll(Duration::from_millis(200)) else { continue };
        let Some(v) = m.payload() else { continue };
        let text = String::from_utf8_lossy(v);
        // The JSON converter quotes string values.
        if let Ok(n) = text.trim_matches('"').parse::<usize>()
            && n < count
            && !seen[n]
        {
            seen[n] = true;
            missing -= 1;
        }
    }
}

/// A FileStreamSource connector reading `input` into `topic`.
pub(crate) fn file_source(input: &std::path::Path, topic: &str) -> Value {
    json!({"connector.class": "FileStreamSource", "tasks.max": "1",
        "file": input.display().to_string(), "topic": topic})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_moves_work_after_the_delay_and_loses_no_record() {
    let mut cluster = Cluster::start(3, settings(3000)).await;
    let dir = tempfile::tempdir().unwrap();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    // Three sources under load, so that the killed worker runs at least one of them.
    let mut writers = Vec::new();
    let mut names = Vec::new();
    for n in 0..3 {
        let input = dir.path().join(format!("input-{n}.txt"));
        std::fs::write(&input, "").unwrap();
        let topic = format!("failover-{}-{n}", std::process::id());
        writers.push((topic.clone(), write_lines(input.clone(), 50, stop.clone())));
        let name = format!("fo-src-{n}");
        assert_eq!(cluster.create(n, &name, file_source(&input, &topic)).await.0, 201);
        names.push((name, 1));
    }
    for n in 0..3 {
        let name = format!("fo-idle-{n}");
        assert_eq!(cluster.create(1, &name, idle_source(2)).await.0, 201);
        names.push((name, 2));
    }
    let mut statuses = Vec::new();
    for (name, tasks) in &names {
        statuses.push(cluster.wait_running(0, name, *tasks, 90).await);
    }
    tokio::time::sleep(Duration::from_secs(2)).await;

    // Kill a follower (a new leader would have no memory of the departed worker's work,
    // and would reassign it at once) that runs a source task.
    let leader = cluster.leader().expect("a leader");
    let runs_source = |i: usize| {
        statuses[..3]
            .iter()
            .any(|s| index_of(&cluster, s["tasks"][0]["worker_id"].as_str().unwrap()) == i)
    };
    let victim = (0..3).filter(|i| *i != leader).max_by_key(|i| runs_source(*i)).unwrap();
    let victim_id = format!("127.0.0.1:{}", cluster.workers[victim].port);
    let survivor = (0..3).find(|i| *i != victim).unwrap();
    cluster.kill(victim);
    let killed = Instant::now();
    let deadline = killed + Duration::from_secs(90);
    loop {
        let mut moved = true;
        for (name, tasks) in &names {
            let s = cluster.status(survivor, name).await;
            let here = |v: &Value| v["worker_id"] != victim_id.as_str();
            moved &= all_running(&s, *tasks)
                && here(&s["connector"])
                && s["tasks"].as_array().unwrap().iter().all(here);
        }
        if moved {
            break;
        }
        assert!(Instant::now() < deadline, "work did not move\n{}", cluster.logs());
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    eprintln!("kill -9 to RUNNING elsewhere: {:?}", killed.elapsed());
    // The survivors held the departed worker's work back for the delay first.
    let held = (0..3).filter(|i| *i != victim).any(|i| {
        cluster
            .log(i)
            .lines()
            .any(|l| l.contains("Rebalance completed") && !l.contains("delay_ms=0"))
    });
    assert!(held, "no rebalance carried a delay\n{}", cluster.logs());
    tokio::time::sleep(Duration::from_secs(2)).await;
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    for (topic, writer) in writers {
        let written = writer.join().unwrap();
        tokio::task::spawn_blocking(move || expect_every_line(&topic, written, 120)).await.unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rolling_restart_loses_no_config_and_no_record() {
    let mut cluster = Cluster::start(3, settings(2000)).await;
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("input.txt");
    std::fs::write(&input, "").unwrap();
    let topic = format!("rolling-{}", std::process::id());
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writer = write_lines(input.clone(), 20, stop.clone());
    assert_eq!(cluster.create(0, "roll-src", file_source(&input, &topic)).await.0, 201);
    for n in 0..3 {
        assert_eq!(cluster.create(2, &format!("roll-idle-{n}"), idle_source(2)).await.0, 201);
    }
    for i in 0..3 {
        cluster.stop(i).await;
        cluster.restart(i).await;
        let other = (i + 1) % 3;
        cluster.wait_running(other, "roll-src", 1, 90).await;
        for n in 0..3 {
            cluster.wait_running(other, &format!("roll-idle-{n}"), 2, 90).await;
        }
    }
    for i in 0..3 {
        let (_, list) = cluster.call(i, Method::GET, "/connectors", None).await;
        assert_eq!(list.as_array().unwrap().len(), 4, "worker {i}: {list}");
        let (_, cfg) = cluster.call(i, Method::GET, "/connectors/roll-src/config", None).await;
        assert_eq!(cfg["topic"], topic.as_str(), "worker {i}");
    }
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    let written = writer.join().unwrap();
    let t = topic.clone();
    tokio::task::spawn_blocking(move || expect_every_line(&t, written, 120)).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_get_409_while_a_rebalance_is_pending() {
    let mut s = settings(3000);
    // Long enough that a frozen worker holds the rebalance up well past the 5 s a request
    // waits for it.
    s.session_timeout_ms = 30000;
    let mut cluster = Cluster::start(2, s).await;
    assert_eq!(cluster.create(0, "pend-a", idle_source(1)).await.0, 201);
    cluster.wait_running(1, "pend-a", 1, 60).await;
    cluster.freeze(1, true);
    // A new worker joins: the rebalance waits for the frozen one.
    let added = cluster.add_worker().await;
    tokio::time::sleep(Duration::from_secs(3)).await;
    let stale = "Cannot complete request momentarily due to stale configuration (typically caused by a concurrent config change)";
    let no_leader = "Cannot complete request momentarily due to no known leader URL, likely because a rebalance was underway.";
    for i in [0, added] {
        let body = json!({"name": format!("pend-{i}"), "config": idle_source(1)});
        let (code, v) = cluster.call(i, Method::POST, "/connectors", Some(body)).await;
        assert_eq!(code, 409, "worker {i}: {v}\n{}", cluster.logs());
        let message = v["message"].as_str().unwrap();
        assert!(message == stale || message == no_leader, "worker {i}: {message}");
    }
    let (code, v) = cluster.call(0, Method::GET, "/connectors/pend-a", None).await;
    assert_eq!(code, 409, "{v}");
    // Reads that need no settled assignment still answer.
    let (code, _) = cluster.call(0, Method::GET, "/connectors", None).await;
    assert_eq!(code, 200);
    cluster.freeze(1, false);
    // Once the group has settled, the same write succeeds.
    assert_eq!(cluster.create(added, "pend-b", idle_source(1)).await.0, 201);
    cluster.wait_running(0, "pend-b", 1, 90).await;
}

/// `heartbeat.interval.ms` of the test cluster (`cluster.rs`).
const HEARTBEAT: Duration = Duration::from_millis(1000);

/// Whether worker `i` shows any instance of `name` RUNNING on itself.
fn runs_here(cluster: &Cluster, i: usize, status: &Value) -> bool {
    let here = format!(":{}", cluster.workers[i].port);
    status["tasks"]
        .as_array()
        .into_iter()
        .flatten()
        .chain(std::iter::once(&status["connector"]))
        .any(|t| t["state"] == "RUNNING" && t["worker_id"].as_str().unwrap_or("").ends_with(&here))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_that_loses_the_broker_stops_its_tasks_and_keeps_answering() {
    let broker = PrivateBroker::start(19392);
    let mut s = settings(1000);
    s.bootstrap = format!("127.0.0.1:{}", broker.port);
    let cluster = Cluster::start(2, s).await;
    assert_eq!(cluster.create(0, "lost", idle_source(4)).await.0, 201);
    cluster.wait_running(0, "lost", 4, 90).await;
    let leader = cluster.leader().expect("a leader");
    broker.kafka(&["stop", "--keep-data"]);
    // A config write through the leader is under way while the broker is down: it fails on
    // its own (500 once the store gives up, or 409 once the worker knows no leader)...
    let client = reqwest::Client::new();
    let put = tokio::spawn({
        let url = format!("{}/connectors/z/config", cluster.workers[leader].url);
        let client = client.clone();
        async move { client.put(url).json(&idle_source(1)).send().await.map(|r| r.status().as_u16()) }
    });
    // ...and meanwhile every read is answered within a second.
    for _ in 0..10 {
        let url = format!("{}/connectors", cluster.workers[leader].url);
        let answer = client.get(url).timeout(Duration::from_secs(1)).send().await;
        let answer = answer.unwrap_or_else(|e| panic!("GET /connectors during the outage: {e}"));
        assert_eq!(answer.status().as_u16(), 200);
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    // Each worker stops what it runs within a heartbeat (plus a second) of losing its
    // group: its own view of the statuses shows nothing RUNNING here.
    for i in 0..2 {
        let deadline = Instant::now() + Duration::from_secs(60);
        let lost_at = loop {
            if cluster.log(i).contains("Lost group membership") {
                break Instant::now();
            }
            assert!(
                Instant::now() < deadline,
                "worker {i} never lost its group\n{}",
                cluster.logs()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        loop {
            let status = cluster.status(i, "lost").await;
            if !runs_here(&cluster, i, &status) {
                break;
            }
            assert!(
                lost_at.elapsed() <= HEARTBEAT + Duration::from_secs(1),
                "worker {i} still runs work {:?} after losing its group: {status}\n{}",
                lost_at.elapsed(),
                cluster.logs()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    let status = put.await.unwrap().expect("the write is answered");
    assert!(status == 500 || status == 409, "a write during the outage got {status}");
    broker.kafka(&["start"]);
    cluster.wait_running(0, "lost", 4, 120).await;
}
