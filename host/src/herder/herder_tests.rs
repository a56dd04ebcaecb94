//! The herder loop with the fake worker, on a paused clock: lifecycles, every KIP-745
//! restart case, the restart policy, the reconfiguration retry chain, and writes that
//! never hold up the loop.

use std::time::Duration;

use super::harness::{Harness, connector, task};
use super::runner::fake::Call;
use super::{HerderError, RestartOutcome};
use crate::model::State;
use crate::worker::WorkerEvent;

fn starts(calls: &[Call]) -> Vec<String> {
    calls
        .iter()
        .filter_map(|c| if let Call::Start(id) = c { Some(id.to_string()) } else { None })
        .collect()
}

fn stops(calls: &[Call]) -> Vec<String> {
    calls
        .iter()
        .filter_map(|c| if let Call::Stop(id) = c { Some(id.to_string()) } else { None })
        .collect()
}

/// A harness with connector `c` running two tasks.
async fn running() -> Harness {
    let h = Harness::start().await;
    h.put("c", 2, &[]).await.unwrap();
    h.settle().await;
    assert_eq!(starts(&h.take_calls()), ["c", "c-0", "c-1"]);
    h
}

/// Fails task `t` of `c` as the worker would report it.
async fn fail_task(h: &Harness, t: u32) {
    let run = h.script.lock().unwrap().runs[&task("c", t)];
    let trace = "boom".to_string();
    let failed =
        WorkerEvent::TaskFailed { connector: "c".into(), task: t, run, trace, created: true };
    h.events.send(failed).unwrap();
    h.settle().await;
}

#[tokio::test(start_paused = true)]
async fn a_new_connector_runs_its_instance_and_generated_tasks() {
    let h = running().await;
    for id in [connector("c"), task("c", 0), task("c", 1)] {
        assert_eq!(h.state(&id), Some(State::Running), "{id}");
    }
    let info = h.handle.connector_info("c").await.unwrap();
    assert_eq!(info.tasks, [0, 1]);
}

#[tokio::test(start_paused = true)]
async fn a_new_config_restarts_the_connector_and_fewer_tasks_stop_the_rest() {
    let h = running().await;
    h.put("c", 1, &[("extra", "1")]).await.unwrap();
    h.settle().await;
    let calls = h.take_calls();
    assert_eq!(stops(&calls), ["c", "c-0", "c-1"], "{calls:?}");
    assert_eq!(starts(&calls), ["c", "c-0"], "{calls:?}");
    assert_eq!(h.state(&task("c", 1)), None, "a task that no longer exists has no status");
}

#[tokio::test(start_paused = true)]
async fn pause_and_resume_reach_the_running_tasks() {
    let h = running().await;
    h.handle.pause("c").await.unwrap();
    h.settle().await;
    assert_eq!(h.state(&task("c", 0)), Some(State::Paused));
    assert_eq!(h.state(&connector("c")), Some(State::Paused));
    let calls = h.take_calls();
    assert!(calls.iter().any(|c| matches!(c, Call::Target(id, crate::model::TargetState::Paused) if *id == task("c", 1))), "{calls:?}");
    assert!(stops(&calls).is_empty(), "a pause stops nothing");
    h.handle.resume("c").await.unwrap();
    h.settle().await;
    assert_eq!(h.state(&task("c", 1)), Some(State::Running));
}

#[tokio::test(start_paused = true)]
async fn a_stop_stops_everything_and_shows_stopped() {
    let h = running().await;
    h.handle.stop("c").await.unwrap();
    h.settle().await;
    let mut stopped = stops(&h.take_calls());
    stopped.sort();
    assert_eq!(stopped, ["c", "c-0", "c-1"]);
    assert_eq!(h.state(&connector("c")), Some(State::Stopped));
    assert_eq!(h.state(&task("c", 0)), None);
}

#[tokio::test(start_paused = true)]
async fn a_deleted_connector_stops_and_loses_its_statuses() {
    let h = running().await;
    h.handle.delete_connector("c").await.unwrap();
    h.settle().await;
    assert_eq!(stops(&h.take_calls()).len(), 3);
    assert_eq!(h.state(&connector("c")), None);
    assert_eq!(h.state(&task("c", 1)), None);
    assert!(matches!(h.handle.delete_connector("c").await, Err(HerderError::NotFound(_))));
}

// KIP-745: the six combinations, on a connector with task 1 FAILED.

#[tokio::test(start_paused = true)]
async fn restart_without_flags_restarts_the_connector_instance_only() {
    let h = running().await;
    fail_task(&h, 1).await;
    h.take_calls();
    let outcome = h.handle.restart_connector("c", false, false).await.unwrap();
    assert_eq!(outcome, RestartOutcome::Restarted, "answered once it has started again");
    let calls = h.take_calls();
    assert_eq!(stops(&calls), ["c"]);
    assert_eq!(starts(&calls), ["c"]);
    assert_eq!(h.state(&task("c", 1)), Some(State::Failed), "tasks are left alone");
}

#[tokio::test(start_paused = true)]
async fn restart_with_tasks_restarts_everything_and_answers_restarting() {
    let h = running().await;
    fail_task(&h, 1).await;
    h.take_calls();
    let RestartOutcome::Accepted(shown) =
        h.handle.restart_connector("c", true, false).await.unwrap()
    else {
        panic!("a 202 answer")
    };
    assert_eq!(shown.connector.state, State::Restarting);
    assert!(shown.tasks.iter().all(|(_, s)| s.state == State::Restarting), "{shown:?}");
    h.settle().await;
    let calls = h.take_calls();
    assert_eq!(stops(&calls), ["c", "c-0"], "task 1 was down already");
    let mut started = starts(&calls);
    started.sort();
    assert_eq!(started, ["c", "c-0", "c-1"]);
    assert_eq!(h.state(&task("c", 1)), Some(State::Running));
}

#[tokio::test(start_paused = true)]
async fn only_failed_without_tasks_restarts_nothing_while_the_connector_runs() {
    let h = running().await;
    fail_task(&h, 1).await;
    h.take_calls();
    let RestartOutcome::Accepted(shown) =
        h.handle.restart_connector("c", false, true).await.unwrap()
    else {
        panic!("a 202 answer")
    };
    assert_eq!(shown.connector.state, State::Running);
    assert_eq!(shown.tasks[1].1.state, State::Failed, "tasks are not part of the request");
    h.settle().await;
    assert!(h.take_calls().is_empty());
}

#[tokio::test(start_paused = true)]
async fn only_failed_with_tasks_restarts_the_failed_task_only() {
    let h = running().await;
    fail_task(&h, 1).await;
    h.take_calls();
    let RestartOutcome::Accepted(shown) =
        h.handle.restart_connector("c", true, true).await.unwrap()
    else {
        panic!("a 202 answer")
    };
    assert_eq!(shown.connector.state, State::Running);
    assert_eq!(shown.tasks[0].1.state, State::Running);
    assert_eq!(shown.tasks[1].1.state, State::Restarting);
    h.settle().await;
    let calls = h.take_calls();
    assert!(stops(&calls).is_empty(), "{calls:?}");
    assert_eq!(starts(&calls), ["c-1"]);
    assert_eq!(h.state(&task("c", 1)), Some(State::Running));
}

#[tokio::test(start_paused = true)]
async fn only_failed_restarts_a_failed_connector() {
    let h = Harness::start().await;
    h.script.lock().unwrap().fail_start.insert(connector("c"), "no class".into());
    h.put("c", 1, &[]).await.unwrap();
    h.settle().await;
    assert_eq!(h.state(&connector("c")), Some(State::Failed));
    h.take_calls();
    let RestartOutcome::Accepted(shown) =
        h.handle.restart_connector("c", true, true).await.unwrap()
    else {
        panic!("a 202 answer")
    };
    assert_eq!(shown.connector.state, State::Restarting);
    h.settle().await;
    assert_eq!(starts(&h.take_calls()), ["c", "c-0"], "the connector, then its generated task");
    assert_eq!(h.state(&connector("c")), Some(State::Running));
}

#[tokio::test(start_paused = true)]
async fn a_failed_instance_stays_down_until_restarted() {
    let h = running().await;
    fail_task(&h, 0).await;
    h.take_calls();
    // Anything that reconciles (another connector's creation) leaves it down.
    h.put("d", 1, &[]).await.unwrap();
    h.settle().await;
    assert!(!starts(&h.take_calls()).contains(&"c-0".to_string()));
    h.handle.restart_task("c", 0).await.unwrap();
    assert_eq!(h.state(&task("c", 0)), Some(State::Running));
    assert!(matches!(h.handle.restart_task("c", 7).await, Err(HerderError::NotFound(_))));
    assert!(matches!(
        h.handle.restart_connector("x", false, false).await,
        Err(HerderError::NotFound(_))
    ));
}

#[tokio::test(start_paused = true)]
async fn a_task_restart_succeeds_when_the_plugin_start_fails_as_in_kafka_connect() {
    let h = running().await;
    // The plugin's start fails: the task was started (204 over REST) and is FAILED.
    h.script.lock().unwrap().fail_start.insert(task("c", 0), "the file is a directory".into());
    h.handle.restart_task("c", 0).await.unwrap();
    assert_eq!(h.state(&task("c", 0)), Some(State::Failed));
    let status = h.handle.task_status("c", 0).unwrap();
    assert_eq!(status.trace.as_deref(), Some("the file is a directory"));
    // A task that cannot even be created: the request fails, as Kafka Connect's does.
    h.script.lock().unwrap().fail_create.insert(task("c", 1), "no such converter".into());
    let err = h.handle.restart_task("c", 1).await.unwrap_err();
    assert!(matches!(&err, HerderError::Failed(m) if m == "Failed to start task: c-1"), "{err:?}");
    assert_eq!(h.state(&task("c", 1)), Some(State::Failed));
}

#[tokio::test(start_paused = true)]
async fn the_restart_policy_restarts_a_failed_task_after_its_backoff() {
    let h = Harness::start().await;
    let policy = [
        ("restart.policy", "on-failure"),
        ("restart.backoff.initial.ms", "1000"),
        ("restart.backoff.max.ms", "1000"),
    ];
    h.put("c", 1, &policy).await.unwrap();
    h.settle().await;
    h.take_calls();
    fail_task(&h, 0).await;
    let failed = h.shown(&task("c", 0)).unwrap();
    assert_eq!(failed.state, State::Failed);
    let restart = failed.restart.expect("the FAILED status says when it restarts");
    assert_eq!(restart.retry, 1);
    assert!(starts(&h.take_calls()).is_empty(), "not before the back-off");
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(starts(&h.take_calls()), ["c-0"]);
    assert_eq!(h.state(&task("c", 0)), Some(State::Running));
}

#[tokio::test(start_paused = true)]
async fn failing_task_configs_retry_on_the_chain_then_fail_the_connector() {
    let h = Harness::start().await;
    h.script.lock().unwrap().fail_task_configs.insert("c".into());
    let keys = [
        ("task.reconfiguration.retries.max", "2"),
        ("task.reconfiguration.backoff.initial.ms", "1000"),
    ];
    h.put("c", 1, &keys).await.unwrap();
    h.settle().await;
    let shown = h.shown(&connector("c")).unwrap();
    assert_eq!(shown.state, State::Running);
    assert!(shown.reconfiguration.is_some(), "the RUNNING status shows the failing retries");
    tokio::time::sleep(Duration::from_secs(10)).await;
    let asks = h.take_calls().iter().filter(|c| matches!(c, Call::TaskConfigs(..))).count();
    assert_eq!(asks, 3, "the first attempt and two retries");
    let shown = h.shown(&connector("c")).unwrap();
    assert_eq!(shown.state, State::Failed);
    assert!(shown.trace.unwrap().contains("no more retries"));
}

#[tokio::test(start_paused = true)]
async fn a_config_topic_that_cannot_be_read_ends_the_worker_with_the_error() {
    let h = running().await;
    h.damage();
    // Before, the follower's failure was logged ("retrying") every 100 ms, forever.
    let reason = tokio::time::timeout(Duration::from_secs(60), h.handle.fatal())
        .await
        .expect("the worker is told to exit");
    assert!(reason.starts_with("the config topic cannot be read: "), "{reason}");
    assert!(reason.contains("database disk image is malformed"), "{reason}");
}

#[tokio::test(start_paused = true)]
async fn a_stalled_config_topic_holds_up_the_write_but_not_the_loop() {
    let h = running().await;
    h.stall(true);
    let writer = {
        let handle = h.handle.clone();
        tokio::spawn(async move { handle.pause("c").await })
    };
    let queued = {
        let handle = h.handle.clone();
        tokio::spawn(async move { handle.resume("c").await })
    };
    h.settle().await;
    assert!(!writer.is_finished() && !queued.is_finished(), "writes wait for the topic");
    // Reads are answered and worker events handled meanwhile.
    assert_eq!(h.handle.connectors().await.unwrap(), ["c"]);
    assert_eq!(h.handle.connector_info("c").await.unwrap().tasks, [0, 1]);
    fail_task(&h, 1).await;
    assert_eq!(h.state(&task("c", 1)), Some(State::Failed));
    h.stall(false);
    writer.await.unwrap().unwrap();
    queued.await.unwrap().unwrap();
    h.settle().await;
    assert_eq!(h.state(&connector("c")), Some(State::Running), "paused, then resumed, in order");
}
