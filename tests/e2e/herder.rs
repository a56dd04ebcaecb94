//! The herder and its stores, end to end: each scenario runs once on the embedded
//! SQLite backend and once on the real Kafka broker, with real guest components.

use wasm_connect::herder::{HerderError, RestartOutcome};
use wasm_connect::model::{State, TargetState};
use wasm_connect::store::{ConfigRecord, LogEntry, LogRecord};

use crate::harness::{Backing, c, chaos_source, eventually, props, state, t, wait_state};

on_both_backends!(
    lifecycle_pause_resume_stop_delete,
    config_survives_a_worker_restart,
    restart_record_from_another_producer_runs_its_plan,
    restart_records_older_than_the_worker_are_ignored,
    replay_applies_deletions_and_target_states,
    corrupt_config_records_are_skipped,
    restarts_requested_through_the_handle,
);

async fn lifecycle_pause_resume_stop_delete(b: Backing) {
    let app = b.start().await;
    let out =
        app.herder.put_connector_config("life", chaos_source(&[]), None, false).await.unwrap();
    assert!(out.created);
    wait_state(&app, c("life"), State::Running).await;
    wait_state(&app, t("life", 0), State::Running).await;
    wait_state(&app, t("life", 1), State::Running).await;
    let tasks = app.herder.task_configs("life").await.unwrap();
    assert_eq!(tasks.len(), 2);
    assert_eq!(tasks[0].get("task.class").map(String::as_str), Some("ChaosSourceTask"));
    let dup = app.herder.put_connector_config("life", chaos_source(&[]), None, false).await;
    assert!(matches!(dup, Err(HerderError::AlreadyExists(_))), "{dup:?}");

    app.herder.pause("life").await.unwrap();
    wait_state(&app, c("life"), State::Paused).await;
    wait_state(&app, t("life", 1), State::Paused).await;
    app.herder.resume("life").await.unwrap();
    wait_state(&app, c("life"), State::Running).await;
    wait_state(&app, t("life", 0), State::Running).await;

    app.herder.stop("life").await.unwrap();
    wait_state(&app, c("life"), State::Stopped).await;
    assert!(
        app.herder.task_configs("life").await.unwrap().is_empty(),
        "stop empties the task configs"
    );
    eventually(20, "task statuses to be removed", async || {
        app.herder.task_status("life", 0).is_err().then_some(())
    })
    .await;
    app.herder.resume("life").await.unwrap();
    wait_state(&app, t("life", 1), State::Running).await;

    app.herder.delete_connector("life").await.unwrap();
    assert!(app.herder.connectors().await.unwrap().is_empty());
    eventually(20, "statuses to be removed", async || {
        state(&app, &c("life")).await.is_none().then_some(())
    })
    .await;
    assert!(matches!(app.herder.delete_connector("life").await, Err(HerderError::NotFound(_))));
    app.shutdown().await;
}

async fn config_survives_a_worker_restart(b: Backing) {
    let app = b.start().await;
    app.herder
        .put_connector_config("a", chaos_source(&[("tasks.max", "3")]), None, false)
        .await
        .unwrap();
    let sink = props(&[("connector.class", "ChaosSink"), ("topics", "t1,t2"), ("tasks.max", "1")]);
    app.herder.put_connector_config("b", sink, Some(TargetState::Paused), false).await.unwrap();
    wait_state(&app, t("a", 2), State::Running).await;
    wait_state(&app, c("b"), State::Paused).await;
    let before = (
        app.herder.connectors().await.unwrap(),
        app.herder.connector_info("a").await.unwrap(),
        app.herder.connector_info("b").await.unwrap(),
        app.herder.task_configs("a").await.unwrap(),
    );
    let statuses = b.status_topic().await;
    app.shutdown().await;

    // Graceful shutdown leaves every instance UNASSIGNED in the status topic.
    let mut reader = statuses.reader().await.unwrap();
    let records = reader.read_to_end().await.unwrap();
    for key in ["status-connector-a", "status-task-a-0", "status-task-a-2", "status-connector-b"] {
        let last = last_value(&records, key).unwrap_or_else(|| panic!("no status for {key}"));
        assert_eq!(last["state"], "UNASSIGNED", "{key}: {last}");
    }

    let app = b.start().await;
    let after = (
        app.herder.connectors().await.unwrap(),
        app.herder.connector_info("a").await.unwrap(),
        app.herder.connector_info("b").await.unwrap(),
        app.herder.task_configs("a").await.unwrap(),
    );
    assert_eq!(before, after);
    wait_state(&app, t("a", 2), State::Running).await;
    wait_state(&app, c("b"), State::Paused).await;
    app.shutdown().await;
}

fn last_value(records: &[LogEntry], key: &str) -> Option<serde_json::Value> {
    records
        .iter()
        .rev()
        .find(|r| r.key.as_deref() == Some(key.as_bytes()))
        .and_then(|r| r.value.as_deref())
        .map(|v| serde_json::from_slice(v).unwrap())
}

fn states_of(records: &[LogEntry], key: &str) -> Vec<String> {
    records
        .iter()
        .filter(|r| r.key.as_deref() == Some(key.as_bytes()))
        .filter_map(|r| r.value.as_deref())
        .map(|v| {
            serde_json::from_slice::<serde_json::Value>(v).unwrap()["state"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect()
}

async fn restart_record_from_another_producer_runs_its_plan(b: Backing) {
    let app = b.start().await;
    let config = chaos_source(&[("tasks.max", "3"), ("chaos.fail.tasks", "1")]);
    app.herder.put_connector_config("r", config, None, false).await.unwrap();
    wait_state(&app, t("r", 0), State::Running).await;
    wait_state(&app, t("r", 2), State::Running).await;
    wait_state(&app, t("r", 1), State::Failed).await;
    app.herder.flush_statuses().await;
    let statuses = b.status_topic().await;
    let mut reader = statuses.reader().await.unwrap();
    reader.read_to_end().await.unwrap();

    // Another producer appends the restart request.
    let request = ConfigRecord::Restart(wasm_connect::model::RestartRequest {
        connector: "r".into(),
        only_failed: true,
        include_tasks: true,
    });
    b.config_topic().await.send(vec![request.to_log_record()]).await.unwrap();

    let mut seen = Vec::new();
    eventually(20, "task 1 to be restarted and fail again", async || {
        seen.extend(reader.poll(std::time::Duration::from_millis(100)).await.unwrap());
        (states_of(&seen, "status-task-r-1") == ["RESTARTING", "FAILED"]).then_some(())
    })
    .await;
    // Only the FAILED task was in the plan.
    for key in ["status-connector-r", "status-task-r-0", "status-task-r-2"] {
        assert!(states_of(&seen, key).is_empty(), "{key} was touched: {:?}", states_of(&seen, key));
    }
    app.shutdown().await;
}

async fn restart_records_older_than_the_worker_are_ignored(b: Backing) {
    let app = b.start().await;
    app.herder.put_connector_config("old", chaos_source(&[]), None, false).await.unwrap();
    wait_state(&app, t("old", 1), State::Running).await;
    app.shutdown().await;

    let request = ConfigRecord::Restart(wasm_connect::model::RestartRequest {
        connector: "old".into(),
        only_failed: false,
        include_tasks: true,
    });
    b.config_topic().await.send(vec![request.to_log_record()]).await.unwrap();
    let statuses = b.status_topic().await;
    let mut reader = statuses.reader().await.unwrap();
    reader.read_to_end().await.unwrap();

    let app = b.start().await;
    wait_state(&app, t("old", 1), State::Running).await;
    wait_state(&app, t("old", 0), State::Running).await;
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let seen = reader.read_to_end().await.unwrap();
    for key in ["status-connector-old", "status-task-old-0", "status-task-old-1"] {
        assert!(
            !states_of(&seen, key).contains(&"RESTARTING".to_string()),
            "{key}: {:?}",
            states_of(&seen, key)
        );
    }
    app.shutdown().await;
}

async fn replay_applies_deletions_and_target_states(b: Backing) {
    let topic = b.config_topic().await;
    let config = |name: &str| ConfigRecord::Connector {
        name: name.into(),
        config: Some(chaos_source(&[("tasks.max", "1")])),
    };
    let task = |name: &str| ConfigRecord::Task {
        connector: name.into(),
        task: 0,
        config: Some(props(&[("chaos.mode", "ok")])),
    };
    let records = [
        config("gone"),
        task("gone"),
        ConfigRecord::Commit { connector: "gone".into(), tasks: 1 },
        config("kept"),
        ConfigRecord::TargetState { connector: "kept".into(), state: Some(TargetState::Paused) },
        ConfigRecord::Connector { name: "gone".into(), config: None },
        ConfigRecord::TargetState { connector: "gone".into(), state: None },
    ];
    topic.send(records.iter().map(ConfigRecord::to_log_record).collect()).await.unwrap();
    let app = b.start().await;
    assert_eq!(app.herder.connectors().await.unwrap(), vec!["kept".to_string()]);
    wait_state(&app, c("kept"), State::Paused).await;
    assert!(matches!(app.herder.connector_info("gone").await, Err(HerderError::NotFound(_))));
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    assert_eq!(state(&app, &t("gone", 0)).await, None, "a deleted connector's task ran");
    app.shutdown().await;
}

async fn corrupt_config_records_are_skipped(b: Backing) {
    let topic = b.config_topic().await;
    let good = |name: &str| {
        ConfigRecord::Connector {
            name: name.into(),
            config: Some(chaos_source(&[("tasks.max", "1")])),
        }
        .to_log_record()
    };
    topic
        .send(vec![
            good("first"),
            LogRecord::new("connector-broken", "{this is not json"),
            LogRecord::new("mystery-record", "{}"),
            LogRecord::new("task-first-notanumber", r#"{"properties":{}}"#),
            LogRecord::new("commit-first", r#"{"tasks":"many"}"#),
            LogRecord::new("target-state-first", r#"{"state":"DANCING"}"#),
            good("last"),
        ])
        .await
        .unwrap();
    let app = b.start().await;
    assert_eq!(
        app.herder.connectors().await.unwrap(),
        vec!["first".to_string(), "last".to_string()]
    );
    wait_state(&app, t("first", 0), State::Running).await;
    wait_state(&app, t("last", 0), State::Running).await;
    app.shutdown().await;
}

async fn restarts_requested_through_the_handle(b: Backing) {
    let app = b.start().await;
    app.herder.put_connector_config("h", chaos_source(&[]), None, false).await.unwrap();
    wait_state(&app, t("h", 1), State::Running).await;
    assert_eq!(
        app.herder.restart_connector("h", false, false).await.unwrap(),
        RestartOutcome::Restarted
    );
    wait_state(&app, c("h"), State::Running).await;
    match app.herder.restart_connector("h", true, false).await.unwrap() {
        RestartOutcome::Accepted(s) => {
            assert_eq!(s.connector.state, State::Restarting);
            assert!(s.tasks.iter().all(|(_, t)| t.state == State::Restarting), "{s:?}");
        }
        other => panic!("expected 202 semantics, got {other:?}"),
    }
    wait_state(&app, t("h", 0), State::Running).await;
    wait_state(&app, c("h"), State::Running).await;
    app.herder.restart_task("h", 1).await.unwrap();
    assert!(matches!(app.herder.restart_task("h", 7).await, Err(HerderError::NotFound(_))));
    assert!(matches!(
        app.herder.restart_connector("nope", true, true).await,
        Err(HerderError::NotFound(_))
    ));
    app.shutdown().await;
}

/// A trap in the connector's `task-configs` fails the connector with the trace a task
/// trap gets: the call and trap kind, the guest backtrace, the tail of its stderr.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_trap_in_task_configs_fails_the_connector_with_its_trace() {
    let dir = tempfile::tempdir().unwrap();
    let app = Backing::embedded(&dir).start().await;
    let cases = [
        ("tc-panic", "panic", "task-configs trapped: guest panicked (wasm `unreachable`)"),
        ("tc-loop", "loop", "task-configs trapped: CPU deadline exceeded"),
    ];
    for (name, mode, kind) in cases {
        let config = chaos_source(&[
            ("chaos.mode", mode),
            ("chaos.when", "task-configs"),
            ("wasm.call.timeout.ms", "300"),
        ]);
        app.herder.put_connector_config(name, config, None, false).await.unwrap();
        wait_state(&app, c(name), State::Failed).await;
        let status = app.herder.connector_status(name).await.unwrap();
        let trace = status.connector.trace.unwrap_or_default();
        assert!(trace.starts_with(kind), "{name}: {trace}");
        assert!(
            trace.contains("wasm backtrace"),
            "{name}: the guest backtrace is missing:\n{trace}"
        );
        assert!(
            trace.contains("connector@0.1.2#task-configs"),
            "{name}: the guest frames are missing:\n{trace}"
        );
        if mode == "panic" {
            assert!(
                trace.contains("guest stderr (last lines):") && trace.contains("chaos panic"),
                "{name}: the panic message from stderr is missing:\n{trace}"
            );
        }
        assert!(status.tasks.is_empty(), "{name}: no task configs, so no task");
    }
    app.shutdown().await;
}
