//! Validation of a source connector's exactly-once keys through
//! `PUT /connector-plugins/{p}/config/validate`, with Kafka Connect's messages (its
//! `DistributedHerder.validateSourceConnectorExactlyOnceSupport` and
//! `validateSourceConnectorTransactionBoundary`, and `SourceConnectorConfig`'s
//! validators): each on the key it is about, and only there.

use reqwest::Method;
use serde_json::{Value, json};

use crate::harness::Backing;
use crate::rest::{Api, validate_errors};
use crate::support::root;

const NOT_ENABLED: &str = "This worker does not have exactly-once source support enabled.";
const UNKNOWN: &str = "The connector does not implement the API required for preflight \
     validation of exactly-once source support. Please consult the documentation for the \
     connector to determine whether it supports exactly-once semantics, and then consider \
     reconfiguring the connector to use the value \"requested\" for this property (which will \
     disable this preflight check and allow the connector to be created).";
const UNSUPPORTED: &str =
    "The connector does not support exactly-once semantics with the provided configuration.";
const NO_BOUNDARIES: &str = "The connector does not support connector-defined transaction \
     boundaries with the given configuration. Please reconfigure it to use a different \
     transaction boundary definition.";

/// Every error of a validate answer as (key, message), checked against `error_count`.
async fn errors(api: &Api, plugin: &str, config: &[(&str, &str)]) -> Vec<(String, String)> {
    let mut body: serde_json::Map<String, Value> =
        config.iter().map(|(k, v)| (k.to_string(), json!(v))).collect();
    body.insert("name".into(), json!("v"));
    body.insert("connector.class".into(), json!(plugin));
    validate_errors(&api.validate(plugin, Value::Object(body)).await)
}

fn one(key: &str, message: &str) -> Vec<(String, String)> {
    vec![(key.to_owned(), message.to_owned())]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn required_on_a_worker_without_exactly_once_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    for support in ["disabled", "preparing"] {
        let app =
            Backing::embedded(&dir).start_with(&[("exactly.once.source.support", support)]).await;
        let api = Api::new(&app);
        let config =
            [("exactly.once.support", "required"), ("chaos.exactly.once.support", "supported")];
        assert_eq!(
            errors(&api, "ChaosSource", &config).await,
            one("exactly.once.support", NOT_ENABLED)
        );
        // `requested` (the default) asks nothing of the worker.
        let requested = [("exactly.once.support", "requested")];
        assert_eq!(errors(&api, "ChaosSource", &requested).await, []);
        app.shutdown().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn required_needs_a_connector_answering_supported() {
    let dir = tempfile::tempdir().unwrap();
    let app =
        Backing::embedded(&dir).start_with(&[("exactly.once.source.support", "enabled")]).await;
    let api = Api::new(&app);
    let required =
        |answer| [("exactly.once.support", "REQUIRED"), ("chaos.exactly.once.support", answer)];
    assert_eq!(errors(&api, "ChaosSource", &required("supported")).await, []);
    assert_eq!(
        errors(&api, "ChaosSource", &required("unsupported")).await,
        one("exactly.once.support", UNSUPPORTED)
    );
    assert_eq!(
        errors(&api, "ChaosSource", &required("")).await,
        one("exactly.once.support", UNKNOWN)
    );
    // The first-party sources answer for themselves.
    let file = [("exactly.once.support", "required"), ("file", "in.txt"), ("topic", "t")];
    assert_eq!(errors(&api, "FileStreamSource", &file).await, []);
    let datagen = [("exactly.once.support", "required"), ("topic", "t")];
    assert_eq!(errors(&api, "Datagen", &datagen).await, []);
    app.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connector_boundaries_need_a_connector_that_defines_them() {
    let dir = tempfile::tempdir().unwrap();
    let app = Backing::embedded(&dir).start().await;
    let api = Api::new(&app);
    let boundary =
        |can| [("transaction.boundary", "Connector"), ("chaos.transaction.boundaries", can)];
    assert_eq!(errors(&api, "ChaosSource", &boundary("true")).await, []);
    assert_eq!(
        errors(&api, "ChaosSource", &boundary("false")).await,
        one("transaction.boundary", NO_BOUNDARIES)
    );
    // FileStreamSource does not define boundaries; `poll` and `interval` ask nothing.
    let file = |b| [("transaction.boundary", b), ("file", "in.txt"), ("topic", "t")];
    assert_eq!(
        errors(&api, "FileStreamSource", &file("connector")).await,
        one("transaction.boundary", NO_BOUNDARIES)
    );
    assert_eq!(errors(&api, "FileStreamSource", &file("interval")).await, []);
    app.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_keys_are_listed_and_their_values_checked_as_kafka_connect_does() {
    let dir = tempfile::tempdir().unwrap();
    let app =
        Backing::embedded(&dir).start_with(&[("exactly.once.source.support", "enabled")]).await;
    let api = Api::new(&app);
    let bad = [
        ("exactly.once.support", "sometimes"),
        ("transaction.boundary", "batch"),
        ("transaction.boundary.interval.ms", "-1"),
        ("offsets.storage.topic", " "),
    ];
    let mut found = errors(&api, "ChaosSource", &bad).await;
    found.sort();
    let want = [
        (
            "exactly.once.support",
            "Invalid value sometimes for configuration exactly.once.support: String must be one of (case insensitive): requested, required",
        ),
        (
            "offsets.storage.topic",
            "Invalid value  for configuration offsets.storage.topic: String must be non-empty",
        ),
        (
            "transaction.boundary",
            "Invalid value batch for configuration transaction.boundary: String must be one of (case insensitive): poll, interval, connector",
        ),
        (
            "transaction.boundary.interval.ms",
            "Invalid value -1 for configuration transaction.boundary.interval.ms: Value must be at least 0",
        ),
    ];
    let want: Vec<(String, String)> =
        want.iter().map(|(k, m)| (k.to_string(), m.to_string())).collect();
    assert_eq!(found, want);
    let nan = [("transaction.boundary.interval.ms", "soon"), ("offsets.storage.topic", "mine")];
    assert_eq!(
        errors(&api, "ChaosSource", &nan).await,
        one(
            "transaction.boundary.interval.ms",
            "Invalid value soon for configuration transaction.boundary.interval.ms: Not a number of type LONG"
        )
    );

    // Listed in Kafka Connect's groups, for sources only.
    let path = "/connector-plugins/ChaosSource/config/validate";
    let config = json!({"name": "v", "connector.class": "ChaosSource"});
    let (_, body) = api.call(Method::PUT, path, Some(config)).await;
    let def = |k: &str| {
        body["configs"].as_array().unwrap().iter().find(|c| c["definition"]["name"] == k).cloned()
    };
    assert_eq!(def("exactly.once.support").unwrap()["definition"]["group"], "Exactly Once Support");
    assert_eq!(def("exactly.once.support").unwrap()["value"]["value"], "requested");
    assert_eq!(def("transaction.boundary").unwrap()["definition"]["default_value"], "poll");
    assert_eq!(def("transaction.boundary.interval.ms").unwrap()["definition"]["type"], "LONG");
    assert_eq!(def("offsets.storage.topic").unwrap()["definition"]["group"], "offsets.topic");
    let sink =
        json!({"name": "v", "connector.class": "FileStreamSink", "topics": "t", "file": "o.txt"});
    let (_, body) = api
        .call(Method::PUT, "/connector-plugins/FileStreamSink/config/validate", Some(sink))
        .await;
    assert!(!body.to_string().contains("exactly.once.support"), "{body}");
    app.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_component_built_against_contract_0_1_1_cannot_say() {
    let dir = tempfile::tempdir().unwrap();
    let plugins = tempfile::tempdir().unwrap();
    let old = root().join("tests/fixtures/file-source-contract-0.1.1.wasm");
    std::fs::copy(old, plugins.path().join("file-source.wasm")).unwrap();
    let path = plugins.path().to_str().unwrap();
    let app = Backing::embedded(&dir)
        .start_with(&[("plugin.path", path), ("exactly.once.source.support", "enabled")])
        .await;
    let api = Api::new(&app);
    let config = [("exactly.once.support", "required"), ("file", "in.txt"), ("topic", "t")];
    assert_eq!(
        errors(&api, "FileStreamSource", &config).await,
        one("exactly.once.support", UNKNOWN)
    );
    let boundary = [("transaction.boundary", "connector"), ("file", "in.txt"), ("topic", "t")];
    assert_eq!(
        errors(&api, "FileStreamSource", &boundary).await,
        one("transaction.boundary", NO_BOUNDARIES)
    );
    app.shutdown().await;
}
