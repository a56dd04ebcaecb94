//! Plugin upgrade benchmark, on a standalone worker (embedded store, no artifact cache:
//! every new file is really compiled) over real HTTP. Prints Markdown tables.
//!
//! a. Install: `chaos-source-3.0.0.wasm` copied, then renamed, into `plugin.path`; the
//!    time until `GET /connector-plugins` lists 3.0.0, (i) with `POST
//!    /wasm-connect/plugins/rescan` right after the drop, (ii) with the interval scan alone
//!    at 10 s (the default) and at 1 s. The file is removed and rescanned between runs.
//! b. Upgrade pause: U (ChaosSource 1.0.0), N (ChaosSource 2.0.0) and D (Datagen) each
//!    produce about 1,000 records/s; U is upgraded by `PUT /connectors/U/config`
//!    alternating 2.0.0 / 1.0.0. For each upgrade: the longest gap between consecutive
//!    records (their append timestamps) of U, N and D in a window around it, and the time
//!    from the PUT until U and its task are RUNNING on the new version. U's sequence is
//!    checked for gaps and repeats at the end.
//!
//! Run with `cargo bench --bench plugin_upgrade` after `scripts/build-guests.sh`.
//! `BENCH_RUNS` (default 5) sets the runs of a.(i) and a.(ii, 1 s), `BENCH_RUNS_10S`
//! (default 3) those at 10 s, `BENCH_UPGRADES` (default 10) the upgrades of b.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};
use wasm_connect::app::App;
use wasm_connect::config::{Mode, WorkerConfig};
use wasm_connect::model::TopicPartitionOffset;
use wasm_connect::store::EmbeddedBackend;

const STRING: &str = "org.apache.kafka.connect.storage.StringConverter";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn env_n(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn now_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_millis() as i64
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn median_max(v: &[f64]) -> (f64, f64) {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    (s[s.len() / 2], *s.last().unwrap())
}

struct Worker {
    app: App,
    base: String,
    http: reqwest::Client,
    db: PathBuf,
    plugins: PathBuf,
    _dir: tempfile::TempDir,
}

impl Worker {
    async fn start(interval_ms: u64, versions: &[&str]) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("bench.db");
        let plugins = dir.path().join("plugins");
        std::fs::create_dir(&plugins).unwrap();
        for v in versions {
            install(&plugins, v);
        }
        let path = format!("{},{}", plugins.display(), root().join("build/plugins").display());
        let props: Vec<(String, String)> = [
            ("plugin.path", path),
            ("plugin.scan.interval.ms", interval_ms.to_string()),
            ("listeners", "http://127.0.0.1:0".into()),
            ("offset.storage.file.filename", db.display().to_string()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        let config = WorkerConfig::from_properties(&props, Mode::Standalone).unwrap();
        let app = App::start(&config, None).await.unwrap();
        let base = format!("http://{}", app.rest_addr);
        Self { app, base, http: reqwest::Client::new(), db, plugins, _dir: dir }
    }

    async fn get(&self, path: &str) -> Value {
        let r = self.http.get(format!("{}{path}", self.base)).send().await.unwrap();
        r.json().await.unwrap()
    }

    async fn rescan(&self) {
        let r = self.http.post(format!("{}/wasm-connect/plugins/rescan", self.base));
        let r = r.send().await.unwrap();
        assert!(r.status().is_success(), "rescan: {}", r.status());
    }

    async fn listed(&self, version: &str) -> bool {
        let plugins = self.get("/connector-plugins").await;
        plugins
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["class"] == "ChaosSource" && p["version"] == version)
    }

    /// Polls the listing every 5 ms until `version` is (or is not) listed.
    async fn until_listed(&self, version: &str, want: bool, limit: Duration) {
        let deadline = Instant::now() + limit;
        while self.listed(version).await != want {
            assert!(Instant::now() < deadline, "{version} listed != {want} after {limit:?}");
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    async fn put_config(&self, name: &str, config: &Value) -> u16 {
        let url = format!("{}/connectors/{name}/config", self.base);
        self.http.put(url).json(config).send().await.unwrap().status().as_u16()
    }

    /// Waits until `name` and its task run `version`.
    async fn running_version(&self, name: &str, version: &str) {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let s = self.get(&format!("/connectors/{name}/status")).await;
            if s["connector"]["state"] == "RUNNING"
                && s["connector"]["version"] == version
                && s["tasks"][0]["state"] == "RUNNING"
                && s["tasks"][0]["version"] == version
            {
                return;
            }
            assert!(Instant::now() < deadline, "{name} not RUNNING on {version}: {s}");
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    /// `(timestamp_ms, key)` of every record of `topic`.
    async fn records(&self, topic: &str) -> Vec<(i64, String)> {
        let backend = EmbeddedBackend::open(&self.db).unwrap();
        let reader = backend.data_reader().await.unwrap();
        let from = vec![TopicPartitionOffset { topic: topic.to_owned(), partition: 0, offset: 0 }];
        let entries = reader.read(from, 10_000_000).await.unwrap();
        entries
            .into_iter()
            .map(|e| (e.timestamp_ms, String::from_utf8(e.key.unwrap_or_default()).unwrap()))
            .collect()
    }
}

fn install(dir: &Path, version: &str) {
    let from = root().join(format!("build/versions/chaos-source-{version}.wasm"));
    assert!(from.exists(), "{} is missing: run scripts/build-guests.sh", from.display());
    // Copied under another name, then renamed: a scan never sees half a file.
    let part = dir.join(format!(".chaos-source-{version}.part"));
    std::fs::copy(&from, &part).unwrap();
    std::fs::rename(&part, dir.join(format!("chaos-source-{version}.wasm"))).unwrap();
}

/// Times from the drop of 3.0.0 until it is listed, over `runs` runs.
async fn install_times(interval_ms: u64, post: bool, runs: usize) -> Vec<f64> {
    let w = Worker::start(interval_ms, &["1.0.0"]).await;
    let limit = Duration::from_millis(interval_ms.max(10_000) * 3);
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        // The interval scan ticks at a fixed period from the worker's start: each drop
        // comes at a random point of it, as an operator's would.
        let nanos = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().subsec_nanos() as u64;
        let jitter = if interval_ms == 0 { 100 } else { nanos % interval_ms };
        tokio::time::sleep(Duration::from_millis(jitter)).await;
        let started = Instant::now();
        install(&w.plugins, "3.0.0");
        if post {
            w.rescan().await;
        }
        w.until_listed("3.0.0", true, limit).await;
        times.push(ms(started.elapsed()));
        std::fs::remove_file(w.plugins.join("chaos-source-3.0.0.wasm")).unwrap();
        w.rescan().await;
        w.until_listed("3.0.0", false, limit).await;
    }
    w.app.shutdown().await;
    times
}

fn chaos(topic: &str, version: &str, ignore_offsets: bool) -> Value {
    json!({
        "connector.class": "ChaosSource", "tasks.max": "1", "chaos.mode": "ok",
        "topic": topic, "batch.size": "10", "wasm.poll.records.per.second": "1000",
        "chaos.offsets.ignore": ignore_offsets.to_string(),
        "connector.plugin.version": version, "key.converter": STRING,
    })
}

/// The longest gap between consecutive record timestamps within `[from, to]`, counting
/// the edges of the window as records (a silent window is one long gap).
fn longest_gap(records: &[(i64, String)], from: i64, to: i64) -> i64 {
    let mut last = from;
    let mut gap = 0;
    for (t, _) in records.iter().filter(|(t, _)| *t >= from && *t <= to) {
        gap = gap.max(t - last);
        last = *t;
    }
    gap.max(to - last)
}

async fn upgrade_pauses(upgrades: usize) {
    let w = Worker::start(0, &["1.0.0", "2.0.0"]).await;
    let topics = ["bench-u", "bench-n", "bench-d"];
    let u = chaos(topics[0], "1.0.0", false);
    let datagen = json!({"connector.class": "Datagen", "topic": topics[2], "records": "-1",
        "rate": "1000", "batch.size": "10", "tasks.max": "1", "key.converter": STRING});
    for (name, config) in [("U", &u), ("N", &chaos(topics[1], "2.0.0", true)), ("D", &datagen)] {
        assert_eq!(w.put_config(name, config).await, 201, "create {name}");
    }
    w.running_version("U", "1.0.0").await;
    w.running_version("N", "2.0.0").await;
    tokio::time::sleep(Duration::from_secs(2)).await;

    // Per upgrade: (PUT at, RUNNING at) in ms since the epoch, and the PUT → RUNNING time.
    let mut marks = Vec::with_capacity(upgrades);
    for i in 0..upgrades {
        let version = if i % 2 == 0 { "2.0.0" } else { "1.0.0" };
        let mut config = u.clone();
        config["connector.plugin.version"] = json!(version);
        let put_at = now_ms();
        let started = Instant::now();
        assert_eq!(w.put_config("U", &config).await, 200, "upgrade U to {version}");
        w.running_version("U", version).await;
        marks.push((put_at, now_ms(), ms(started.elapsed())));
        tokio::time::sleep(Duration::from_millis(1500)).await;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;

    let mut per = Vec::new();
    for topic in topics {
        per.push(w.records(topic).await);
    }
    let mut gaps: [Vec<f64>; 3] = Default::default();
    println!("| upgrade | to | PUT → RUNNING | gap U | gap N | gap D |");
    println!("|---|---|---|---|---|---|");
    for (i, (put_at, running_at, running)) in marks.iter().enumerate() {
        let (from, to) = (put_at - 1000, running_at + 1000);
        let g: Vec<i64> = per.iter().map(|r| longest_gap(r, from, to)).collect();
        for (k, v) in g.iter().enumerate() {
            gaps[k].push(*v as f64);
        }
        let to_version = if i % 2 == 0 { "2.0.0" } else { "1.0.0" };
        println!(
            "| {} | {to_version} | {running:.0} ms | {} ms | {} ms | {} ms |",
            i + 1,
            g[0],
            g[1],
            g[2]
        );
    }
    // For scale: the same measure over the 2 s of the start with no upgrade.
    let first = marks.first().map_or(now_ms(), |m| m.0);
    let g: Vec<i64> = per.iter().map(|r| longest_gap(r, first - 2000, first - 1000)).collect();
    println!(
        "| none (1 s before the first window) | | | {} ms | {} ms | {} ms |",
        g[0], g[1], g[2]
    );
    let runnings: Vec<f64> = marks.iter().map(|m| m.2).collect();
    println!();
    println!("| measure | median | max |");
    println!("|---|---|---|");
    let (m, x) = median_max(&runnings);
    println!("| PUT → U and task RUNNING on the new version | {m:.0} ms | {x:.0} ms |");
    for (k, name) in ["U (upgraded)", "N (same plugin)", "D (Datagen)"].iter().enumerate() {
        let (m, x) = median_max(&gaps[k]);
        println!("| longest gap between records, {name} | {m:.0} ms | {x:.0} ms |");
    }
    let seq: Vec<u64> = per[0].iter().map(|(_, k)| k.trim().parse().unwrap()).collect();
    let breaks = seq.iter().enumerate().filter(|(i, n)| **n != *i as u64).count();
    let first_break = seq.iter().enumerate().find(|(i, n)| **n != *i as u64);
    println!();
    println!(
        "U's sequence: {} records, {}",
        seq.len(),
        match first_break {
            None => "no gap or repeat".to_owned(),
            Some((i, n)) => format!("BROKEN at index {i} (key {n}); {breaks} keys out of place"),
        }
    );
    w.app.shutdown().await;
}

#[tokio::main]
async fn main() {
    let runs = env_n("BENCH_RUNS", 5);
    let runs_10s = env_n("BENCH_RUNS_10S", 3);
    let upgrades = env_n("BENCH_UPGRADES", 10);

    println!("| install 3.0.0, found by | runs | median | max |");
    println!("|---|---|---|---|");
    for (label, interval, post, n) in [
        ("POST /wasm-connect/plugins/rescan", 0, true, runs),
        ("interval scan, 1 s", 1000, false, runs),
        ("interval scan, 10 s (default)", 10_000, false, runs_10s),
    ] {
        let times = install_times(interval, post, n).await;
        let (m, x) = median_max(&times);
        println!("| {label} | {n} | {m:.0} ms | {x:.0} ms |");
    }
    println!();
    upgrade_pauses(upgrades).await;
}
