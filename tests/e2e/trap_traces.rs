//! A trap's trace in a REST status is the guest's, whatever the environment says: with
//! `RUST_BACKTRACE=1` set for the worker, a trapping task's trace has the wasm backtrace
//! and the error chain, and none of the worker's own frames or build paths. The test
//! prints the worker's resident memory before and after the first trap.

use serde_json::{Value, json};

use crate::harness::eventually;
use crate::spawned::Spawned;
use crate::support::root;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_trap_trace_has_no_host_backtrace_under_rust_backtrace() {
    let dir = tempfile::tempdir().unwrap();
    let worker = Spawned::start(
        dir.path(),
        &root().join("build/fixtures"),
        "",
        &[("RUST_BACKTRACE", "1")],
        &["RUST_LIB_BACKTRACE"],
    );
    let base = worker.base(240).await;
    let http = reqwest::Client::new();
    let before = worker.rss_kib();
    let created = http
        .put(format!("{base}/connectors/trapper/config"))
        .json(&json!({"connector.class": "ChaosSource", "tasks.max": "1", "chaos.mode": "trap"}))
        .send()
        .await
        .unwrap();
    assert!(created.status().is_success(), "{}", created.text().await.unwrap());
    let trace = eventually(120, "task 0 FAILED", async || {
        let status: Value = http
            .get(format!("{base}/connectors/trapper/status"))
            .send()
            .await
            .ok()?
            .json()
            .await
            .ok()?;
        let task = &status["tasks"][0];
        (task["state"] == "FAILED").then(|| task["trace"].as_str().unwrap_or_default().to_owned())
    })
    .await;
    let after = worker.rss_kib();
    eprintln!("worker RSS: {before} KiB before the first trap, {after} KiB after it");
    assert!(trace.contains("poll trapped: guest panicked (wasm `unreachable`)"), "{trace}");
    assert!(trace.contains("wasm backtrace"), "no guest frames:\n{trace}");
    assert!(trace.contains("Caused by:"), "no error chain:\n{trace}");
    for host in ["stack backtrace", "Stack backtrace", "/rustc/", ".cargo/registry", "host/src/"] {
        assert!(!trace.contains(host), "a host backtrace line ({host}) in the trace:\n{trace}");
    }
}
