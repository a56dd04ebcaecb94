//! Hostile input bounded end to end, on a real worker over real HTTP (issue 34): clients
//! that hold half-sent requests, connector names no URL can carry, malformed paths, configs
//! and task configs too large for a config topic, and a guest that logs without end.
//!
//! Every test here uses the worker's defaults and the REST API only, so it runs unchanged
//! against a worker without these bounds (and fails there).

use std::time::Duration;

use reqwest::{Client, Method, StatusCode};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use wasm_connect::model::State;

use crate::harness::{Backing, c, eventually, wait_state};
use crate::rest::{Api, assert_error};

/// Far longer than any bound at work: a liveness wait that fails means a hang.
const GENEROUS: Duration = Duration::from_secs(240);

/// A connection that sent the request line and one header, and holds there.
async fn slow(addr: std::net::SocketAddr) -> TcpStream {
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(b"GET /connectors HTTP/1.1\r\nHost: x\r\n").await.unwrap();
    s
}

/// Whether the worker closed `s` within [`GENEROUS`].
async fn closed_by_server(s: &mut TcpStream) -> bool {
    let mut buf = [0u8; 1024];
    let to_end = async {
        loop {
            match s.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
        }
    };
    tokio::time::timeout(GENEROUS, to_end).await.is_ok()
}

/// 300 clients hold half-sent requests, more than `rest.max.connections` (256): a healthy
/// client is still answered, and every slow one is closed by the header-read timeout
/// (30 s by default), those beyond the cap once they get a slot.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clients_holding_half_sent_requests_are_closed_and_the_api_answers() {
    let dir = tempfile::tempdir().unwrap();
    let app = Backing::embedded(&dir).start().await;
    let mut held = Vec::new();
    for _ in 0..300 {
        held.push(slow(app.rest_addr).await);
    }
    let api = Api::new(&app);
    let answered = tokio::time::timeout(GENEROUS, api.get("/connectors")).await;
    let (code, body) = answered.expect("the API answers despite the slow clients");
    assert_eq!(code, StatusCode::OK, "{body}");
    for s in &mut held {
        assert!(closed_by_server(s).await, "a client that never ends its headers stays open");
    }
    app.shutdown().await;
}

/// `%E2%98%83` for each snowman: what a client sends.
fn encoded(name: &str) -> String {
    name.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

fn chaos(name: &str) -> Value {
    json!({"name": name, "config": {"connector.class": "ChaosSource", "tasks.max": "1",
        "batch.size": "0"}})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn names_no_url_can_carry_are_refused_and_the_longest_accepted_is_addressable() {
    let dir = tempfile::tempdir().unwrap();
    let app = Backing::embedded(&dir).start().await;
    let api = Api::new(&app);
    // 10,000 snowmen: 30,000 bytes, 90,000 percent-encoded, past every URL the listener
    // takes (65,534 bytes): created, it could be neither read nor deleted.
    let snowmen = "\u{2603}".repeat(10_000);
    let (code, body) = api.call(Method::POST, "/connectors", Some(chaos(&snowmen))).await;
    assert_error(code, &body, StatusCode::BAD_REQUEST, "too long to address");
    // Through PUT, with a name whose URL fits once but not every path of the connector.
    let long = "\u{2603}".repeat(7_200);
    let path = format!("/connectors/{}/config", encoded(&long));
    let (code, body) = api.call(Method::PUT, &path, Some(chaos(&long)["config"].clone())).await;
    assert_error(code, &body, StatusCode::BAD_REQUEST, "too long to address");
    assert_eq!(api.get("/connectors").await.1, json!([]), "nothing was created");

    // The longest name accepted (63,999 bytes encoded) answers on every path.
    let longest = "\u{2603}".repeat(7_111);
    let (code, body) = api.call(Method::POST, "/connectors", Some(chaos(&longest))).await;
    assert_eq!(code, StatusCode::CREATED, "{body}");
    let at = format!("/connectors/{}", encoded(&longest));
    let (code, body) = api.get(&at).await;
    assert_eq!((code, body["name"].as_str()), (StatusCode::OK, Some(longest.as_str())));
    wait_state(&app, c(&longest), State::Running).await;
    let restart = format!("{at}/restart?includeTasks=true&onlyFailed=true");
    let (code, body) = api.call(Method::POST, &restart, None).await;
    assert_eq!(code, StatusCode::ACCEPTED, "{body}");
    let (code, body) = api.call(Method::POST, &format!("{at}/tasks/0/restart"), None).await;
    assert_eq!(code, StatusCode::NO_CONTENT, "{body}");
    let (code, body) = api.call(Method::DELETE, &at, None).await;
    assert_eq!(code, StatusCode::NO_CONTENT, "{body}");
    app.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_error_answer_is_the_json_error_body() {
    let dir = tempfile::tempdir().unwrap();
    let app = Backing::embedded(&dir).start().await;
    let base = format!("http://{}", app.rest_addr);
    let client = Client::new();
    let cases: &[(Method, &str, &[u8], StatusCode)] = &[
        (Method::GET, "/connectors/%ff", b"", StatusCode::BAD_REQUEST),
        (Method::GET, "/connectors/%ff/status", b"", StatusCode::BAD_REQUEST),
        (Method::PUT, "/connectors/%ff/pause", b"", StatusCode::BAD_REQUEST),
        (Method::GET, "/connectors/x/tasks/%fe/status", b"", StatusCode::BAD_REQUEST),
        (Method::GET, "/connectors/%ff/offsets", b"", StatusCode::BAD_REQUEST),
        (Method::GET, "/connector-plugins/%ff/config", b"", StatusCode::BAD_REQUEST),
        (Method::GET, "/admin/loggers/%ff", b"", StatusCode::BAD_REQUEST),
        (Method::GET, "/no/such/route", b"", StatusCode::NOT_FOUND),
        (Method::DELETE, "/connectors", b"", StatusCode::METHOD_NOT_ALLOWED),
        (Method::POST, "/connectors", b"{", StatusCode::BAD_REQUEST),
        (Method::POST, "/connectors/x/restart?includeTasks=maybe", b"", StatusCode::BAD_REQUEST),
    ];
    for (method, path, body, want) in cases {
        let resp = client
            .request(method.clone(), format!("{base}{path}"))
            .header("content-type", "application/json")
            .body(body.to_vec())
            .send()
            .await
            .unwrap();
        let status = resp.status();
        let content_type = resp.headers().get("content-type").cloned();
        let text = resp.text().await.unwrap();
        assert_eq!(status, *want, "{method} {path}: {text}");
        assert_eq!(
            content_type.as_ref().and_then(|v| v.to_str().ok()),
            Some("application/json"),
            "{method} {path}: {text}"
        );
        let body: Value = serde_json::from_str(&text).expect("a JSON body");
        assert_eq!(body["error_code"], want.as_u16(), "{method} {path}: {text}");
        assert!(body["message"].as_str().is_some_and(|m| !m.is_empty()), "{text}");
    }
    app.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn configs_too_large_for_a_config_topic_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let b = Backing::embedded(&dir);
    let app = b.start().await;
    let api = Api::new(&app);
    // A connector config of about 1.01 MB: within the 1 MiB body limit, over the record bound.
    let mut big = chaos("big");
    big["config"]["padding"] = json!("p".repeat(1_010_000));
    let (code, body) = api.call(Method::POST, "/connectors", Some(big)).await;
    assert_error(code, &body, StatusCode::BAD_REQUEST, "Connector configuration is too large");

    // Task configs of 1.1 MB each: the connector fails, and no task config is written.
    let mut huge = chaos("huge-tasks");
    huge["config"]["chaos.mode"] = json!("huge");
    huge["config"]["chaos.when"] = json!("task-configs");
    huge["config"]["chaos.huge.bytes"] = json!("1100000");
    let (code, body) = api.call(Method::POST, "/connectors", Some(huge)).await;
    assert_eq!(code, StatusCode::CREATED, "{body}");
    let status = api
        .wait_status("huge-tasks", "the connector FAILED", |s| s["connector"]["state"] == "FAILED")
        .await;
    let trace = status["connector"]["trace"].as_str().unwrap_or_default();
    assert!(trace.contains("task configs the config topic cannot hold"), "{trace}");
    let mut reader = b.config_topic().await.reader().await.unwrap();
    let records = reader.read_to_end().await.unwrap();
    let keys: Vec<String> = records
        .iter()
        .filter_map(|r| r.key.as_deref())
        .map(|k| String::from_utf8_lossy(k).into_owned())
        .collect();
    assert!(keys.iter().any(|k| k == "connector-huge-tasks"), "{keys:?}");
    assert!(!keys.iter().any(|k| k.starts_with("task-huge-tasks-")), "{keys:?}");
    assert!(!keys.iter().any(|k| k.starts_with("connector-big")), "{keys:?}");
    app.shutdown().await;
}

/// Bytes of `stream` output the worker dropped for `connector`, from `GET /metrics`.
async fn dropped(base: &str, connector: &str, stream: &str) -> Option<f64> {
    let text = reqwest::get(format!("{base}/metrics")).await.ok()?.text().await.ok()?;
    text.lines()
        .filter(|l| l.starts_with("wasm_connect_guest_output_dropped_bytes_total{"))
        .filter(|l| l.contains(&format!("connector=\"{connector}\"")))
        .find(|l| l.contains(&format!("stream=\"{stream}\"")))
        .and_then(|l| l.rsplit(' ').next()?.parse().ok())
}

/// A guest that logs 256 KiB at every poll, with an output budget of 64 KiB (32 KiB for
/// log calls): the calls past the budget are dropped and counted, and the task runs on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_guest_that_logs_without_end_is_held_to_its_output_budget() {
    let dir = tempfile::tempdir().unwrap();
    let app = Backing::embedded(&dir).start().await;
    let api = Api::new(&app);
    let base = format!("http://{}", app.rest_addr);
    let mut chatty = chaos("chatty");
    chatty["config"]["chaos.mode"] = json!("chatty");
    chatty["config"]["chaos.huge.bytes"] = json!("262144");
    chatty["config"]["wasm.output.max.bytes"] = json!("65536");
    let (code, body) = api.call(Method::POST, "/connectors", Some(chatty)).await;
    assert_eq!(code, StatusCode::CREATED, "{body}");
    // Two polls' worth dropped: the budget holds poll after poll.
    let bytes = eventually(120, "dropped log bytes", async || {
        dropped(&base, "chatty", "log").await.filter(|b| *b >= 2.0 * 262_144.0)
    })
    .await;
    assert!(bytes > 0.0);
    wait_state(&app, wasm_connect::model::InstanceId::Task("chatty".into(), 0), State::Running)
        .await;
    app.shutdown().await;
}
