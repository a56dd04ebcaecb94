//! The offsets API (KIP-875) through the herder, end to end: source offsets in the offsets
//! store on both backends, sink offsets in the connector's consumer group on the real Kafka
//! broker (and refused, for now, on the embedded backend).

use serde_json::{Value, json};
use wasm_connect::app::App;
use wasm_connect::herder::{ConnectorOffset, HerderError};
use wasm_connect::model::{InstanceId, Properties, State};
use wasm_connect::store::{ConfigRecord, LogRecord, TopicSpec};

use crate::harness::{Backing, eventually, props, wait_state};

on_both_backends!(
    unknown_connectors_are_not_found,
    offsets_change_only_while_stopped,
    source_offsets_are_altered_and_reset,
    bad_source_shapes_are_refused,
    an_uninstalled_plugin_fails_naming_its_class,
    a_sink_resumes_from_offsets_altered_under_a_group_override,
);

const ALTERED: &str = "The offsets for this connector have been altered successfully";
const RESET: &str = "The offsets for this connector have been reset successfully";
const EMPTY: &str = "Partitions / offsets need to be provided for an alter offsets request";

fn not_stopped(name: &str) -> String {
    format!(
        "Connectors must be in the STOPPED state before their offsets can be modified. This can \
         be done for the specified connector by issuing a 'PUT' request to the \
         '/connectors/{name}/stop' endpoint"
    )
}

/// A source that polls no records: its offsets are only those the test writes.
fn source() -> Properties {
    props(&[
        ("connector.class", "ChaosSource"),
        ("tasks.max", "1"),
        ("chaos.mode", "ok"),
        ("batch.size", "0"),
    ])
}

fn sink(topics: &str) -> Properties {
    props(&[("connector.class", "ChaosSink"), ("tasks.max", "1"), ("topics", topics)])
}

fn c(name: &str) -> InstanceId {
    InstanceId::Connector(name.into())
}

fn entry(partition: Value, offset: Value) -> ConnectorOffset {
    ConnectorOffset { partition, offset }
}

fn sink_partition(topic: &str, partition: i32) -> Value {
    json!({"kafka_topic": topic, "kafka_partition": partition})
}

fn bad_request<T: std::fmt::Debug>(r: Result<T, HerderError>) -> String {
    match r {
        Err(HerderError::BadRequest(m)) => m,
        other => panic!("expected a bad request, got {other:?}"),
    }
}

async fn offsets(app: &App, name: &str) -> Vec<ConnectorOffset> {
    app.herder.connector_offsets(name).await.unwrap().offsets
}

/// Creates a connector and stops it once it runs.
async fn stopped(app: &App, name: &str, config: Properties) {
    app.herder.put_connector_config(name, config, None, false).await.unwrap();
    wait_state(app, c(name), State::Running).await;
    app.herder.stop(name).await.unwrap();
    wait_state(app, c(name), State::Stopped).await;
    // Stopped means no tasks too (Kafka Connect's "connector is stopped" check): until the
    // last task has gone, a sink's consumer group may still have a member.
    eventually(20, &format!("{name}'s tasks to be gone"), async || {
        let status = app.herder.connector_status(name).await.ok()?;
        status.tasks.is_empty().then_some(())
    })
    .await;
}

async fn unknown_connectors_are_not_found(b: Backing) {
    let app = b.start().await;
    let found = app.herder.connector_offsets("nope").await;
    assert!(matches!(&found, Err(HerderError::NotFound(m)) if m == "Connector nope not found"));
    let altered = app.herder.alter_offsets("nope", vec![(json!({"a": 1}), None)]).await;
    assert!(matches!(&altered, Err(HerderError::NotFound(m)) if m == "Connector nope not found"));
    let reset = app.herder.reset_offsets("nope").await;
    assert!(matches!(&reset, Err(HerderError::NotFound(m)) if m == "Connector nope not found"));
    app.shutdown().await;
}

async fn offsets_change_only_while_stopped(b: Backing) {
    let app = b.start().await;
    app.herder.put_connector_config("run", source(), None, false).await.unwrap();
    wait_state(&app, c("run"), State::Running).await;
    let one = vec![(json!({"chaos": "p"}), Some(json!({"n": 1})))];
    assert_eq!(bad_request(app.herder.alter_offsets("run", one.clone()).await), not_stopped("run"));
    assert_eq!(bad_request(app.herder.reset_offsets("run").await), not_stopped("run"));
    // The state comes before the list: an empty alter of a running connector is refused
    // for its state.
    assert_eq!(bad_request(app.herder.alter_offsets("run", vec![]).await), not_stopped("run"));
    app.herder.pause("run").await.unwrap();
    wait_state(&app, c("run"), State::Paused).await;
    assert_eq!(bad_request(app.herder.alter_offsets("run", one.clone()).await), not_stopped("run"));

    app.herder.stop("run").await.unwrap();
    wait_state(&app, c("run"), State::Stopped).await;
    assert_eq!(bad_request(app.herder.alter_offsets("run", vec![]).await), EMPTY);
    assert_eq!(app.herder.alter_offsets("run", one).await.unwrap(), ALTERED);

    app.herder.resume("run").await.unwrap();
    wait_state(&app, c("run"), State::Running).await;
    assert_eq!(bad_request(app.herder.reset_offsets("run").await), not_stopped("run"));
    app.shutdown().await;
}

async fn source_offsets_are_altered_and_reset(b: Backing) {
    let app = b.start().await;
    stopped(&app, "src", source()).await;
    assert!(offsets(&app, "src").await.is_empty());
    let (p, q) = (json!({"chaos": "p"}), json!({"chaos": "q"}));
    let altered = app
        .herder
        .alter_offsets(
            "src",
            vec![(p.clone(), Some(json!({"n": 41}))), (q.clone(), Some(json!({"n": 7})))],
        )
        .await;
    assert_eq!(altered.unwrap(), ALTERED);
    let both = vec![entry(p.clone(), json!({"n": 41})), entry(q.clone(), json!({"n": 7}))];
    assert_eq!(offsets(&app, "src").await, both);
    // Another connector's offsets are its own.
    stopped(&app, "other", source()).await;
    assert!(offsets(&app, "other").await.is_empty());

    // Durable: a new worker on the same backing reads them back.
    app.shutdown().await;
    let app = b.start().await;
    assert_eq!(offsets(&app, "src").await, both);

    // A null offset removes one partition.
    assert_eq!(app.herder.alter_offsets("src", vec![(q.clone(), None)]).await.unwrap(), ALTERED);
    assert_eq!(offsets(&app, "src").await, vec![entry(p.clone(), json!({"n": 41}))]);
    let explicit_null = vec![(p.clone(), Some(Value::Null)), (q.clone(), Some(json!({"n": 1})))];
    assert_eq!(app.herder.alter_offsets("src", explicit_null).await.unwrap(), ALTERED);
    assert_eq!(offsets(&app, "src").await, vec![entry(q, json!({"n": 1}))]);

    // A reset removes them all, and may be repeated.
    assert_eq!(app.herder.reset_offsets("src").await.unwrap(), RESET);
    assert!(offsets(&app, "src").await.is_empty());
    assert_eq!(app.herder.reset_offsets("src").await.unwrap(), RESET);
    app.shutdown().await;
    let app = b.start().await;
    assert!(offsets(&app, "src").await.is_empty(), "the reset is durable");
    app.shutdown().await;
}

async fn bad_source_shapes_are_refused(b: Backing) {
    let app = b.start().await;
    stopped(&app, "shapes", source()).await;
    let alter = |p: Value, o: Value| app.herder.alter_offsets("shapes", vec![(p, Some(o))]);
    assert_eq!(
        bad_request(alter(json!("p"), json!({"n": 1})).await),
        "Offsets must be specified as a Map"
    );
    assert_eq!(
        bad_request(alter(json!({"p": 1}), json!([1])).await),
        "Offsets must be specified as a Map"
    );
    assert_eq!(
        bad_request(alter(json!({"p": [1]}), json!({"n": 1})).await),
        "Offsets may only contain primitive types as values, but field p contains ARRAY"
    );
    assert!(offsets(&app, "shapes").await.is_empty(), "nothing was written");
    app.shutdown().await;
}

async fn an_uninstalled_plugin_fails_naming_its_class(b: Backing) {
    let app = b.start().await;
    // Another worker, with a plugin this one lacks, wrote the connector.
    let record = ConfigRecord::Connector {
        name: "alien".into(),
        config: Some(props(&[("connector.class", "com.example.AlienSource")])),
    };
    b.config_topic().await.send(vec![record.to_log_record()]).await.unwrap();
    eventually(20, "the connector to be read", async || {
        app.herder.connector_info("alien").await.ok()
    })
    .await;
    match app.herder.connector_offsets("alien").await {
        Err(HerderError::Failed(m)) => assert!(m.contains("com.example.AlienSource"), "{m}"),
        other => panic!("expected a failure, got {other:?}"),
    }
    app.shutdown().await;
}

/// `consumer.override.group.id` names the group of the sink task and of the offsets API
/// alike (Kafka Connect's rule): the API reads what the task committed, and offsets
/// altered through the API are where the resumed task starts.
async fn a_sink_resumes_from_offsets_altered_under_a_group_override(b: Backing) {
    let unique = match &b {
        Backing::Kafka(prefix, _) => prefix.clone(),
        Backing::Embedded(_) => "embedded".into(),
    };
    let (topic, name, group) =
        (format!("{unique}-grp-in"), format!("{unique}-grp-snk"), format!("{unique}-my-group"));
    let input = b.backend().await.topic(&TopicSpec::new(topic.clone(), 1, false)).await.unwrap();
    let records = (0..10).map(|i| LogRecord::new(format!("k{i}"), format!("r{i}"))).collect();
    input.send(records).await.unwrap();
    let app = b.start_with(&[("offset.flush.interval.ms", "200")]).await;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.txt");
    let string = "org.apache.kafka.connect.storage.StringConverter";
    let mut config = sink(&topic);
    config.extend(props(&[
        ("connector.class", "FileStreamSink"),
        ("file", out.to_str().unwrap()),
        ("key.converter", string),
        ("value.converter", string),
        ("consumer.override.group.id", &group),
    ]));
    let lines = || -> Vec<String> {
        std::fs::read_to_string(&out).unwrap_or_default().lines().map(str::to_owned).collect()
    };
    let all: Vec<String> = (0..10).map(|i| format!("r{i}")).collect();

    // The task reads the topic once, and commits in the overriding group.
    app.herder.put_connector_config(&name, config, None, false).await.unwrap();
    eventually(60, "all ten records in the file", async || (lines() == all).then_some(())).await;
    app.herder.stop(&name).await.unwrap();
    wait_state(&app, c(&name), State::Stopped).await;
    let at_end = vec![entry(sink_partition(&topic, 0), json!({"kafka_offset": 10}))];
    eventually(30, "the task's commit, read from the overriding group", async || {
        (offsets(&app, &name).await == at_end).then_some(())
    })
    .await;

    // Rewound through the API, the resumed task reads from there.
    let rewind = vec![(sink_partition(&topic, 0), Some(json!({"kafka_offset": 7})))];
    let altered = eventually(30, "the group to be empty", async || {
        app.herder.alter_offsets(&name, rewind.clone()).await.ok()
    })
    .await;
    assert_eq!(altered, ALTERED);
    app.herder.resume(&name).await.unwrap();
    let want: Vec<String> = all.iter().chain(&all[7..]).cloned().collect();
    eventually(60, "records 7 to 9 again", async || (lines().len() >= want.len()).then_some(()))
        .await;
    assert_eq!(lines(), want, "the task resumed at the altered offset");
    let again = vec![entry(sink_partition(&topic, 0), json!({"kafka_offset": 10}))];
    eventually(30, "the resumed task's commit", async || {
        (offsets(&app, &name).await == again).then_some(())
    })
    .await;
    app.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn embedded_sink_offsets_are_the_embedded_consumer_groups() {
    let dir = tempfile::tempdir().unwrap();
    let b = Backing::embedded(&dir);
    b.backend().await.topic(&TopicSpec::new("t1", 1, false)).await.unwrap();
    let app = b.start().await;
    stopped(&app, "snk", sink("t1")).await;
    assert!(offsets(&app, "snk").await.is_empty(), "no offsets yet");
    let one = vec![(sink_partition("t1", 0), Some(json!({"kafka_offset": 3})))];
    app.herder.alter_offsets("snk", one).await.unwrap();
    assert_eq!(
        offsets(&app, "snk").await,
        vec![entry(sink_partition("t1", 0), json!({"kafka_offset": 3}))]
    );
    app.herder.reset_offsets("snk").await.unwrap();
    assert!(offsets(&app, "snk").await.is_empty(), "the reset removed them");
    app.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kafka_sink_offsets_are_the_consumer_groups() {
    let b = Backing::kafka();
    let Backing::Kafka(prefix, _) = &b else { unreachable!() };
    let topic = format!("{prefix}-sink-in");
    let spec = TopicSpec::new(topic.clone(), 3, false);
    b.backend().await.topic(&spec).await.unwrap();
    let app = b.start().await;
    // Consumer groups outlive the test's topics: the connector's name is unique per run.
    let name = format!("{prefix}-snk");
    let name = name.as_str();
    stopped(&app, name, sink(&topic)).await;
    assert!(offsets(&app, name).await.is_empty(), "no group yet");

    let offset = |o: i64| json!({"kafka_offset": o});
    let alter = vec![
        (sink_partition(&topic, 0), Some(offset(10))),
        (
            json!({"kafka_topic": topic, "kafka_partition": "2"}),
            Some(json!({"kafka_offset": "25"})),
        ),
    ];
    assert_eq!(app.herder.alter_offsets(name, alter).await.unwrap(), ALTERED);
    let both = vec![
        entry(sink_partition(&topic, 0), offset(10)),
        entry(sink_partition(&topic, 2), offset(25)),
    ];
    assert_eq!(offsets(&app, name).await, both);

    // Altering one partition keeps the others; a null offset removes one.
    let more = vec![(sink_partition(&topic, 1), Some(offset(5)))];
    assert_eq!(app.herder.alter_offsets(name, more).await.unwrap(), ALTERED);
    assert_eq!(offsets(&app, name).await.len(), 3);
    let remove = vec![(sink_partition(&topic, 0), None)];
    assert_eq!(app.herder.alter_offsets(name, remove).await.unwrap(), ALTERED);
    assert_eq!(
        offsets(&app, name).await,
        vec![
            entry(sink_partition(&topic, 1), offset(5)),
            entry(sink_partition(&topic, 2), offset(25))
        ]
    );

    // Bad shapes, with Kafka Connect's messages.
    let shape = |p: Value, o: Option<Value>| app.herder.alter_offsets(name, vec![(p, o)]);
    assert_eq!(
        bad_request(shape(json!({"kafka_topic": topic}), Some(offset(1))).await),
        "The partition for a sink connector offset must contain the keys 'kafka_topic' and 'kafka_partition'"
    );
    assert_eq!(
        bad_request(
            shape(json!({"kafka_topic": topic, "kafka_partition": "x"}), Some(offset(1))).await
        ),
        "Failed to parse the following Kafka partition value in the provided offsets: 'x'. \
         Partition values for sink connectors need to be integers."
    );
    assert_eq!(
        bad_request(shape(sink_partition(&topic, 0), Some(json!({"n": 1}))).await),
        "The offset for a sink connector should either be null or contain the key 'kafka_offset'"
    );
    assert!(
        bad_request(shape(sink_partition(&topic, 0), Some(offset(-1))).await).contains("negative")
    );
    assert_eq!(offsets(&app, name).await.len(), 2, "nothing was written");

    let unknown = vec![(sink_partition(&format!("{topic}-missing"), 0), Some(offset(1)))];
    let failed = app.herder.alter_offsets(name, unknown).await;
    let want = format!("Failed to alter consumer group offsets for connector {name}");
    assert!(
        matches!(&failed, Err(HerderError::Failed(m)) if *m == want),
        "an unknown topic: {failed:?}"
    );

    // The state precondition holds for sinks too.
    app.herder.resume(name).await.unwrap();
    wait_state(&app, c(name), State::Running).await;
    assert_eq!(bad_request(app.herder.reset_offsets(name).await), not_stopped(name));
    app.herder.stop(name).await.unwrap();
    wait_state(&app, c(name), State::Stopped).await;

    // A reset deletes the group; a second one finds nothing to delete. The task ran and
    // joined the group: until its consumer has left, the reset is refused with Kafka
    // Connect's retry-me message.
    let reset =
        eventually(30, "the group to be empty", async || app.herder.reset_offsets(name).await.ok())
            .await;
    assert_eq!(reset, RESET);
    assert!(offsets(&app, name).await.is_empty());
    assert_eq!(app.herder.reset_offsets(name).await.unwrap(), RESET);
    app.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kafka_sink_offsets_refuse_changes_while_the_group_has_members() {
    use rdkafka::ClientConfig;
    use rdkafka::consumer::{BaseConsumer, Consumer};

    let b = Backing::kafka();
    let Backing::Kafka(prefix, bootstrap) = &b else { unreachable!() };
    let topic = format!("{prefix}-zombie-in");
    let spec = TopicSpec::new(topic.clone(), 1, false);
    b.backend().await.topic(&spec).await.unwrap();
    let app = b.start().await;
    let name = format!("{prefix}-zombie");
    let name = name.as_str();
    stopped(&app, name, sink(&topic)).await;
    let one = vec![(sink_partition(&topic, 0), Some(json!({"kafka_offset": 3})))];
    assert_eq!(app.herder.alter_offsets(name, one.clone()).await.unwrap(), ALTERED);

    // A sink task that never stopped: a member of the connector's group.
    let member: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", bootstrap)
        .set("group.id", format!("connect-{name}"))
        .set("session.timeout.ms", "6000")
        .set("enable.auto.commit", "false")
        .create()
        .unwrap();
    member.subscribe(&[&topic]).unwrap();
    let member = std::sync::Arc::new(member);
    let poller = member.clone();
    let polling = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    let keep = polling.clone();
    let thread = std::thread::spawn(move || {
        while keep.load(std::sync::atomic::Ordering::Relaxed) {
            let _ = poller.poll(std::time::Duration::from_millis(50));
        }
    });
    eventually(30, "the zombie to join the group", async || {
        member.assignment().ok().filter(|a| a.count() > 0)
    })
    .await;

    let failed = |r: Result<String, HerderError>| match r {
        Err(HerderError::Failed(m)) => m,
        other => panic!("expected a failure, got {other:?}"),
    };
    let m = failed(app.herder.alter_offsets(name, one).await);
    assert!(
        m.starts_with(&format!(
            "Failed to alter consumer group offsets for connector {name} either"
        )),
        "{m}"
    );
    let m = failed(app.herder.reset_offsets(name).await);
    assert!(
        m.starts_with(&format!(
            "Failed to reset consumer group offsets for connector {name} either"
        )),
        "{m}"
    );
    assert_eq!(offsets(&app, name).await.len(), 1, "the offsets are untouched");

    polling.store(false, std::sync::atomic::Ordering::Relaxed);
    thread.join().unwrap();
    member.unsubscribe();
    drop(member);
    app.shutdown().await;
}
