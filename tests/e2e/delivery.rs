//! Delivery guarantees under faults: a worker killed with SIGKILL mid-stream and started
//! again, on the embedded store and on Kafka, and a broker restart mid-stream. Every line
//! of the input must reach the output at least once; duplicates are counted and printed.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::broker::PrivateBroker;
use wasm_connect::model::State;

use crate::harness::{Backing, bootstrap, eventually, props, t, wait_state};
use crate::support::root;

fn input_lines(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("record {i:07} of the delivery test")).collect()
}

fn read_lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .map(|s| s.lines().map(str::to_owned).collect())
        .unwrap_or_default()
}

/// A killed sink may leave a torn last line (its file writes are not atomic); a crash-safe
/// file sink would cut it at start. That is the plugin's concern, not the worker's: cut it
/// here.
fn cut_torn_line(path: &Path) {
    let Ok(bytes) = std::fs::read(path) else { return };
    let keep = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    std::fs::write(path, &bytes[..keep]).unwrap();
}

/// Checks that `output` holds every line of `want` and nothing else; returns duplicates.
fn check_delivery(want: &[String], output: &[String]) -> usize {
    let wanted: HashSet<&String> = want.iter().collect();
    for line in output {
        assert!(wanted.contains(line), "a line that was never written: {line:?}");
    }
    let seen: HashSet<&String> = output.iter().collect();
    let missing: Vec<&&String> = wanted.difference(&seen).take(5).collect();
    assert!(missing.is_empty(), "lost records, e.g. {missing:?}");
    output.len() - seen.len()
}

struct Worker {
    dir: PathBuf,
    worker: PathBuf,
    connectors: Vec<PathBuf>,
}

impl Worker {
    fn new(dir: &Path, bootstrap: Option<&str>, input: &Path, output: &Path) -> Self {
        let worker = dir.join("worker.properties");
        let mut props = format!(
            "plugin.path={}\nlisteners=http://127.0.0.1:0\noffset.storage.file.filename={}\noffset.flush.interval.ms=300\ntask.shutdown.graceful.timeout.ms=3000\n",
            root().join("build/plugins").display(),
            dir.join("worker.db").display(),
        );
        if let Some(b) = bootstrap {
            props.push_str(&format!("bootstrap.servers={b}\n"));
        }
        std::fs::write(&worker, props).unwrap();
        let nanos =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
        let topic = format!("delivery-{nanos}");
        let src = dir.join("src.json");
        std::fs::write(
            &src,
            serde_json::json!({"name": format!("src-{nanos}"), "config": {
                "connector.class": "FileStreamSource", "file": input, "topic": topic,
                "batch.size": "500"}})
            .to_string(),
        )
        .unwrap();
        let snk = dir.join("snk.json");
        std::fs::write(
            &snk,
            serde_json::json!({"name": format!("snk-{nanos}"), "config": {
                "connector.class": "FileStreamSink", "file": output, "topics": topic}})
            .to_string(),
        )
        .unwrap();
        Self { dir: dir.to_owned(), worker, connectors: vec![src, snk] }
    }

    fn spawn(&self) -> Running {
        let child = Command::new(env!("CARGO_BIN_EXE_wasm-connect"))
            .arg("standalone")
            .arg(&self.worker)
            .args(&self.connectors)
            .arg("--cache-dir")
            .arg(self.dir.join("cache"))
            .env("RUST_LOG", "warn")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        Running(child)
    }
}

/// A worker process, killed with SIGKILL when dropped (also when a test fails).
struct Running(Child);

impl Running {
    /// SIGKILL: no shutdown, no final commit.
    fn kill(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.kill();
    }
}

async fn kill_mid_stream(bootstrap: Option<String>) {
    let dir = tempfile::tempdir().unwrap();
    let (input, output) = (dir.path().join("in.txt"), dir.path().join("out.txt"));
    let want = input_lines(200_000);
    std::fs::write(&input, want.join("\n") + "\n").unwrap();
    let worker = Worker::new(dir.path(), bootstrap.as_deref(), &input, &output);

    let mut child = worker.spawn();
    let at_kill = eventually(120, "a fifth of the records in the output", async || {
        let n = read_lines(&output).len();
        (n >= want.len() / 5).then_some(n)
    })
    .await;
    child.kill();
    cut_torn_line(&output);

    let mut child = worker.spawn();
    let out = eventually(180, "every record in the output", async || {
        let out = read_lines(&output);
        let distinct: HashSet<&String> = out.iter().collect();
        (distinct.len() >= want.len()).then_some(out)
    })
    .await;
    child.kill();
    let duplicates = check_delivery(&want, &out);
    eprintln!(
        "kill -9 ({}): killed at {at_kill} lines out of {}; {duplicates} duplicates after the restart",
        if bootstrap.is_some() { "kafka" } else { "embedded" },
        want.len()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_mid_stream_loses_nothing_embedded() {
    kill_mid_stream(None).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_mid_stream_loses_nothing_kafka() {
    kill_mid_stream(Some(bootstrap())).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_broker_restart_mid_stream_loses_nothing() {
    let broker = PrivateBroker::start(19292);
    let backing = Backing::kafka_at(&format!("127.0.0.1:{}", broker.port));
    let app = backing.start_with(&[("offset.flush.interval.ms", "300")]).await;
    let dir = tempfile::tempdir().unwrap();
    let (input, output) = (dir.path().join("in.txt"), dir.path().join("out.txt"));
    let want = input_lines(300_000);
    std::fs::write(&input, want.join("\n") + "\n").unwrap();
    let nanos =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    let topic = format!("broker-restart-{nanos}");
    let src = props(&[
        ("connector.class", "FileStreamSource"),
        ("file", input.to_str().unwrap()),
        ("topic", &topic),
        ("batch.size", "50"),
    ]);
    let snk = props(&[
        ("connector.class", "FileStreamSink"),
        ("file", output.to_str().unwrap()),
        ("topics", &topic),
    ]);
    app.herder.put_connector_config("src", src, None, false).await.unwrap();
    app.herder.put_connector_config("snk", snk, None, false).await.unwrap();
    wait_state(&app, t("snk", 0), State::Running).await;
    eventually(120, "some records in the output", async || {
        (read_lines(&output).len() >= 1000).then_some(())
    })
    .await;
    broker.kafka(&["stop", "--keep-data"]);
    let during = read_lines(&output).len();
    assert!(during < want.len(), "the stream ended before the broker stopped: no outage tested");
    tokio::time::sleep(Duration::from_secs(3)).await;
    broker.kafka(&["start"]);
    let out = eventually(180, "every record after the broker restart", async || {
        let out = read_lines(&output);
        let distinct: HashSet<&String> = out.iter().collect();
        (distinct.len() >= want.len()).then_some(out)
    })
    .await;
    let duplicates = check_delivery(&want, &out);
    eprintln!(
        "broker restart: stopped at {during} lines out of {}; {duplicates} duplicates",
        want.len()
    );
    // The tasks rode it out: still RUNNING, not FAILED.
    assert_eq!(crate::harness::state(&app, &t("src", 0)).await, Some(State::Running));
    app.shutdown().await;
}
