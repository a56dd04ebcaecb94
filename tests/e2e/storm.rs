//! A status storm (issue 16), as a bounded load test on loopback: one standalone worker
//! process with 1,000 connectors (created STOPPED, so nothing runs) answers 1,000
//! concurrent `GET /connectors?expand=status` in full within a 30 s client timeout, and
//! its resident memory comes back within 100 MiB of where it was before the storm.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde::de::IgnoredAny;
use serde_json::{Value, json};
use tokio::sync::Semaphore;
use tokio::task::JoinSet;

use crate::harness::eventually;
use crate::standalone::Worker;

const CONNECTORS: usize = 1000;
const REQUESTS: usize = 1000;
/// Every request of the storm must be answered within this, body included.
const CLIENT_TIMEOUT: Duration = Duration::from_secs(30);
/// How far above its starting point the worker's memory may stay after the storm.
const RSS_SLACK: u64 = 100 << 20;
/// How long the worker has to give memory back once the storm is over.
const SETTLE: Duration = Duration::from_secs(10);
/// Concurrent creates (each validates its config against the plugin).
const CREATING: usize = 8;

/// The resident set size of process `pid`, in bytes (`VmRSS` of `/proc/PID/status`).
fn rss(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("a live worker");
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).expect("a VmRSS line");
    let kib: u64 = line.split_whitespace().nth(1).and_then(|v| v.parse().ok()).expect("kB");
    kib << 10
}

fn mib(bytes: u64) -> u64 {
    bytes >> 20
}

/// Samples the RSS of `pid` every 10 ms until stopped; returns the highest seen.
fn sample_peak(pid: u32) -> (Arc<AtomicBool>, std::thread::JoinHandle<u64>) {
    let stop = Arc::new(AtomicBool::new(false));
    let peak = Arc::new(AtomicU64::new(0));
    let (stopped, highest) = (stop.clone(), peak.clone());
    let handle = std::thread::spawn(move || {
        while !stopped.load(Ordering::Relaxed) {
            highest.fetch_max(rss(pid), Ordering::Relaxed);
            std::thread::sleep(Duration::from_millis(10));
        }
        highest.load(Ordering::Relaxed)
    });
    (stop, handle)
}

async fn create_all(http: &reqwest::Client, base: &str) {
    let permits = Arc::new(Semaphore::new(CREATING));
    let mut creates = JoinSet::new();
    for i in 0..CONNECTORS {
        let (http, url, permits) = (http.clone(), format!("{base}/connectors"), permits.clone());
        creates.spawn(async move {
            let _permit = permits.acquire_owned().await.unwrap();
            let body = json!({"name": format!("storm-{i:04}"), "initial_state": "STOPPED",
                "config": {"connector.class": "FileStreamSource", "file": "in.txt",
                    "topic": "storm"}});
            let resp = http.post(url).json(&body).send().await.unwrap();
            assert_eq!(resp.status(), reqwest::StatusCode::CREATED, "storm-{i:04}");
        });
    }
    while let Some(r) = creates.join_next().await {
        r.unwrap();
    }
}

/// One request of the storm: `Ok` with the number of connectors listed, or what went wrong.
async fn list(http: reqwest::Client, url: String) -> Result<usize, String> {
    let resp = http.get(url).send().await.map_err(|e| format!("request: {e}"))?;
    let status = resp.status();
    let body = resp.bytes().await.map_err(|e| format!("body: {e}"))?;
    if status != reqwest::StatusCode::OK {
        return Err(format!("{status}: {}", String::from_utf8_lossy(&body)));
    }
    let listed: BTreeMap<String, IgnoredAny> =
        serde_json::from_slice(&body).map_err(|e| format!("not a JSON object: {e}"))?;
    Ok(listed.len())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn storm_of_expanded_status_lists_is_answered_and_memory_comes_back() {
    let dir = tempfile::tempdir().unwrap();
    // Above the storm: at the default cap (256) the other 744 would wait in the listen
    // backlog behind connections the client keeps alive, for rest.idle.timeout.ms.
    let worker = Worker::start_with(dir.path(), "rest.max.connections=1100\n");
    let base = worker.base().await;
    let http = reqwest::Client::new();
    create_all(&http, &base).await;
    let url = format!("{base}/connectors?expand=status");
    let sample = eventually(60, "every connector STOPPED", async || {
        let body: Value = http.get(&url).send().await.ok()?.json().await.ok()?;
        let stopped = body
            .as_object()?
            .values()
            .filter(|e| e["status"]["connector"]["state"] == "STOPPED")
            .count();
        (stopped == CONNECTORS).then_some(body)
    })
    .await;
    assert_eq!(sample["storm-0042"]["status"]["type"], "source", "{}", sample["storm-0042"]);

    let pid = worker.pid();
    let before = rss(pid);
    let (stop, peak) = sample_peak(pid);
    // A client of its own: every request on its own connection, as 1,000 clients would.
    let storm = reqwest::Client::builder().timeout(CLIENT_TIMEOUT).build().unwrap();
    let started = Instant::now();
    let mut requests = JoinSet::new();
    for _ in 0..REQUESTS {
        requests.spawn(list(storm.clone(), url.clone()));
    }
    let mut failures = Vec::new();
    let mut answered = 0;
    while let Some(r) = requests.join_next().await {
        match r.unwrap() {
            Ok(n) if n == CONNECTORS => answered += 1,
            Ok(n) => failures.push(format!("{n} connectors listed")),
            Err(e) => failures.push(e),
        }
    }
    let took = started.elapsed();
    drop(storm);
    stop.store(true, Ordering::Relaxed);
    let peak = peak.join().unwrap();
    println!(
        "storm: {answered}/{REQUESTS} answered in {took:?}; RSS {} MiB before, {} MiB peak",
        mib(before),
        mib(peak)
    );
    failures.truncate(5);
    assert_eq!(answered, REQUESTS, "{took:?}; first failures: {failures:#?}");

    let deadline = Instant::now() + SETTLE;
    let after = loop {
        let now = rss(pid);
        if now <= before + RSS_SLACK || Instant::now() >= deadline {
            break now;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    println!("storm: RSS {} MiB after", mib(after));
    assert!(
        after <= before + RSS_SLACK,
        "RSS {} MiB before the storm, {} MiB peak, still {} MiB {SETTLE:?} after it",
        mib(before),
        mib(peak),
        mib(after)
    );
}
