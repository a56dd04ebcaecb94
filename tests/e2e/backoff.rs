//! Task reconfiguration retries (KAFKA-14732 and our limit) and automatic restarts, end
//! to end through the real runtime: `ChaosSource` fails `task-configs` a configured
//! number of times, or fails its tasks or itself at start. The status topic holds every
//! status written, so each scenario checks the whole story, delays included.

use std::time::Duration;

use serde_json::Value;
use tokio::time::Instant;
use wasm_connect::app::App;
use wasm_connect::model::State;
use wasm_connect::store::{LogEntry, LogReader};

use crate::harness::{Backing, c, chaos_source, eventually, props, t, wait_state};

on_both_backends!(
    failing_task_configs_are_retried_on_kafka_14732s_schedule,
    the_retry_limit_fails_the_connector_with_the_last_error,
    the_restart_policy_restarts_a_failing_task_up_to_its_limit,
);

/// Runs a scenario on the embedded backend.
macro_rules! embedded_only {
    ($($name:ident),* $(,)?) => {$(
        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn $name() {
            let dir = tempfile::tempdir().unwrap();
            self::scenarios::$name(Backing::embedded(&dir)).await;
        }
    )*};
}

embedded_only!(
    worker_defaults_apply_and_connectors_override_them,
    pausing_cancels_the_retries_and_resuming_starts_over,
    the_restart_policy_restarts_a_failing_connector_up_to_its_limit,
);

/// The values written under `key`, in order (tombstones as `null`).
fn history(seen: &[LogEntry], key: &str) -> Vec<Value> {
    seen.iter()
        .filter(|e| e.key.as_deref() == Some(key.as_bytes()))
        .map(|e| e.value.as_deref().map_or(Value::Null, |v| serde_json::from_slice(v).unwrap()))
        .collect()
}

fn states(h: &[Value]) -> Vec<&str> {
    h.iter().map(|v| v["state"].as_str().unwrap_or("(deleted)")).collect()
}

/// `(retry, next_retry_delay_ms)` of the `field` objects in a history.
fn retries(h: &[Value], field: &str) -> Vec<(u64, u64)> {
    h.iter()
        .filter_map(|v| v.get(field))
        .map(|r| (r["retry"].as_u64().unwrap(), r["next_retry_delay_ms"].as_u64().unwrap()))
        .collect()
}

/// A status-topic reader positioned at the end.
async fn status_reader(b: &Backing) -> Box<dyn LogReader> {
    let mut reader = b.status_topic().await.reader().await.unwrap();
    reader.read_to_end().await.unwrap();
    reader
}

/// Reads status records into `seen` until `done` holds for the history of `key`.
async fn read_until(
    reader: &mut Box<dyn LogReader>,
    seen: &mut Vec<LogEntry>,
    key: &str,
    what: &str,
    done: impl Fn(&[Value]) -> bool,
) -> Vec<Value> {
    eventually(30, what, async || {
        seen.extend(reader.poll(Duration::from_millis(100)).await.unwrap());
        let h = history(seen, key);
        done(&h).then_some(h)
    })
    .await
}

/// The connector's status as the REST API shows it.
async fn rest_status(app: &App, name: &str) -> Option<Value> {
    let url = format!("http://{}/connectors/{name}/status", app.rest_addr);
    reqwest::get(url).await.ok()?.json().await.ok()
}

async fn failing_task_configs_are_retried_on_kafka_14732s_schedule(b: Backing) {
    let app = b.start().await;
    let mut reader = status_reader(&b).await;
    let started = Instant::now();
    let config = chaos_source(&[("chaos.task.configs.failures", "3")]);
    app.herder.put_connector_config("rc", config, None, false).await.unwrap();

    // While the retries fail, the REST status says so in its extensions, beside
    // Kafka Connect's fields.
    let shown = eventually(20, "the REST status to show a failing retry", async || {
        let s = rest_status(&app, "rc").await?;
        s["extensions"]["connector"].get("reconfiguration").is_some().then_some(s)
    })
    .await;
    assert_eq!(shown["connector"]["state"], "RUNNING", "{shown}");
    assert!(shown["connector"]["worker_id"].is_string(), "{shown}");
    assert!(shown["connector"].get("reconfiguration").is_none(), "{shown}");
    let r = &shown["extensions"]["connector"]["reconfiguration"];
    assert!((1..=3).contains(&r["retry"].as_u64().unwrap()), "{shown}");
    assert!(r["last_error"].as_str().unwrap().contains("told to fail"), "{shown}");
    assert!(r["next_retry_at"].as_i64().unwrap() > 1_700_000_000_000, "{shown}");
    assert!(r.get("retries_max").is_none(), "no limit by default: {shown}");

    wait_state(&app, t("rc", 0), State::Running).await;
    wait_state(&app, t("rc", 1), State::Running).await;
    assert!(started.elapsed() >= Duration::from_millis(250 + 500 + 1000), "the back-off was slept");

    let mut seen = Vec::new();
    let key = "status-connector-rc";
    let h = read_until(&mut reader, &mut seen, key, "the plain RUNNING status", |h| {
        retries(h, "reconfiguration").len() == 3
            && h.last().is_some_and(|v| v.get("reconfiguration").is_none())
    })
    .await;
    assert_eq!(retries(&h, "reconfiguration"), [(1, 250), (2, 500), (3, 1000)]);
    assert!(states(&h).iter().all(|s| *s == "RUNNING"), "{h:?}");
    let last = h.last().unwrap();
    assert!(last.get("trace").is_none() && last["generation"].is_i64(), "{last}");
    let s = rest_status(&app, "rc").await.unwrap();
    assert!(s.get("extensions").is_none(), "cleared: {s}");
    assert_eq!(app.herder.task_configs("rc").await.unwrap().len(), 2);

    // Success ends the chain: no further attempt.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    seen.extend(reader.poll(Duration::from_millis(100)).await.unwrap());
    assert_eq!(history(&seen, key).len(), h.len(), "nothing more was written");
    app.shutdown().await;
}

async fn the_retry_limit_fails_the_connector_with_the_last_error(b: Backing) {
    let app = b.start().await;
    let mut reader = status_reader(&b).await;
    let config = chaos_source(&[
        ("chaos.task.configs.failures", "3"),
        ("task.reconfiguration.retries.max", "1"),
        ("task.reconfiguration.backoff.initial.ms", "50"),
    ]);
    app.herder.put_connector_config("rl", config, None, false).await.unwrap();
    wait_state(&app, c("rl"), State::Failed).await;
    let status = app.herder.connector_status("rl").await.unwrap();
    let trace = status.connector.trace.unwrap();
    assert!(trace.contains("told to fail (1 more times)"), "the last error: {trace}");
    assert!(
        trace.contains("failed 2 times; no more retries (task.reconfiguration.retries.max = 1)"),
        "{trace}"
    );
    assert!(status.tasks.is_empty());
    assert!(app.herder.task_configs("rl").await.unwrap().is_empty());

    let mut seen = Vec::new();
    let h = read_until(&mut reader, &mut seen, "status-connector-rl", "FAILED", |h| {
        h.last().is_some_and(|v| v["state"] == "FAILED")
    })
    .await;
    assert_eq!(states(&h), ["RUNNING", "RUNNING", "FAILED"]);
    assert_eq!(retries(&h, "reconfiguration"), [(1, 50)]);
    assert_eq!(h[1]["reconfiguration"]["retries_max"], 1);

    // It stays FAILED: its instance is stopped and not started again.
    tokio::time::sleep(Duration::from_millis(800)).await;
    seen.extend(reader.poll(Duration::from_millis(100)).await.unwrap());
    assert_eq!(states(&history(&seen, "status-connector-rl")), ["RUNNING", "RUNNING", "FAILED"]);
    app.shutdown().await;
}

async fn the_restart_policy_restarts_a_failing_task_up_to_its_limit(b: Backing) {
    let app = b.start().await;
    let mut reader = status_reader(&b).await;
    let config = chaos_source(&[
        ("chaos.fail.tasks", "1"),
        ("restart.policy", "on-failure"),
        ("restart.backoff.initial.ms", "100"),
        ("restart.retries.max", "3"),
    ]);
    app.herder.put_connector_config("rp", config, None, false).await.unwrap();
    wait_state(&app, t("rp", 0), State::Running).await;

    let key = "status-task-rp-1";
    let mut seen = Vec::new();
    let exhausted = |v: &Value| {
        v["state"] == "FAILED"
            && v["trace"].as_str().is_some_and(|t| t.starts_with("Not restarted automatically"))
    };
    let h = read_until(&mut reader, &mut seen, key, "the restart limit", |h| {
        h.last().is_some_and(exhausted)
    })
    .await;
    assert_eq!(
        states(&h),
        ["FAILED", "RESTARTING", "FAILED", "RESTARTING", "FAILED", "RESTARTING", "FAILED"]
    );
    assert_eq!(retries(&h, "restart"), [(1, 100), (2, 200), (3, 400)]);
    for (i, attempt) in [(1, 1), (3, 2), (5, 3)] {
        let trace = h[i]["trace"].as_str().unwrap();
        let want = format!("Restarted automatically, attempt {attempt} of 3, after: ");
        assert!(trace.starts_with(&want) && trace.contains("task 1 told to fail"), "{trace}");
    }
    let last = h[6]["trace"].as_str().unwrap();
    assert!(last.contains("the limit of 3 restarts") && last.contains("told to fail"), "{last}");
    assert!(h[6].get("restart").is_none());
    let healthy = history(&seen, "status-task-rp-0");
    assert_eq!(states(&healthy), ["RUNNING"], "the healthy task was left alone");

    // No restart after the limit.
    tokio::time::sleep(Duration::from_millis(1000)).await;
    seen.extend(reader.poll(Duration::from_millis(100)).await.unwrap());
    assert_eq!(history(&seen, key).len(), 7);

    // A manual restart starts the count over.
    // Its start fails again: as in Kafka Connect, the restart is done and the task FAILED.
    app.herder.restart_task("rp", 1).await.expect("the restart is answered");
    let h = read_until(&mut reader, &mut seen, key, "a fresh restart", |h| {
        h.len() >= 10 && h[9]["state"] == "RESTARTING"
    })
    .await;
    assert_eq!(states(&h[7..10]), ["RESTARTING", "FAILED", "RESTARTING"]);
    assert!(h[7].get("trace").is_none(), "a manual restart is not automatic: {}", h[7]);
    assert_eq!(retries(&h[7..], "restart")[0], (1, 100));
    assert!(h[9]["trace"].as_str().unwrap().starts_with("Restarted automatically, attempt 1 of 3"));
    app.shutdown().await;
}

mod scenarios {
    use super::*;

    pub async fn worker_defaults_apply_and_connectors_override_them(b: Backing) {
        let app = b.start_with(&[("task.reconfiguration.retries.max", "0")]).await;
        let failing = chaos_source(&[("chaos.task.configs.failures", "1")]);
        app.herder.put_connector_config("strict", failing.clone(), None, false).await.unwrap();
        let mut lenient = failing;
        lenient.extend(props(&[
            ("task.reconfiguration.retries.max", "-1"),
            ("task.reconfiguration.backoff.initial.ms", "20"),
        ]));
        app.herder.put_connector_config("lenient", lenient, None, false).await.unwrap();
        wait_state(&app, c("strict"), State::Failed).await;
        wait_state(&app, t("lenient", 1), State::Running).await;
        let trace = app.herder.connector_status("strict").await.unwrap().connector.trace.unwrap();
        assert!(trace.contains("failed 1 times; no more retries"), "{trace}");

        // Invalid keys are refused before anything is written, each named.
        let bad = chaos_source(&[
            ("task.reconfiguration.backoff.jitter", "2"),
            ("restart.policy", "always"),
        ]);
        let err = app.herder.put_connector_config("bad", bad, None, false).await.unwrap_err();
        let message = err.to_string();
        assert!(message.contains("task.reconfiguration.backoff.jitter"), "{message}");
        assert!(message.contains("restart.policy"), "{message}");
        assert!(app.herder.connector_info("bad").await.is_err());
        app.shutdown().await;
    }

    pub async fn pausing_cancels_the_retries_and_resuming_starts_over(b: Backing) {
        let app = b.start().await;
        let mut reader = status_reader(&b).await;
        let config = chaos_source(&[
            ("chaos.task.configs.failures", "1000"),
            ("task.reconfiguration.backoff.initial.ms", "100"),
            ("task.reconfiguration.backoff.max.ms", "400"),
        ]);
        app.herder.put_connector_config("pc", config, None, false).await.unwrap();
        let key = "status-connector-pc";
        let mut seen = Vec::new();
        read_until(&mut reader, &mut seen, key, "a few retries", |h| {
            retries(h, "reconfiguration").len() >= 3
        })
        .await;
        app.herder.pause("pc").await.unwrap();
        wait_state(&app, c("pc"), State::Paused).await;
        tokio::time::sleep(Duration::from_millis(1200)).await;
        seen.extend(reader.poll(Duration::from_millis(100)).await.unwrap());
        let h = history(&seen, key);
        let paused = h.iter().rposition(|v| v["state"] == "PAUSED").expect("PAUSED written");
        assert_eq!(paused, h.len() - 1, "no retry while paused: {h:?}");
        assert!(h[paused].get("reconfiguration").is_none());

        app.herder.resume("pc").await.unwrap();
        let h = read_until(&mut reader, &mut seen, key, "retries after resume", |h| {
            retries(&h[paused..], "reconfiguration").len() >= 2
        })
        .await;
        assert_eq!(retries(&h[paused..], "reconfiguration")[..2], [(1, 100), (2, 200)]);

        app.herder.delete_connector("pc").await.unwrap();
        let deleted_at = read_until(&mut reader, &mut seen, key, "the tombstone", |h| {
            h.last().is_some_and(Value::is_null)
        })
        .await
        .len();
        tokio::time::sleep(Duration::from_millis(1000)).await;
        seen.extend(reader.poll(Duration::from_millis(100)).await.unwrap());
        assert_eq!(history(&seen, key).len(), deleted_at, "no retry after delete");
        app.shutdown().await;
    }

    pub async fn the_restart_policy_restarts_a_failing_connector_up_to_its_limit(b: Backing) {
        let app = b.start().await;
        let mut reader = status_reader(&b).await;
        let config = chaos_source(&[
            ("chaos.mode", "trap"),
            ("chaos.when", "connector-start"),
            ("restart.policy", "on-failure"),
            ("restart.backoff.initial.ms", "50"),
            ("restart.retries.max", "2"),
        ]);
        app.herder.put_connector_config("cp", config, None, false).await.unwrap();
        let mut seen = Vec::new();
        let h = read_until(&mut reader, &mut seen, "status-connector-cp", "the limit", |h| {
            h.last().is_some_and(|v| {
                v["trace"].as_str().is_some_and(|t| t.starts_with("Not restarted automatically"))
            })
        })
        .await;
        assert_eq!(states(&h), ["FAILED", "RESTARTING", "FAILED", "RESTARTING", "FAILED"]);
        assert_eq!(retries(&h, "restart"), [(1, 50), (2, 100)]);
        assert!(
            h[3]["trace"].as_str().unwrap().starts_with("Restarted automatically, attempt 2 of 2")
        );
        app.shutdown().await;
    }
}
