//! KIP-891's `connector.plugin.version` with the installed plugins (`build/plugins/`): a
//! version or range picks the newest installed version inside it; one that no installed
//! version matches is a validate error on that key listing the installed versions, and the
//! connector created with it fails naming them; a value that is no version or range is
//! refused in Maven's words. The status carries the version that runs.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::harness::{Backing, eventually};
use crate::rest::{Api, validate_errors};

fn datagen(version: Option<&str>) -> Value {
    let mut config = json!({"connector.class": "Datagen", "topic": "versions", "records": "10",
        "name": "v"});
    if let Some(v) = version {
        config["connector.plugin.version"] = json!(v);
    }
    config
}

/// The validate answer's errors, by key.
async fn errors(api: &Api, config: Value) -> Vec<(String, String)> {
    validate_errors(&api.validate("Datagen", config).await)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_version_key_picks_an_installed_version_or_names_them() {
    let dir = tempfile::tempdir().unwrap();
    let app = Backing::embedded(&dir).start().await;
    let api = Api::new(&app);
    // Datagen is installed once: the version the plugin list shows.
    let (_, plugins) = api.call(Method::GET, "/connector-plugins", None).await;
    let installed = plugins
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["class"] == "Datagen")
        .and_then(|p| p["version"].as_str())
        .unwrap_or_else(|| panic!("Datagen listed: {plugins}"))
        .to_owned();
    let installed = installed.as_str();
    for ok in [None, Some("latest"), Some(installed), Some("[0.0.1,99)"), Some("(,99]")] {
        assert_eq!(errors(&api, datagen(ok)).await, [], "{ok:?}");
    }
    let none = errors(&api, datagen(Some("[99.0,)"))).await;
    assert_eq!(none.len(), 1, "{none:?}");
    assert_eq!(none[0].0, "connector.plugin.version");
    assert!(none[0].1.contains(&format!("installed versions: {installed}")), "{}", none[0].1);
    let bad = errors(&api, datagen(Some("[2.0,1.0]"))).await;
    assert_eq!(
        bad,
        [(
            "connector.plugin.version".to_owned(),
            "Invalid version range for connector.class: Range defies version ordering: [2.0,1.0]"
                .to_owned()
        )]
    );

    let (code, body) = api
        .call(
            Method::POST,
            "/connectors",
            Some(json!({"name": "v", "config": datagen(Some(installed))})),
        )
        .await;
    assert_eq!(code, StatusCode::CREATED, "{body}");
    let status = eventually(60, "v and its task RUNNING", async || {
        let (_, s) = api.call(Method::GET, "/connectors/v/status", None).await;
        (s["connector"]["state"] == "RUNNING" && s["tasks"][0]["state"] == "RUNNING").then_some(s)
    })
    .await;
    assert_eq!(status["connector"]["version"], installed, "{status}");
    assert_eq!(status["tasks"][0]["version"], installed, "{status}");
    app.shutdown().await;
}
