//! Plugin versions installed, upgraded and removed while the worker runs (KIP-891, and
//! the plugin path rescanned), on both backends, with the chaos source built as versions
//! 1.0.0, 2.0.0 and 3.0.0 (`build/versions/`):
//!
//! - two versions installed side by side; connectors pinned to each run at once, each
//!   status naming its version; a range runs the newest version inside it;
//! - a third version copied into `plugin.path` while the worker runs is listed and usable
//!   without a restart (found by the interval scan);
//! - an upgrade by config (`PUT …/config` with a new `connector.plugin.version`) restarts
//!   that connector on the new version, which resumes after its committed offset with no
//!   gap or repeat, while a connector of the same plugin and an unrelated one (Datagen)
//!   keep producing and are never restarted (their sequences would start again at 0:
//!   they ignore committed offsets);
//! - a removed file leaves the instances that run it alone; their next start fails naming
//!   the versions still installed;
//! - in a group of three workers with the version on two, what is placed on the third fails
//!   naming it and the version, and starts once that worker's own scan finds the file.
//!
//! The pause each connector sees is measured by `host/benches/plugin_upgrade.rs`, not here.

use std::path::Path;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::harness::{Backing, eventually};
use crate::rest::{Api, validate_errors};
use crate::support::root;
use crate::topic_records::read_topic;

on_both_backends!(versions_are_installed_upgraded_and_removed_while_running);

const STRING: &str = "org.apache.kafka.connect.storage.StringConverter";

fn unique(prefix: &str) -> String {
    let nanos =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    format!("{prefix}-{nanos}")
}

fn install(dir: &Path, version: &str) {
    let from = root().join(format!("build/versions/chaos-source-{version}.wasm"));
    assert!(from.exists(), "{} is missing: run scripts/build-guests.sh", from.display());
    // Copied under another name, then renamed: a scan never sees half a file.
    let part = dir.join(format!(".chaos-source-{version}.part"));
    std::fs::copy(&from, &part).unwrap();
    std::fs::rename(&part, dir.join(format!("chaos-source-{version}.wasm"))).unwrap();
}

/// The installed versions of ChaosSource, as `GET /connector-plugins` lists them.
async fn listed(api: &Api) -> Vec<String> {
    let (code, plugins) = api.get("/connector-plugins").await;
    assert_eq!(code, StatusCode::OK, "{plugins}");
    plugins
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["class"] == "ChaosSource")
        .map(|p| p["version"].as_str().unwrap().to_owned())
        .collect()
}

/// A chaos source writing 10 records per poll, at most 200 a second, to `topic`.
fn chaos(topic: &str, version: &str, ignore_offsets: bool) -> Value {
    json!({
        "connector.class": "ChaosSource", "tasks.max": "1", "chaos.mode": "ok",
        "topic": topic, "batch.size": "10", "wasm.poll.records.per.second": "200",
        "chaos.offsets.ignore": ignore_offsets.to_string(),
        "connector.plugin.version": version, "key.converter": STRING,
    })
}

async fn create(api: &Api, name: &str, config: Value) {
    let body = json!({ "name": name, "config": config });
    let (code, answer) = api.call(Method::POST, "/connectors", Some(body)).await;
    assert_eq!(code, StatusCode::CREATED, "{answer}");
}

/// Waits until `name` and its task run `version`.
async fn running_version(api: &Api, name: &str, version: &str) {
    let mut last = Value::Null;
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(30);
    while tokio::time::Instant::now() < deadline {
        let (_, s) = api.get(&format!("/connectors/{name}/status")).await;
        if s["connector"]["state"] == "RUNNING"
            && s["connector"]["version"] == version
            && s["tasks"][0]["state"] == "RUNNING"
            && s["tasks"][0]["version"] == version
        {
            return;
        }
        last = s;
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    panic!("{name} is not RUNNING on {version}: {last}");
}

/// The sequence numbers of `topic`'s records (keys), in order.
async fn sequence(b: &Backing, topic: &str) -> Vec<u64> {
    let records = read_topic(b, topic).await;
    records.iter().map(|r| r.key.as_deref().unwrap().trim().parse().unwrap()).collect()
}

/// Waits until `topic` holds more than `n` records; returns how many.
async fn grows_past(b: &Backing, topic: &str, n: usize) -> usize {
    eventually(60, &format!("more than {n} records on {topic}"), async || {
        let now = read_topic(b, topic).await.len();
        (now > n).then_some(now)
    })
    .await
}

/// `0, 1, 2, …` with nothing missing and nothing twice.
fn assert_unbroken(topic: &str, seq: &[u64]) {
    let broken = seq.iter().enumerate().find(|(i, n)| **n != *i as u64);
    assert!(broken.is_none(), "{topic}: a gap or repeat at {broken:?} in {seq:?}");
}

async fn versions_are_installed_upgraded_and_removed_while_running(b: Backing) {
    let dir = tempfile::tempdir().unwrap();
    let plugins = dir.path().join("plugins");
    std::fs::create_dir(&plugins).unwrap();
    install(&plugins, "1.0.0");
    install(&plugins, "2.0.0");
    let path = format!("{},{}", plugins.display(), root().join("build/plugins").display());
    let app = b.start_with(&[("plugin.path", &path), ("plugin.scan.interval.ms", "200")]).await;
    let api = Api::new(&app);
    assert_eq!(listed(&api).await, ["1.0.0", "2.0.0"]);

    // Side by side: one connector on each version, one on a range.
    let (ta, tb, tr, td) = (unique("up-a"), unique("up-b"), unique("up-r"), unique("up-d"));
    create(&api, "a", chaos(&ta, "1.0.0", false)).await;
    create(&api, "b", chaos(&tb, "2.0.0", true)).await;
    create(&api, "r", chaos(&tr, "[1.0,3.0)", true)).await;
    let datagen = json!({"connector.class": "Datagen", "topic": td, "records": "-1",
        "rate": "100", "batch.size": "10", "tasks.max": "1", "key.converter": STRING});
    create(&api, "d", datagen).await;
    running_version(&api, "a", "1.0.0").await;
    running_version(&api, "b", "2.0.0").await;
    running_version(&api, "r", "2.0.0").await;

    // A third version copied in while running: listed and usable, no restart.
    install(&plugins, "3.0.0");
    eventually(30, "3.0.0 listed", async || {
        (listed(&api).await == ["1.0.0", "2.0.0", "3.0.0"]).then_some(())
    })
    .await;
    let (code, body) = api
        .call(
            Method::PUT,
            "/connector-plugins/ChaosSource/config/validate",
            Some(json!({"name": "x", "connector.class": "ChaosSource",
                "connector.plugin.version": "3.0.0"})),
        )
        .await;
    assert_eq!((code, &body["error_count"]), (StatusCode::OK, &json!(0)), "{body}");

    // Upgrade a by config while b, r and d run.
    let a_before = grows_past(&b, &ta, 0).await;
    let (b_before, d_before) = (grows_past(&b, &tb, 0).await, grows_past(&b, &td, 0).await);
    let (code, answer) =
        api.call(Method::PUT, "/connectors/a/config", Some(chaos(&ta, "3.0.0", false))).await;
    assert_eq!(code, StatusCode::OK, "{answer}");
    running_version(&api, "a", "3.0.0").await;
    grows_past(&b, &ta, a_before).await;
    grows_past(&b, &tb, b_before).await;
    grows_past(&b, &td, d_before).await;
    // The range does not move to 3.0.0, nor does anything else that runs.
    running_version(&api, "r", "2.0.0").await;
    running_version(&api, "b", "2.0.0").await;

    // 2.0.0's file removed: b and r keep running it and producing.
    std::fs::remove_file(plugins.join("chaos-source-2.0.0.wasm")).unwrap();
    let (code, report) = api.call(Method::POST, "/wasm-connect/plugins/rescan", None).await;
    assert_eq!(code, StatusCode::OK, "{report}");
    assert_eq!(
        report["removed"],
        json!([{"class": "ChaosSource", "type": "source",
        "version": "2.0.0", "file": "chaos-source-2.0.0.wasm"}]),
        "{report}"
    );
    assert_eq!(report["added"], json!([]), "{report}");
    assert_eq!(listed(&api).await, ["1.0.0", "3.0.0"]);
    let b_now = read_topic(&b, &tb).await.len();
    grows_past(&b, &tb, b_now).await;
    running_version(&api, "b", "2.0.0").await;

    // Every sequence so far: nothing missing, nothing twice (b and d were never
    // restarted; a resumed where it left off).
    for topic in [&ta, &tb, &tr] {
        assert_unbroken(topic, &sequence(&b, topic).await);
    }
    let d_keys = sequence(&b, &td).await;
    assert_unbroken(&td, &d_keys);

    // b's next start asks for a version no longer installed; r's range finds 1.0.0.
    let (code, _) = api.call(Method::POST, "/connectors/b/restart?includeTasks=true", None).await;
    assert_eq!(code, StatusCode::ACCEPTED);
    let failed = api.wait_status("b", "b FAILED", |s| s["connector"]["state"] == "FAILED").await;
    let trace = failed["connector"]["trace"].as_str().unwrap_or_default();
    assert!(
        trace.contains("no installed version matching 2.0.0")
            && trace.contains("installed versions: 1.0.0, 3.0.0"),
        "{failed}"
    );
    let (code, _) = api.call(Method::POST, "/connectors/r/restart?includeTasks=true", None).await;
    assert_eq!(code, StatusCode::ACCEPTED);
    running_version(&api, "r", "1.0.0").await;
    app.shutdown().await;
}

/// Three workers, 2.0.0 installed on two of them: what runs on the third fails naming it
/// and the version, and the leader's validate names it; once its own rescan finds the file,
/// everything runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_without_the_version_fails_its_instances_until_it_has_it() {
    use crate::cluster::Cluster;
    let dirs: Vec<tempfile::TempDir> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
    install(dirs[0].path(), "2.0.0");
    install(dirs[1].path(), "2.0.0");
    let mut settings = crate::distributed::settings(1000);
    settings.plugin_dirs = dirs.iter().enumerate().map(|(i, d)| (i, d.path().into())).collect();
    settings.extra = "plugin.scan.interval.ms=300\n".into();
    let cluster = Cluster::start(3, settings).await;
    let config = json!({"connector.class": "ChaosSource", "tasks.max": "6", "chaos.mode": "ok",
        "batch.size": "0", "connector.plugin.version": "2.0.0"});
    let (code, body) = cluster.create(0, "pinned", config.clone()).await;
    assert_eq!(code, 201, "{body}");

    // Every instance placed on the worker without 2.0.0 fails naming it; the others run it.
    let status = eventually(90, "the instances on the worker without 2.0.0 FAILED", async || {
        let s = cluster.status(0, "pinned").await;
        let mut instances: Vec<Value> = vec![s["connector"].clone()];
        instances.extend(s["tasks"].as_array().cloned().unwrap_or_default());
        let failed: Vec<&Value> = instances.iter().filter(|i| i["state"] == "FAILED").collect();
        let settled = instances.iter().all(|i| i["state"] == "FAILED" || i["state"] == "RUNNING");
        (settled && !failed.is_empty()).then_some(instances)
    })
    .await;
    let lacking: Vec<&str> = status
        .iter()
        .filter(|i| i["state"] == "FAILED")
        .map(|i| i["worker_id"].as_str().unwrap())
        .collect();
    assert!(lacking.windows(2).all(|w| w[0] == w[1]), "one worker lacks it: {status:?}");
    for i in status.iter().filter(|i| i["state"] == "FAILED") {
        let trace = i["trace"].as_str().unwrap();
        let named = format!("On worker {}: ", lacking[0]);
        assert!(
            trace.starts_with(&named) && trace.contains("no installed version matching 2.0.0"),
            "{trace}"
        );
    }
    for i in status.iter().filter(|i| i["state"] == "RUNNING") {
        assert_ne!(i["worker_id"], lacking[0], "{status:?}");
        assert_eq!(i["version"], "2.0.0", "{status:?}");
    }

    // The leader's validate names the worker that lacks 2.0.0 on the version key.
    let leader = eventually(30, "a leader", async || cluster.leader()).await;
    let path = "/connector-plugins/ChaosSource/config/validate";
    let mut named_config = config.clone();
    named_config["name"] = json!("pinned");
    let (code, body) = cluster.call(leader, Method::PUT, path, Some(named_config.clone())).await;
    assert_eq!(code, 200, "{body}");
    let named: Vec<String> = validate_errors(&body)
        .into_iter()
        .filter(|(key, _)| key == "connector.plugin.version")
        .map(|(_, message)| message)
        .collect();
    let third = format!("127.0.0.1:{}", cluster.workers[2].port);
    assert_eq!(lacking[0], third, "the third worker lacks it: {status:?}");
    let expected = match leader {
        // The leader itself lacks it: its own validate says so, the others have it.
        2 => "Plugin ChaosSource has no installed version matching 2.0.0".to_owned(),
        _ => format!(
            "On worker http://{third}: Plugin ChaosSource has no installed version matching 2.0.0"
        ),
    };
    assert!(named.len() == 1 && named[0].starts_with(&expected), "{named:?}");

    // The version installed on that worker too: its instances start, no restart asked.
    install(dirs[2].path(), "2.0.0");
    let s = cluster.wait_running(0, "pinned", 6, 90).await;
    let tasks = s["tasks"].as_array().unwrap();
    assert!(tasks.iter().all(|t| t["version"] == "2.0.0"), "{s}");
    // And the leader's validate names no worker any more.
    let (code, body) = cluster.call(leader, Method::PUT, path, Some(named_config)).await;
    assert_eq!(code, 200, "{body}");
    assert_eq!(validate_errors(&body), Vec::new(), "{body}");
}
