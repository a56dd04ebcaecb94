//! Restart benchmark: the time from `POST /connectors/{name}/restart?includeTasks=true` on
//! an 8-task connector to all 8 tasks RUNNING again, median and p99 over 100 restarts, on
//! a standalone worker (embedded store) over real HTTP. Prints a Markdown table.
//!
//! Run with `cargo bench --bench restart` after `scripts/build-guests.sh`.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use wasm_connect::app::App;
use wasm_connect::config::{Mode, WorkerConfig};
use wasm_connect::store::{EmbeddedBackend, LogBackend, TopicSpec};

const TASKS: u32 = 8;
const RESTARTS: usize = 100;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

#[tokio::main]
async fn main() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("bench.db");
    let props: Vec<(String, String)> = [
        ("plugin.path", root().join("build/fixtures").display().to_string()),
        ("listeners", "http://127.0.0.1:0".into()),
        ("offset.storage.file.filename", db.display().to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    let config = WorkerConfig::from_properties(&props, Mode::Standalone).unwrap();
    let app = App::start(&config, None).await.unwrap();
    let base = format!("http://{}", app.rest_addr);
    let http = reqwest::Client::new();
    let body = serde_json::json!({"name": "bench", "config": {"connector.class": "ChaosSource", "tasks.max": TASKS.to_string()}});
    assert_eq!(
        http.post(format!("{base}/connectors")).json(&body).send().await.unwrap().status(),
        201
    );

    let backend = EmbeddedBackend::open(&db).unwrap();
    let spec = TopicSpec::new("connect-status", 1, true);
    let mut reader = backend.topic(&spec).await.unwrap().reader().await.unwrap();
    // Wait until every task runs.
    let running = |v: &serde_json::Value| {
        v["tasks"]
            .as_array()
            .is_some_and(|t| t.len() == TASKS as usize && t.iter().all(|t| t["state"] == "RUNNING"))
    };
    loop {
        let s: serde_json::Value = http
            .get(format!("{base}/connectors/bench/status"))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        if running(&s) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }

    let mut times = Vec::with_capacity(RESTARTS);
    for _ in 0..RESTARTS {
        reader.read_to_end().await.unwrap();
        let started = Instant::now();
        let r = http
            .post(format!("{base}/connectors/bench/restart?includeTasks=true"))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 202);
        // Every task must show RESTARTING and then RUNNING in the status topic.
        let mut restarting = BTreeSet::new();
        let mut back = BTreeSet::new();
        while back.len() < TASKS as usize {
            for e in reader.poll(Duration::from_millis(1)).await.unwrap() {
                let key = String::from_utf8(e.key.unwrap()).unwrap();
                let Some(task) = key.strip_prefix("status-task-bench-") else { continue };
                let state: serde_json::Value = serde_json::from_slice(&e.value.unwrap()).unwrap();
                match state["state"].as_str().unwrap() {
                    "RESTARTING" => {
                        restarting.insert(task.to_owned());
                    }
                    "RUNNING" if restarting.contains(task) => {
                        back.insert(task.to_owned());
                    }
                    _ => {}
                }
            }
        }
        times.push(started.elapsed());
    }
    times.sort();
    println!("| restarts | tasks | median | p99 | max |");
    println!("|---|---|---|---|---|");
    println!(
        "| {RESTARTS} | {TASKS} | {:.1} ms | {:.1} ms | {:.1} ms |",
        percentile(&times, 0.5).as_secs_f64() * 1e3,
        percentile(&times, 0.99).as_secs_f64() * 1e3,
        times.last().unwrap().as_secs_f64() * 1e3
    );
    app.shutdown().await;
}
