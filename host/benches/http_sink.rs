//! HTTP sink benchmark: requests/s and records/s from an embedded topic through HttpSink
//! to an HTTP server on loopback (axum, in this process, counting requests and the
//! records in their JSON bodies), at `batch.max.size` 1 and 500. Prints a Markdown table.
//!
//! Run with `cargo bench --bench http_sink` after `scripts/build-guests.sh`. No broker is
//! needed: the worker is standalone with its topics in the embedded store.
//! `HTTP_BENCH_RECORDS` sets the records of the batched runs (default 500,000; the
//! one-record runs send a tenth of them).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::routing::post;
use wasm_connect::app::App;
use wasm_connect::config::{Mode, WorkerConfig};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn unique(tag: &str) -> String {
    let nanos =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    format!("bench-{tag}-{nanos}")
}

fn props(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

/// What the server counted.
#[derive(Default)]
struct Counts {
    requests: AtomicU64,
    records: AtomicU64,
}

async fn ingest(State(counts): State<Arc<Counts>>, body: Bytes) -> &'static str {
    let records = match body.first() {
        Some(b'[') => serde_json::from_slice::<Vec<&serde_json::value::RawValue>>(&body)
            .map_or(0, |v| v.len() as u64),
        _ => 1,
    };
    counts.requests.fetch_add(1, Ordering::Relaxed);
    counts.records.fetch_add(records, Ordering::Relaxed);
    "ok"
}

async fn server() -> (String, Arc<Counts>) {
    let counts = Arc::new(Counts::default());
    let app = Router::new().route("/ingest", post(ingest)).with_state(counts.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/ingest", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (url, counts)
}

async fn worker(dir: &Path) -> App {
    let p = vec![
        ("plugin.path".to_string(), root().join("build/plugins").display().to_string()),
        ("listeners".into(), "http://127.0.0.1:0".into()),
        ("offset.storage.file.filename".into(), dir.join("bench.db").display().to_string()),
        ("offset.flush.interval.ms".into(), "1000".into()),
        ("wasm.pool.instances".into(), "64".into()),
        ("key.converter".into(), "org.apache.kafka.connect.storage.StringConverter".into()),
        ("value.converter".into(), "org.apache.kafka.connect.storage.StringConverter".into()),
    ];
    let config = WorkerConfig::from_properties(&p, Mode::Standalone).unwrap();
    App::start(&config, None).await.unwrap()
}

/// Waits until `count` reaches `n`; the seconds from its first non-zero value.
async fn wait(count: impl Fn() -> u64, n: u64) -> f64 {
    let mut first: Option<(Instant, u64)> = None;
    let deadline = Instant::now() + Duration::from_secs(600);
    loop {
        let now = count();
        if now > 0 && first.is_none() {
            first = Some((Instant::now(), now));
        }
        if now >= n {
            let (t0, _) = first.unwrap();
            return t0.elapsed().as_secs_f64().max(1e-3);
        }
        assert!(Instant::now() < deadline, "stuck at {now} of {n}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Datagen writes `n` records into a fresh topic, then HttpSink sends them in requests of
/// `batch` records; returns (requests/s, records/s) of the sink.
async fn run(app: &App, n: u64, batch: u64) -> (f64, f64) {
    let topic = unique("http");
    let gen_name = unique("gen");
    let gen_config = props(&[
        ("connector.class", "Datagen"),
        ("topic", &topic),
        ("records", &n.to_string()),
        ("value.size", "80"),
    ]);
    app.herder.put_connector_config(&gen_name, gen_config, None, false).await.unwrap();
    let handle = wasm_connect::telemetry::prometheus::handle().expect("the recorder");
    let produced = || {
        let text = wasm_connect::telemetry::prometheus::render(&handle);
        text.lines()
            .filter(|l| l.starts_with("wasm_connect_source_records_produced_total"))
            .filter(|l| l.contains(&format!("connector=\"{gen_name}\"")))
            .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
            .sum::<f64>() as u64
    };
    wait(produced, n).await;
    let (url, counts) = server().await;
    let config = props(&[
        ("connector.class", "HttpSink"),
        ("topics", &topic),
        ("http.api.url", &url),
        ("batch.max.size", &batch.to_string()),
    ]);
    app.herder.put_connector_config(&unique("http-sink"), config, None, false).await.unwrap();
    let c = counts.clone();
    wait(move || c.records.load(Ordering::Relaxed), 1).await;
    let start_records = counts.records.load(Ordering::Relaxed);
    let start_requests = counts.requests.load(Ordering::Relaxed);
    let t0 = Instant::now();
    let c = counts.clone();
    wait(move || c.records.load(Ordering::Relaxed), n).await;
    let secs = t0.elapsed().as_secs_f64().max(1e-3);
    let records = counts.records.load(Ordering::Relaxed) - start_records;
    let requests = counts.requests.load(Ordering::Relaxed) - start_requests;
    (requests as f64 / secs, records as f64 / secs)
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let plugin = root().join("build/plugins/http-sink.wasm");
    assert!(plugin.exists(), "{} is missing: run scripts/build-guests.sh", plugin.display());
    let n: u64 =
        std::env::var("HTTP_BENCH_RECORDS").ok().and_then(|v| v.parse().ok()).unwrap_or(500_000);
    let dir = tempfile::tempdir().unwrap();
    let app = worker(dir.path()).await;
    println!("| batch.max.size | records | requests/s | records/s |");
    println!("|---:|---:|---:|---:|");
    for batch in [1u64, 500] {
        let records = if batch == 1 { n / 10 } else { n };
        let (rps, recs) = run(&app, records, batch).await;
        println!("| {batch} | {records} | {rps:.0} | {recs:.0} |");
    }
    app.shutdown().await;
}
