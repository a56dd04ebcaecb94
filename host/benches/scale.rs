//! Scale benchmark: many Datagen tasks on one `wasm-connect standalone` process.
//!
//! Starts the worker binary (embedded store; data topics in Kafka when `KAFKA_BOOTSTRAP`
//! is set), creates `SCALE_CONNECTORS` Datagen connectors of `SCALE_TASKS` tasks each at
//! `rate=1`, and measures the time until every connector and task is RUNNING, the
//! process's VmRSS and Threads (from `/proc/<pid>/status`) at steady state, and the
//! p50/p99 of `GET /connectors?expand=status` and `GET /connectors/<c>/status` while the
//! tasks run. Prints a Markdown table.
//!
//! Run with `cargo bench --bench scale` after `scripts/build-guests.sh`. Knobs (env):
//! `SCALE_CONNECTORS` (100), `SCALE_TASKS` (100), `SCALE_STEADY_SECS` (30: how long the
//! REST probes run), `KAFKA_BOOTSTRAP` (unset: embedded), `SCALE_POOL_INSTANCES` (unset:
//! the worker's default `wasm.pool.instances`).

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

fn env_num(key: &str, default: u64) -> u64 {
    std::env::var(key).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// `VmRSS` in MiB and `Threads` of a process.
fn proc_status(pid: u32) -> (f64, u64) {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let field = |name: &str| -> u64 {
        s.lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    (field("VmRSS:") as f64 / 1024.0, field("Threads:"))
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

/// The worker process; killed on drop.
struct Worker(Child);

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Counts RUNNING connectors and tasks in an `expand=status` answer, and FAILED ones.
fn count_states(all: &Value) -> (usize, usize, usize) {
    let (mut running, mut failed, mut total) = (0, 0, 0);
    for (_, c) in all.as_object().into_iter().flatten() {
        let status = &c["status"];
        let states = std::iter::once(&status["connector"]["state"])
            .chain(status["tasks"].as_array().into_iter().flatten().map(|t| &t["state"]));
        for s in states {
            total += 1;
            match s.as_str() {
                Some("RUNNING") => running += 1,
                Some("FAILED") => failed += 1,
                _ => {}
            }
        }
    }
    (running, failed, total)
}

#[tokio::main]
async fn main() {
    let connectors = env_num("SCALE_CONNECTORS", 100);
    let tasks = env_num("SCALE_TASKS", 100);
    let steady = Duration::from_secs(env_num("SCALE_STEADY_SECS", 30));
    let kafka = std::env::var("KAFKA_BOOTSTRAP").ok().filter(|s| !s.is_empty());
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf();
    let plugins = root.join("build/plugins");
    assert!(plugins.join("datagen.wasm").exists(), "run scripts/build-guests.sh first");

    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let mut props = format!(
        "plugin.path={}\nlisteners=http://127.0.0.1:{port}\noffset.storage.file.filename={}\n",
        plugins.display(),
        dir.path().join("standalone.db").display()
    );
    if let Some(b) = &kafka {
        props.push_str(&format!("bootstrap.servers={b}\n"));
    }
    if let Ok(n) = std::env::var("SCALE_POOL_INSTANCES") {
        props.push_str(&format!("wasm.pool.instances={n}\n"));
    }
    let worker_file = dir.path().join("worker.properties");
    std::fs::write(&worker_file, props).unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_wasm-connect"))
        .arg("standalone")
        .arg(&worker_file)
        .arg("--cache-dir")
        .arg(dir.path().join("cache"))
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    let _worker = Worker(child);
    let base = format!("http://127.0.0.1:{port}");
    let http = reqwest::Client::builder().timeout(Duration::from_secs(120)).build().unwrap();
    let start = Instant::now();
    while http.get(format!("{base}/connectors")).send().await.is_err() {
        assert!(start.elapsed() < Duration::from_secs(60), "the worker did not start");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let (idle_rss, idle_threads) = proc_status(pid);

    // Create every connector, then wait until all instances are RUNNING.
    let run = format!("scale-{}", std::process::id());
    let t0 = Instant::now();
    for i in 0..connectors {
        let body = json!({"name": format!("{run}-{i}"), "config": {
            "connector.class": "Datagen", "tasks.max": tasks.to_string(), "rate": "1",
            "topic": format!("{run}-{i}"), "value.size": "100",
        }});
        // A loaded worker may answer 500 (a store read timed out): retry, as a user would.
        for attempt in 1..=5 {
            let r = http.post(format!("{base}/connectors")).json(&body).send().await.unwrap();
            let status = r.status();
            if status.is_success() || status.as_u16() == 409 {
                break;
            }
            eprintln!("create {i}, attempt {attempt}: {status} {}", r.text().await.unwrap());
            tokio::time::sleep(Duration::from_secs(2)).await;
        }
    }
    let created = t0.elapsed();
    let want = (connectors * (tasks + 1)) as usize;
    let mut last = (0, 0, 0);
    let all_running = loop {
        let r = http.get(format!("{base}/connectors?expand=status")).send().await;
        if let Ok(r) = r
            && let Ok(v) = r.json::<Value>().await
        {
            last = count_states(&v);
            if last.0 == want {
                break Some(t0.elapsed());
            }
            if last.1 > 0 {
                eprintln!("{} instances FAILED", last.1);
                break None;
            }
        }
        if t0.elapsed() > Duration::from_secs(900) {
            break None;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    };

    // Steady state: REST probes, then the process figures.
    let mut all_lat = Vec::new();
    let mut one_lat = Vec::new();
    let t1 = Instant::now();
    let mut i = 0;
    while t1.elapsed() < steady {
        let t = Instant::now();
        let r = http.get(format!("{base}/connectors?expand=status")).send().await.unwrap();
        r.bytes().await.unwrap();
        all_lat.push(t.elapsed());
        for _ in 0..5 {
            let t = Instant::now();
            let c = format!("{run}-{}", i % connectors);
            let r = http.get(format!("{base}/connectors/{c}/status")).send().await.unwrap();
            r.bytes().await.unwrap();
            one_lat.push(t.elapsed());
            i += 1;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    all_lat.sort();
    one_lat.sort();
    let (rss, threads) = proc_status(pid);
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());

    println!(
        "{connectors} connectors x {tasks} tasks (rate 1), {} store, {cores} cores",
        if kafka.is_some() { "embedded + Kafka data" } else { "embedded" }
    );
    println!();
    println!("| measure | value |");
    println!("|---|---|");
    println!("| idle worker: RSS / threads | {idle_rss:.0} MiB / {idle_threads} |");
    println!("| POST of {connectors} connectors | {:.1} s |", created.as_secs_f64());
    match all_running {
        Some(d) => println!("| all {want} instances RUNNING after | {:.1} s |", d.as_secs_f64()),
        None => println!(
            "| RUNNING (of {want}) / FAILED / seen | {} / {} / {} |",
            last.0, last.1, last.2
        ),
    }
    println!("| steady state: RSS | {rss:.0} MiB |");
    println!("| steady state: threads | {threads} |");
    println!(
        "| GET /connectors?expand=status p50 / p99 ({} calls) | {} / {} |",
        all_lat.len(),
        ms(percentile(&all_lat, 0.5)),
        ms(percentile(&all_lat, 0.99))
    );
    println!(
        "| GET /connectors/<c>/status p50 / p99 ({} calls) | {} / {} |",
        one_lat.len(),
        ms(percentile(&one_lat, 0.5)),
        ms(percentile(&one_lat, 0.99))
    );
}
