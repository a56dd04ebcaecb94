//! The data checks of a sink plugin.
//!
//! "put within sandbox limits": partitions 0 and 1 of the subject's topic are opened,
//! [`BATCHES`] synthetic batches of [`BATCH_RECORDS`] records (string and JSON values)
//! are put to partition 0, each within the call deadline; then `pre-commit`, given the
//! delivered offset of partition 0, may return offsets only for open partitions and
//! never beyond what was delivered ([`judge_pre_commit`], pure). Reports the rate and
//! the memory the instance ended with.
//!
//! "restart": a task is run (start → open → put → pre-commit → close → stop), then a
//! fresh instance with the same config must accept the same sequence again, continuing
//! at the next offset.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::kit::{Kit, describe, sink_records};
use super::lifecycle::plural;
use super::offsets::MemoryOffsets;
use super::report::{Finding, count, millis};
use crate::model::{Config, TopicPartition, TopicPartitionOffset};

/// Synthetic batches put in the put check.
pub const BATCHES: usize = 2;
/// Records in one synthetic batch.
pub const BATCH_RECORDS: usize = 1_000;
/// Records put by each run of the restart check.
const RESTART_RECORDS: usize = 100;

/// Why `returned` (pre-commit's answer) is not safe, given the `open` partitions and the
/// `delivered` offsets (next offset after the last record put, per partition).
pub fn judge_pre_commit(
    open: &[TopicPartition],
    delivered: &BTreeMap<TopicPartition, i64>,
    returned: &[TopicPartitionOffset],
) -> Result<(), String> {
    for o in returned {
        let tp = TopicPartition { topic: o.topic.clone(), partition: o.partition };
        if !open.contains(&tp) {
            return Err(format!(
                "pre-commit returned an offset for {}-{}, which is not open",
                o.topic, o.partition
            ));
        }
        match delivered.get(&tp) {
            None => {
                return Err(format!(
                    "pre-commit returned offset {} for {}-{}, where nothing was delivered",
                    o.offset, o.topic, o.partition
                ));
            }
            Some(&next) if o.offset > next => {
                return Err(format!(
                    "pre-commit returned offset {} for {}-{}, beyond the delivered {next}",
                    o.offset, o.topic, o.partition
                ));
            }
            Some(_) => {}
        }
    }
    Ok(())
}

/// Runs "put within sandbox limits".
pub async fn put_check(kit: &Kit) -> Finding {
    put_within_limits(kit).await.unwrap_or_else(Finding::fail)
}

async fn put_within_limits(kit: &Kit) -> Result<Finding, String> {
    kit.subject.runnable()?;
    let limits = kit.limits()?;
    let config = match kit.task_config_or_skip().await? {
        Ok(c) => c,
        Err(why) => return Ok(Finding::skip(why)),
    };
    let host = Arc::new(MemoryOffsets::default());
    let open = vec![kit.partition(0), kit.partition(1)];
    let task = kit.sink_task(0, &config, &host).await?;
    task.start(config).await.map_err(|e| describe("task start", &e))?;
    task.open(&open).await.map_err(|e| describe("open", &e))?;
    let mut slowest = Duration::ZERO;
    let mut busy = Duration::ZERO;
    let mut failed = 0;
    let mut next = 0i64;
    for batch in 0..BATCHES {
        let records = sink_records(&open[0], next, BATCH_RECORDS);
        let started = Instant::now();
        let failures = task
            .put(&records)
            .await
            .map_err(|e| format!("batch {}: {}", batch + 1, describe("put", &e)))?;
        let took = started.elapsed();
        slowest = slowest.max(took);
        busy += took;
        failed += failures.len();
        next += BATCH_RECORDS as i64;
    }
    let delivered = BTreeMap::from([(open[0].clone(), next)]);
    let offered =
        vec![TopicPartitionOffset { topic: open[0].topic.clone(), partition: 0, offset: next }];
    let returned = task.pre_commit(&offered).await.map_err(|e| describe("pre-commit", &e))?;
    judge_pre_commit(&open, &delivered, &returned)?;
    let memory = task.instance().memory_used().await.map_err(|e| describe("memory", &e))?;
    task.close(&open).await.map_err(|e| describe("close", &e))?;
    task.stop().await.map_err(|e| describe("task stop", &e))?;
    if slowest > limits.call_deadline {
        return Err(format!(
            "the slowest put took {}, over the deadline of {}",
            millis(slowest),
            millis(limits.call_deadline)
        ));
    }
    let total = BATCHES * BATCH_RECORDS;
    let rate = total as f64 / busy.as_secs_f64().max(1e-6);
    Ok(Finding::pass(format!(
        "{} records in {BATCHES} puts, {failed} reported failed, {} records/s; slowest put {} \
         of {}; pre-commit returned {} ≤ {next}; memory {:.1} of {} MiB",
        count(total as u64),
        count(rate.round() as u64),
        millis(slowest),
        millis(limits.call_deadline),
        plural(returned.len(), "safe offset"),
        memory as f64 / (1 << 20) as f64,
        limits.memory_bytes >> 20,
    )))
}

/// Runs "restart" for a sink.
pub async fn restart_check(kit: &Kit) -> Finding {
    restart(kit).await.unwrap_or_else(Finding::fail)
}

async fn restart(kit: &Kit) -> Result<Finding, String> {
    kit.subject.runnable()?;
    let config = match kit.task_config_or_skip().await? {
        Ok(c) => c,
        Err(why) => return Ok(Finding::skip(why)),
    };
    let host = Arc::new(MemoryOffsets::default());
    one_run(kit, &config, &host, 0).await.map_err(|e| format!("first run: {e}"))?;
    one_run(kit, &config, &host, RESTART_RECORDS as i64)
        .await
        .map_err(|e| format!("after restart: {e}"))?;
    Ok(Finding::pass(format!(
        "{RESTART_RECORDS} records put, stopped; a fresh instance accepted open → put \
         ({RESTART_RECORDS} more) → pre-commit → close → stop"
    )))
}

/// start → open → put → pre-commit → close → stop, records from offset `first`.
async fn one_run(
    kit: &Kit,
    config: &Config,
    host: &Arc<MemoryOffsets>,
    first: i64,
) -> Result<(), String> {
    let tp = kit.partition(0);
    let task = kit.sink_task(0, config, host).await?;
    task.start(config.clone()).await.map_err(|e| describe("task start", &e))?;
    task.open(std::slice::from_ref(&tp)).await.map_err(|e| describe("open", &e))?;
    task.put(&sink_records(&tp, first, RESTART_RECORDS)).await.map_err(|e| describe("put", &e))?;
    let next = first + RESTART_RECORDS as i64;
    let offered = [TopicPartitionOffset { topic: tp.topic.clone(), partition: 0, offset: next }];
    let returned = task.pre_commit(&offered).await.map_err(|e| describe("pre-commit", &e))?;
    judge_pre_commit(std::slice::from_ref(&tp), &BTreeMap::from([(tp.clone(), next)]), &returned)?;
    task.close(std::slice::from_ref(&tp)).await.map_err(|e| describe("close", &e))?;
    task.stop().await.map_err(|e| describe("task stop", &e))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tp(p: i32) -> TopicPartition {
        TopicPartition { topic: "t".into(), partition: p }
    }

    fn tpo(p: i32, offset: i64) -> TopicPartitionOffset {
        TopicPartitionOffset { topic: "t".into(), partition: p, offset }
    }

    #[test]
    fn safe_offsets_pass() {
        let delivered = BTreeMap::from([(tp(0), 2000)]);
        let open = [tp(0), tp(1)];
        assert!(judge_pre_commit(&open, &delivered, &[tpo(0, 2000)]).is_ok());
        assert!(judge_pre_commit(&open, &delivered, &[tpo(0, 1500)]).is_ok());
        assert!(judge_pre_commit(&open, &delivered, &[]).is_ok());
    }

    #[test]
    fn unsafe_offsets_are_named() {
        let delivered = BTreeMap::from([(tp(0), 2000)]);
        let open = [tp(0), tp(1)];
        let e = judge_pre_commit(&open, &delivered, &[tpo(0, 2001)]).unwrap_err();
        assert!(e.contains("beyond the delivered 2000"), "{e}");
        let e = judge_pre_commit(&open, &delivered, &[tpo(1, 5)]).unwrap_err();
        assert!(e.contains("nothing was delivered"), "{e}");
        let e = judge_pre_commit(&open, &delivered, &[tpo(7, 5)]).unwrap_err();
        assert!(e.contains("t-7, which is not open"), "{e}");
    }
}
