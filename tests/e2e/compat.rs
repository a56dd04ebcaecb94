//! Fidelity with Kafka Connect 4.x as its clients see it, on both backends: the KIP-745
//! plan never marks a healthy instance under `onlyFailed`, and a 202 answer shows what a
//! status read shows next; trailing slashes; status bodies that strict clients decode
//! (`version` on every instance, the worker's extras in a top-level key); `ConfigKeyInfo`
//! field names; `GET /`'s cluster id and commit; plugin class names.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::harness::Backing;
use crate::rest::{Api, all_running as running};

on_both_backends!(
    only_failed_never_restarts_a_healthy_instance,
    an_accepted_restart_shows_what_status_shows_next,
    trailing_slashes_are_accepted,
    statuses_decode_as_kafka_connect_clients_expect,
    root_names_the_cluster_and_the_commit,
    plugins_answer_with_kafka_connect_class_names_and_fields,
);

const SOURCE_CLASS: &str = "org.apache.kafka.connect.file.FileStreamSourceConnector";

fn chaos(name: &str, tasks: &str) -> Value {
    json!({"name": name, "config": {"connector.class": "ChaosSource", "tasks.max": tasks}})
}

/// Every state a status body shows: the connector's, then each task's.
fn states(body: &Value) -> Vec<String> {
    std::iter::once(&body["connector"])
        .chain(body["tasks"].as_array().into_iter().flatten())
        .map(|s| s["state"].as_str().unwrap_or("?").to_owned())
        .collect()
}

/// Issue 14's sequence, 50 times: restart everything, wait until the status shows it all
/// RUNNING, then restart with `onlyFailed`. Kafka Connect answers RUNNING for both.
async fn only_failed_never_restarts_a_healthy_instance(b: Backing) {
    let app = b.start().await;
    let api = Api::new(&app);
    let (code, body) = api.call(Method::POST, "/connectors", Some(chaos("c1", "1"))).await;
    assert_eq!(code, StatusCode::CREATED, "{body}");
    api.wait_status("c1", "c1 running", running(1)).await;
    for round in 0..50 {
        let (code, body) =
            api.call(Method::POST, "/connectors/c1/restart?includeTasks=true", None).await;
        assert_eq!(code, StatusCode::ACCEPTED, "round {round}: {body}");
        assert_eq!(states(&body), ["RESTARTING", "RESTARTING"], "round {round}: {body}");
        api.wait_status("c1", "c1 running again", running(1)).await;
        let flags =
            if round % 2 == 0 { "onlyFailed=true" } else { "includeTasks=true&onlyFailed=true" };
        let (code, body) =
            api.call(Method::POST, &format!("/connectors/c1/restart?{flags}"), None).await;
        assert_eq!(code, StatusCode::ACCEPTED, "round {round}: {body}");
        assert_eq!(states(&body), ["RUNNING", "RUNNING"], "round {round} ({flags}): {body}");
        let (_, status) = api.get("/connectors/c1/status").await;
        assert_eq!(states(&status), ["RUNNING", "RUNNING"], "round {round}: {status}");
    }
    app.shutdown().await;
}

/// The race behind the sequence above: a 202 was answered before the plan ran, so a status
/// read right after it still showed the instances as they were before the restart, and a
/// client that waited for RUNNING went on before the restart had even begun. Now the plan
/// runs before the answer. The tasks here take 400 ms to stop (their `stop` spins until
/// the call deadline), so a status read right after the 202 must show them RESTARTING.
async fn an_accepted_restart_shows_what_status_shows_next(b: Backing) {
    let app = b.start().await;
    let api = Api::new(&app);
    let config = json!({"name": "c2", "config": {
        "connector.class": "ChaosSource", "tasks.max": "2", "chaos.mode": "loop",
        "chaos.when": "stop", "wasm.call.timeout.ms": "400"}});
    let (code, body) = api.call(Method::POST, "/connectors", Some(config)).await;
    assert_eq!(code, StatusCode::CREATED, "{body}");
    api.wait_status("c2", "c2 running", running(2)).await;
    for round in 0..3 {
        let (code, body) =
            api.call(Method::POST, "/connectors/c2/restart?includeTasks=true", None).await;
        assert_eq!(code, StatusCode::ACCEPTED, "{body}");
        assert_eq!(states(&body), ["RESTARTING"; 3], "round {round}: {body}");
        let (_, status) = api.get("/connectors/c2/status").await;
        assert_eq!(states(&status)[1..], ["RESTARTING"; 2], "round {round}: {status}");
        api.wait_status("c2", "c2 running again", running(2)).await;
    }
    app.shutdown().await;
}

async fn trailing_slashes_are_accepted(b: Backing) {
    let app = b.start().await;
    let api = Api::new(&app);
    let (code, body) = api.call(Method::POST, "/connectors/", Some(chaos("slash", "1"))).await;
    assert_eq!(code, StatusCode::CREATED, "{body}");
    let (code, list) = api.get("/connectors/").await;
    assert_eq!((code, list), (StatusCode::OK, json!(["slash"])));
    let (code, info) = api.get("/connectors/slash/").await;
    assert_eq!((code, &info["name"]), (StatusCode::OK, &json!("slash")), "{info}");
    api.wait_status("slash", "slash running", running(1)).await;
    let (code, _) = api.get("/connectors/slash/status/").await;
    assert_eq!(code, StatusCode::OK);
    let (code, plugins) = api.get("/connector-plugins/").await;
    assert_eq!(code, StatusCode::OK);
    assert!(plugins.as_array().is_some_and(|p| !p.is_empty()), "{plugins}");
    let (code, expanded) = api.get("/connectors/?expand=status").await;
    assert_eq!(code, StatusCode::OK);
    assert!(expanded["slash"]["status"].is_object(), "the query survives: {expanded}");
    // A missing connector is still 404.
    let (code, _) = api.get("/connectors/nope/").await;
    assert_eq!(code, StatusCode::NOT_FOUND);
    app.shutdown().await;
}

/// A client that decodes `connector` and each task into string fields (go-kafka-connect's
/// `map[string]string`-shaped structs) must succeed: every field is a string, except a
/// task's integer `id`.
async fn statuses_decode_as_kafka_connect_clients_expect(b: Backing) {
    let app = b.start().await;
    let api = Api::new(&app);
    // A task that fails with a restart policy: the worker's extras (a scheduled restart)
    // must appear, and outside the Kafka Connect objects.
    let config = json!({"name": "strict", "config": {
        "connector.class": "ChaosSource", "tasks.max": "2", "chaos.fail.tasks": "1",
        "restart.policy": "on-failure", "restart.backoff.initial.ms": "60000"}});
    let (code, body) = api.call(Method::POST, "/connectors", Some(config)).await;
    assert_eq!(code, StatusCode::CREATED, "{body}");
    let status = api
        .wait_status("strict", "task 1 failed with a restart scheduled", |s| {
            s["tasks"][1]["state"] == "FAILED"
                && s["extensions"]["tasks"]["1"]["restart"].is_object()
        })
        .await;
    let (_, plugins) = api.get("/connector-plugins").await;
    let version = plugins.as_array().unwrap().iter().find(|p| p["class"] == "ChaosSource").unwrap()
        ["version"]
        .clone();
    let instances =
        std::iter::once(&status["connector"]).chain(status["tasks"].as_array().unwrap());
    for instance in instances {
        let fields = instance.as_object().unwrap();
        for (k, v) in fields {
            assert!(v.is_string() || (k == "id" && v.is_u64()), "{k} is not a string: {status}");
        }
        assert_eq!(instance["version"], version, "{status}");
    }
    assert_eq!(status["tasks"][1]["id"], 1);
    let top: Vec<&str> = status.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(top, ["connector", "extensions", "name", "tasks", "type"], "{status}");
    // The single-task status carries the version too.
    let (code, task) = api.get("/connectors/strict/tasks/0/status").await;
    assert_eq!((code, &task["version"]), (StatusCode::OK, &version), "{task}");
    // Without extras there is no `extensions` key.
    let (code, body) = api.call(Method::POST, "/connectors", Some(chaos("plain", "1"))).await;
    assert_eq!(code, StatusCode::CREATED, "{body}");
    let plain = api.wait_status("plain", "plain running", running(1)).await;
    assert!(plain.get("extensions").is_none(), "{plain}");
    app.shutdown().await;
}

async fn root_names_the_cluster_and_the_commit(b: Backing) {
    let app = b.start().await;
    let (code, root) = Api::new(&app).get("/").await;
    assert_eq!(code, StatusCode::OK);
    let commit = root["commit"].as_str().unwrap_or_default();
    assert!(
        commit.len() >= 7 && commit.chars().all(|c| c.is_ascii_hexdigit()),
        "a source revision: {root}"
    );
    let id = root["kafka_cluster_id"].as_str().expect("a cluster id").to_owned();
    assert!(!id.is_empty(), "{root}");
    app.shutdown().await;
    // The same store is the same cluster after a restart.
    let app = b.start().await;
    let (_, again) = Api::new(&app).get("/").await;
    assert_eq!(again["kafka_cluster_id"], json!(id));
    app.shutdown().await;
}

async fn plugins_answer_with_kafka_connect_class_names_and_fields(b: Backing) {
    let app = b.start().await;
    let api = Api::new(&app);
    let (_, plugins) = api.get("/connector-plugins").await;
    let classes: Vec<&str> =
        plugins.as_array().unwrap().iter().filter_map(|p| p["class"].as_str()).collect();
    // A tool that looks a config's connector.class up in the list finds it.
    assert!(classes.contains(&SOURCE_CLASS), "{plugins}");
    assert!(!classes.contains(&"FileStreamSource"), "the class name, not an alias: {plugins}");

    // ConfigKeyInfo: Kafka Connect's names, `group` null for a key of no group.
    let (code, keys) = api.get("/connector-plugins/FileStreamSource/config").await;
    assert_eq!(code, StatusCode::OK);
    let key = |n: &str| keys.as_array().unwrap().iter().find(|k| k["name"] == n).unwrap().clone();
    let file = key("file");
    assert_eq!((&file["group"], &file["order_in_group"]), (&Value::Null, &json!(-1)), "{file}");
    assert!(file.get("order").is_none(), "{file}");
    let tasks_max = key("tasks.max");
    assert_eq!(tasks_max["group"], "Common");
    assert!(tasks_max["order_in_group"].as_i64().is_some_and(|o| o >= 1), "{tasks_max}");

    // Validate names the result after the class as given, by any alias.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("in.txt");
    for (path, class) in [
        ("FileStreamSource", SOURCE_CLASS),
        ("FileStreamSourceConnector", "FileStreamSource"),
        (SOURCE_CLASS, "FileStreamSourceConnector"),
    ] {
        let config = json!({"name": "v", "connector.class": class, "file": file, "topic": "t"});
        let (code, body) = api
            .call(Method::PUT, &format!("/connector-plugins/{path}/config/validate"), Some(config))
            .await;
        assert_eq!(code, StatusCode::OK, "{body}");
        assert_eq!((&body["name"], &body["error_count"]), (&json!(class), &json!(0)), "{body}");
        let groups = body["groups"].as_array().unwrap();
        assert!(groups.contains(&json!("Common")), "{body}");
        assert!(groups.contains(&json!("Error Handling")), "{body}");
    }
    // A connector created with the class name runs the stand-in plugin, whose tasks
    // carry the task class Kafka Connect's would.
    std::fs::write(&file, "a\n").unwrap();
    let config = json!({"name": "files", "config": {
        "connector.class": SOURCE_CLASS, "file": file, "topic": "t"}});
    let (code, body) = api.call(Method::POST, "/connectors", Some(config)).await;
    assert_eq!(code, StatusCode::CREATED, "{body}");
    let tasks = crate::harness::eventually(20, "task configs", async || {
        let (_, tasks) = api.get("/connectors/files/tasks").await;
        tasks.as_array().is_some_and(|t| !t.is_empty()).then_some(tasks)
    })
    .await;
    assert_eq!(
        tasks[0]["config"]["task.class"],
        "org.apache.kafka.connect.file.FileStreamSourceTask"
    );
    let (_, info) = api.get("/connectors/files").await;
    assert_eq!(info["type"], "source");
    app.shutdown().await;
}
