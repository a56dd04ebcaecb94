//! `wasm-connect standalone WORKER.properties CONNECTOR.json` as a user runs it: the
//! connector from the file runs, and SIGTERM shuts the worker down gracefully (exit 0,
//! every instance UNASSIGNED in the embedded status topic). The binary runs in a directory
//! of its own, so relative paths in connector configs mean what they mean to a user.

use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

use wasm_connect::store::{EmbeddedBackend, LogBackend, TopicSpec};

use crate::harness::eventually;
use crate::spawned::Spawned;
use crate::support::root;

fn status_spec() -> TopicSpec {
    TopicSpec::new("connect-status", 1, true)
}

async fn last_state(db: &std::path::Path, key: &str) -> Option<String> {
    let backend = EmbeddedBackend::open(db).ok()?;
    let topic = backend.topic(&status_spec()).await.ok()?;
    let records = topic.reader().await.ok()?.read_to_end().await.ok()?;
    let last = records.iter().rev().find(|r| r.key.as_deref() == Some(key.as_bytes()))?;
    let v: serde_json::Value = serde_json::from_slice(last.value.as_deref()?).ok()?;
    v["state"].as_str().map(str::to_owned)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn standalone_runs_connector_files_and_stops_on_sigterm() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("standalone.db");
    let worker = dir.path().join("worker.properties");
    std::fs::write(
        &worker,
        format!(
            "# a standalone worker\nplugin.path={}\nlisteners=http://127.0.0.1:0\noffset.storage.file.filename={}\ntask.shutdown.graceful.timeout.ms=3000\n",
            root().join("build/fixtures").display(),
            db.display()
        ),
    )
    .unwrap();
    let connector = dir.path().join("cli-src.json");
    std::fs::write(
        &connector,
        r#"{"name": "cli-src", "config": {"connector.class": "ChaosSource", "tasks.max": 2, "chaos.secret": "swordfish-42"}}"#,
    )
    .unwrap();

    let mut child = Command::new(env!("CARGO_BIN_EXE_wasm-connect"))
        .arg("standalone")
        .arg(&worker)
        .arg(&connector)
        .arg("--cache-dir")
        .arg(dir.path().join("cache"))
        .env("RUST_LOG", "info")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    eventually(30, "task 1 RUNNING", async || {
        (last_state(&db, "status-task-cli-src-1").await.as_deref() == Some("RUNNING")).then_some(())
    })
    .await;

    let term = Command::new("kill").arg("-TERM").arg(child.id().to_string()).status().unwrap();
    assert!(term.success());
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(std::time::Instant::now() < deadline, "the worker did not exit after SIGTERM");
        std::thread::sleep(Duration::from_millis(50));
    };
    let output = child.wait_with_output().unwrap();
    let log = String::from_utf8_lossy(&output.stderr);
    assert!(status.success(), "exit {status:?}: {log}");
    // The config is logged, with the plugin's sensitive values hidden.
    assert!(log.contains("chaos.secret=[hidden]"), "the connector config was not logged:\n{log}");
    assert!(!log.contains("swordfish-42"), "a secret reached the log");
    for key in ["status-connector-cli-src", "status-task-cli-src-0", "status-task-cli-src-1"] {
        assert_eq!(last_state(&db, key).await.as_deref(), Some("UNASSIGNED"), "{key}");
    }
}

#[test]
fn a_bad_worker_config_is_one_clear_error_per_key() {
    let dir = tempfile::tempdir().unwrap();
    let worker = dir.path().join("worker.properties");
    std::fs::write(
        &worker,
        "plugin.path=/tmp\ntask.shutdown.graceful.timeout.ms=soon\nbogus.key=1\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_wasm-connect"))
        .arg("standalone")
        .arg(&worker)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("task.shutdown.graceful.timeout.ms"), "{stderr}");
    assert!(stderr.contains("bogus.key"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn a_worker_converter_it_does_not_have_stops_the_start() {
    let dir = tempfile::tempdir().unwrap();
    let worker = dir.path().join("worker.properties");
    // Apicurio's own Avro converter, a Java class this worker does not have.
    let class = "io.apicurio.registry.utils.converter.AvroConverter";
    std::fs::write(
        &worker,
        format!(
            "plugin.path={}\nlisteners=http://127.0.0.1:0\noffset.storage.file.filename={}\n\
             value.converter={class}\n",
            root().join("build/plugins").display(),
            dir.path().join("worker.db").display()
        ),
    )
    .unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_wasm-connect"))
        .arg("standalone")
        .arg(&worker)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A worker that starts anyway would run until killed: the test fails instead of hanging.
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            child.kill().unwrap();
            panic!("the worker started with a converter it does not have");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let expected = format!(
        "Invalid value {class} for configuration value.converter: Class {class} could not be found."
    );
    assert!(stderr.contains(&expected), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// The worker binary, started in `dir` with a worker config whose `plugin.path` is
/// `build/plugins`; `Worker::base` reads the REST address from its log. Killed when
/// dropped.
pub(crate) struct Worker(Spawned);

impl Worker {
    pub(crate) fn start(dir: &std::path::Path) -> Self {
        Self::start_with(dir, "")
    }

    /// [`Worker::start`] with more worker config lines (`extra`, newline-terminated).
    pub(crate) fn start_with(dir: &std::path::Path, extra: &str) -> Self {
        let extra = format!("offset.flush.interval.ms=200\n{extra}");
        Self(Spawned::start(dir, &root().join("build/plugins"), &extra, &[], &[]))
    }

    /// `http://HOST:PORT` of the REST API, from the `REST API listening` log line.
    pub(crate) async fn base(&self) -> String {
        self.0.base(30).await
    }

    /// Every line the worker logged so far.
    pub(crate) fn log(&self) -> Vec<String> {
        self.0.log()
    }

    /// The worker's process id.
    pub(crate) fn pid(&self) -> u32 {
        self.0.pid()
    }
}

/// A client's validate-then-create with relative `file` paths (as the `kafkaconnect`
/// Python client does it): both pass, both connectors run, and the lines flow from the
/// source's file to the sink's, each resolved against the worker's working directory.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn relative_file_paths_resolve_against_the_working_directory() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("data")).unwrap();
    let want: Vec<String> = (0..50).map(|i| format!("relative line {i}")).collect();
    std::fs::write(dir.path().join("data/in.txt"), want.join("\n") + "\n").unwrap();
    let worker = Worker::start(dir.path());
    let base = worker.base().await;
    let http = reqwest::Client::new();
    let connectors = [
        (
            "rel-src",
            json!({"connector.class": "FileStreamSource", "file": "data/in.txt",
            "topic": "rel-lines"}),
        ),
        (
            "rel-snk",
            json!({"connector.class": "FileStreamSink", "file": "./data/out.txt",
            "topics": "rel-lines"}),
        ),
    ];
    for (name, config) in &connectors {
        let class = config["connector.class"].as_str().unwrap();
        let url = format!("{base}/connector-plugins/{class}/config/validate");
        let mut named = config.clone();
        named["name"] = json!(name);
        let body: Value = http.put(url).json(&named).send().await.unwrap().json().await.unwrap();
        assert_eq!(body["error_count"], 0, "{name}: {body}");
        let create = json!({"name": name, "config": config});
        let resp = http.post(format!("{base}/connectors")).json(&create).send().await.unwrap();
        assert_eq!(resp.status(), reqwest::StatusCode::CREATED, "{name}");
    }
    let out = dir.path().join("data/out.txt");
    let got = eventually(60, "every line in data/out.txt", async || {
        let text = std::fs::read_to_string(&out).ok()?;
        let lines: Vec<String> = text.lines().map(str::to_owned).collect();
        (lines.len() >= want.len()).then_some(lines)
    })
    .await;
    assert_eq!(got, want, "worker log:\n{}", worker.log().join("\n"));
    for (name, _) in &connectors {
        let url = format!("{base}/connectors/{name}/status");
        let status: Value = http.get(url).send().await.unwrap().json().await.unwrap();
        assert_eq!(status["connector"]["state"], "RUNNING", "{status}");
        assert_eq!(status["tasks"][0]["state"], "RUNNING", "{status}");
    }
    // The source's offsets name the file as its task saw it: the absolute path.
    let real = dir.path().canonicalize().unwrap().join("data/in.txt");
    let url = format!("{base}/connectors/rel-src/offsets");
    let offsets = eventually(30, "committed source offsets", async || {
        let offsets: Value = http.get(&url).send().await.ok()?.json().await.ok()?;
        (!offsets["offsets"][0].is_null()).then_some(offsets)
    })
    .await;
    assert_eq!(offsets["offsets"][0]["partition"]["filename"], real.to_str().unwrap());
}

/// A request-derived value with a newline stays on its log line: a forged line cannot be
/// slipped into the text log through a query parameter.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_newline_from_a_request_cannot_forge_a_log_line() {
    let dir = tempfile::tempdir().unwrap();
    let worker = Worker::start(dir.path());
    let base = worker.base().await;
    // Lower case: the worker logs the scope as it compares it.
    let forged = "fake 2030-01-01t00:00:00.000000z error wasm_connect: forged";
    let url = format!("{base}/admin/loggers/wasm_connect?scope=x%0a{}", forged.replace(' ', "%20"));
    let resp =
        reqwest::Client::new().put(url).json(&json!({"level": "INFO"})).send().await.unwrap();
    assert_eq!(resp.status(), reqwest::StatusCode::OK);
    let line = eventually(20, "the scope warning in the log", async || {
        worker.log().into_iter().find(|l| l.contains("Unknown logger scope"))
    })
    .await;
    assert!(line.contains(&format!(r"scope=x\n{forged}")), "{line}");
    let log = worker.log();
    assert!(!log.iter().any(|l| l.starts_with("fake")), "a forged line:\n{}", log.join("\n"));
}
