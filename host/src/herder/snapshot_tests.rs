//! The snapshot reads answer from: they follow creates, config changes, task configs,
//! deletes and statuses; unchanged connectors keep their entry; a snapshot that may not
//! answer (shutting down, a rebalance under way) sends reads to the loop.

use std::sync::Arc;

use super::harness::{Harness, connector, task};
use super::snapshot::{Made, Publisher};
use super::typed::Typed;
use super::{Command, HerderError, Read};
use crate::model::{Properties, State};
use crate::store::{ConfigRecord, ConfigState, Status};

fn not_found<T>(r: Result<T, HerderError>) -> bool {
    matches!(r, Err(HerderError::NotFound(_)))
}

async fn delete(h: &Harness, name: &str) -> Result<(), HerderError> {
    let name = name.to_owned();
    h.handle.ask(|r| Command::Delete(name, r)).await
}

#[tokio::test(start_paused = true)]
async fn a_created_connector_is_read_from_the_snapshot_with_its_tasks() {
    let h = Harness::start().await;
    assert!(h.handle.snapshot().answers(Read::Settled), "a standalone herder is settled");
    assert_eq!(h.handle.connectors().await.unwrap(), Vec::<String>::new());
    h.put("b", 2, &[]).await.unwrap();
    // Answered once durable and applied: the snapshot already has it.
    assert_eq!(h.handle.connector_info("b").await.unwrap().config["name"], "b");
    h.put("a", 1, &[]).await.unwrap();
    h.settle().await;
    let snapshot = h.handle.snapshot();
    assert_eq!(snapshot.names().collect::<Vec<_>>(), ["a", "b"]);
    assert_eq!(h.handle.connectors().await.unwrap(), ["a", "b"]);
    assert_eq!(h.handle.connector_info("b").await.unwrap().tasks, [0, 1]);
    let configs = h.handle.task_configs("b").await.unwrap();
    assert_eq!(configs.len(), 2);
    assert_eq!(snapshot.get("b").unwrap().task_configs, configs);
}

#[tokio::test(start_paused = true)]
async fn a_deleted_connector_is_not_found() {
    let h = Harness::start().await;
    h.put("c", 1, &[]).await.unwrap();
    h.settle().await;
    delete(&h, "c").await.unwrap();
    assert!(not_found(h.handle.connector_info("c").await), "read back at once");
    assert!(not_found(h.handle.task_configs("c").await));
    assert!(h.handle.connectors().await.unwrap().is_empty());
    h.settle().await;
    assert!(not_found(h.handle.connector_status("c").await), "no status either");
    let (_, statuses) = h.handle.connector_statuses(&h.handle.snapshot());
    assert!(statuses.is_empty());
}

#[tokio::test(start_paused = true)]
async fn a_changed_config_is_a_new_generation_and_other_entries_are_kept() {
    let h = Harness::start().await;
    h.put("a", 1, &[]).await.unwrap();
    h.put("b", 1, &[]).await.unwrap();
    h.settle().await;
    let before = h.handle.snapshot();
    h.put("b", 1, &[("extra", "1")]).await.unwrap();
    h.settle().await;
    let after = h.handle.snapshot();
    assert!(after.generation() > before.generation());
    assert_eq!(after.get("b").unwrap().info.config["extra"], "1");
    assert!(std::ptr::eq(before.get("a").unwrap(), after.get("a").unwrap()), "a is unchanged");
    h.handle.pause("a").await.unwrap();
    h.settle().await;
    let paused = h.handle.snapshot();
    assert_eq!(paused.generation(), after.generation(), "a target state is no entry's");
}

#[tokio::test(start_paused = true)]
async fn statuses_come_from_the_status_store_as_they_change() {
    let h = Harness::start().await;
    h.put("c", 2, &[]).await.unwrap();
    h.settle().await;
    let snapshot = h.handle.snapshot();
    let (version, statuses) = h.handle.connector_statuses(&snapshot);
    assert_eq!(statuses.len(), 1);
    assert_eq!(statuses[0].connector.state, State::Running);
    assert_eq!(statuses[0].tasks.iter().map(|(t, _)| *t).collect::<Vec<_>>(), [0, 1]);
    assert_eq!(h.handle.status_version(), version, "nothing changed since");
    let failed = Status::new(State::Failed, Some("boom".into()), "w:1".into(), 0);
    h.status.put(task("c", 1), failed.clone());
    assert!(h.handle.status_version() > version);
    let (_, statuses) = h.handle.connector_statuses(&h.handle.snapshot());
    assert_eq!(statuses[0].tasks[1], (1, failed));
    let one = h.handle.connector_status("c").await.unwrap();
    assert_eq!(one, statuses[0]);
    assert_eq!(h.state(&connector("c")), Some(State::Running));
}

fn config_with(names: &[&str]) -> ConfigState {
    let mut config = ConfigState::default();
    for name in names {
        let props = Properties::from([("name".to_string(), name.to_string())]);
        config.apply(ConfigRecord::Connector { name: name.to_string(), config: Some(props) });
    }
    config
}

#[test]
fn a_snapshot_answers_only_what_the_loop_would_answer_at_once() {
    let (mut publisher, rx) = Publisher::new();
    assert!(!rx.borrow().answers(Read::Any), "nothing before the first publish");
    let config = config_with(&["c"]);
    let typed = Typed::default();
    let made = Made { config_offset: 1, accepting: true, settled: false, plugins: 0 };
    publisher.publish(made, &config, &typed);
    let rebalancing = rx.borrow().clone();
    assert!(rebalancing.answers(Read::Any) && !rebalancing.answers(Read::Settled));
    publisher.publish(Made { settled: true, ..made }, &config, &typed);
    let settled = rx.borrow().clone();
    assert!(settled.answers(Read::Settled));
    assert_eq!(settled.generation(), rebalancing.generation(), "the same connectors");
    assert!(std::ptr::eq(settled.get("c").unwrap(), rebalancing.get("c").unwrap()));
    publisher.publish(Made { accepting: false, ..made }, &config, &typed);
    assert!(!rx.borrow().answers(Read::Any), "shutting down: the loop answers");
}

#[test]
fn the_same_made_is_not_published_again() {
    let (mut publisher, rx) = Publisher::new();
    let made = Made { config_offset: 4, accepting: true, settled: true, plugins: 0 };
    publisher.publish(made, &config_with(&["a"]), &Typed::default());
    let first = rx.borrow().clone();
    // A state the loop could not have at the same offset: proves nothing was rebuilt.
    publisher.publish(made, &config_with(&["a", "b"]), &Typed::default());
    assert!(Arc::ptr_eq(&first, &rx.borrow()));
    publisher.publish(
        Made { config_offset: 5, ..made },
        &config_with(&["a", "b"]),
        &Typed::default(),
    );
    assert_eq!(rx.borrow().names().collect::<Vec<_>>(), ["a", "b"]);
    assert_eq!(rx.borrow().generation(), first.generation() + 1);
}
