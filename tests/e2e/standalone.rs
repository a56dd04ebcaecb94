//! `wasm-connect standalone WORKER.properties CONNECTOR.json` as a user runs it: the
//! connector from the file runs, and SIGTERM shuts the worker down gracefully (exit 0,
//! every instance UNASSIGNED in the embedded status topic).

use std::process::{Command, Stdio};
use std::time::Duration;

use wasm_connect::store::{EmbeddedBackend, LogBackend, TopicSpec};

use crate::harness::eventually;
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
