//! Cluster-wide log levels (KIP-976, `PUT /admin/loggers/{logger}?scope=cluster`) over real
//! HTTP: 204, then the level on this worker (standalone: at once, nothing written; in a
//! group: through a `logger-cluster-<namespace>` record in the config topic), on every
//! other worker of the group, and not on a worker that joins later.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use wasm_connect::app::App;
use wasm_connect::store::LogEntry;

use crate::harness::{Backing, eventually};
use crate::rest::{Api, assert_error};

on_both_backends!(cluster_scope_answers_204_and_sets_the_level_here);

/// PUTs `level` for `logger` with `scope=cluster`.
async fn put_cluster(api: &Api, logger: &str, level: Value) -> (StatusCode, Value) {
    let body = json!({ "level": level });
    api.call(Method::PUT, &format!("/admin/loggers/{logger}?scope=cluster"), Some(body)).await
}

/// Waits until `api` shows `level` for `logger`; returns its `GET /admin/loggers/{logger}`.
async fn wait_level(api: &Api, logger: &str, level: &str) -> Value {
    eventually(20, &format!("{logger} at {level}"), async || {
        let (code, body) = api.get(&format!("/admin/loggers/{logger}")).await;
        (code == StatusCode::OK && body["level"] == level).then_some(body)
    })
    .await
}

/// The `logger-cluster-` records of the config topic, as (key, value).
async fn logger_records(b: &Backing) -> Vec<(String, String)> {
    let mut reader = b.config_topic().await.reader().await.unwrap();
    let entries: Vec<LogEntry> = reader.read_to_end().await.unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    entries
        .iter()
        .filter_map(|e| Some((text(e.key.as_deref()?), text(e.value.as_deref()?))))
        .filter(|(k, _)| k.starts_with("logger-cluster-"))
        .collect()
}

async fn cluster_scope_answers_204_and_sets_the_level_here(b: Backing) {
    let app = b.start().await;
    let api = Api::new(&app);
    let logger = "wasm_connect.kip976.here";
    let (code, body) = put_cluster(&api, logger, json!("debug")).await;
    assert_eq!((code, &body), (StatusCode::NO_CONTENT, &Value::Null));
    let one = wait_level(&api, logger, "DEBUG").await;
    assert!(one["last_modified"].is_i64(), "{one}");
    let (_, all) = api.get("/admin/loggers").await;
    assert_eq!(all[logger]["level"], "DEBUG", "listed by its dotted name: {all}");
    let records = logger_records(&b).await;
    match b {
        // Kafka Connect's record, with the level as the request gave it.
        Backing::Kafka(..) => assert_eq!(
            records,
            [(format!("logger-cluster-{logger}"), r#"{"level":"debug"}"#.to_owned())]
        ),
        // A standalone worker is the whole cluster: nothing to tell anyone.
        Backing::Embedded(_) => assert!(records.is_empty(), "{records:?}"),
    }

    // Checked as for scope=worker, before anything is written.
    let (code, body) = put_cluster(&api, "x", json!("LOUD")).await;
    assert_error(code, &body, StatusCode::NOT_FOUND, "invalid log level 'LOUD'.");
    let (code, body) =
        api.call(Method::PUT, "/admin/loggers/x?scope=cluster", Some(json!({}))).await;
    assert_error(
        code,
        &body,
        StatusCode::BAD_REQUEST,
        "Desired 'level' parameter was not specified",
    );
    let (code, body) = put_cluster(&api, "a,b", json!("INFO")).await;
    assert_error(code, &body, StatusCode::BAD_REQUEST, "invalid logger name");
    assert_eq!(logger_records(&b).await.len(), records.len(), "nothing more written");
    app.shutdown().await;
}

/// Every worker of the group running when the record is written applies it; one that
/// starts later does not (Kafka Connect ignores the levels it reads while starting).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_worker_of_the_group_applies_a_cluster_level_and_a_later_one_does_not() {
    let b = Backing::kafka();
    let first = b.start().await;
    let second = b.start().await;
    let (one, two) = (Api::new(&first), Api::new(&second));
    let logger = "wasm_connect.kip976.peers";
    let (code, body) = put_cluster(&two, logger, json!("TRACE")).await;
    assert_eq!((code, &body), (StatusCode::NO_CONTENT, &Value::Null));
    wait_level(&one, logger, "TRACE").await;
    wait_level(&two, logger, "TRACE").await;
    // A later level replaces it everywhere.
    let (code, _) = put_cluster(&one, logger, json!("warn")).await;
    assert_eq!(code, StatusCode::NO_CONTENT);
    wait_level(&one, logger, "WARN").await;
    wait_level(&two, logger, "WARN").await;

    // Both records are in the topic when the third worker reads it at start-up.
    assert_eq!(logger_records(&b).await.len(), 2);
    let late: App = b.start().await;
    let (code, body) = Api::new(&late).get(&format!("/admin/loggers/{logger}")).await;
    assert_error(code, &body, StatusCode::NOT_FOUND, "not found");
    for app in [late, second, first] {
        app.shutdown().await;
    }
}
