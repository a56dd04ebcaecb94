//! The Python SDK's examples in a real worker: `PySequenceSource` → topic → `PyJsonlSink`
//! into a file on both backends, with a source that resumes from its committed offset
//! after a stop; the plugins' listing (language python) and validation; a Python
//! exception in a task becoming a FAILED task whose trace has the Python traceback.
//!
//! The components come from `scripts/build-python-guests.sh` (`build/examples/python/`).
//! Workers compile them through the shared artifact cache (`Backing::start_cached`): a
//! Python component takes seconds to compile and milliseconds to load from the cache.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use reqwest::Method;
use serde_json::{Value, json};
use wasm_connect::app::App;
use wasm_connect::model::{Properties, State};

use crate::harness::{Backing, eventually, props, shared_cache_dir, t, wait_state};
use crate::rest::Api;
use crate::support::root;

/// `build/examples/python`, checked to hold both examples.
fn python_plugins() -> PathBuf {
    let dir = root().join("build/examples/python");
    for name in ["sequence-source", "jsonl-sink"] {
        let p = dir.join(format!("{name}.wasm"));
        assert!(p.exists(), "{} is missing: run scripts/build-python-guests.sh first", p.display());
    }
    dir
}

/// A suffix unique to this test run (Kafka topics and sink groups outlive a test).
fn unique(name: &str) -> String {
    let nanos =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    format!("{name}-{nanos}")
}

/// A worker with only the Python examples, committing every half second.
async fn start(b: &Backing) -> App {
    let path = python_plugins();
    b.start_cached(&[("plugin.path", path.to_str().unwrap()), ("offset.flush.interval.ms", "500")])
        .await
}

const JSON_VALUES: [(&str, &str); 2] = [
    ("value.converter", "org.apache.kafka.connect.json.JsonConverter"),
    ("value.converter.schemas.enable", "false"),
];

fn source(topic: &str, extra: &[(&str, &str)]) -> Properties {
    let mut p = props(&[("connector.class", "PySequenceSource"), ("topic", topic)]);
    p.extend(props(&JSON_VALUES));
    p.extend(props(extra));
    p
}

fn sink(topic: &str, file: &Path) -> Properties {
    let mut p = props(&[
        ("connector.class", "PyJsonlSink"),
        ("topics", topic),
        ("file", file.to_str().unwrap()),
    ]);
    p.extend(props(&JSON_VALUES));
    p
}

/// The `seq` of every complete line of `file` (the sink may be writing the last one).
fn sequence_numbers(file: &Path) -> Vec<i64> {
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .split_inclusive('\n')
        .filter_map(|l| l.strip_suffix('\n'))
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("{l:?}: {e}"));
            assert_eq!(v["text"], format!("record {}", v["seq"]), "{l}");
            v["seq"].as_i64().unwrap()
        })
        .collect()
}

/// Waits until `file` has `n` lines; returns their sequence numbers.
async fn wait_lines(file: &Path, n: usize) -> Vec<i64> {
    eventually(90, &format!("{n} lines in {}", file.display()), async || {
        let seqs = sequence_numbers(file);
        (seqs.len() >= n).then_some(seqs)
    })
    .await
}

/// Asserts that `seqs` are exactly 0..n, each once (partitions may interleave them).
fn assert_exactly(seqs: &[i64], n: i64) {
    let set: BTreeSet<i64> = seqs.iter().copied().collect();
    assert_eq!(set.len(), seqs.len(), "duplicates in the sink file");
    assert_eq!(set, (0..n).collect::<BTreeSet<_>>(), "gaps in the sink file");
}

/// The committed source offset of `name`'s one partition.
async fn committed_seq(app: &App, name: &str) -> Option<i64> {
    let offsets = app.herder.connector_offsets(name).await.ok()?.offsets;
    offsets.first().and_then(|o| o.offset["seq"].as_i64())
}

async fn source_to_sink_and_resume(b: Backing) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("out.jsonl");
    let (topic, src, snk) = (unique("py-seq"), unique("py-src"), unique("py-snk"));
    let app = start(&b).await;
    app.herder.put_connector_config(&snk, sink(&topic, &file), None, false).await.unwrap();
    let began = Instant::now();
    let first = source(&topic, &[("count", "300"), ("batch.size", "50")]);
    app.herder.put_connector_config(&src, first, None, false).await.unwrap();
    wait_state(&app, t(&src, 0), State::Running).await;
    wait_state(&app, t(&snk, 0), State::Running).await;
    assert_exactly(&wait_lines(&file, 300).await, 300);
    eprintln!("300 records source → sink in {:?} (including task start)", began.elapsed());

    // The source commits `{"seq": 299}` for its partition `{"topic": ...}`.
    eventually(30, "the committed offset of record 299", async || {
        (committed_seq(&app, &src).await == Some(299)).then_some(())
    })
    .await;
    let offsets = app.herder.connector_offsets(&src).await.unwrap().offsets;
    assert_eq!(offsets[0].partition, json!({"topic": topic}));

    // Stopped and resumed, the task reads its committed offset and emits nothing more.
    app.herder.stop(&src).await.unwrap();
    wait_state(&app, crate::harness::c(&src), State::Stopped).await;
    app.herder.resume(&src).await.unwrap();
    wait_state(&app, t(&src, 0), State::Running).await;
    // With a larger count it continues after 299: no duplicates, no gaps.
    let began = Instant::now();
    let more = source(&topic, &[("count", "5300"), ("batch.size", "500")]);
    app.herder.put_connector_config(&src, more, None, true).await.unwrap();
    let seqs = wait_lines(&file, 5300).await;
    eprintln!("5000 more records source → sink in {:?}", began.elapsed());
    assert_exactly(&seqs, 5300);
    eventually(30, "the committed offset of record 5299", async || {
        (committed_seq(&app, &src).await == Some(5299)).then_some(())
    })
    .await;
    app.shutdown().await;
}

on_both_backends!(source_to_sink_and_resume);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_plugins_are_listed_and_validate_with_their_config_def() {
    let dir = tempfile::tempdir().unwrap();
    let app = start(&Backing::embedded(&dir)).await;
    let api = Api::new(&app);
    let (code, body) = api.call(Method::GET, "/connector-plugins", None).await;
    assert!(code.is_success(), "{body}");
    let listed: Vec<(String, String)> = body
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["class"].as_str().unwrap().into(), p["type"].as_str().unwrap().into()))
        .collect();
    assert_eq!(
        listed,
        [("PyJsonlSink".into(), "sink".into()), ("PySequenceSource".into(), "source".into())]
    );

    // The key the SDK's ConfigDef rejects is named, with the validator's message.
    let path = "/connector-plugins/PySequenceSource/config/validate";
    let bad =
        json!({"name": "p", "connector.class": "PySequenceSource", "topic": "t", "count": "-1"});
    let (code, body) = api.call(Method::PUT, path, Some(bad)).await;
    assert!(code.is_success(), "{body}");
    assert_eq!(body["error_count"], 1, "{body}");
    let count = body["configs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["value"]["name"] == "count")
        .unwrap_or_else(|| panic!("no `count` entry: {body}"));
    let errors = count["value"]["errors"].to_string();
    assert!(errors.contains("must be at least 0"), "{errors}");
    let good =
        json!({"name": "p", "connector.class": "PySequenceSource", "topic": "t", "count": "5"});
    let (_, body) = api.call(Method::PUT, path, Some(good)).await;
    assert_eq!(body["error_count"], 0, "{body}");
    // The sink's `file` key is declared with the write-file grant.
    let (_, body) = api.call(Method::GET, "/connector-plugins/PyJsonlSink/config", None).await;
    assert!(body.to_string().contains("\"file\""), "{body}");
    app.shutdown().await;

    // The CLI names their language.
    let out = Command::new(env!("CARGO_BIN_EXE_wasm-connect"))
        .args(["plugins", "list", "--plugin-path"])
        .arg(python_plugins())
        .arg("--cache-dir")
        .arg(shared_cache_dir())
        .env("RUST_LOG", "warn")
        .output()
        .expect("the binary runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    for name in ["PyJsonlSink", "PySequenceSource"] {
        let line =
            stdout.lines().find(|l| l.starts_with(name)).unwrap_or_else(|| panic!("{stdout}"));
        assert!(line.contains(" python "), "{line}");
    }
    assert!(stdout.contains("write-file (file)"), "{stdout}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_python_exception_fails_the_task_with_its_traceback() {
    let dir = tempfile::tempdir().unwrap();
    let app = start(&Backing::embedded(&dir)).await;
    let name = unique("py-fail");
    let config = source(&unique("py-fail"), &[("count", "100"), ("fail.on.record", "5")]);
    app.herder.put_connector_config(&name, config, None, false).await.unwrap();
    wait_state(&app, t(&name, 0), State::Failed).await;
    let trace = app.herder.task_status(&name, 0).unwrap().trace.unwrap_or_default();
    assert!(
        trace.contains("ValueError: record 5 is configured to fail (fail.on.record)"),
        "{trace}"
    );
    assert!(trace.contains("app.py") && trace.contains("in poll"), "traceback missing:\n{trace}");
    // The connector itself keeps running.
    assert_eq!(crate::harness::state(&app, &crate::harness::c(&name)).await, Some(State::Running));
    app.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn records_the_python_sink_cannot_handle_are_routed_as_failures() {
    let dir = tempfile::tempdir().unwrap();
    let (input, output) = (dir.path().join("in.txt"), dir.path().join("out.jsonl"));
    std::fs::write(
        &input,
        "{\"seq\":0,\"text\":\"record 0\"}\nnot json\n{\"seq\":1,\"text\":\"record 1\"}\n",
    )
    .unwrap();
    let plugin_path =
        format!("{},{}", python_plugins().display(), root().join("build/plugins").display());
    let app = Backing::embedded(&dir)
        .start_cached(&[("plugin.path", &plugin_path), ("offset.flush.interval.ms", "500")])
        .await;
    let (topic, src, snk) = (unique("py-mixed"), unique("py-lines"), unique("py-tolerant"));
    let string = [("value.converter", "org.apache.kafka.connect.storage.StringConverter")];
    let mut lines = props(&[
        ("connector.class", "FileStreamSource"),
        ("file", input.to_str().unwrap()),
        ("topic", &topic),
    ]);
    lines.extend(props(&string));
    app.herder.put_connector_config(&src, lines, None, false).await.unwrap();
    // Strings reach the sink; it writes those that are JSON and returns the other as a
    // failure, which errors.tolerance=all skips.
    let mut tolerant = sink(&topic, &output);
    tolerant.extend(props(&string));
    tolerant.extend(props(&[("errors.tolerance", "all")]));
    app.herder.put_connector_config(&snk, tolerant, None, false).await.unwrap();
    assert_exactly(&wait_lines(&output, 2).await, 2);
    assert_eq!(crate::harness::state(&app, &t(&snk, 0)).await, Some(State::Running));
    app.shutdown().await;
}
