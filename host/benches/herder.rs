//! Start-up benchmark: time from starting a worker to a running worker while it replays
//! a config topic of 10,000 connectors, on the embedded store and on Kafka. Prints a
//! Markdown table.
//!
//! Two measures per backend:
//! - 10,000 connectors (target state STOPPED, so no instance is created): time until the
//!   herder answers with all 10,000 — the replay itself.
//! - 1,000 connectors with one task each, all STARTED: a first worker generates and
//!   commits their task configs and shuts down; the measure is the restart of a worker
//!   on that topic, until all 2,000 instances are RUNNING again.
//!
//! Run with `cargo bench --bench herder` after `scripts/build-guests.sh`, with a broker
//! from `scripts/kafka.sh start` at `KAFKA_BOOTSTRAP` (default 127.0.0.1:9092).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use wasm_connect::app::App;
use wasm_connect::config::{Mode, WorkerConfig};
use wasm_connect::model::{State, TargetState};
use wasm_connect::store::{ConfigRecord, EmbeddedBackend, KafkaBackend, LogBackend, TopicSpec};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn records(n: usize, target: TargetState) -> Vec<ConfigRecord> {
    let mut out = Vec::new();
    for i in 0..n {
        let name = format!("conn-{i:05}");
        let config: BTreeMap<String, String> = [
            ("connector.class", "ChaosSource"),
            ("tasks.max", "1"),
            ("chaos.mode", "ok"),
            ("name", name.as_str()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        if target != TargetState::Started {
            out.push(ConfigRecord::TargetState { connector: name.clone(), state: Some(target) });
        }
        out.push(ConfigRecord::Connector { name: name.clone(), config: Some(config) });
    }
    out
}

struct Setup {
    properties: Vec<(String, String)>,
    mode: Mode,
    backend: Box<dyn LogBackend>,
    config_topic: String,
}

async fn embedded(dir: &std::path::Path) -> Setup {
    std::fs::create_dir_all(dir).unwrap();
    let db = dir.join("bench.db");
    Setup {
        properties: vec![("offset.storage.file.filename".into(), db.display().to_string())],
        mode: Mode::Standalone,
        backend: Box::new(EmbeddedBackend::open(&db).unwrap()),
        config_topic: "connect-configs".into(),
    }
}

async fn kafka(tag: &str) -> Setup {
    let bootstrap = std::env::var("KAFKA_BOOTSTRAP").unwrap_or_else(|_| "127.0.0.1:9092".into());
    let nanos =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    let prefix = format!("bench-{tag}-{nanos}");
    Setup {
        properties: vec![
            ("bootstrap.servers".into(), bootstrap.clone()),
            ("group.id".into(), prefix.clone()),
            ("config.storage.topic".into(), format!("{prefix}-configs")),
            ("offset.storage.topic".into(), format!("{prefix}-offsets")),
            ("status.storage.topic".into(), format!("{prefix}-status")),
            ("config.storage.replication.factor".into(), "1".into()),
            ("offset.storage.replication.factor".into(), "1".into()),
            ("status.storage.replication.factor".into(), "1".into()),
        ],
        mode: Mode::Distributed,
        backend: Box::new(KafkaBackend::new(&bootstrap, &[], Duration::from_secs(30)).unwrap()),
        config_topic: format!("{prefix}-configs"),
    }
}

async fn measure(setup: Setup, n: usize, target: TargetState) -> (Duration, Duration) {
    let spec =
        TopicSpec { single_partition: true, ..TopicSpec::new(setup.config_topic.clone(), 1, true) };
    let topic = setup.backend.topic(&spec).await.unwrap();
    for chunk in records(n, target).chunks(5_000) {
        topic.send(chunk.iter().map(ConfigRecord::to_log_record).collect()).await.unwrap();
    }
    let mut props = setup.properties;
    props.extend([
        ("plugin.path".to_string(), root().join("build/fixtures").display().to_string()),
        ("listeners".into(), "http://127.0.0.1:0".into()),
        ("wasm.pool.instances".into(), "2500".into()),
    ]);
    let config = WorkerConfig::from_properties(&props, setup.mode).unwrap();
    if target == TargetState::Started {
        // A first run generates and commits the task configs.
        let app = App::start(&config, None).await.unwrap();
        wait_all_running(&app).await;
        app.shutdown().await;
    }
    let started = Instant::now();
    let app = App::start(&config, None).await.unwrap();
    let names = app.herder.connectors().await.unwrap();
    let ready = started.elapsed();
    assert_eq!(names.len(), n);
    if target == TargetState::Started {
        for name in &names {
            loop {
                let running = app
                    .herder
                    .task_status(name, 0)
                    .map(|s| s.state == State::Running)
                    .unwrap_or(false)
                    && app
                        .herder
                        .connector_status(name)
                        .await
                        .map(|s| s.connector.state == State::Running)
                        .unwrap_or(false);
                if running {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        }
    }
    let all = started.elapsed();
    app.shutdown().await;
    (ready, all)
}

async fn wait_all_running(app: &App) {
    for name in app.herder.connectors().await.unwrap() {
        loop {
            let task = app
                .herder
                .task_status(&name, 0)
                .map(|s| s.state == State::Running)
                .unwrap_or(false);
            let connector = task
                && app
                    .herder
                    .connector_status(&name)
                    .await
                    .map(|s| s.connector.state == State::Running)
                    .unwrap_or(false);
            if connector {
                break;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }
}

#[tokio::main]
async fn main() {
    println!(
        "| backend | connectors | target state | worker ready (config replayed) | all instances RUNNING |"
    );
    println!("|---|---|---|---|---|");
    let dir = tempfile::tempdir().unwrap();
    let (ready, _) =
        measure(embedded(&dir.path().join("a")).await, 10_000, TargetState::Stopped).await;
    println!("| embedded | 10,000 | STOPPED | {:.0} ms | — |", ready.as_secs_f64() * 1e3);
    let (ready, _) = measure(kafka("stopped").await, 10_000, TargetState::Stopped).await;
    println!("| kafka | 10,000 | STOPPED | {:.0} ms | — |", ready.as_secs_f64() * 1e3);
    let (ready, all) =
        measure(embedded(&dir.path().join("b")).await, 1_000, TargetState::Started).await;
    println!(
        "| embedded | 1,000 (+1,000 tasks), restart | STARTED | {:.0} ms | {:.0} ms |",
        ready.as_secs_f64() * 1e3,
        all.as_secs_f64() * 1e3
    );
    let (ready, all) = measure(kafka("started").await, 1_000, TargetState::Started).await;
    println!(
        "| kafka | 1,000 (+1,000 tasks), restart | STARTED | {:.0} ms | {:.0} ms |",
        ready.as_secs_f64() * 1e3,
        all.as_secs_f64() * 1e3
    );
}
