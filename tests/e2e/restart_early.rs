//! A restart that comes right after a source connector's first start (issue 39, "the first
//! restart"): on the Kafka backing, a fresh 4-task source is restarted with its tasks as
//! soon as all show RUNNING, while its new producer may still be waiting for its first
//! acknowledgements. Each task resumes after its committed offset: its records, keyed
//! `<task>-<n>`, count 0, 1, 2, … with no gap (nothing in flight lost) and no repeat (the
//! offsets of what was acknowledged before the stop were committed). Twice, on fresh
//! connectors: the first alone, on a producer created for it; the second beside a Datagen
//! neighbour that shares the worker's producer, so records a stopping task did not wait for
//! would still be written after its restart polled them again (a repeat), rather than
//! purged with a producer nobody holds.
//!
//! How long the restart takes is measured by `scripts/bench-vs-kafka-connect.sh`'s
//! `restartearly` row, not here.

use std::collections::BTreeMap;

use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::harness::{Backing, eventually};
use crate::rest::{Api, all_running};
use crate::topic_records::read_topic;

const TASKS: usize = 4;

/// Each task's counts, by task index, in the topic's order.
async fn counts(b: &Backing, topic: &str) -> BTreeMap<String, Vec<u64>> {
    let mut by_task: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    for r in read_topic(b, topic).await {
        let key = r.key.expect("a keyed record");
        let (task, n) = key.trim().split_once('-').expect("<task>-<n>");
        by_task.entry(task.to_owned()).or_default().push(n.parse().unwrap());
    }
    by_task
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_right_after_the_first_start_resumes_with_no_gap_or_repeat() {
    let b = Backing::kafka();
    let app = b.start().await;
    let api = Api::new(&app);
    for round in 0..2 {
        if round == 1 {
            let neighbour = json!({"name": "neighbour", "config": {
                "connector.class": "Datagen", "tasks.max": "1", "records": "-1",
                "topic": format!("{}-neighbour", prefix(&b)), "rate": "100", "batch.size": "10",
            }});
            let (code, answer) = api.call(Method::POST, "/connectors", Some(neighbour)).await;
            assert_eq!(code, StatusCode::CREATED, "{answer}");
            api.wait_status("neighbour", "the neighbour", all_running(1)).await;
        }
        let (name, topic) = (format!("early-{round}"), format!("{}-early-{round}", prefix(&b)));
        let config = json!({
            "connector.class": "ChaosSource", "tasks.max": TASKS.to_string(),
            "chaos.mode": "ok", "chaos.partition.per.task": "true", "topic": topic,
            "batch.size": "10", "wasm.poll.records.per.second": "200",
            "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        });
        let body = json!({ "name": name, "config": config });
        let (code, answer) = api.call(Method::POST, "/connectors", Some(body)).await;
        assert_eq!(code, StatusCode::CREATED, "{answer}");
        api.wait_status(&name, "the first start", all_running(TASKS)).await;

        let path = format!("/connectors/{name}/restart?includeTasks=true");
        let (code, answer) = api.call(Method::POST, &path, None).await;
        assert_eq!(code, StatusCode::ACCEPTED, "{answer}");
        api.wait_status(&name, "the restart", all_running(TASKS)).await;

        // Every task writes well past what it wrote before the restart.
        let before: BTreeMap<String, usize> =
            counts(&b, &topic).await.into_iter().map(|(t, c)| (t, c.len())).collect();
        let written = eventually(60, "records after the restart", async || {
            let now = counts(&b, &topic).await;
            let grown = now.len() == TASKS
                && now.iter().all(|(t, c)| c.len() >= before.get(t).copied().unwrap_or(0) + 50);
            grown.then_some(now)
        })
        .await;
        for (task, seq) in &written {
            let broken = seq.iter().enumerate().find(|(i, n)| **n != *i as u64);
            assert!(
                broken.is_none(),
                "{name} task {task}: a gap or repeat at {broken:?} in {seq:?}"
            );
        }
        let (code, _) = api.call(Method::DELETE, &format!("/connectors/{name}"), None).await;
        assert_eq!(code, StatusCode::NO_CONTENT);
    }
    app.shutdown().await;
}

/// The backing's topic prefix, so the data topics are as fresh as its internal ones.
fn prefix(b: &Backing) -> &str {
    match b {
        Backing::Kafka(prefix, _) => prefix,
        Backing::Embedded(_) => unreachable!("a Kafka backing"),
    }
}
