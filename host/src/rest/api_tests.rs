//! Answers the API fuzzing (`scripts/schemathesis.sh`) found wrong, through the real router
//! and a real herder: a standalone worker on an embedded store in a temporary directory,
//! whose config topic already holds connectors of a plugin that does not exist (enough for
//! statuses and the offsets checks that come before the plugin is needed).

use std::time::Duration;

use axum::body::Body;
use axum::http::{Method, Request, StatusCode};
use serde_json::Value;
use tower::ServiceExt;

use crate::app::App;
use crate::cluster::KeyRing;
use crate::model::{Properties, TargetState};
use crate::rest::{InternalRequests, harness, router};
use crate::store::ConfigRecord;

/// A worker whose config topic holds `records`, and its router.
async fn start_worker(dir: &std::path::Path, records: &[ConfigRecord]) -> (App, axum::Router) {
    let app = harness::start_worker(dir, records).await;
    let api = router(harness::state(&app, InternalRequests::Refused, KeyRing::new()));
    (app, api)
}

/// Connector `name` of a plugin that is not installed, with target state `target`.
fn connector(name: &str, target: TargetState) -> [ConfigRecord; 2] {
    let config = Properties::from([
        ("connector.class".into(), "NoSuchPlugin".into()),
        ("tasks.max".into(), "1".into()),
    ]);
    [
        ConfigRecord::TargetState { connector: name.into(), state: Some(target) },
        ConfigRecord::Connector { name: name.into(), config: Some(config) },
    ]
}

async fn call(app: &axum::Router, method: Method, path: &str, body: &str) -> (StatusCode, Value) {
    let request = Request::builder()
        .method(method)
        .uri(path)
        .header("content-type", "application/json")
        .body(Body::from(body.to_owned()))
        .unwrap();
    let response = app.clone().oneshot(request).await.unwrap();
    let status = response.status();
    let bytes = axum::body::to_bytes(response.into_body(), 1 << 16).await.unwrap();
    let body = if bytes.is_empty() { Value::Null } else { serde_json::from_slice(&bytes).unwrap() };
    (status, body)
}

/// The connector's state once it has one other than `not`, after at most 200 looks.
async fn state_other_than(app: &axum::Router, name: &str, not: &str) -> Value {
    let path = format!("/connectors/{name}/status");
    for _ in 0..200 {
        let (status, body) = call(app, Method::GET, &path, "").await;
        if status == StatusCode::OK && body["connector"]["state"] != not {
            return body["connector"]["state"].clone();
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("{name} never had a state other than {not}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_connector_that_never_ran_here_shows_stopped() {
    let dir = tempfile::tempdir().unwrap();
    let [a, b] = connector("stopped", TargetState::Stopped);
    let [c, d] = connector("failed", TargetState::Started);
    let (app, api) = start_worker(dir.path(), &[a, b, c, d]).await;

    // Created (here: restored) STOPPED: no instance ever reports a stop, yet the status is
    // STOPPED, as Kafka Connect's; it was 404 forever.
    assert_eq!(state_other_than(&api, "stopped", "").await, "STOPPED");

    // FAILED (its plugin is missing), then stopped: no instance is left to report the stop.
    assert_eq!(state_other_than(&api, "failed", "UNASSIGNED").await, "FAILED");
    let (status, body) = call(&api, Method::PUT, "/connectors/failed/stop", "").await;
    assert_eq!(status, StatusCode::NO_CONTENT, "{body}");
    assert_eq!(state_other_than(&api, "failed", "FAILED").await, "STOPPED");
    let (_, body) = call(&api, Method::GET, "/connectors/failed/status", "").await;
    assert_eq!(body["tasks"], serde_json::json!([]));

    app.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn bodies_and_offset_entries_are_objects_not_arrays_of_their_fields() {
    let dir = tempfile::tempdir().unwrap();
    let (app, api) = start_worker(dir.path(), &connector("c", TargetState::Stopped)).await;
    let message = |body: &Value| body["message"].as_str().unwrap_or_default().to_owned();

    // An entry given as [partition, offset] was taken as {"partition", "offset"} (200).
    let (status, body) =
        call(&api, Method::PATCH, "/connectors/c/offsets", r#"{"offsets": [[null, null]]}"#).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(message(&body).contains("at `offsets[0]`: invalid type: sequence"), "{body}");
    // An object entry goes on to the herder (which needs the missing plugin).
    let good = r#"{"offsets": [{"partition": {"p": 1}, "offset": null}]}"#;
    let (status, body) = call(&api, Method::PATCH, "/connectors/c/offsets", good).await;
    assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR, "{body}");
    assert!(message(&body).starts_with("Failed to find any class"), "{body}");

    // A whole body given as an array of the fields: refused, also after whitespace.
    let required = "Invalid JSON in the request body: a JSON object is required";
    for (path, body) in [
        ("/admin/loggers/root", r#"["DEBUG"]"#),
        ("/connectors/c/offsets", r#" [[{"partition": null}]]"#),
    ] {
        let method = if path.contains("loggers") { Method::PUT } else { Method::PATCH };
        let (status, answer) = call(&api, method, path, body).await;
        assert_eq!((status, message(&answer)), (StatusCode::BAD_REQUEST, required.into()));
    }
    let (status, body) =
        call(&api, Method::PUT, "/admin/loggers/root", r#" {"level": "INFO"}"#).await;
    assert_eq!(status, StatusCode::OK, "{body}");

    app.shutdown().await;
}
