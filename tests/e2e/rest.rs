//! The REST API over real HTTP, on both backends: every endpoint and its status codes,
//! Kafka Connect's bodies, the restart endpoint (KIP-745) end to end, and bad input.

use std::time::Duration;

use reqwest::{Client, Method, StatusCode};
use serde_json::{Value, json};
use wasm_connect::app::App;
use wasm_connect::store::LogEntry;

use crate::harness::{Backing, eventually};

on_both_backends!(
    root_health_and_plugins,
    connector_crud_and_lifecycle,
    bad_input_gets_clear_400s,
    restart_endpoint_follows_kip_745,
    validate_answers_config_infos,
);

/// A client for one worker.
pub struct Api {
    base: String,
    http: Client,
}

impl Api {
    pub fn new(app: &App) -> Self {
        Self { base: format!("http://{}", app.rest_addr), http: Client::new() }
    }

    pub async fn call(
        &self,
        method: Method,
        path: &str,
        body: Option<Value>,
    ) -> (StatusCode, Value) {
        let mut req = self.http.request(method, format!("{}{path}", self.base));
        if let Some(b) = body {
            req = req.json(&b);
        }
        let resp = req.send().await.expect("request sent");
        let status = resp.status();
        let text = resp.text().await.unwrap();
        (
            status,
            if text.is_empty() {
                Value::Null
            } else {
                serde_json::from_str(&text).unwrap_or(Value::String(text))
            },
        )
    }

    pub async fn raw(
        &self,
        method: Method,
        path: &str,
        body: &'static [u8],
    ) -> (StatusCode, Value) {
        let resp = self
            .http
            .request(method, format!("{}{path}", self.base))
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .unwrap();
        let status = resp.status();
        (status, resp.json().await.unwrap_or(Value::Null))
    }

    pub async fn get(&self, path: &str) -> (StatusCode, Value) {
        self.call(Method::GET, path, None).await
    }

    /// `PUT /connector-plugins/{plugin}/config/validate` with `config`: the answer, which
    /// must be 200.
    pub async fn validate(&self, plugin: &str, config: Value) -> Value {
        let path = format!("/connector-plugins/{plugin}/config/validate");
        let (code, body) = self.call(Method::PUT, &path, Some(config)).await;
        assert_eq!(code, StatusCode::OK, "{body}");
        body
    }

    /// Waits until the connector's status answer satisfies `ok`.
    pub async fn wait_status(&self, name: &str, what: &str, ok: impl Fn(&Value) -> bool) -> Value {
        eventually(20, what, async || {
            let (code, body) = self.get(&format!("/connectors/{name}/status")).await;
            (code == StatusCode::OK && ok(&body)).then_some(body)
        })
        .await
    }
}

fn source(name: &str, extra: &[(&str, &str)]) -> Value {
    let mut config = json!({"connector.class": "ChaosSource", "tasks.max": "2"});
    for (k, v) in extra {
        config[*k] = json!(v);
    }
    json!({ "name": name, "config": config })
}

/// Every error of a validate answer as (key, message), checked against its `error_count`.
pub fn validate_errors(body: &Value) -> Vec<(String, String)> {
    let errors: Vec<(String, String)> = body["configs"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| {
            let key = c["value"]["name"].as_str().unwrap().to_owned();
            let errors = c["value"]["errors"].as_array().cloned().unwrap_or_default();
            errors.into_iter().map(move |e| (key.clone(), e.as_str().unwrap().to_owned()))
        })
        .collect();
    assert_eq!(body["error_count"], errors.len(), "{body}");
    errors
}

/// Whether a status body shows the connector and exactly `tasks` tasks RUNNING.
pub fn all_running(tasks: usize) -> impl Fn(&Value) -> bool {
    move |s| {
        s["connector"]["state"] == "RUNNING"
            && s["tasks"]
                .as_array()
                .is_some_and(|t| t.len() == tasks && t.iter().all(|t| t["state"] == "RUNNING"))
    }
}

/// Asserts a Kafka Connect error body: `want`, and `message` within the message.
pub fn assert_error(code: StatusCode, body: &Value, want: StatusCode, message: &str) {
    assert_eq!(code, want, "{body}");
    assert_eq!(body["error_code"], want.as_u16(), "{body}");
    let m = body["message"].as_str().unwrap_or_default();
    assert!(m.contains(message), "expected {message:?} in {m:?}");
}

async fn root_health_and_plugins(b: Backing) {
    let app = b.start().await;
    let api = Api::new(&app);
    let (code, root) = api.get("/").await;
    assert_eq!(code, StatusCode::OK);
    assert_eq!(root["version"], env!("CARGO_PKG_VERSION"));
    assert!(root.get("commit").is_some() && root.get("kafka_cluster_id").is_some(), "{root}");
    let (code, health) = api.get("/health").await;
    assert_eq!((code, health["status"].as_str()), (StatusCode::OK, Some("healthy")));

    let (code, plugins) = api.get("/connector-plugins").await;
    assert_eq!(code, StatusCode::OK);
    let list = plugins.as_array().unwrap();
    let find = |c: &str| {
        list.iter().find(|p| p["class"] == c).unwrap_or_else(|| panic!("{c} missing: {plugins}"))
    };
    // Plugins that stand in for Kafka Connect's report its class names.
    assert_eq!(find("org.apache.kafka.connect.file.FileStreamSourceConnector")["type"], "source");
    assert_eq!(find("org.apache.kafka.connect.file.FileStreamSinkConnector")["type"], "sink");
    let sinks_first = list.iter().position(|p| p["type"] == "sink")
        < list.iter().position(|p| p["type"] == "source");
    assert!(sinks_first, "Kafka Connect lists sinks first: {plugins}");
    assert!(list.iter().all(|p| p["type"] != "converter"), "connectors only: {plugins}");
    let (code, all) = api.get("/connector-plugins?connectorsOnly=false").await;
    assert_eq!(code, StatusCode::OK);
    let converter = |c: &str| all.as_array().unwrap().iter().find(|p| p["class"] == c).cloned();
    let json_converter = converter("org.apache.kafka.connect.json.JsonConverter");
    assert_eq!(json_converter.map(|p| p["type"].clone()), Some(json!("converter")), "{all}");

    let (code, keys) = api.get("/connector-plugins/FileStreamSource/config").await;
    assert_eq!(code, StatusCode::OK);
    let file = keys.as_array().unwrap().iter().find(|k| k["name"] == "file").expect("file key");
    assert_eq!(file["type"], "STRING");
    // Kafka Connect's class name finds the plugin too.
    let (code, _) = api
        .get("/connector-plugins/org.apache.kafka.connect.file.FileStreamSourceConnector/config")
        .await;
    assert_eq!(code, StatusCode::OK);
    let (code, body) = api.get("/connector-plugins/NoSuchPlugin/config").await;
    assert_error(code, &body, StatusCode::NOT_FOUND, "Unknown plugin NoSuchPlugin");
    let (code, body) = api.get("/no/such/path").await;
    assert_error(code, &body, StatusCode::NOT_FOUND, "Not Found");

    // The OpenAPI document is served and names the restart endpoint.
    let (code, doc) = api.get("/openapi.json").await;
    assert_eq!(code, StatusCode::OK);
    assert!(doc["paths"]["/connectors/{name}/restart"]["post"].is_object());

    // Admin loggers (KIP-495).
    let (code, changed) = api
        .call(Method::PUT, "/admin/loggers/wasm_connect.herder", Some(json!({"level": "debug"})))
        .await;
    assert_eq!(code, StatusCode::OK, "{changed}");
    assert_eq!(changed, json!(["wasm_connect.herder"]), "Kafka Connect's dotted names");
    let (code, all) = api.get("/admin/loggers").await;
    assert_eq!(code, StatusCode::OK);
    assert_eq!(all["wasm_connect.herder"]["level"], "DEBUG");
    assert!(all["wasm_connect.herder"]["last_modified"].is_i64(), "{all}");
    assert!(all.get("root").is_some(), "{all}");
    let (code, one) = api.get("/admin/loggers/wasm_connect::herder").await;
    assert_eq!((code, &one["level"]), (StatusCode::OK, &json!("DEBUG")));
    let (code, body) =
        api.call(Method::PUT, "/admin/loggers/x", Some(json!({"level": "LOUD"}))).await;
    assert_error(code, &body, StatusCode::NOT_FOUND, "invalid log level 'LOUD'.");
    let (code, body) = api.call(Method::PUT, "/admin/loggers/x", Some(json!({}))).await;
    assert_error(
        code,
        &body,
        StatusCode::BAD_REQUEST,
        "Desired 'level' parameter was not specified",
    );
    let (code, body) = api.get("/admin/loggers/no.such.logger").await;
    assert_error(code, &body, StatusCode::NOT_FOUND, "not found");

    // Metrics in Prometheus text format, with the reconfiguration attempts of a
    // connector whose task-configs failed once.
    let name = format!("metered-{}", std::process::id());
    let body = source(
        &name,
        &[("chaos.task.configs.failures", "1"), ("task.reconfiguration.backoff.initial.ms", "10")],
    );
    assert_eq!(api.call(Method::POST, "/connectors", Some(body)).await.0, StatusCode::CREATED);
    api.wait_status(&name, "the metered connector running", all_running(2)).await;
    let resp = Client::new().get(format!("http://{}/metrics", app.rest_addr)).send().await.unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    assert!(resp.headers()["content-type"].to_str().unwrap().starts_with("text/plain"));
    let text = resp.text().await.unwrap();
    let line = format!("wasm_connect_reconfiguration_attempts_total{{connector=\"{name}\"}}");
    assert!(text.contains(&line), "{line} missing from:\n{text}");

    // Topic tracking answers in Kafka Connect's shape, and its reset is accepted.
    assert_eq!(api.get("/connectors/any/topics").await.1, json!({"any": {"topics": []}}));
    assert_eq!(
        api.call(Method::PUT, "/connectors/any/topics/reset", None).await.0,
        StatusCode::ACCEPTED
    );
    app.shutdown().await;
}

async fn connector_crud_and_lifecycle(b: Backing) {
    let app = b.start().await;
    let api = Api::new(&app);
    let resp = Client::new()
        .post(format!("http://{}/connectors", app.rest_addr))
        .json(&source("crud", &[]))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::CREATED);
    assert_eq!(resp.headers()["location"], "/connectors/crud");
    let info: Value = resp.json().await.unwrap();
    assert_eq!(info["name"], "crud");
    assert_eq!(info["type"], "source");
    assert_eq!(info["config"]["name"], "crud");
    assert_eq!(
        info["tasks"],
        json!([]),
        "tasks before they are generated, as Kafka Connect answers"
    );

    let (code, body) = api.call(Method::POST, "/connectors", Some(source("crud", &[]))).await;
    assert_error(code, &body, StatusCode::CONFLICT, "Connector crud already exists");
    api.wait_status("crud", "crud running", all_running(2)).await;

    assert_eq!(api.get("/connectors").await.1, json!(["crud"]));
    let (_, expanded) = api.get("/connectors?expand=status&expand=info").await;
    assert_eq!(expanded["crud"]["status"]["connector"]["state"], "RUNNING");
    assert_eq!(
        expanded["crud"]["info"]["tasks"],
        json!([{"connector": "crud", "task": 0}, {"connector": "crud", "task": 1}])
    );
    let (code, tasks) = api.get("/connectors/crud/tasks").await;
    assert_eq!(code, StatusCode::OK);
    assert_eq!(tasks[1]["id"], json!({"connector": "crud", "task": 1}));
    assert_eq!(tasks[0]["config"]["task.class"], "ChaosSourceTask");
    let (code, ts) = api.get("/connectors/crud/tasks/1/status").await;
    assert_eq!((code, &ts["id"], &ts["state"]), (StatusCode::OK, &json!(1), &json!("RUNNING")));
    assert!(ts["worker_id"].as_str().unwrap().contains(':'), "{ts}");

    // PUT replaces (200), PATCH merges and removes null keys.
    let (code, _) = api
        .call(
            Method::PUT,
            "/connectors/crud/config",
            Some(json!({"connector.class": "ChaosSource", "tasks.max": "1", "chaos.secret": "x"})),
        )
        .await;
    assert_eq!(code, StatusCode::OK);
    let (code, info) = api
        .call(
            Method::PATCH,
            "/connectors/crud/config",
            Some(json!({"chaos.secret": null, "tasks.max": 3})),
        )
        .await;
    assert_eq!(code, StatusCode::OK, "{info}");
    let (_, config) = api.get("/connectors/crud/config").await;
    assert_eq!(config["tasks.max"], "3");
    assert!(config.get("chaos.secret").is_none(), "{config}");
    api.wait_status("crud", "three tasks running", all_running(3)).await;
    // PUT on a new name creates (201).
    let (code, _) = api
        .call(
            Method::PUT,
            "/connectors/other/config",
            Some(json!({"connector.class": "ChaosSource"})),
        )
        .await;
    assert_eq!(code, StatusCode::CREATED);

    assert_eq!(api.call(Method::PUT, "/connectors/crud/pause", None).await.0, StatusCode::ACCEPTED);
    api.wait_status("crud", "paused", |s| {
        s["connector"]["state"] == "PAUSED" && s["tasks"][2]["state"] == "PAUSED"
    })
    .await;
    assert_eq!(
        api.call(Method::PUT, "/connectors/crud/resume", None).await.0,
        StatusCode::ACCEPTED
    );
    api.wait_status("crud", "resumed", all_running(3)).await;
    assert_eq!(
        api.call(Method::PUT, "/connectors/crud/stop", None).await.0,
        StatusCode::NO_CONTENT
    );
    api.wait_status("crud", "stopped", |s| {
        s["connector"]["state"] == "STOPPED" && s["tasks"] == json!([])
    })
    .await;
    assert_eq!(api.get("/connectors/crud/tasks").await.1, json!([]));

    assert_eq!(api.call(Method::DELETE, "/connectors/crud", None).await.0, StatusCode::NO_CONTENT);
    let (code, body) = api.get("/connectors/crud").await;
    assert_error(code, &body, StatusCode::NOT_FOUND, "Connector crud not found");
    let (code, body) = api.call(Method::DELETE, "/connectors/crud", None).await;
    assert_error(code, &body, StatusCode::NOT_FOUND, "Connector crud not found");
    let (code, body) = api.call(Method::PUT, "/connectors/crud/pause", None).await;
    assert_error(code, &body, StatusCode::NOT_FOUND, "Unknown connector crud");
    let (code, body) = api.get("/connectors/crud/status").await;
    assert_error(code, &body, StatusCode::NOT_FOUND, "No status found for connector crud");
    let (code, body) = api.get("/connectors/other/tasks/9/status").await;
    assert_error(code, &body, StatusCode::NOT_FOUND, "No status found for task other-9");
    app.shutdown().await;
}

async fn bad_input_gets_clear_400s(b: Backing) {
    let app = b.start().await;
    let api = Api::new(&app);
    let (code, body) = api.raw(Method::POST, "/connectors", b"{not json").await;
    assert_error(code, &body, StatusCode::BAD_REQUEST, "Invalid JSON");
    let (code, body) = api.raw(Method::POST, "/connectors", b"").await;
    assert_error(code, &body, StatusCode::BAD_REQUEST, "empty");
    let (code, body) =
        api.raw(Method::POST, "/connectors", br#"{"name": "x", "config": []}"#).await;
    assert_error(code, &body, StatusCode::BAD_REQUEST, "config");
    let (code, body) =
        api.raw(Method::POST, "/connectors", br#"{"name": "x", "config": {}, "extra": 1}"#).await;
    assert_error(code, &body, StatusCode::BAD_REQUEST, "extra");
    let (code, body) = api
        .call(
            Method::POST,
            "/connectors",
            Some(json!({"config": {"connector.class": "ChaosSource"}})),
        )
        .await;
    assert_error(code, &body, StatusCode::BAD_REQUEST, "non-empty");
    let no_type = json!({"name": "x", "config": {"tasks.max": "1", "db.password": "hunter2"}});
    let (code, body) = api.call(Method::POST, "/connectors", Some(no_type.clone())).await;
    assert_error(code, &body, StatusCode::BAD_REQUEST, "contains no connector type");
    assert!(!body.to_string().contains("hunter2"), "the answer echoes no config value: {body}");
    let (code, body) = api
        .call(
            Method::PUT,
            "/connector-plugins/ChaosSource/config/validate",
            Some(no_type["config"].clone()),
        )
        .await;
    assert_error(code, &body, StatusCode::BAD_REQUEST, "contains no connector type");
    assert!(!body.to_string().contains("hunter2"), "the answer echoes no config value: {body}");
    let (code, body) =
        api.call(Method::POST, "/connectors", Some(source("x", &[("tasks.max", "zero")]))).await;
    assert_error(code, &body, StatusCode::BAD_REQUEST, "Connector configuration is invalid");
    let (code, body) = api
        .call(
            Method::POST,
            "/connectors",
            Some(json!({"name": "x", "config": {"connector.class": "ChaosSink"}})),
        )
        .await;
    assert_error(code, &body, StatusCode::BAD_REQUEST, "topics");
    let (code, body) = api
        .call(
            Method::POST,
            "/connectors",
            Some(json!({"name": "x", "config": {"connector.class": "Nope"}})),
        )
        .await;
    assert_error(code, &body, StatusCode::INTERNAL_SERVER_ERROR, "Failed to find any class");
    let (code, body) = api
        .call(
            Method::POST,
            "/connectors",
            Some(json!({"name": "x", "config": {"name": "y", "connector.class": "ChaosSource"}})),
        )
        .await;
    assert_error(code, &body, StatusCode::BAD_REQUEST, "doesn't match");
    let (code, body) = api.call(Method::POST, "/connectors", Some(json!({"name": "x", "config": {"connector.class": "ChaosSource"}, "initial_state": "DANCING"}))).await;
    assert_error(code, &body, StatusCode::BAD_REQUEST, "initial state");
    let big = vec![b'a'; wasm_connect::rest::MAX_BODY + 10];
    let resp = Client::new()
        .post(format!("http://{}/connectors", app.rest_addr))
        .header("content-type", "application/json")
        .body(big)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::PAYLOAD_TOO_LARGE);
    let body: Value = resp.json().await.unwrap();
    assert_eq!(body["error_code"], 413);
    let (code, body) = api.call(Method::DELETE, "/connectors", None).await;
    assert_error(code, &body, StatusCode::METHOD_NOT_ALLOWED, "Method Not Allowed");
    assert!(api.get("/connectors").await.1.as_array().unwrap().is_empty(), "nothing was created");
    app.shutdown().await;
}

fn restart_records(entries: &[LogEntry], name: &str) -> Vec<Value> {
    let key = format!("restart-connector-{name}");
    entries
        .iter()
        .filter(|e| e.key.as_deref() == Some(key.as_bytes()))
        .map(|e| serde_json::from_slice(e.value.as_deref().unwrap()).unwrap())
        .collect()
}

async fn restart_endpoint_follows_kip_745(b: Backing) {
    let app = b.start().await;
    let api = Api::new(&app);
    let (code, _) = api
        .call(
            Method::POST,
            "/connectors",
            Some(source("rs", &[("tasks.max", "3"), ("chaos.fail.tasks", "1")])),
        )
        .await;
    assert_eq!(code, StatusCode::CREATED);
    let failed_1 = |s: &Value| {
        s["connector"]["state"] == "RUNNING"
            && s["tasks"].as_array().is_some_and(|t| t.len() == 3)
            && s["tasks"][0]["state"] == "RUNNING"
            && s["tasks"][1]["state"] == "FAILED"
            && s["tasks"][2]["state"] == "RUNNING"
    };
    let before = api.wait_status("rs", "task 1 failed", failed_1).await;
    assert!(before["tasks"][1]["trace"].as_str().unwrap().contains("told to fail"), "{before}");

    // Both flags false: the connector instance restarts, 204 and no body.
    let (code, body) = api.call(Method::POST, "/connectors/rs/restart", None).await;
    assert_eq!((code, body), (StatusCode::NO_CONTENT, Value::Null));

    // onlyFailed + includeTasks: only the FAILED task is planned; the record is written.
    api.wait_status("rs", "the connector back after its restart", failed_1).await;
    app.herder.flush_statuses().await;
    let statuses = b.status_topic().await;
    let mut status_reader = statuses.reader().await.unwrap();
    status_reader.read_to_end().await.unwrap();
    let (code, body) = api
        .call(Method::POST, "/connectors/rs/restart?includeTasks=true&onlyFailed=true", None)
        .await;
    assert_eq!(code, StatusCode::ACCEPTED, "{body}");
    assert_eq!(body["connector"]["state"], "RUNNING");
    assert_eq!(body["tasks"][0]["state"], "RUNNING");
    assert_eq!(body["tasks"][1]["state"], "RESTARTING");
    assert_eq!(body["tasks"][2]["state"], "RUNNING");
    let config = b.config_topic().await;
    let records = config.reader().await.unwrap().read_to_end().await.unwrap();
    assert_eq!(
        restart_records(&records, "rs").last().unwrap(),
        &json!({"include-tasks": true, "only-failed": true})
    );
    let mut seen = Vec::new();
    eventually(20, "task 1 RESTARTING then FAILED again", async || {
        seen.extend(status_reader.poll(Duration::from_millis(100)).await.unwrap());
        let states: Vec<String> = seen
            .iter()
            .filter(|e| e.key.as_deref() == Some(b"status-task-rs-1".as_slice()))
            .filter_map(|e| e.value.as_deref())
            .map(|v| {
                serde_json::from_slice::<Value>(v).unwrap()["state"].as_str().unwrap().to_owned()
            })
            .collect();
        (states == ["RESTARTING", "FAILED"]).then_some(())
    })
    .await;
    for key in ["status-task-rs-0", "status-task-rs-2", "status-connector-rs"] {
        assert!(
            !seen.iter().any(|e| e.key.as_deref() == Some(key.as_bytes())),
            "{key} was restarted"
        );
    }

    // includeTasks only: everything restarts; RESTARTING then RUNNING for the healthy ones.
    let (code, body) =
        api.call(Method::POST, "/connectors/rs/restart?includeTasks=true", None).await;
    assert_eq!(code, StatusCode::ACCEPTED);
    assert!(body["tasks"].as_array().unwrap().iter().all(|t| t["state"] == "RESTARTING"), "{body}");
    assert_eq!(body["connector"]["state"], "RESTARTING");
    api.wait_status("rs", "back after the full restart", failed_1).await;

    let (code, body) =
        api.call(Method::POST, "/connectors/none/restart?includeTasks=true", None).await;
    assert_error(code, &body, StatusCode::NOT_FOUND, "Unknown connector: none");
    let (code, body) = api.call(Method::POST, "/connectors/none/restart", None).await;
    assert_error(code, &body, StatusCode::NOT_FOUND, "Unknown connector: none");
    let (code, body) =
        api.call(Method::POST, "/connectors/rs/restart?onlyFailed=maybe", None).await;
    assert_error(code, &body, StatusCode::BAD_REQUEST, "onlyFailed");
    assert_eq!(
        api.call(Method::POST, "/connectors/rs/tasks/0/restart", None).await.0,
        StatusCode::NO_CONTENT
    );
    // As Kafka Connect: the task is started (204), its plugin's start fails, and its status
    // says FAILED with the start's trace.
    let (code, body) = api.call(Method::POST, "/connectors/rs/tasks/1/restart", None).await;
    assert_eq!((code, body), (StatusCode::NO_CONTENT, Value::Null));
    let (_, status) = api.get("/connectors/rs/tasks/1/status").await;
    assert_eq!(status["state"], "FAILED", "{status}");
    assert!(status["trace"].as_str().unwrap().contains("told to fail"), "{status}");
    let (code, body) = api.call(Method::POST, "/connectors/rs/tasks/7/restart", None).await;
    assert_error(code, &body, StatusCode::NOT_FOUND, "Unknown task: rs-7");
    app.shutdown().await;
}

/// Validate reports what creating or starting the instance would fail on: file paths the
/// sandbox cannot grant, a `topics.regex` that cannot compile, sizes a plugin bounds.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn validate_says_what_start_would_say() {
    let dir = tempfile::tempdir().unwrap();
    let app = Backing::embedded(&dir).start().await;
    let api = Api::new(&app);
    let validate = async |plugin: &str, mut config: Value| {
        // Validated on its own, a config needs its `name` (Kafka Connect's rule).
        config["name"] = json!("v");
        validate_errors(&api.validate(plugin, config).await)
    };
    let sink =
        |file: &str| json!({"connector.class": "FileStreamSink", "topics": "t", "file": file});

    // A relative path is fine where its directory exists (the worker's working directory)...
    assert_eq!(validate("FileStreamSink", sink("out.txt")).await, []);
    // ...and named by key where it does not, as is a directory given as the file.
    let errors = validate("FileStreamSink", sink("no-such-directory-here/out.txt")).await;
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].0, "file");
    assert!(errors[0].1.contains("does not exist"), "{errors:?}");
    let errors = validate("FileStreamSink", sink(dir.path().to_str().unwrap())).await;
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].1.contains("is a directory, not a file"), "{errors:?}");

    let regex = json!({"connector.class": "FileStreamSink", "topics.regex": "in-(",
        "file": dir.path().join("out.txt").to_str().unwrap()});
    let errors = validate("FileStreamSink", regex).await;
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].0, "topics.regex");
    assert!(errors[0].1.starts_with("Invalid value in-( for configuration topics.regex"));

    let datagen = json!({"connector.class": "Datagen", "topic": "t",
        "key.size": "100000000", "value.size": "2147483647"});
    let keys: Vec<String> =
        validate("Datagen", datagen).await.into_iter().map(|(k, _)| k).collect();
    assert_eq!(keys, ["key.size", "value.size"]);
    app.shutdown().await;
}

/// `connector.client.config.override.policy`: validate, create and update refuse the
/// client overrides the worker's policy does not allow, with Kafka Connect's message.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_override_policy_refuses_what_it_does_not_allow() {
    let dir = tempfile::tempdir().unwrap();
    let app = Backing::embedded(&dir)
        .start_with(&[("connector.client.config.override.policy", "Principal")])
        .await;
    let api = Api::new(&app);
    let file = dir.path().join("out.txt");
    let config = json!({"connector.class": "FileStreamSink", "topics": "t",
        "file": file.to_str().unwrap(), "consumer.override.security.protocol": "PLAINTEXT",
        "producer.override.acks": "all"});
    let refused = "The 'Principal' policy does not allow 'acks' to be overridden in the connector configuration.";

    let mut named = config.clone();
    named["name"] = json!("p");
    let path = "/connector-plugins/FileStreamSink/config/validate";
    let (code, body) = api.call(Method::PUT, path, Some(named)).await;
    assert_eq!(code, StatusCode::OK, "{body}");
    assert_eq!(body["error_count"], 1, "{body}");
    assert!(body.to_string().contains(refused), "{body}");

    let (code, body) =
        api.call(Method::POST, "/connectors", Some(json!({"name": "p", "config": config}))).await;
    assert_eq!(code, StatusCode::BAD_REQUEST, "{body}");
    assert!(body["message"].as_str().unwrap().contains("1 error"), "{body}");
    let (code, _) = api.get("/connectors/p").await;
    assert_eq!(code, StatusCode::NOT_FOUND, "nothing was created");

    // What the policy allows is accepted.
    let mut allowed = config.clone();
    allowed.as_object_mut().unwrap().remove("producer.override.acks");
    let (code, body) = api.call(Method::PUT, "/connectors/p/config", Some(allowed)).await;
    assert_eq!(code, StatusCode::CREATED, "{body}");
    app.shutdown().await;
}

async fn validate_answers_config_infos(b: Backing) {
    let app = b.start().await;
    let api = Api::new(&app);
    let path = "/connector-plugins/ChaosSource/config/validate";
    let ok = json!({"name": "v", "connector.class": "ChaosSource", "tasks.max": "1",
        "chaos.secret": "hunter2"});
    let (code, body) = api.call(Method::PUT, path, Some(ok)).await;
    assert_eq!(code, StatusCode::OK, "{body}");
    assert_eq!(body["name"], "ChaosSource");
    assert_eq!(body["error_count"], 0, "{body}");
    let secret = body["configs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["value"]["name"] == "chaos.secret")
        .unwrap();
    assert_eq!(secret["value"]["value"], "[hidden]");
    assert_eq!(secret["definition"]["type"], "PASSWORD");
    assert!(!body.to_string().contains("hunter2"));

    let bad =
        json!({"connector.class": "ChaosSource", "tasks.max": "0", "chaos.huge.bytes": "lots"});
    let (code, body) = api.call(Method::PUT, path, Some(bad)).await;
    assert_eq!(code, StatusCode::OK, "200 even with errors, as Kafka Connect answers: {body}");
    // Without `name`, Kafka Connect's "Missing required configuration" is the third.
    assert_eq!(body["error_count"], 3, "{body}");
    let errors_of = |k: &str| {
        body["configs"].as_array().unwrap().iter().find(|c| c["value"]["name"] == k).unwrap()["value"]["errors"].clone()
    };
    assert_eq!(
        errors_of("tasks.max"),
        json!(["Invalid value 0 for configuration tasks.max: Value must be at least 1"])
    );
    assert_eq!(errors_of("chaos.huge.bytes").as_array().unwrap().len(), 1);
    assert_eq!(
        errors_of("name"),
        json!(["Missing required configuration \"name\" which has no default value."])
    );

    let (code, body) =
        api.call(Method::PUT, path, Some(json!({"connector.class": "FileStreamSink"}))).await;
    assert_error(code, &body, StatusCode::BAD_REQUEST, "does not match request type");
    let (code, body) =
        api.call(Method::PUT, "/connector-plugins/Nope/config/validate", Some(json!({}))).await;
    // Kafka Connect's BadRequestException (which it wraps into a 500 by mistake).
    assert_error(
        code,
        &body,
        StatusCode::BAD_REQUEST,
        "Failed to find any class that implements Connector and which name matches Nope",
    );
    app.shutdown().await;
}
