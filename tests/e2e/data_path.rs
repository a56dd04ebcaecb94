//! The data path end to end, on both backends: file-source → topic → file-sink through
//! real topics (embedded SQLite or the Kafka broker), converters on both sides, KIP-298
//! error routing of bad records, pause and resume, topic tracking and metrics, and a source
//! idle long enough to reach its longest wait between empty polls.

use std::path::Path;

use wasm_connect::app::App;
use wasm_connect::model::{Properties, State};

use crate::harness::{Backing, c, eventually, props, t, wait_state};

/// A unique topic name (Kafka topics outlive a test).
fn topic(name: &str) -> String {
    let nanos =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    format!("{name}-{nanos}")
}

/// Unique connector names for one test.
fn names() -> impl Fn(&str) -> String {
    let suffix = topic("");
    move |name: &str| format!("{name}{suffix}")
}

fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .map(|s| s.lines().map(str::to_owned).collect())
        .unwrap_or_default()
}

fn source(file: &Path, topic: &str, extra: &[(&str, &str)]) -> Properties {
    let mut p = props(&[
        ("connector.class", "FileStreamSource"),
        ("file", file.to_str().unwrap()),
        ("topic", topic),
        ("offset.flush.interval.ms", "500"),
    ]);
    p.extend(props(extra));
    p
}

fn sink(file: &Path, topic: &str, extra: &[(&str, &str)]) -> Properties {
    let mut p = props(&[
        ("connector.class", "FileStreamSink"),
        ("file", file.to_str().unwrap()),
        ("topics", topic),
    ]);
    p.extend(props(extra));
    p
}

/// A worker that commits (and so makes FileStreamSink flush) every half second.
async fn start(b: &Backing) -> App {
    b.start_with(&[("offset.flush.interval.ms", "500")]).await
}

async fn create(app: &App, name: &str, config: Properties) {
    app.herder.put_connector_config(name, config, None, false).await.unwrap();
}

/// Waits until `file` has `n` lines and returns them.
async fn wait_lines(file: &Path, n: usize, secs: u64) -> Vec<String> {
    eventually(secs, &format!("{n} lines in {}", file.display()), async || {
        let l = lines(file);
        (l.len() >= n).then_some(l)
    })
    .await
}

async fn file_copy(b: Backing) {
    // Connector names are unique: sink groups (`connect-<name>`) are shared on a broker.
    let n = names();
    let dir = tempfile::tempdir().unwrap();
    let (input, output) = (dir.path().join("in.txt"), dir.path().join("out.txt"));
    let want: Vec<String> = (0..5000).map(|i| format!("line {i} of the copy")).collect();
    std::fs::write(&input, want.join("\n") + "\n").unwrap();
    let app = start(&b).await;
    let topic = topic("copy");
    create(&app, &n("src"), source(&input, &topic, &[])).await;
    create(&app, &n("snk"), sink(&output, &topic, &[])).await;
    wait_state(&app, t(&n("src"), 0), State::Running).await;
    wait_state(&app, t(&n("snk"), 0), State::Running).await;
    assert_eq!(wait_lines(&output, want.len(), 60).await, want, "every line, in order");

    // Lines appended later follow.
    std::fs::write(&input, want.join("\n") + "\nlate line\n").unwrap();
    assert_eq!(wait_lines(&output, want.len() + 1, 30).await.last().unwrap(), "late line");

    // KIP-558: both connectors report the topic.
    for name in [n("src"), n("snk")] {
        let topics = eventually(10, "active topics", async || {
            let t = app.herder.connector_topics(&name);
            (!t.is_empty()).then_some(t)
        })
        .await;
        assert_eq!(topics, vec![topic.clone()], "{name}");
    }
    // The source offsets were committed: the file position of the last line.
    eventually(20, "committed source offsets", async || {
        let offsets = app.herder.connector_offsets(&n("src")).await.ok()?;
        (format!("{offsets:?}").contains("position")).then_some(())
    })
    .await;
    // Per-task metrics.
    let body = reqwest::get(format!("http://{}/metrics", app.rest_addr))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    for metric in [
        format!(
            "wasm_connect_source_records_polled_total{{connector=\"{}\",task=\"0\"}}",
            n("src")
        ),
        format!(
            "wasm_connect_source_records_produced_total{{connector=\"{}\",task=\"0\"}}",
            n("src")
        ),
        format!("wasm_connect_sink_records_put_total{{connector=\"{}\",task=\"0\"}}", n("snk")),
        format!(
            "wasm_connect_offset_commits_total{{connector=\"{}\",task=\"0\",result=\"success\"}}",
            n("src")
        ),
    ] {
        let line = body.lines().find(|l| l.starts_with(&metric));
        let value: f64 = line
            .unwrap_or_else(|| panic!("{metric} missing from\n{body}"))
            .rsplit(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!(value >= 1.0, "{metric} = {value}");
    }
    app.shutdown().await;
}

async fn json_converters_wrap_and_unwrap(b: Backing) {
    // Connector names are unique: sink groups (`connect-<name>`) are shared on a broker.
    let n = names();
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.txt");
    std::fs::write(&input, "alpha\nbeta\n").unwrap();
    let app = start(&b).await;
    let topic = topic("json");
    let json = [
        ("value.converter", "org.apache.kafka.connect.json.JsonConverter"),
        ("value.converter.schemas.enable", "true"),
    ];
    create(&app, &n("src"), source(&input, &topic, &json)).await;
    // Read as strings, the topic holds JsonConverter's envelope.
    let raw = dir.path().join("raw.txt");
    let string = [("value.converter", "org.apache.kafka.connect.storage.StringConverter")];
    create(&app, &n("raw"), sink(&raw, &topic, &string)).await;
    // Read with the JsonConverter, the sink gets the strings back.
    let back = dir.path().join("back.txt");
    create(&app, &n("back"), sink(&back, &topic, &json)).await;
    let raw = wait_lines(&raw, 2, 60).await;
    let first: serde_json::Value = serde_json::from_str(&raw[0]).unwrap();
    assert_eq!(
        first,
        serde_json::json!({"schema": {"type": "string", "optional": false}, "payload": "alpha"})
    );
    assert_eq!(wait_lines(&back, 2, 60).await, ["alpha", "beta"]);
    app.shutdown().await;
}

async fn bad_records_go_where_the_tolerance_says(b: Backing) {
    // Connector names are unique: sink groups (`connect-<name>`) are shared on a broker.
    let n = names();
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.txt");
    let good: Vec<String> = (0..20).map(|i| format!("{{\"n\":{i}}}")).collect();
    let mut all = Vec::new();
    for (i, g) in good.iter().enumerate() {
        all.push(g.clone());
        if i % 5 == 0 {
            all.push(format!("not json {i}"));
        }
    }
    std::fs::write(&input, all.join("\n") + "\n").unwrap();
    let app = start(&b).await;
    let (topic, dlq) = (topic("mixed"), topic("dlq"));
    let string = [("value.converter", "org.apache.kafka.connect.storage.StringConverter")];
    create(&app, &n("src"), source(&input, &topic, &string)).await;
    let json = [
        ("value.converter", "org.apache.kafka.connect.json.JsonConverter"),
        ("value.converter.schemas.enable", "false"),
    ];

    // errors.tolerance=all with a dead-letter queue: good records reach the file, bad
    // ones the DLQ (read back by another sink), and the task keeps running.
    let output = dir.path().join("good.txt");
    let mut tolerant = sink(&output, &topic, &json);
    tolerant.extend(props(&[
        ("errors.tolerance", "all"),
        ("errors.log.enable", "true"),
        ("errors.deadletterqueue.topic.name", &dlq),
        ("errors.deadletterqueue.topic.replication.factor", "1"),
        ("errors.deadletterqueue.context.headers.enable", "true"),
    ]));
    create(&app, &n("tolerant"), tolerant).await;
    let dead = dir.path().join("dead.txt");
    create(&app, &n("dead"), sink(&dead, &dlq, &string)).await;
    assert_eq!(wait_lines(&output, good.len(), 60).await, good);
    let dead = wait_lines(&dead, 4, 60).await;
    assert_eq!(dead, ["not json 0", "not json 5", "not json 10", "not json 15"]);
    assert_eq!(crate::harness::state(&app, &t(&n("tolerant"), 0)).await, Some(State::Running));

    // errors.tolerance=none (the default): the first bad record fails the task, with the
    // stage and the converter's message in its trace.
    let strict_out = dir.path().join("strict.txt");
    create(&app, &n("strict"), sink(&strict_out, &topic, &json)).await;
    wait_state(&app, t(&n("strict"), 0), State::Failed).await;
    let status = app.herder.task_status(&n("strict"), 0).unwrap();
    let trace = status.trace.unwrap_or_default();
    assert!(trace.contains("VALUE_CONVERTER"), "{trace}");
    // As in Kafka Connect, the batch is converted before it is put: the failing batch,
    // good records included, never reached the plugin.
    assert!(lines(&strict_out).is_empty(), "{:?}", lines(&strict_out));

    // A record the plugin itself fails (ChaosSink fails values with the marker), tolerated
    // and sent to the DLQ.
    let dlq2 = topic.clone() + "-dlq2";
    let mut chaos = props(&[
        ("connector.class", "ChaosSink"),
        ("topics", &topic),
        ("chaos.bad.marker", "not json"),
        ("value.converter", "org.apache.kafka.connect.storage.StringConverter"),
        ("errors.tolerance", "all"),
        ("errors.deadletterqueue.topic.name", &dlq2),
        ("errors.deadletterqueue.topic.replication.factor", "1"),
    ]);
    chaos.insert("chaos.mode".into(), "ok".into());
    create(&app, &n("chaos"), chaos).await;
    let dead2 = dir.path().join("dead2.txt");
    create(&app, &n("dead2"), sink(&dead2, &dlq2, &string)).await;
    assert_eq!(wait_lines(&dead2, 4, 60).await.len(), 4);
    app.shutdown().await;
}

async fn pausing_a_sink_pauses_consumption(b: Backing) {
    // Connector names are unique: sink groups (`connect-<name>`) are shared on a broker.
    let n = names();
    let dir = tempfile::tempdir().unwrap();
    let (input, output) = (dir.path().join("in.txt"), dir.path().join("out.txt"));
    std::fs::write(&input, "one\n").unwrap();
    let app = start(&b).await;
    let topic = topic("pause");
    create(&app, &n("src"), source(&input, &topic, &[])).await;
    create(&app, &n("snk"), sink(&output, &topic, &[])).await;
    wait_lines(&output, 1, 60).await;
    app.herder.pause(&n("snk")).await.unwrap();
    wait_state(&app, t(&n("snk"), 0), State::Paused).await;
    std::fs::write(&input, "one\ntwo\n").unwrap();
    // The source goes on; the paused sink does not write.
    tokio::time::sleep(std::time::Duration::from_secs(2)).await;
    assert_eq!(lines(&output), ["one"]);
    app.herder.resume(&n("snk")).await.unwrap();
    assert_eq!(wait_lines(&output, 2, 30).await, ["one", "two"]);
    app.shutdown().await;
}

/// A source whose polls return nothing waits longer and longer between them (up to 1 s,
/// `worker/source_task.rs`): commands given during the wait are answered, and lines
/// written after a long idle period are delivered.
async fn an_idle_source_answers_commands_and_delivers_later_lines(b: Backing) {
    let n = names();
    let dir = tempfile::tempdir().unwrap();
    let (input, output) = (dir.path().join("in.txt"), dir.path().join("out.txt"));
    std::fs::write(&input, "").unwrap();
    let app = start(&b).await;
    let topic = topic("idle");
    create(&app, &n("src"), source(&input, &topic, &[])).await;
    create(&app, &n("snk"), sink(&output, &topic, &[])).await;
    wait_state(&app, t(&n("src"), 0), State::Running).await;
    // Past the back-off's cap: the task is in its longest wait.
    let idle = std::time::Duration::from_secs(3);
    tokio::time::sleep(idle).await;
    app.herder.pause(&n("src")).await.unwrap();
    wait_state(&app, t(&n("src"), 0), State::Paused).await;
    app.herder.resume(&n("src")).await.unwrap();
    wait_state(&app, t(&n("src"), 0), State::Running).await;
    tokio::time::sleep(idle).await;
    std::fs::write(&input, "one\ntwo\n").unwrap();
    assert_eq!(wait_lines(&output, 2, 60).await, ["one", "two"]);
    // Idle again, then stopped during the wait: the task ends.
    tokio::time::sleep(idle).await;
    app.herder.stop(&n("src")).await.unwrap();
    wait_state(&app, c(&n("src")), State::Stopped).await;
    eventually(20, "the stopped source's task status to be removed", async || {
        app.herder.task_status(&n("src"), 0).is_err().then_some(())
    })
    .await;
    app.shutdown().await;
}

on_both_backends!(
    file_copy,
    json_converters_wrap_and_unwrap,
    bad_records_go_where_the_tolerance_says,
    pausing_a_sink_pauses_consumption,
    an_idle_source_answers_commands_and_delivers_later_lines,
);
