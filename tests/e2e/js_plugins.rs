//! The JavaScript SDK's example plugins in a real worker: `JsSequenceSource` → topic →
//! `JsJsonlSink` into a file, validation naming the bad key, an exception in a task failing
//! it with the message in its trace, and the source resuming from its committed offset
//! after a task restart and after a worker restart.
//!
//! The components come from `scripts/build-js-guests.sh`. Workers compile them through the
//! shared artifact cache (`Backing::start_cached`): a JavaScript component takes seconds
//! to compile and milliseconds to load.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Value, json};
use wasm_connect::app::App;
use wasm_connect::model::{Properties, State};

use crate::harness::{Backing, eventually, props, t, wait_state};
use crate::support::root;

on_both_backends!(numbers_flow_through_js_plugins_and_the_source_resumes);

/// A worker whose plugin path holds only the JS examples, committing offsets every half
/// second.
async fn start(b: &Backing) -> App {
    let js = root().join("build/examples/js");
    for name in ["sequence-source", "jsonl-sink"] {
        let wasm = js.join(format!("{name}.wasm"));
        assert!(wasm.exists(), "{} is missing: run scripts/build-js-guests.sh", wasm.display());
    }
    let plugin_path = js.to_str().expect("a UTF-8 repository path");
    b.start_cached(&[("plugin.path", plugin_path), ("offset.flush.interval.ms", "500")]).await
}

/// A name unique to this run (connector names and Kafka topics outlive a test).
fn unique(name: &str) -> String {
    let nanos =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    format!("{name}-{nanos}")
}

const JSON_VALUES: [(&str, &str); 2] = [
    ("value.converter", "org.apache.kafka.connect.json.JsonConverter"),
    ("value.converter.schemas.enable", "false"),
];

fn source(topic: &str, count: u32, extra: &[(&str, &str)]) -> Properties {
    let mut p = props(&[
        ("connector.class", "JsSequenceSource"),
        ("topic", topic),
        ("count", &count.to_string()),
        ("batch.size", "40"),
    ]);
    p.extend(props(&JSON_VALUES));
    p.extend(props(extra));
    p
}

fn sink(topic: &str, file: &Path) -> Properties {
    let mut p = props(&[
        ("connector.class", "JsJsonlSink"),
        ("topics", topic),
        ("file", file.to_str().unwrap()),
    ]);
    p.extend(props(&JSON_VALUES));
    p
}

/// The `seq` of every line of `file`, in order.
fn seqs(file: &Path) -> Vec<u64> {
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("line {l:?}: {e}"));
            v["seq"].as_u64().unwrap_or_else(|| panic!("line {l:?} has no seq"))
        })
        .collect()
}

/// Waits until `file` holds at least `n` lines and returns their seqs.
async fn wait_seqs(file: &Path, n: usize) -> Vec<u64> {
    eventually(60, &format!("{n} lines in {}", file.display()), async || {
        let s = seqs(file);
        (s.len() >= n).then_some(s)
    })
    .await
}

/// Waits until the source's committed offset is `{"seq": last}`.
async fn wait_committed(app: &App, name: &str, last: u64) {
    eventually(30, &format!("{name} to commit seq {last}"), async || {
        let offsets = app.herder.connector_offsets(name).await.ok()?;
        offsets
            .offsets
            .iter()
            .any(|o| {
                o.partition == json!({"sequence": "numbers"}) && o.offset == json!({"seq": last})
            })
            .then_some(())
    })
    .await
}

async fn numbers_flow_through_js_plugins_and_the_source_resumes(b: Backing) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("numbers.jsonl");
    let (topic, src, snk) = (unique("js-numbers"), unique("js-seq"), unique("js-jsonl"));
    let app = start(&b).await;
    app.herder.put_connector_config(&src, source(&topic, 100, &[]), None, false).await.unwrap();
    app.herder.put_connector_config(&snk, sink(&topic, &file), None, false).await.unwrap();
    wait_state(&app, t(&src, 0), State::Running).await;
    wait_state(&app, t(&snk, 0), State::Running).await;
    assert_eq!(wait_seqs(&file, 100).await, (0..100).collect::<Vec<_>>(), "every record, in order");
    wait_committed(&app, &src, 99).await;

    // A new config restarts the task; it asks `offsets()` and resumes after seq 99.
    app.herder.put_connector_config(&src, source(&topic, 150, &[]), None, true).await.unwrap();
    assert_eq!(wait_seqs(&file, 150).await, (0..150).collect::<Vec<_>>(), "no seq twice");
    wait_committed(&app, &src, 149).await;
    app.shutdown().await;

    // A new worker on the same state resumes the source after seq 149 as well.
    let app = start(&b).await;
    app.herder.put_connector_config(&src, source(&topic, 200, &[]), None, true).await.unwrap();
    let all = wait_seqs(&file, 200).await;
    wait_committed(&app, &src, 199).await;
    let mut counts = BTreeMap::<u64, usize>::new();
    for s in &all {
        *counts.entry(*s).or_default() += 1;
    }
    assert_eq!(counts.keys().copied().collect::<Vec<_>>(), (0..200).collect::<Vec<_>>());
    assert_eq!(counts[&0], 1, "the source resumed instead of starting over: {all:?}");
    app.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn validation_names_the_bad_key() {
    let dir = tempfile::tempdir().unwrap();
    let b = Backing::embedded(&dir);
    let app = start(&b).await;
    let problems = app.herder.validate(&source("t", 10, &[("batch.size", "0")])).await.unwrap();
    let keys: Vec<&str> = problems.iter().map(|p| p.key.as_str()).collect();
    assert_eq!(keys, ["batch.size"], "{problems:?}");
    assert!(problems[0].message.contains("must be between 1 and 10000"), "{problems:?}");

    // The connector's own rule, after the definition's.
    let problems = app.herder.validate(&source("t", 10, &[("fail.at", "10")])).await.unwrap();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].key, "fail.at");
    assert!(problems[0].message.contains("is never reached with count 10"), "{problems:?}");

    // A relative file path breaks the sink's custom validator.
    let mut relative = sink("t", Path::new("/tmp/x.jsonl"));
    relative.insert("file".into(), "x.jsonl".into());
    let err = app.herder.put_connector_config(&unique("js-bad"), relative, None, false).await;
    let message = format!("{:?}", err.unwrap_err());
    assert!(message.contains("file") && message.contains("must be an absolute path"), "{message}");
    app.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_exception_in_a_js_task_fails_it_with_the_message() {
    let dir = tempfile::tempdir().unwrap();
    let b = Backing::embedded(&dir);
    let app = start(&b).await;
    let name = unique("js-failing");
    let config = source(&unique("js-fail"), 100, &[("fail.at", "3")]);
    app.herder.put_connector_config(&name, config, None, false).await.unwrap();
    wait_state(&app, t(&name, 0), State::Failed).await;
    let trace = app.herder.task_status(&name, 0).unwrap().trace.unwrap_or_default();
    assert!(trace.contains("sequence-source was told to fail at 3 (fail.at)"), "trace: {trace}");
    // Only the task failed: its connector keeps running.
    wait_state(&app, crate::harness::c(&name), State::Running).await;
    app.shutdown().await;
}
