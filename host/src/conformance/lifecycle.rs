//! The "lifecycle order" check: the calls the worker makes, in the order it makes them,
//! all succeed. Connector `start` → `task-configs(tasks.max)` → `stop`; then for each
//! returned task config (at most [`MAX_TASKS_RUN`]) task `start` → `poll` → `stop` for a
//! source, or `start` → `open` → `put` → `pre-commit` → `close` → `stop` for a sink.
//! Every instance gets the grants of its own config, as the worker computes them.

use std::sync::Arc;

use super::kit::{Kit, describe, sink_records};
use super::offsets::MemoryOffsets;
use super::report::Finding;
use crate::app::SOURCE_MAX_POLL_RECORDS;
use crate::model::{Config, PluginKind, TopicPartitionOffset};

/// The most task configs the check runs tasks for.
pub const MAX_TASKS_RUN: usize = 3;
/// Records a sink task is given in this check.
const SINK_RECORDS: usize = 10;

/// Runs the check.
pub async fn check(kit: &Kit) -> Finding {
    run(kit).await.map_or_else(Finding::fail, Finding::pass)
}

async fn run(kit: &Kit) -> Result<String, String> {
    kit.subject.runnable()?;
    let host = Arc::new(MemoryOffsets::default());
    let max = kit.subject.tasks_max;
    let connector = kit.started_connector(&host).await?;
    let configs = connector.task_configs(max).await.map_err(|e| describe("task-configs", &e))?;
    connector.stop().await.map_err(|e| describe("connector stop", &e))?;
    let mut detail = format!(
        "connector start → task-configs({max}): {} → stop",
        plural(configs.len(), "config")
    );
    for (index, config) in configs.iter().take(MAX_TASKS_RUN).enumerate() {
        let steps = match kit.kind() {
            PluginKind::Source => source_task(kit, index as u32, config, &host).await,
            PluginKind::Sink => sink_task(kit, index as u32, config, &host).await,
            PluginKind::Transform => unreachable!("transforms run transform::check"),
        }
        .map_err(|e| format!("{detail}; task {index}: {e}"))?;
        detail.push_str(&format!("; task {index}: {steps}"));
    }
    if configs.len() > MAX_TASKS_RUN {
        detail.push_str(&format!("; {} more tasks not run", configs.len() - MAX_TASKS_RUN));
    }
    if configs.is_empty() {
        detail.push_str("; no task config, so no task was run");
    }
    Ok(detail)
}

async fn source_task(
    kit: &Kit,
    index: u32,
    config: &Config,
    host: &Arc<MemoryOffsets>,
) -> Result<String, String> {
    let task = kit.source_task(index, config, host).await?;
    task.start(config.clone()).await.map_err(|e| describe("task start", &e))?;
    let records = task.poll(SOURCE_MAX_POLL_RECORDS).await.map_err(|e| describe("poll", &e))?;
    task.stop().await.map_err(|e| describe("task stop", &e))?;
    Ok(format!("start → poll: {} → stop", plural(records.len(), "record")))
}

async fn sink_task(
    kit: &Kit,
    index: u32,
    config: &Config,
    host: &Arc<MemoryOffsets>,
) -> Result<String, String> {
    let tp = kit.partition(0);
    let task = kit.sink_task(index, config, host).await?;
    task.start(config.clone()).await.map_err(|e| describe("task start", &e))?;
    task.open(std::slice::from_ref(&tp)).await.map_err(|e| describe("open", &e))?;
    let failed =
        task.put(&sink_records(&tp, 0, SINK_RECORDS)).await.map_err(|e| describe("put", &e))?;
    let delivered = TopicPartitionOffset {
        topic: tp.topic.clone(),
        partition: tp.partition,
        offset: SINK_RECORDS as i64,
    };
    task.pre_commit(&[delivered]).await.map_err(|e| describe("pre-commit", &e))?;
    task.close(std::slice::from_ref(&tp)).await.map_err(|e| describe("close", &e))?;
    task.stop().await.map_err(|e| describe("task stop", &e))?;
    Ok(format!(
        "start → open → put: {SINK_RECORDS} records, {} failed → pre-commit → close → stop",
        failed.len()
    ))
}

/// `1 record`, `3 records`.
pub fn plural(n: usize, noun: &str) -> String {
    if n == 1 { format!("1 {noun}") } else { format!("{n} {noun}s") }
}
