//! Status storm benchmark (issue 16): N concurrent `GET /connectors?expand=status` against
//! one standalone worker process with M connectors (target state STOPPED, so nothing runs),
//! on loopback. Prints a Markdown table: how many requests were answered in full within a
//! 30 s client timeout, the time until the last answer, and the worker's resident memory
//! before, at its peak and 10 s after the storm.
//!
//! The connectors are written to the embedded config topic before the worker starts, so
//! the setup costs no REST call. Run with `cargo bench --bench status_storm` after
//! `scripts/build-guests.sh`.

use std::collections::BTreeMap;
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::de::IgnoredAny;
use wasm_connect::model::TargetState;
use wasm_connect::store::{ConfigRecord, EmbeddedBackend, LogBackend, TopicSpec};

/// Every request must be answered within this, body included.
const CLIENT_TIMEOUT: Duration = Duration::from_secs(30);
/// How long after the storm the memory is read again.
const AFTER: Duration = Duration::from_secs(10);

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// Writes `m` STOPPED `ChaosSource` connectors to the config topic of the database `db`.
async fn seed(db: &Path, m: usize) {
    let backend = EmbeddedBackend::open(db).unwrap();
    let spec = TopicSpec { single_partition: true, ..TopicSpec::new("connect-configs", 1, true) };
    let topic = backend.topic(&spec).await.unwrap();
    let mut records = Vec::new();
    for i in 0..m {
        let name = format!("storm-{i:05}");
        let config: BTreeMap<String, String> =
            [("connector.class", "ChaosSource"), ("tasks.max", "1"), ("name", name.as_str())]
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
        let state = Some(TargetState::Stopped);
        records.push(ConfigRecord::TargetState { connector: name.clone(), state });
        records.push(ConfigRecord::Connector { name, config: Some(config) });
    }
    for chunk in records.chunks(5_000) {
        topic.send(chunk.iter().map(ConfigRecord::to_log_record).collect()).await.unwrap();
    }
}

/// The worker process, killed when dropped.
struct Worker {
    child: Child,
    address: Arc<Mutex<Option<String>>>,
}

impl Worker {
    fn start(dir: &Path) -> Self {
        let properties = dir.join("worker.properties");
        std::fs::write(
            &properties,
            format!(
                "plugin.path={}\nlisteners=http://127.0.0.1:0\noffset.storage.file.filename={}\n",
                root().join("build/fixtures").display(),
                dir.join("worker.db").display()
            ),
        )
        .unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_wasm-connect"))
            .arg("standalone")
            .arg(&properties)
            .arg("--cache-dir")
            .arg(dir.join("cache"))
            .env("RUST_LOG", "warn,wasm_connect::app=info")
            .env("NO_COLOR", "1")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let address = Arc::new(Mutex::new(None));
        let (found, stderr) = (address.clone(), child.stderr.take().unwrap());
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(a) = line.split("address=").nth(1)
                    && line.contains("REST API listening")
                {
                    *found.lock().unwrap() = a.split_whitespace().next().map(str::to_owned);
                }
            }
        });
        Self { child, address }
    }

    async fn base(&self) -> String {
        for _ in 0..600 {
            if let Some(a) = self.address.lock().unwrap().clone() {
                return format!("http://{a}");
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("the worker did not report its REST address");
    }

    fn rss(&self) -> u64 {
        rss(self.child.id())
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `VmRSS` of process `pid`, in bytes.
fn rss(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let kib = status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        .unwrap_or(0);
    kib << 10
}

/// How many connectors one list shows, or `None` for an error or a timeout.
async fn listed(http: &reqwest::Client, url: &str) -> Option<usize> {
    let resp = http.get(url).send().await.ok()?;
    if resp.status() != reqwest::StatusCode::OK {
        return None;
    }
    let body = resp.bytes().await.ok()?;
    serde_json::from_slice::<BTreeMap<String, IgnoredAny>>(&body).ok().map(|m| m.len())
}

struct Measure {
    answered: usize,
    took: Duration,
    before: u64,
    peak: u64,
    after: u64,
}

async fn measure(m: usize, n: usize) -> Measure {
    let dir = tempfile::tempdir().unwrap();
    seed(&dir.path().join("worker.db"), m).await;
    let worker = Worker::start(dir.path());
    let url = format!("{}/connectors?expand=status", worker.base().await);
    let http = reqwest::Client::new();
    // Ready once every connector shows its STOPPED status.
    let ready = Instant::now() + Duration::from_secs(120);
    while listed(&http, &url).await != Some(m) {
        assert!(Instant::now() < ready, "the worker never listed {m} connectors");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    let before = worker.rss();
    let stop = Arc::new(AtomicBool::new(false));
    let peak = Arc::new(AtomicU64::new(before));
    let sampler = {
        let (stop, peak, pid) = (stop.clone(), peak.clone(), worker.child.id());
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                peak.fetch_max(rss(pid), Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(10));
            }
        })
    };
    let storm = reqwest::Client::builder().timeout(CLIENT_TIMEOUT).build().unwrap();
    let started = Instant::now();
    let mut requests = tokio::task::JoinSet::new();
    for _ in 0..n {
        let (storm, url) = (storm.clone(), url.clone());
        requests.spawn(async move { listed(&storm, &url).await });
    }
    let mut answered = 0;
    while let Some(r) = requests.join_next().await {
        answered += usize::from(r.unwrap() == Some(m));
    }
    let took = started.elapsed();
    drop(storm);
    tokio::time::sleep(AFTER).await;
    stop.store(true, Ordering::Relaxed);
    sampler.join().unwrap();
    let after = worker.rss();
    Measure { answered, took, before, peak: peak.load(Ordering::Relaxed), after }
}

fn mib(bytes: u64) -> String {
    format!("{} MiB", bytes >> 20)
}

#[tokio::main]
async fn main() {
    println!(
        "| connectors | concurrent requests | answered in full within 30 s | last answer after | RSS before | RSS peak | RSS 10 s after |"
    );
    println!("|---|---|---|---|---|---|---|");
    for (m, n) in [(1_000, 1_000), (1_000, 100), (100, 1_000)] {
        let r = measure(m, n).await;
        println!(
            "| {m} | {n} | {} | {:.2} s | {} | {} | {} |",
            r.answered,
            r.took.as_secs_f64(),
            mib(r.before),
            mib(r.peak),
            mib(r.after)
        );
    }
}
