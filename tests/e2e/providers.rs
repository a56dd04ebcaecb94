//! Config providers end to end (KIP-297): a standalone worker with
//! `config.providers=file` runs a sink whose output file and transform setting come from a
//! secrets file. The plugin and the transform get the resolved values (the output file
//! holds the records, wrapped under the secret field name), while the config and task
//! answers, the refusal of a config whose resolved value does not validate, the worker's
//! log and the embedded database's bytes hold only the references.

use serde_json::{Value, json};

use crate::harness::eventually;
use crate::standalone::Worker;

/// The secret: the field name the sink's transform wraps each value under.
const TOKEN: &str = "tok-7Hq2xZ-secret";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn references_reach_the_plugin_and_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let secrets = root.join("secrets.properties");
    let output = root.join("out.txt");
    let missing = format!("/nonexistent-{TOKEN}/out.txt");
    std::fs::write(
        &secrets,
        format!("output={}\nfield={TOKEN}\nmissing={missing}\n", output.display()),
    )
    .unwrap();
    let input = root.join("in.txt");
    std::fs::write(&input, "alpha\nbeta\n").unwrap();
    let worker = Worker::start_with(
        &root,
        &format!(
            "config.providers=file\n\
             config.providers.file.class=org.apache.kafka.common.config.provider.FileConfigProvider\n\
             config.providers.file.param.allowed.paths={}\n",
            root.display()
        ),
    );
    let base = worker.base().await;
    let http = reqwest::Client::new();
    let reference = |key: &str| format!("${{file:{}:{key}}}", secrets.display());
    let sink = json!({
        "connector.class": "FileStreamSink", "topics": "lines", "file": reference("output"),
        "transforms": "hoist",
        "transforms.hoist.type": "org.apache.kafka.connect.transforms.HoistField$Value",
        "transforms.hoist.field": reference("field"),
        "value.converter": "org.apache.kafka.connect.storage.StringConverter",
    });
    let connectors = [
        (
            "src",
            json!({"connector.class": "FileStreamSource", "file": input.display().to_string(),
                   "topic": "lines",
                   "value.converter": "org.apache.kafka.connect.storage.StringConverter"}),
        ),
        ("snk", sink.clone()),
    ];

    // Validation checks the resolved config and answers with the config as written.
    let mut named = sink.clone();
    named["name"] = json!("snk");
    let url = format!("{base}/connector-plugins/FileStreamSink/config/validate");
    let body: Value = http.put(url).json(&named).send().await.unwrap().json().await.unwrap();
    assert_eq!(body["error_count"], 0, "{body}");
    assert!(!body.to_string().contains(TOKEN), "{body}");
    let file_value = body["configs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["value"]["name"] == "file")
        .map(|c| c["value"]["value"].clone());
    assert_eq!(file_value, Some(json!(reference("output"))), "{body}");

    for (name, config) in &connectors {
        let create = json!({"name": name, "config": config});
        let resp = http.post(format!("{base}/connectors")).json(&create).send().await.unwrap();
        assert_eq!(resp.status(), reqwest::StatusCode::CREATED, "{name}");
    }

    // The plugin wrote to the resolved file, the transform wrapped under the resolved name.
    let lines = eventually(60, "both lines in out.txt", async || {
        let text = std::fs::read_to_string(&output).ok()?;
        let lines: Vec<String> = text.lines().map(str::to_owned).collect();
        (lines.len() >= 2).then_some(lines)
    })
    .await;
    assert_eq!(lines, [format!(r#"{{"{TOKEN}":"alpha"}}"#), format!(r#"{{"{TOKEN}":"beta"}}"#)]);

    // REST answers show the references.
    let get = async |path: &str| -> Value {
        http.get(format!("{base}{path}")).send().await.unwrap().json().await.unwrap()
    };
    let config = get("/connectors/snk/config").await;
    assert_eq!(config["file"], json!(reference("output")), "{config}");
    assert_eq!(config["transforms.hoist.field"], json!(reference("field")), "{config}");
    let tasks = get("/connectors/snk/tasks").await;
    assert_eq!(tasks[0]["config"]["file"], json!(reference("output")), "{tasks}");
    assert_eq!(tasks[0]["config"]["transforms.hoist.field"], json!(reference("field")));
    let info = get("/connectors/snk").await;

    // A resolved value validation refuses is reported without it.
    let bad = json!({"name": "bad", "config": {"connector.class": "FileStreamSink",
                     "topics": "lines", "file": reference("missing")}});
    let resp = http.post(format!("{base}/connectors")).json(&bad).send().await.unwrap();
    assert_eq!(resp.status(), reqwest::StatusCode::BAD_REQUEST);
    let refused: Value = resp.json().await.unwrap();
    let message = refused["message"].as_str().unwrap_or_default();
    // The directory of the resolved path is a piece of the secret: hidden.
    assert!(message.contains("file: directory [hidden] does not exist"), "{refused}");

    for answer in
        [&config, &tasks, &info, &refused, &get("/connectors?expand=status&expand=info").await]
    {
        assert!(!answer.to_string().contains(TOKEN), "a REST answer holds the secret: {answer}");
    }
    let log = worker.log().join("\n");
    assert!(!log.contains(TOKEN), "the log holds the secret:\n{log}");
    // The connector's config is logged at start, with the reference.
    let logged = format!("transforms.hoist.field={}", reference("field"));
    assert!(log.contains(&logged), "{logged} not logged:\n{log}");
    let (mut checked, mut references) = (0, 0);
    let written = b"secrets.properties:field}";
    for entry in std::fs::read_dir(&root).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with("worker.db") {
            let bytes = std::fs::read(entry.path()).unwrap();
            let found = bytes.windows(TOKEN.len()).any(|w| w == TOKEN.as_bytes());
            assert!(!found, "{name} holds the secret");
            checked += 1;
            references += bytes.windows(written.len()).filter(|w| w == written).count();
        }
    }
    assert!(checked > 0, "no database file in {}", root.display());
    // What was written holds the reference: the connector config and its task's.
    assert!(references >= 2, "{references} references in the database");
}
