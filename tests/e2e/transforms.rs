//! Single message transforms end to end, on both backends: Kafka Connect configs with
//! built-in chains and predicates on a source and a sink, transform plugins in Rust,
//! Python and JavaScript, KIP-298's TRANSFORMATION stage (dead-letter queue with context
//! headers, or a failed task with the trace), offsets of dropped records, and the config
//! errors that refuse a chain instead of ignoring it.

use std::path::Path;

use serde_json::{Value, json};
use wasm_connect::app::App;
use wasm_connect::herder::HerderError;
use wasm_connect::model::{Properties, State};

use crate::harness::{Backing, eventually, props, t, wait_state};
use crate::support::root;

/// A unique name (Kafka topics and sink groups outlive a test).
fn unique(name: &str) -> String {
    let nanos =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    format!("{name}-{nanos}")
}

/// A worker with the connectors, the fixtures and every language's transform example.
async fn start(b: &Backing) -> App {
    let mut dirs = vec![root().join("build/plugins"), root().join("build/fixtures")];
    for lang in ["rust", "python", "js"] {
        let file = root().join(format!("build/examples/{lang}/redact-transform.wasm"));
        assert!(
            file.exists(),
            "{} is missing: run the test command's guest builds",
            file.display()
        );
        dirs.push(file);
    }
    dirs.push(root().join("build/examples/python/sequence-source.wasm"));
    let path: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
    b.start_cached(&[("plugin.path", &path.join(",")), ("offset.flush.interval.ms", "500")]).await
}

async fn create(app: &App, name: &str, config: Properties) {
    app.herder.put_connector_config(name, config, None, false).await.unwrap();
}

fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .map(|s| s.lines().map(str::to_owned).collect())
        .unwrap_or_default()
}

async fn wait_lines(file: &Path, n: usize) -> Vec<String> {
    eventually(90, &format!("{n} lines in {}", file.display()), async || {
        let l = lines(file);
        (l.len() >= n).then_some(l)
    })
    .await
}

fn file_source(file: &Path, topic: &str, extra: &[(&str, &str)]) -> Properties {
    let mut p = props(&[
        ("connector.class", "FileStreamSource"),
        ("file", file.to_str().unwrap()),
        ("topic", topic),
        ("value.converter", "org.apache.kafka.connect.storage.StringConverter"),
    ]);
    p.extend(props(extra));
    p
}

fn file_sink(file: &Path, topic: &str, extra: &[(&str, &str)]) -> Properties {
    let mut p = props(&[
        ("connector.class", "FileStreamSink"),
        ("file", file.to_str().unwrap()),
        ("topics", topic),
        ("value.converter", "org.apache.kafka.connect.storage.StringConverter"),
    ]);
    p.extend(props(extra));
    p
}

const SCHEMAS: [(&str, &str); 2] = [
    ("value.converter", "org.apache.kafka.connect.json.JsonConverter"),
    ("value.converter.schemas.enable", "true"),
];
const SCHEMALESS: [(&str, &str); 2] = [
    ("value.converter", "org.apache.kafka.connect.json.JsonConverter"),
    ("value.converter.schemas.enable", "false"),
];

/// A Kafka Connect config, unchanged: a source chain of three built-ins, one behind a
/// predicate and one behind its negation, then a sink chain of two.
async fn kafka_connect_chains_run_as_configured(b: Backing) {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.txt");
    std::fs::write(&input, "alice\nbob\n").unwrap();
    let app = start(&b).await;
    let base = unique("people");
    let (raw, clean) = (format!("{base}-raw"), format!("{base}-clean"));
    let mut source = file_source(&input, &raw, &SCHEMAS);
    source.extend(props(&[
        ("transforms", "hoist,origin,keep,route"),
        ("transforms.hoist.type", "org.apache.kafka.connect.transforms.HoistField$Value"),
        ("transforms.hoist.field", "line"),
        ("transforms.origin.type", "org.apache.kafka.connect.transforms.InsertField$Value"),
        ("transforms.origin.static.field", "origin"),
        ("transforms.origin.static.value", "in.txt"),
        // Negated: drops only records that are NOT on a `-raw` topic, so none here.
        ("transforms.keep.type", "org.apache.kafka.connect.transforms.Filter"),
        ("transforms.keep.predicate", "isRaw"),
        ("transforms.keep.negate", "true"),
        ("transforms.route.type", "org.apache.kafka.connect.transforms.RegexRouter"),
        ("transforms.route.regex", "(.*)-raw"),
        ("transforms.route.replacement", "$1-clean"),
        ("transforms.route.predicate", "isRaw"),
        ("predicates", "isRaw"),
        (
            "predicates.isRaw.type",
            "org.apache.kafka.connect.transforms.predicates.TopicNameMatches",
        ),
        ("predicates.isRaw.pattern", ".*-raw"),
    ]));
    create(&app, &unique("src"), source).await;

    // The topic holds JsonConverter's envelopes of the hoisted struct, routed to `-clean`.
    let envelopes = dir.path().join("envelopes.txt");
    create(&app, &unique("raw"), file_sink(&envelopes, &clean, &[])).await;
    let got: Vec<Value> =
        wait_lines(&envelopes, 2).await.iter().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(got[0]["payload"], json!({"line": "alice", "origin": "in.txt"}), "{got:?}");
    assert_eq!(got[1]["payload"], json!({"line": "bob", "origin": "in.txt"}));
    let fields: Vec<&str> = got[0]["schema"]["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["field"].as_str().unwrap())
        .collect();
    assert_eq!(fields, ["line", "origin"]);
    assert_eq!(got[0]["schema"]["fields"][1]["optional"], true, "{}", got[0]);

    // The sink's two: drop `origin`, then take `line` out of the struct.
    let output = dir.path().join("out.txt");
    let mut sink = file_sink(&output, &clean, &SCHEMAS);
    sink.extend(props(&[
        ("transforms", "drop,line"),
        ("transforms.drop.type", "org.apache.kafka.connect.transforms.ReplaceField$Value"),
        ("transforms.drop.exclude", "origin"),
        ("transforms.line.type", "org.apache.kafka.connect.transforms.ExtractField$Value"),
        ("transforms.line.field", "line"),
    ]));
    create(&app, &unique("snk"), sink).await;
    assert_eq!(wait_lines(&output, 2).await, ["alice", "bob"]);
    app.shutdown().await;
}

/// Records a transform drops are never written, yet their source offsets are committed.
async fn dropped_source_records_still_commit_their_offsets(b: Backing) {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.txt");
    std::fs::write(&input, "one\ntwo\nthree\n").unwrap();
    let app = start(&b).await;
    let topic = unique("dropped");
    let name = unique("filtered");
    let mut source = file_source(&input, &topic, &[]);
    source.extend(props(&[("transforms", "all"), ("transforms.all.type", "Filter")]));
    create(&app, &name, source).await;
    wait_state(&app, t(&name, 0), State::Running).await;
    let offsets = eventually(30, "the dropped records' offsets", async || {
        let offsets = format!("{:?}", app.herder.connector_offsets(&name).await.ok()?);
        offsets.contains("position").then_some(offsets)
    })
    .await;
    assert!(offsets.contains("14"), "the position after the third line: {offsets}");
    // Nothing reached the topic.
    let output = dir.path().join("out.txt");
    create(&app, &unique("reader"), file_sink(&output, &topic, &[])).await;
    tokio::time::sleep(std::time::Duration::from_secs(3)).await;
    assert!(lines(&output).is_empty(), "{:?}", lines(&output));
    app.shutdown().await;
}

/// A record a built-in transform cannot handle: under `errors.tolerance=all` it goes to
/// the dead-letter queue and the rest goes on; under `none` the task fails with the
/// stage in its trace.
async fn transformation_failures_follow_the_tolerance(b: Backing) {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.txt");
    std::fs::write(&input, "{\"n\":\"1\"}\n{\"n\":\"x\"}\n{\"n\":\"3\"}\n").unwrap();
    let app = start(&b).await;
    let (topic, dlq) = (unique("numbers"), unique("numbers-dlq"));
    create(&app, &unique("src"), file_source(&input, &topic, &[])).await;
    let cast = [
        ("transforms", "n"),
        ("transforms.n.type", "org.apache.kafka.connect.transforms.Cast$Value"),
        ("transforms.n.spec", "n:int32"),
    ];
    let output = dir.path().join("out.txt");
    let mut tolerant = file_sink(&output, &topic, &SCHEMALESS);
    tolerant.extend(props(&cast));
    tolerant.extend(props(&[
        ("errors.tolerance", "all"),
        ("errors.deadletterqueue.topic.name", &dlq),
        ("errors.deadletterqueue.topic.replication.factor", "1"),
        ("errors.deadletterqueue.context.headers.enable", "true"),
    ]));
    create(&app, &unique("tolerant"), tolerant).await;
    assert_eq!(wait_lines(&output, 2).await, [r#"{"n":1}"#, r#"{"n":3}"#]);
    let dead = dir.path().join("dead.txt");
    create(&app, &unique("dead"), file_sink(&dead, &dlq, &[])).await;
    assert_eq!(wait_lines(&dead, 1).await, [r#"{"n":"x"}"#], "the record as consumed");
    if let Backing::Kafka(_, bootstrap) = &b {
        let headers = dlq_headers(bootstrap, &dlq).await;
        assert_eq!(headers["__connect.errors.stage"], "TRANSFORMATION", "{headers:?}");
        assert_eq!(
            headers["__connect.errors.class.name"],
            "org.apache.kafka.connect.transforms.Cast$Value"
        );
        assert!(headers["__connect.errors.exception.message"].contains("x"), "{headers:?}");
    }

    let strict = unique("strict");
    let mut config = file_sink(&dir.path().join("strict.txt"), &topic, &SCHEMALESS);
    config.extend(props(&cast));
    create(&app, &strict, config).await;
    wait_state(&app, t(&strict, 0), State::Failed).await;
    let trace = app.herder.task_status(&strict, 0).unwrap().trace.unwrap_or_default();
    assert!(trace.contains("stage TRANSFORMATION"), "{trace}");
    assert!(trace.contains("Cast$Value"), "{trace}");
    app.shutdown().await;
}

/// The headers of the first record on `topic`, as text.
async fn dlq_headers(bootstrap: &str, topic: &str) -> std::collections::BTreeMap<String, String> {
    use rdkafka::ClientConfig;
    use rdkafka::consumer::{BaseConsumer, Consumer};
    use rdkafka::message::{Headers, Message};
    let consumer: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", bootstrap)
        .set("group.id", unique("dlq-reader"))
        .set("auto.offset.reset", "earliest")
        .create()
        .unwrap();
    consumer.subscribe(&[topic]).unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        assert!(std::time::Instant::now() < deadline, "no record on {topic}");
        let Some(Ok(m)) = consumer.poll(std::time::Duration::from_millis(200)) else { continue };
        let headers = m.headers().expect("context headers");
        return headers
            .iter()
            .map(|h| {
                (
                    h.key.to_owned(),
                    String::from_utf8_lossy(h.value.unwrap_or_default()).into_owned(),
                )
            })
            .collect();
    }
}

const PEOPLE: &str = "{\"user\":\"u1\",\"ssn\":\"123-45-6789\"}\n\
                      {\"user\":\"u2\",\"ssn\":\"987-65-4321\",\"drop\":true}\n\
                      not an object\n\
                      {\"user\":\"u3\",\"ssn\":\"555-55-5555\",\"drop\":false}\n";

/// The transform example of each language, on a sink: fields redacted, a record dropped,
/// and a value that is not an object failed and tolerated. And the Rust one on a source.
async fn transform_plugins_of_every_language_run_in_chains(b: Backing) {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("people.txt");
    std::fs::write(&input, PEOPLE).unwrap();
    let app = start(&b).await;
    let topic = unique("people");
    create(&app, &unique("src"), file_source(&input, &topic, &[])).await;
    let want =
        [json!({"user": "u1", "ssn": "****"}), json!({"user": "u3", "ssn": "****", "drop": false})];
    let mut outputs = Vec::new();
    for class in ["Redact", "PyRedact", "JsRedact"] {
        let output = dir.path().join(format!("{class}.txt"));
        let mut sink = file_sink(&output, &topic, &SCHEMALESS);
        sink.extend(props(&[
            ("transforms", "r"),
            ("transforms.r.type", class),
            ("transforms.r.redact.fields", "ssn"),
            ("transforms.r.drop.field", "drop"),
            ("errors.tolerance", "all"),
        ]));
        create(&app, &unique(class), sink).await;
        outputs.push((class, output));
    }
    for (class, output) in &outputs {
        let got: Vec<Value> =
            wait_lines(output, 2).await.iter().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(got, want, "{class}");
    }

    // On a source, after a built-in: PySequenceSource's JSON values, redacted and routed.
    let routed = unique("seq");
    let mut source =
        props(&[("connector.class", "PySequenceSource"), ("topic", &routed), ("max.records", "3")]);
    source.extend(props(&SCHEMALESS));
    source.extend(props(&[
        ("transforms", "tag,r"),
        ("transforms.tag.type", "InsertField$Value"),
        ("transforms.tag.static.field", "lane"),
        ("transforms.tag.static.value", "a"),
        ("transforms.r.type", "Redact"),
        ("transforms.r.redact.fields", "text"),
        ("transforms.r.route.field", "lane"),
    ]));
    create(&app, &unique("seqsrc"), source).await;
    let output = dir.path().join("routed.txt");
    create(&app, &unique("routed"), file_sink(&output, &format!("{routed}.a"), &SCHEMALESS)).await;
    let got: Vec<Value> =
        wait_lines(&output, 3).await.iter().map(|l| serde_json::from_str(l).unwrap()).collect();
    for (i, v) in got.iter().take(3).enumerate() {
        assert_eq!(*v, json!({"seq": i, "text": "****", "lane": "a"}), "{got:?}");
    }
    app.shutdown().await;
}

/// A transform plugin that fails or traps: the TRANSFORMATION stage of KIP-298, and a
/// trapped instance replaced for the next batch.
async fn failing_and_trapping_transform_plugins(b: Backing) {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.txt");
    std::fs::write(
        &input,
        "{\"id\":1}\n{\"id\":2,\"fail\":1}\n{\"id\":3,\"trap\":1}\n{\"id\":4}\n",
    )
    .unwrap();
    let app = start(&b).await;
    let (topic, dlq) = (unique("chaos"), unique("chaos-dlq"));
    create(&app, &unique("src"), file_source(&input, &topic, &[])).await;
    let chaos = [
        ("transforms", "c"),
        ("transforms.c.type", "ChaosTransform"),
        ("transforms.c.chaos.fail.field", "fail"),
        ("transforms.c.chaos.trap.field", "trap"),
    ];
    let output = dir.path().join("out.txt");
    let mut tolerant = file_sink(&output, &topic, &SCHEMALESS);
    tolerant.extend(props(&chaos));
    tolerant.extend(props(&[
        ("errors.tolerance", "all"),
        ("errors.deadletterqueue.topic.name", &dlq),
        ("errors.deadletterqueue.topic.replication.factor", "1"),
        ("errors.deadletterqueue.context.headers.enable", "true"),
    ]));
    let name = unique("tolerant");
    create(&app, &name, tolerant).await;
    // The failed and the trapped records go to the DLQ; a fresh instance handles the rest.
    assert_eq!(wait_lines(&output, 2).await, [r#"{"id":1}"#, r#"{"id":4}"#]);
    let dead = dir.path().join("dead.txt");
    create(&app, &unique("dead"), file_sink(&dead, &dlq, &[])).await;
    let dead = wait_lines(&dead, 2).await;
    assert_eq!(dead, [r#"{"id":2,"fail":1}"#, r#"{"id":3,"trap":1}"#]);
    assert_eq!(crate::harness::state(&app, &t(&name, 0)).await, Some(State::Running));

    let strict = unique("strict");
    let mut config = file_sink(&dir.path().join("strict.txt"), &topic, &SCHEMALESS);
    config.extend(props(&chaos));
    create(&app, &strict, config).await;
    wait_state(&app, t(&strict, 0), State::Failed).await;
    let trace = app.herder.task_status(&strict, 0).unwrap().trace.unwrap_or_default();
    assert!(trace.contains("stage TRANSFORMATION") && trace.contains("ChaosTransform"), "{trace}");
    assert!(trace.contains("told to fail"), "{trace}");
    app.shutdown().await;
}

on_both_backends!(
    kafka_connect_chains_run_as_configured,
    dropped_source_records_still_commit_their_offsets,
    transformation_failures_follow_the_tolerance,
    transform_plugins_of_every_language_run_in_chains,
    failing_and_trapping_transform_plugins,
);

/// The messages a create answers for a chain it refuses, one per case.
async fn refused(app: &App, extra: &[(&str, &str)]) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("in.txt");
    std::fs::write(&file, "x\n").unwrap();
    let mut config = file_source(&file, "t", &[]);
    config.extend(props(extra));
    match app.herder.put_connector_config(&unique("bad"), config, None, false).await {
        Err(HerderError::InvalidConfig(problems)) => problems,
        other => panic!("accepted {extra:?}: {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chains_that_cannot_run_are_refused_naming_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let app = start(&Backing::embedded(&dir)).await;
    let cases: &[(&[(&str, &str)], &str)] = &[
        (
            &[("transforms", "drop"), ("transforms.drop.type", "org.example.Nope")],
            "transforms.drop.type: Invalid value org.example.Nope for configuration \
             transforms.drop.type: Class org.example.Nope could not be found.",
        ),
        (
            &[("transforms", "drop")],
            "transforms.drop.type: Missing required configuration \"transforms.drop.type\" \
             which has no default value.",
        ),
        (
            &[("transforms", "x"), ("transforms.x.type", "ExtractField$Value")],
            "transforms.x.field: Missing required configuration \"transforms.x.field\"",
        ),
        (
            &[("transforms", "a,a"), ("transforms.a.type", "Filter")],
            "transforms: Invalid value [a, a] for configuration transforms: Duplicate alias provided.",
        ),
        (
            &[
                ("transforms", "a"),
                ("transforms.a.type", "Filter"),
                ("transforms.a.negate", "true"),
            ],
            "transforms.a.type: Config 'transforms.a.negate' was provided but there is no config \
             'transforms.a.predicate' defining a predicate to be negated.",
        ),
        (
            &[
                ("transforms", "a"),
                ("transforms.a.type", "Filter"),
                ("transforms.a.predicate", "p"),
            ],
            "transforms.a.predicate: Invalid value p for configuration transforms.a.predicate",
        ),
        // Kafka Connect ignores these two; a misspelt or orphaned transform key is refused.
        (
            &[
                ("transforms", "m"),
                ("transforms.m.type", "MaskField$Value"),
                ("transforms.m.feilds", "ssn"),
            ],
            "transforms.m.feilds: Unknown configuration 'transforms.m.feilds'",
        ),
        (
            &[("transforms.old.type", "Filter")],
            "transforms.old.type: Unknown configuration 'transforms.old.type': 'old' is not an \
             alias listed in transforms",
        ),
        (
            &[
                ("transforms", "r"),
                ("transforms.r.type", "Redact"),
                ("transforms.r.redact.fields", "ssn"),
                ("transforms.r.wat", "1"),
            ],
            "transforms.r.wat: Unknown configuration 'transforms.r.wat'",
        ),
        (
            &[("header.converter", "org.example.Headers")],
            "header.converter: Invalid value org.example.Headers for configuration header.converter",
        ),
    ];
    for (extra, want) in cases {
        let problems = refused(&app, extra).await;
        assert!(problems.iter().any(|p| p.starts_with(want)), "{extra:?}: {problems:?}");
    }
    app.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rest_lists_and_describes_transforms_and_predicates() {
    let dir = tempfile::tempdir().unwrap();
    let app = start(&Backing::embedded(&dir)).await;
    let base = format!("http://{}", app.rest_addr);
    let get = |path: String| {
        let url = format!("{base}{path}");
        async move { reqwest::get(url).await.unwrap().json::<Value>().await.unwrap() }
    };
    let all = get("/connector-plugins?connectorsOnly=false".into()).await;
    let of = |ty: &str| -> Vec<String> {
        all.as_array()
            .unwrap()
            .iter()
            .filter(|p| p["type"] == ty)
            .map(|p| p["class"].as_str().unwrap().to_owned())
            .collect()
    };
    let transforms = of("transformation");
    for class in [
        "org.apache.kafka.connect.transforms.Cast$Value",
        "org.apache.kafka.connect.transforms.Filter",
        "org.apache.kafka.connect.transforms.TimestampRouter",
        "Redact",
        "PyRedact",
        "JsRedact",
        "ChaosTransform",
    ] {
        assert!(transforms.iter().any(|c| c == class), "{class} in {transforms:?}");
    }
    assert_eq!(of("predicate").len(), 3, "{all}");
    assert!(of("header_converter").iter().any(|c| c.ends_with("SimpleHeaderConverter")));
    // Only connectors by default.
    let connectors = get("/connector-plugins".into()).await;
    assert!(
        connectors.as_array().unwrap().iter().all(|p| p["type"] == "source" || p["type"] == "sink")
    );

    let keys =
        get("/connector-plugins/org.apache.kafka.connect.transforms.MaskField$Value/config".into())
            .await;
    let names: Vec<&str> =
        keys.as_array().unwrap().iter().map(|k| k["name"].as_str().unwrap()).collect();
    assert!(names.contains(&"fields") && names.contains(&"replacement"), "{keys}");
    let redact = get("/connector-plugins/Redact/config".into()).await;
    assert!(redact.as_array().unwrap().iter().any(|k| k["name"] == "redact.fields"), "{redact}");

    // Validate shows the enriched keys of each alias and names the bad one. The file is
    // one that does not exist yet, in a directory of the test's own.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("x");
    let body = json!({
        "connector.class": "FileStreamSource", "name": "v", "topic": "t", "file": file,
        "transforms": "m", "transforms.m.type": "MaskField$Value",
    });
    let answer: Value = reqwest::Client::new()
        .put(format!("http://{}/connector-plugins/FileStreamSource/config/validate", app.rest_addr))
        .json(&body)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(answer["error_count"], 1, "{answer}");
    assert!(answer["groups"].as_array().unwrap().contains(&json!("Transforms: m")), "{answer}");
    let fields = answer["configs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["value"]["name"] == "transforms.m.fields")
        .unwrap_or_else(|| panic!("{answer}"));
    assert_eq!(fields["definition"]["group"], "Transforms: m");
    assert!(
        fields["value"]["errors"][0].as_str().unwrap().contains("Missing required"),
        "{fields}"
    );
    app.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_readme_config_migrated_from_kafka_connect_is_accepted_unchanged() {
    let page = std::fs::read_to_string(root().join("docs/transforms.md")).unwrap();
    let json = page.split("```json").nth(1).expect("docs/transforms.md's example config");
    let json = json.split("```").next().unwrap();
    let body: Value = serde_json::from_str(json).unwrap();
    let config: Properties = body["config"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_owned()))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let app = start(&Backing::embedded(&dir)).await;
    let problems = app.herder.validate(&config).await.unwrap();
    assert!(problems.is_empty(), "{problems:?}");
    let name = body["name"].as_str().unwrap();
    app.herder.put_connector_config(name, config, None, false).await.unwrap();
    wait_state(&app, t(name, 0), State::Running).await;
    app.shutdown().await;
}
