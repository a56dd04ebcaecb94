//! The "clean stop" check: `stop` of a started connector, and of a task that did some
//! work (one `poll`, or `open` → `put` → `close`), returns without a trap and within the
//! call deadline (`wasm.call.timeout.ms`, or the language default).

use std::sync::Arc;
use std::time::Instant;

use super::kit::{Kit, describe, sink_records};
use super::offsets::MemoryOffsets;
use super::report::{Finding, millis};
use crate::app::SOURCE_MAX_POLL_RECORDS;
use crate::model::PluginKind;

/// Runs the check.
pub async fn check(kit: &Kit) -> Finding {
    run(kit).await.map_or_else(Finding::fail, Finding::pass)
}

async fn run(kit: &Kit) -> Result<String, String> {
    kit.subject.runnable()?;
    let deadline = kit.limits()?.call_deadline;
    let host = Arc::new(MemoryOffsets::default());
    let connector = kit.started_connector(&host).await?;
    let started = Instant::now();
    connector.stop().await.map_err(|e| describe("connector stop", &e))?;
    let connector_took = started.elapsed();
    if connector_took > deadline {
        return Err(format!(
            "connector stop took {}, over the deadline of {}",
            millis(connector_took),
            millis(deadline)
        ));
    }
    let config = match kit.task_config_or_skip().await? {
        Ok(config) => config,
        Err(why) => {
            return Ok(format!(
                "connector stop {}; {why} (deadline {})",
                millis(connector_took),
                millis(deadline)
            ));
        }
    };
    let started = match kit.kind() {
        PluginKind::Source => {
            let task = kit.source_task(0, &config, &host).await?;
            task.start(config.clone()).await.map_err(|e| describe("task start", &e))?;
            task.poll(SOURCE_MAX_POLL_RECORDS).await.map_err(|e| describe("poll", &e))?;
            let started = Instant::now();
            task.stop().await.map_err(|e| describe("task stop", &e))?;
            started
        }
        PluginKind::Transform => unreachable!("transforms run transform::close_check"),
        PluginKind::Sink => {
            let tp = kit.partition(0);
            let task = kit.sink_task(0, &config, &host).await?;
            task.start(config.clone()).await.map_err(|e| describe("task start", &e))?;
            task.open(std::slice::from_ref(&tp)).await.map_err(|e| describe("open", &e))?;
            task.put(&sink_records(&tp, 0, 10)).await.map_err(|e| describe("put", &e))?;
            task.close(std::slice::from_ref(&tp)).await.map_err(|e| describe("close", &e))?;
            let started = Instant::now();
            task.stop().await.map_err(|e| describe("task stop", &e))?;
            started
        }
    };
    let task_took = started.elapsed();
    if task_took > deadline {
        return Err(format!(
            "task stop took {}, over the deadline of {}",
            millis(task_took),
            millis(deadline)
        ));
    }
    Ok(format!(
        "connector stop {}, task stop {} (deadline {})",
        millis(connector_took),
        millis(task_took),
        millis(deadline)
    ))
}
