//! KIP-891's version keys beyond `connector.plugin.version`, on the embedded backend, with
//! a plugin path holding ChaosTransform and ChaosSource 1.0.0 and 2.0.0 (copies of
//! `build/versions/`) beside `build/plugins/` (Datagen):
//!
//! - `GET /connector-plugins` lists each installed version of the source, and with
//!   `connectorsOnly=false` of the transform, oldest first;
//! - `GET /connector-plugins/{plugin}/config?version=` answers the definition of the version
//!   a version or range picks, a 400 naming the installed versions when none matches or
//!   the range is invalid, a 404 for an unknown plugin;
//! - validate shows the version keys (connector, converters, the alias's
//!   `transforms.t.plugin.version`) with the installed versions recommended; a range no
//!   installed version matches is an error on that key naming them, and a converter
//!   version key allows the worker's version only;
//! - a connector whose transform is pinned to `[1.0,2.0)` runs, and the statuses carry the
//!   connector's version; one written to the config topic without validation, with a
//!   converter or transform version nothing installed matches, has its task fail naming
//!   the key and the installed versions.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use wasm_connect::model::State;
use wasm_connect::store::ConfigRecord;

use crate::harness::{Backing, eventually, props, t, wait_state};
use crate::rest::{Api, assert_error, validate_errors};
use crate::support::root;

const WORKER: &str = env!("CARGO_PKG_VERSION");

/// A plugin directory holding ChaosTransform and ChaosSource 1.0.0 and 2.0.0, the newer
/// copied first.
fn versions_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for name in ["transform", "source"]
        .map(|p| ["2.0.0", "1.0.0"].map(|v| format!("chaos-{p}-{v}.wasm")))
        .concat()
    {
        let from = root().join("build/versions").join(&name);
        std::fs::copy(&from, dir.path().join(&name))
            .unwrap_or_else(|e| panic!("{}: {e}; run scripts/build-guests.sh", from.display()));
    }
    dir
}

async fn start(store: &tempfile::TempDir, plugins: &tempfile::TempDir) -> wasm_connect::app::App {
    let path = format!("{},{}", plugins.path().display(), root().join("build/plugins").display());
    Backing::embedded(store).start_with(&[("plugin.path", &path)]).await
}

/// Datagen with the chaos transform as alias `t`, and `extra`.
fn config(name: &str, extra: &[(&str, &str)]) -> Value {
    let mut c = json!({"name": name, "connector.class": "Datagen", "topic": "keys",
        "records": "5", "transforms": "t", "transforms.t.type": "ChaosTransform"});
    for (k, v) in extra {
        c[*k] = json!(v);
    }
    c
}

/// Percent-encodes a query value (ranges hold `[`, `,`, `)`).
fn encode(v: &str) -> String {
    v.bytes()
        .map(|b| match b {
            b'0'..=b'9' | b'a'..=b'z' | b'A'..=b'Z' | b'.' | b'-' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// The validate answer: its errors by key, and the `value` entry of each key.
async fn validate(api: &Api, config: Value) -> (Vec<(String, String)>, Vec<Value>) {
    let body = api.validate("Datagen", config).await;
    (validate_errors(&body), body["configs"].as_array().unwrap().clone())
}

fn entry<'a>(configs: &'a [Value], key: &str) -> &'a Value {
    configs
        .iter()
        .find(|c| c["value"]["name"] == key)
        .unwrap_or_else(|| panic!("{key} in {configs:?}"))
}

fn strings(v: &Value) -> Vec<&str> {
    v.as_array().unwrap().iter().map(|s| s.as_str().unwrap()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_listing_and_the_config_endpoint_show_each_version() {
    let (store, plugins) = (tempfile::tempdir().unwrap(), versions_dir());
    let app = start(&store, &plugins).await;
    let api = Api::new(&app);
    let (_, all) = api.get("/connector-plugins?connectorsOnly=false").await;
    let chaos: Vec<(&str, &str)> = all
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["class"] == "ChaosTransform")
        .map(|p| (p["type"].as_str().unwrap(), p["version"].as_str().unwrap()))
        .collect();
    assert_eq!(chaos, [("transformation", "1.0.0"), ("transformation", "2.0.0")]);
    let (_, connectors) = api.get("/connector-plugins").await;
    let sources: Vec<&str> = connectors
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["class"] == "ChaosSource")
        .map(|p| p["version"].as_str().unwrap())
        .collect();
    assert_eq!(sources, ["1.0.0", "2.0.0"], "{connectors}");

    let config = |plugin: &str, version: &str| {
        format!("/connector-plugins/{plugin}/config?version={}", encode(version))
    };
    for ok in ["1.0.0", "[1.0,2.0)", "latest", "2.0"] {
        let (code, keys) = api.get(&config("ChaosTransform", ok)).await;
        assert_eq!(code, StatusCode::OK, "{ok}: {keys}");
        let names: Vec<&str> =
            keys.as_array().unwrap().iter().map(|k| k["name"].as_str().unwrap()).collect();
        assert!(names.contains(&"chaos.fail.field"), "{ok}: {names:?}");
    }
    let (code, body) = api.get(&config("ChaosTransform", "[3.0,)")).await;
    assert_error(code, &body, StatusCode::BAD_REQUEST, "installed versions: 1.0.0, 2.0.0");
    assert_error(code, &body, StatusCode::BAD_REQUEST, "Plugin ChaosTransform");
    let (code, body) = api.get(&config("ChaosTransform", "[2.0,1.0]")).await;
    assert_error(code, &body, StatusCode::BAD_REQUEST, "Range defies version ordering: [2.0,1.0]");
    let (code, body) = api.get(&config("Nope", "1.0")).await;
    assert_error(code, &body, StatusCode::NOT_FOUND, "Unknown plugin Nope.");
    // A built-in transform has the worker's version only.
    let filter = "org.apache.kafka.connect.transforms.Filter";
    assert_eq!(api.get(&config(filter, WORKER)).await.0, StatusCode::OK);
    let (code, body) = api.get(&config(filter, "[99.0,)")).await;
    assert_error(code, &body, StatusCode::BAD_REQUEST, &format!("installed versions: {WORKER}"));

    // A connector's definition shows its version keys, the connector's defaulting to the
    // newest installed version.
    let (_, connectors) = api.get("/connector-plugins").await;
    let datagen = connectors
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["class"] == "Datagen")
        .and_then(|p| p["version"].as_str())
        .unwrap()
        .to_owned();
    let (code, keys) = api.get(&config("Datagen", &datagen)).await;
    assert_eq!(code, StatusCode::OK, "{keys}");
    let key = |name: &str| {
        keys.as_array()
            .unwrap()
            .iter()
            .find(|k| k["name"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("{name} in {keys}"))
    };
    let connector = key("connector.plugin.version");
    assert_eq!(connector["default_value"], datagen.as_str());
    assert_eq!(
        (&connector["type"], &connector["group"], &connector["display_name"]),
        (&json!("STRING"), &json!("Common"), &json!("Connector version"))
    );
    assert_eq!(
        key("connector.class")["order_in_group"].as_i64().unwrap() + 1,
        connector["order_in_group"].as_i64().unwrap()
    );
    for converter in ["key", "value", "header"] {
        let k = key(&format!("{converter}.converter.plugin.version"));
        assert_eq!(k["default_value"], WORKER, "{k}");
        assert_eq!(k["importance"], "LOW", "{k}");
    }
    // An older version's definition; the version key's default is still the newest.
    let (code, keys) = api.get(&config("ChaosSource", "[1.0,2.0)")).await;
    assert_eq!(code, StatusCode::OK, "{keys}");
    let connector =
        keys.as_array().unwrap().iter().find(|k| k["name"] == "connector.plugin.version");
    assert_eq!(connector.map(|k| &k["default_value"]), Some(&json!("2.0.0")), "{keys}");
    let (code, body) = api.get(&config("ChaosSource", "3.0")).await;
    assert_error(code, &body, StatusCode::BAD_REQUEST, "installed versions: 1.0.0, 2.0.0");
    let (code, body) = api.get(&config("Datagen", "[99.0,)")).await;
    assert_error(code, &body, StatusCode::BAD_REQUEST, &format!("installed versions: {datagen}"));
    app.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn validate_and_the_running_connector_follow_the_version_keys() {
    let (store, plugins) = (tempfile::tempdir().unwrap(), versions_dir());
    let app = start(&store, &plugins).await;
    let api = Api::new(&app);

    let (errors, configs) =
        validate(&api, config("v", &[("transforms.t.plugin.version", "[1.0,2.0)")])).await;
    assert_eq!(errors, []);
    let version = entry(&configs, "transforms.t.plugin.version");
    assert_eq!(strings(&version["value"]["recommended_values"]), ["1.0.0", "2.0.0"]);
    assert_eq!(version["value"]["value"], "[1.0,2.0)");
    assert_eq!(version["definition"]["default_value"], "2.0.0");
    assert_eq!(version["definition"]["group"], "Transforms: t");
    assert_eq!(version["definition"]["display_name"], "Transformation version for t");
    let converter = entry(&configs, "value.converter.plugin.version");
    assert_eq!(strings(&converter["value"]["recommended_values"]), [WORKER]);
    let connector = entry(&configs, "connector.plugin.version");
    assert_eq!(strings(&connector["value"]["recommended_values"]).len(), 1, "{connector}");
    // The alias's own keys are the chosen version's.
    entry(&configs, "transforms.t.chaos.fail.field");

    let (errors, _) =
        validate(&api, config("v", &[("transforms.t.plugin.version", "[3.0,)")])).await;
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].0, "transforms.t.plugin.version");
    assert_eq!(
        errors[0].1,
        "Plugin ChaosTransform has no installed version matching [3.0,); installed versions: \
         1.0.0, 2.0.0"
    );
    let (errors, _) = validate(&api, config("v", &[("transforms.t.plugin.version", "(1.0")])).await;
    assert_eq!(
        errors,
        [(
            "transforms.t.plugin.version".to_owned(),
            "Invalid version range for transforms.t.type: Unbounded range: (1.0".to_owned()
        )]
    );
    for ok in [WORKER, "latest", "[0.0.1,)"] {
        let extra = [("key.converter.plugin.version", ok), ("header.converter.plugin.version", ok)];
        assert_eq!(validate(&api, config("v", &extra)).await.0, [], "{ok}");
    }
    let extra = [
        ("value.converter", "org.apache.kafka.connect.storage.StringConverter"),
        ("value.converter.plugin.version", "[99.0,)"),
    ];
    let (errors, _) = validate(&api, config("v", &extra)).await;
    assert_eq!(
        errors,
        [(
            "value.converter.plugin.version".to_owned(),
            format!(
                "Plugin org.apache.kafka.connect.storage.StringConverter has no installed version \
                 matching [99.0,); installed versions: {WORKER}"
            )
        )]
    );

    // Pinned to 1.0.0's range, the connector and its task run; the statuses carry the
    // connector's version.
    let pinned = config("pinned", &[("transforms.t.plugin.version", "[1.0,2.0)")]);
    let (code, body) = api
        .call(Method::POST, "/connectors", Some(json!({"name": "pinned", "config": pinned})))
        .await;
    assert_eq!(code, StatusCode::CREATED, "{body}");
    let status = eventually(60, "pinned and its task RUNNING", async || {
        let (_, s) = api.get("/connectors/pinned/status").await;
        (s["connector"]["state"] == "RUNNING" && s["tasks"][0]["state"] == "RUNNING").then_some(s)
    })
    .await;
    let datagen = connector["definition"]["default_value"].clone();
    assert_eq!(status["connector"]["version"], datagen, "{status}");
    assert_eq!(status["tasks"][0]["version"], datagen, "{status}");
    app.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unvalidated_configs_with_versions_nothing_matches_fail_their_tasks() {
    let (store, plugins) = (tempfile::tempdir().unwrap(), versions_dir());
    let backing = Backing::embedded(&store);
    let record = |name: &str, extra: &[(&str, &str)]| {
        let mut config = props(&[
            ("name", name),
            ("connector.class", "Datagen"),
            ("topic", "keys"),
            ("records", "5"),
            ("transforms", "t"),
            ("transforms.t.type", "ChaosTransform"),
        ]);
        config.extend(props(extra));
        ConfigRecord::Connector { name: name.into(), config: Some(config) }.to_log_record()
    };
    let topic = backing.config_topic().await;
    topic
        .send(vec![
            record("conv", &[("key.converter.plugin.version", "[99.0,)")]),
            record("smt", &[("transforms.t.plugin.version", "[3.0,)")]),
        ])
        .await
        .unwrap();
    drop(topic);
    let app = start(&store, &plugins).await;
    for (name, key, installed) in [
        ("conv", "key.converter.plugin.version", WORKER.to_owned()),
        ("smt", "transforms.t.plugin.version", "1.0.0, 2.0.0".to_owned()),
    ] {
        wait_state(&app, t(name, 0), State::Failed).await;
        let trace = app.herder.task_status(name, 0).unwrap().trace.unwrap_or_default();
        assert!(trace.contains(key), "{name}: {trace}");
        assert!(trace.contains(&format!("installed versions: {installed}")), "{name}: {trace}");
    }
    app.shutdown().await;
}
