//! A worker started on a cold artifact cache serves REST while its plugin path loads in
//! the background. A connector created at once runs as soon as its own plugin is loaded,
//! and the plugin listing waits for the loading to end. How long each step takes is
//! measured by the `coldstart` row of `scripts/bench-vs-kafka-connect.sh`, not here.

use crate::harness::Backing;
use crate::rest::Api;
use crate::support::root;
use reqwest::{Method, StatusCode};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rest_answers_while_plugins_load_and_a_connector_waits_only_for_its_plugin() {
    let dir = tempfile::tempdir().unwrap();
    let plugins = dir.path().join("plugins");
    std::fs::create_dir(&plugins).unwrap();
    // A big component (a Python interpreter) beside the small test fixtures, and an artifact
    // cache of this test's own: everything is compiled.
    let big = root().join("build/examples/python/sequence-source.wasm");
    assert!(big.exists(), "{} is missing: run scripts/build-python-guests.sh", big.display());
    std::fs::copy(&big, plugins.join("python-sequence-source.wasm")).unwrap();
    let path = format!("{},{}", root().join("build/fixtures").display(), plugins.display());
    let cache = dir.path().join("cache");
    let cache = cache.to_str().unwrap();
    let backing = Backing::embedded(&dir);
    let app = backing.start_loading(&[("plugin.path", &path), ("wasm.cache.dir", cache)]).await;
    let api = Api::new(&app);

    // REST answers at once, and says whether the plugin path is loading.
    let (code, body) = api.get("/").await;
    assert_eq!(code, StatusCode::OK, "{body}");
    let (code, loading) = api.get("/wasm-connect/plugins/loading").await;
    assert_eq!(code, StatusCode::OK, "{loading}");
    assert!(loading["loading"].is_boolean() && loading["files"].is_array(), "{loading}");

    // A connector created at once is validated once its own plugin is loaded, and runs.
    let config = json!({"connector.class": "ChaosSource", "tasks.max": "1", "chaos.mode": "ok"});
    let body = json!({"name": "early", "config": config});
    let (code, created) = api.call(Method::POST, "/connectors", Some(body)).await;
    assert_eq!(code, StatusCode::CREATED, "{created}");
    api.wait_status("early", "early RUNNING", |s| {
        s["connector"]["state"] == "RUNNING" && s["tasks"][0]["state"] == "RUNNING"
    })
    .await;

    // The listing waits for the whole path: the big component is there.
    let (code, listed) = api.get("/connector-plugins").await;
    assert_eq!(code, StatusCode::OK, "{listed}");
    let classes: Vec<&str> =
        listed.as_array().unwrap().iter().filter_map(|p| p["class"].as_str()).collect();
    assert!(classes.contains(&"ChaosSource"), "{classes:?}");
    assert!(
        classes.len() >= 2 && classes.iter().any(|c| c.to_lowercase().contains("sequence")),
        "{classes:?}"
    );
    let (_, loading) = api.get("/wasm-connect/plugins/loading").await;
    assert_eq!(loading, json!({"loading": false, "files": []}));

    // A class no file holds is refused once the path is loaded, naming what is installed
    // (a 500, Kafka Connect's answer to an unknown class).
    let unknown = json!({"name": "nope", "config": {"connector.class": "NoSuchConnector"}});
    let (code, refused) = api.call(Method::POST, "/connectors", Some(unknown)).await;
    assert_eq!(code, StatusCode::INTERNAL_SERVER_ERROR, "{refused}");
    let message = refused["message"].as_str().unwrap();
    assert!(message.contains("NoSuchConnector") && !message.contains("still loading"), "{message}");
    app.shutdown().await;
}
