//! Tests of [`layer`] over real loopback HTTP: small test routers stand in for workers,
//! one whose herder answers `NotHere` and one that echoes what it received.

use std::time::Duration;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::middleware;
use axum::routing::any;
use serde_json::{Value, json};
use tower::ServiceExt;

use super::*;
use crate::cluster::{HMAC_SHA256, signature_headers, verify};
use crate::herder::HerderError;
use crate::model::SessionKey;

fn client() -> InterWorkerClient {
    InterWorkerClient::new(Duration::from_secs(10), None).unwrap()
}

/// `router` behind the forwarding layer, with a small body limit, as `rest::router` does.
fn worker(router: Router) -> Router {
    router.layer(middleware::from_fn_with_state(client(), layer)).layer(DefaultBodyLimit::max(1024))
}

async fn serve(router: Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    format!("http://{addr}")
}

/// A worker whose herder sends every request to `to`; `GET /connectors` too.
fn redirecting(to: Option<String>) -> Router {
    let not_here = move || {
        let url = to.clone();
        async move {
            ApiError::from(HerderError::NotHere {
                message: "Only the leader may do this".into(),
                url,
            })
        }
    };
    worker(Router::new().route("/connectors", any(not_here.clone())).fallback(not_here))
}

/// A worker that answers what it received, or a canned answer for some paths.
fn echoing() -> Router {
    async fn echo(request: Request) -> Response {
        let (parts, body) = request.into_parts();
        let body = axum::body::to_bytes(body, usize::MAX).await.unwrap();
        let header = |n: &str| json!(parts.headers.get(n).map(|v| v.to_str().unwrap()));
        match parts.uri.path() {
            "/connectors/gone" => (
                StatusCode::NOT_FOUND,
                axum::Json(json!({"error_code": 40401, "message": "Connector gone not found"})),
            )
                .into_response(),
            "/connectors/empty" => StatusCode::NO_CONTENT.into_response(),
            "/connectors/moved" => {
                (StatusCode::FOUND, [(header::LOCATION, "/elsewhere")]).into_response()
            }
            "/connectors/html" => (StatusCode::BAD_GATEWAY, "<html>").into_response(),
            "/connectors/stale" => ApiError::from(HerderError::RebalanceNeeded).into_response(),
            path => {
                let seen: Value = json!({
                    "method": parts.method.as_str(),
                    "path": path,
                    "query": parts.uri.query(),
                    "authorization": header("authorization"),
                    "cookie": header("cookie"),
                    "other": header("x-other"),
                    "signature": header(SIGNATURE_HEADER),
                    "algorithm": header(ALGORITHM_HEADER),
                    "user_agent": header("user-agent"),
                    "content_type": header("content-type"),
                    "body": String::from_utf8(body.to_vec()).unwrap(),
                });
                (StatusCode::CREATED, [(header::LOCATION, "/connectors/x")], axum::Json(seen))
                    .into_response()
            }
        }
    }
    worker(Router::new().fallback(echo))
}

async fn send(
    method: Method,
    url: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (StatusCode, HeaderMap, Value) {
    let mut request = reqwest::Client::builder()
        .no_proxy()
        .build()
        .unwrap()
        .request(method, url)
        .body(body.to_owned());
    for (k, v) in headers {
        request = request.header(*k, *v);
    }
    let response = request.send().await.unwrap();
    let (status, headers) = (response.status(), response.headers().clone());
    let bytes = response.bytes().await.unwrap();
    let body = if bytes.is_empty() { Value::Null } else { serde_json::from_slice(&bytes).unwrap() };
    (status, headers, body)
}

fn error(code: u16, message: &str) -> Value {
    json!({"error_code": code, "message": message})
}

#[tokio::test]
async fn a_user_request_goes_on_with_forward_true_and_its_answer_comes_back() {
    let b = serve(echoing()).await;
    let a = serve(redirecting(Some(format!("{b}/")))).await;
    let key = SessionKey { key: b"k".to_vec(), algorithm: HMAC_SHA256.into(), created_ms: 0 };
    let body = r#"{"name": "x", "config": {}}"#;
    let [(_, signature), (_, algorithm)] = signature_headers(&key, body.as_bytes());
    let (status, headers, seen) = send(
        Method::POST,
        &format!("{a}/connectors?expand=x&a=%20b"),
        &[
            ("authorization", "Basic YWRtaW46c2VjcmV0"),
            ("cookie", "session=1"),
            ("x-other", "1"),
            (SIGNATURE_HEADER, signature.to_str().unwrap()),
            (ALGORITHM_HEADER, algorithm.to_str().unwrap()),
        ],
        body,
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{seen}");
    assert_eq!(headers[header::LOCATION], "/connectors/x");
    assert_eq!(headers[header::CONTENT_TYPE], "application/json");
    assert_eq!(
        seen,
        json!({
            "method": "POST",
            "path": "/connectors",
            "query": "forward=true&expand=x&a=%20b",
            "authorization": "Basic YWRtaW46c2VjcmV0",
            "cookie": null,
            "other": null,
            "signature": signature.to_str().unwrap(),
            "algorithm": "HmacSHA256",
            "user_agent": "kafka-connect",
            "content_type": "application/json",
            "body": body,
        })
    );
    // The copied signature still verifies: the body bytes are the same.
    let received: HeaderMap = [
        (HeaderName::from_static("x-connect-authorization"), signature.clone()),
        (HeaderName::from_static("x-connect-request-signature-algorithm"), algorithm),
    ]
    .into_iter()
    .collect();
    let accepted = [HMAC_SHA256.to_owned()];
    assert_eq!(
        verify(&received, seen["body"].as_str().unwrap().as_bytes(), Some(&key), &accepted),
        Ok(())
    );
}

#[tokio::test]
async fn a_forwarded_request_goes_on_once_more_with_its_query() {
    let b = serve(echoing()).await;
    let a = serve(redirecting(Some(b))).await;
    let (status, _, seen) = send(
        Method::POST,
        &format!(
            "{a}/connectors/my%20conn/restart?includeTasks=true&forward=TRUE&onlyFailed=false"
        ),
        &[],
        "",
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{seen}");
    assert_eq!(seen["path"], "/connectors/my%20conn/restart");
    assert_eq!(seen["query"], "forward=false&includeTasks=true&onlyFailed=false");
    assert_eq!((&seen["body"], &seen["content_type"]), (&json!(""), &Value::Null));
    for method in [Method::PUT, Method::PATCH, Method::DELETE] {
        let (status, _, seen) =
            send(method.clone(), &format!("{a}/connectors/c/config"), &[], "{}").await;
        assert_eq!((status, &seen["method"]), (StatusCode::CREATED, &json!(method.as_str())));
    }
}

#[tokio::test]
async fn two_hops_at_most() {
    let c = serve(redirecting(Some("http://127.0.0.1:1".into()))).await;
    let b = serve(redirecting(Some(c))).await;
    let a = serve(redirecting(Some(b))).await;
    // A → B (forward=true) → C (forward=false), where C gives up; B and A relay its 409.
    let (status, _, body) = send(Method::POST, &format!("{a}/connectors"), &[], "{}").await;
    assert_eq!((status, body), (StatusCode::CONFLICT, error(409, CONFLICTING)));
    let (status, _, body) =
        send(Method::DELETE, &format!("{a}/connectors/c?forward=false"), &[], "").await;
    assert_eq!((status, body), (StatusCode::CONFLICT, error(409, CONFLICTING)));
    // An empty `forward` counts as false, as Kafka Connect reads it.
    let (status, _, body) =
        send(Method::POST, &format!("{a}/connectors?forward="), &[], "{}").await;
    assert_eq!((status, body), (StatusCode::CONFLICT, error(409, CONFLICTING)));
}

#[tokio::test]
async fn without_a_known_leader_or_with_stale_config_the_answer_is_409() {
    let a = serve(redirecting(None)).await;
    let (status, _, body) = send(Method::POST, &format!("{a}/connectors"), &[], "{}").await;
    assert_eq!((status, body), (StatusCode::CONFLICT, error(409, super::super::error::NO_LEADER)));
    let (status, _, body) =
        send(Method::POST, &format!("{a}/connectors?forward=false"), &[], "{}").await;
    assert_eq!((status, body), (StatusCode::CONFLICT, error(409, CONFLICTING)));
    let b = serve(echoing()).await;
    let (status, _, body) = send(Method::POST, &format!("{b}/connectors/stale"), &[], "").await;
    assert_eq!(
        (status, body),
        (
            StatusCode::CONFLICT,
            error(
                409,
                "Cannot complete request momentarily due to stale configuration (typically caused by a concurrent config change)"
            )
        )
    );
}

#[tokio::test]
async fn answers_of_the_other_worker_are_relayed() {
    let b = serve(echoing()).await;
    let a = serve(redirecting(Some(b))).await;
    let post = |path: &'static str| {
        let url = format!("{a}{path}");
        async move { send(Method::POST, &url, &[], "{}").await }
    };
    let (status, _, body) = post("/connectors/gone").await;
    assert_eq!((status, body), (StatusCode::NOT_FOUND, error(40401, "Connector gone not found")));
    let (status, headers, body) = post("/connectors/empty").await;
    assert_eq!((status, body), (StatusCode::NO_CONTENT, Value::Null));
    assert!(headers.get(header::CONTENT_TYPE).is_none());
    let (status, _, body) = post("/connectors/moved").await;
    assert_eq!(
        (status, body),
        (
            StatusCode::INTERNAL_SERVER_ERROR,
            error(500, "Unexpected status code when handling forwarded request: 302")
        )
    );
    let (status, _, body) = post("/connectors/html").await;
    assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR);
    let message = body["message"].as_str().unwrap();
    assert!(message.starts_with("IO Error trying to forward REST request: "), "{message}");
}

#[tokio::test]
async fn an_unreachable_worker_is_an_io_error() {
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}", l.local_addr().unwrap())
    };
    let a = serve(redirecting(Some(closed))).await;
    let (status, _, body) = send(Method::PUT, &format!("{a}/connectors/c/config"), &[], "{}").await;
    assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR);
    let message = body["message"].as_str().unwrap();
    assert!(
        message.starts_with("IO Error trying to forward REST request: error sending request"),
        "{message}"
    );
}

#[tokio::test]
async fn reads_are_never_forwarded_and_the_marker_stays_inside() {
    let echo = serve(echoing()).await;
    let a = redirecting(Some(echo));
    let request = Request::get("/connectors").body(Body::empty()).unwrap();
    let response = a.clone().oneshot(request).await.unwrap();
    assert_eq!(response.status(), StatusCode::CONFLICT);
    assert!(response.extensions().get::<NotHere>().is_none());
    let bytes = axum::body::to_bytes(response.into_body(), 4096).await.unwrap();
    let body: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(body, error(409, "Only the leader may do this"));
    // A forwarded write leaves no marker either.
    let request = Request::post("/connectors").body(Body::from("{}")).unwrap();
    let response = a.oneshot(request).await.unwrap();
    assert_eq!(response.status(), StatusCode::CREATED);
    assert!(response.extensions().get::<NotHere>().is_none());
}

#[tokio::test]
async fn bodies_over_the_limit_are_refused_before_the_handler() {
    let a = redirecting(Some("http://127.0.0.1:1".into()));
    let request = Request::post("/connectors").body(Body::from(vec![b' '; 2048])).unwrap();
    let response = a.oneshot(request).await.unwrap();
    assert_eq!(response.status(), StatusCode::PAYLOAD_TOO_LARGE);
    let bytes = axum::body::to_bytes(response.into_body(), 4096).await.unwrap();
    let body: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(body["error_code"], 413);
    assert!(
        body["message"].as_str().unwrap().starts_with("Cannot read the request body"),
        "{body}"
    );
}

#[test]
fn target_urls() {
    assert_eq!(
        target_url("http://b:8083/", "/connectors", None, true),
        "http://b:8083/connectors?forward=true"
    );
    assert_eq!(
        target_url(
            "http://b:8083",
            "/connectors/c/restart",
            Some("forward=true&includeTasks=true&&forward=x"),
            false
        ),
        "http://b:8083/connectors/c/restart?forward=false&includeTasks=true"
    );
    assert_eq!(next_hop(None), Some(true));
    assert_eq!(next_hop(Some("a=1&forward=True")), Some(false));
    assert_eq!(next_hop(Some("forward=false&forward=true")), None);
    assert_eq!(next_hop(Some("forward=nope")), None);
}

#[path = "forward_tls_tests.rs"]
mod tls;
