//! Tests of the inter-worker endpoints through the real router and a real herder: a
//! standalone worker on an embedded store in a temporary directory, whose config topic
//! already holds connector `c` (of a plugin that does not exist, which is enough to take
//! task configs).

use std::time::Duration;

use axum::body::Body;
use axum::http::{Method, Request};
use serde_json::{Value, json};
use tower::ServiceExt;

use super::*;
use crate::app::App;
use crate::cluster::{ClientError, InterWorkerClient, signature_headers};
use crate::model::Properties;
use crate::model::SessionKey;
use crate::rest::harness::{self, state};
use crate::rest::router;
use crate::store::ConfigRecord;

async fn start_worker(dir: &std::path::Path) -> App {
    let config = Properties::from([
        ("connector.class".into(), "NoSuchPlugin".into()),
        ("tasks.max".into(), "1".into()),
    ]);
    let record = ConfigRecord::Connector { name: "c".into(), config: Some(config) };
    harness::start_worker(dir, &[record]).await
}

async fn call(
    app: &axum::Router,
    method: Method,
    path: &str,
    headers: HeaderMap,
    body: &str,
) -> (StatusCode, Value) {
    let mut request = Request::builder().method(method).uri(path);
    for (k, v) in &headers {
        request = request.header(k, v);
    }
    let response =
        app.clone().oneshot(request.body(Body::from(body.to_owned())).unwrap()).await.unwrap();
    let status = response.status();
    let bytes = axum::body::to_bytes(response.into_body(), 1 << 16).await.unwrap();
    let body = if bytes.is_empty() { Value::Null } else { serde_json::from_slice(&bytes).unwrap() };
    (status, body)
}

fn signed(key: &SessionKey, body: &str) -> HeaderMap {
    signature_headers(key, body.as_bytes()).into_iter().collect()
}

fn error(code: u16, message: &str) -> Value {
    json!({"error_code": code, "message": message})
}

#[tokio::test(flavor = "multi_thread")]
async fn internal_endpoints_verify_signatures_then_reach_the_herder() {
    let dir = tempfile::tempdir().unwrap();
    let app = start_worker(dir.path()).await;
    let key = crate::cluster::KeySettings::default().generate(crate::cluster::now_ms()).unwrap();
    let tasks = r#"[{"task.class":"NoSuchPlugin","n":"0"}]"#;

    // Standalone mode answers as Kafka Connect's standalone worker does, also on the
    // worker's own listener.
    let standalone = router(state(&app, InternalRequests::Refused, KeyRing::new()));
    let (status, body) =
        call(&standalone, Method::POST, "/connectors/c/tasks", signed(&key, tasks), tasks).await;
    assert_eq!((status, body), (StatusCode::INTERNAL_SERVER_ERROR, error(500, STANDALONE_TASKS)));
    let (status, body) =
        call(&standalone, Method::PUT, "/connectors/c/fence", HeaderMap::new(), "").await;
    assert_eq!((status, body), (StatusCode::INTERNAL_SERVER_ERROR, error(500, STANDALONE_FENCE)));
    let own = reqwest::Client::builder().no_proxy().build().unwrap();
    let response = own
        .post(format!("http://{}/connectors/c/tasks", app.rest_addr))
        .body(tasks)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::INTERNAL_SERVER_ERROR);

    // Distributed mode: signatures first.
    let keyring = KeyRing::new();
    let signed_router = router(state(&app, InternalRequests::signed(), keyring.clone()));
    let post = |headers: HeaderMap, body: &'static str, path: &'static str| {
        let r = signed_router.clone();
        async move { call(&r, Method::POST, path, headers, body).await }
    };
    let (status, body) = post(signed(&key, tasks), tasks, "/connectors/c/tasks").await;
    assert_eq!(
        (status, body),
        (
            StatusCode::SERVICE_UNAVAILABLE,
            error(
                503,
                "This worker is still starting up and has not been able to read a session key from the config topic yet"
            )
        )
    );
    keyring.set(Some(key.clone()));
    let (status, body) = post(HeaderMap::new(), tasks, "/connectors/c/tasks").await;
    assert_eq!(
        (status, body),
        (StatusCode::BAD_REQUEST, error(400, "Internal request missing required signature"))
    );
    let other = crate::cluster::KeySettings::default().generate(0).unwrap();
    let (status, body) = post(signed(&other, tasks), tasks, "/connectors/c/tasks").await;
    assert_eq!(
        (status, body),
        (StatusCode::FORBIDDEN, error(403, "Internal request contained invalid signature."))
    );
    let mut wrong_algorithm = signed(&key, tasks);
    wrong_algorithm.insert("x-connect-request-signature-algorithm", "HmacMD5".parse().unwrap());
    let (status, body) = post(wrong_algorithm, tasks, "/connectors/c/tasks").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(body["message"].as_str().unwrap().contains("'HmacMD5'"), "{body}");

    // Then the body, then the herder.
    for bad in [r#"{"a":"1"}"#, r#"[{"a":1}]"#, "not json"] {
        let (status, body) = post(signed(&key, bad), bad, "/connectors/c/tasks").await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}: {body}");
        assert!(body["message"].as_str().unwrap().starts_with("Invalid task configs"), "{body}");
    }
    let (status, body) = post(signed(&key, tasks), tasks, "/connectors/nope/tasks").await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    let (status, body) = post(signed(&key, tasks), tasks, "/connectors/c/tasks").await;
    assert_eq!((status, body), (StatusCode::NO_CONTENT, Value::Null));
    let written = app.herder.task_configs("c").await.unwrap();
    assert_eq!(written.len(), 1);
    assert_eq!(written[0]["n"], "0");
    // The public GET on the same path is still routed.
    let (status, body) =
        call(&signed_router, Method::GET, "/connectors/c/tasks", HeaderMap::new(), "").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body[0]["config"]["n"], "0", "{body}");

    // Zombie fencing is not supported, but only signed callers learn it.
    let (status, _) =
        call(&signed_router, Method::PUT, "/connectors/c/fence", HeaderMap::new(), "").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (status, body) =
        call(&signed_router, Method::PUT, "/connectors/c/fence", signed(&key, ""), "").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(body["message"].as_str().unwrap().contains("exactly-once"), "{body}");

    // The client's signed task configs pass over real HTTP; a stale key does not.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, signed_router).await.unwrap() });
    let client = InterWorkerClient::new(Duration::from_secs(10), None).unwrap();
    let configs = vec![
        Properties::from([("task.class".into(), "NoSuchPlugin".into()), ("n".into(), "a".into())]),
        Properties::from([("task.class".into(), "NoSuchPlugin".into()), ("n".into(), "b".into())]),
    ];
    client.submit_task_configs(&url, "c", &configs, Some(&key)).await.unwrap();
    assert_eq!(app.herder.task_configs("c").await.unwrap(), configs);
    let e = client.submit_task_configs(&url, "c", &configs, Some(&other)).await.unwrap_err();
    assert_eq!(
        e,
        ClientError::Remote {
            status: 403,
            error_code: 403,
            message: "Internal request contained invalid signature.".into()
        }
    );
    let e = client.submit_task_configs(&url, "c", &configs, None).await.unwrap_err();
    assert_eq!(e.status(), 400);

    app.shutdown().await;
}
