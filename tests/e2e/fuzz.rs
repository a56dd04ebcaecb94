//! Property tests of the REST request parsers: whatever bytes arrive, an endpoint never
//! panics and never answers 5xx to a malformed body, and its error answer always has the
//! `{"error_code", "message"}` shape.

use proptest::prelude::*;
use reqwest::Method;
use serde_json::Value;

use crate::harness::Backing;

/// Endpoints that parse a body.
const ENDPOINTS: &[(&str, &str)] = &[
    ("POST", "/connectors"),
    ("PUT", "/connectors/fuzz/config"),
    ("PATCH", "/connectors/fuzz/config"),
    ("PUT", "/connector-plugins/ChaosSource/config/validate"),
    ("PATCH", "/connectors/fuzz/offsets"),
    ("PUT", "/admin/loggers/wasm_connect"),
];

/// Arbitrary JSON values, nested a little.
fn json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        ".{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-z.]{0,10}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// A body that is well-formed enough to reach plugin lookup with a connector class: such
/// bodies may legitimately answer 500 (unknown class), as Kafka Connect does.
fn names_a_class(v: &Value) -> bool {
    v.pointer("/config/connector.class").is_some() || v.get("connector.class").is_some()
}

#[test]
fn no_malformed_body_gets_a_5xx() {
    let rt =
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let app = rt.block_on(Backing::embedded(&dir).start());
    let base = format!("http://{}", app.rest_addr);
    let http = reqwest::Client::new();
    let check = |method: &str, path: &str, body: Vec<u8>| -> Result<(), TestCaseError> {
        let (status, answer) = rt.block_on(async {
            let r = http
                .request(Method::from_bytes(method.as_bytes()).unwrap(), format!("{base}{path}"))
                .header("content-type", "application/json")
                .body(body.clone())
                .send()
                .await
                .unwrap();
            (r.status(), r.text().await.unwrap())
        });
        prop_assert!(
            status.as_u16() < 500,
            "{method} {path} answered {status} to {:?}: {answer}",
            String::from_utf8_lossy(&body)
        );
        if !status.is_success() {
            let v: Value = serde_json::from_str(&answer)
                .map_err(|e| TestCaseError::fail(format!("{e}: {answer}")))?;
            prop_assert_eq!(v["error_code"].as_u64(), Some(status.as_u16() as u64));
            prop_assert!(v["message"].is_string());
        }
        Ok(())
    };
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
        cases: 64,
        ..ProptestConfig::default()
    });
    runner
        .run(&(0..ENDPOINTS.len(), prop::collection::vec(any::<u8>(), 0..256)), |(e, bytes)| {
            let (m, p) = ENDPOINTS[e];
            check(m, p, bytes)
        })
        .unwrap();
    runner
        .run(&(0..ENDPOINTS.len(), json()), |(e, v)| {
            prop_assume!(!names_a_class(&v));
            let (m, p) = ENDPOINTS[e];
            check(m, p, serde_json::to_vec(&v).unwrap())
        })
        .unwrap();
    rt.block_on(app.shutdown());
}
