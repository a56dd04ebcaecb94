//! The data checks of a source plugin.
//!
//! "poll within sandbox limits": up to [`POLLS`] polls (or until [`ENOUGH_RECORDS`]) of
//! one started task, each returning within the call deadline, at most `max-records`
//! records, under the batch byte cap, and every record carrying a source partition and a
//! source offset that are JSON (the worker cannot commit a record's position otherwise).
//! Reports the rate and the linear memory the instance ended with.
//!
//! "restart": the worker's commit path, then a fresh instance. The records of a first run
//! are acknowledged (`commit-records`), the last source offset of each partition goes
//! into the kit's offset map, `commit` and `stop` are called; a new instance with the
//! same config then polls, and none of its records may repeat a committed (partition,
//! offset).

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;
use wasm_connect_batch::Record;

use super::kit::{Kit, describe};
use super::lifecycle::plural;
use super::offsets::MemoryOffsets;
use super::report::{Finding, count, millis};
use crate::app::SOURCE_MAX_POLL_RECORDS;
use crate::model::RecordAck;
use crate::runtime::SourceTaskInstance;

/// The most polls of one run.
pub const POLLS: usize = 20;
/// A run stops polling once it has this many records.
pub const ENOUGH_RECORDS: usize = 10_000;
/// Non-empty polls whose records the first run of the restart check commits.
const RESTART_BATCHES: usize = 3;
/// Wait after an empty poll, as the worker waits, so a source may see new data.
const IDLE_WAIT: Duration = Duration::from_millis(50);
/// Consecutive empty polls after which a run that has seen records (or that looks for
/// records after a restart) counts the source as drained.
const EMPTY_PATIENCE: usize = 5;

/// What a run of polls saw.
#[derive(Debug, Default)]
struct Polled {
    records: Vec<Record>,
    polls: usize,
    empty: usize,
    largest_records: usize,
    largest_bytes: usize,
    slowest: Duration,
    busy: Duration,
}

/// Polls `task` until `enough` records, `max_batches` non-empty polls, [`POLLS`] polls,
/// or [`EMPTY_PATIENCE`] empty polls in a row once records were seen (from the start if
/// `drained_early`).
async fn poll_run(
    task: &SourceTaskInstance,
    enough: usize,
    max_batches: usize,
    drained_early: bool,
) -> Result<Polled, String> {
    let mut p = Polled::default();
    let mut batches = 0;
    let mut empty_in_a_row = 0;
    while p.polls < POLLS && p.records.len() < enough && batches < max_batches {
        if empty_in_a_row >= EMPTY_PATIENCE && (drained_early || !p.records.is_empty()) {
            break;
        }
        let started = Instant::now();
        let records = task
            .poll(SOURCE_MAX_POLL_RECORDS)
            .await
            .map_err(|e| format!("poll {}: {}", p.polls + 1, describe("poll", &e)))?;
        let records: Vec<Record> = records.iter().map(Record::from).collect();
        let took = started.elapsed();
        p.polls += 1;
        p.busy += took;
        p.slowest = p.slowest.max(took);
        if records.is_empty() {
            p.empty += 1;
            empty_in_a_row += 1;
            tokio::time::sleep(IDLE_WAIT).await;
            continue;
        }
        batches += 1;
        empty_in_a_row = 0;
        for (i, r) in records.iter().enumerate() {
            if let Some(problem) = record_problem(r) {
                return Err(format!("poll {}, record {}: {problem}", p.polls, i + 1));
            }
        }
        p.largest_records = p.largest_records.max(records.len());
        p.largest_bytes = p.largest_bytes.max(records.iter().map(Record::encoded_len).sum());
        p.records.extend(records);
    }
    Ok(p)
}

/// What is wrong with a polled record's position, if anything.
pub fn record_problem(r: &Record) -> Option<String> {
    for (what, bytes) in
        [("source partition", &r.source_partition), ("source offset", &r.source_offset)]
    {
        match bytes {
            None => return Some(format!("no {what}")),
            Some(b) if serde_json::from_slice::<Value>(b).is_err() => {
                return Some(format!("{what} is not JSON: {:?}", String::from_utf8_lossy(b)));
            }
            Some(_) => {}
        }
    }
    None
}

/// A record's (partition, offset) as canonical JSON; checked by `record_problem`.
fn position(r: &Record) -> (Value, Value) {
    let json = |b: &Option<Vec<u8>>| {
        b.as_deref().and_then(|b| serde_json::from_slice(b).ok()).unwrap_or(Value::Null)
    };
    (json(&r.source_partition), json(&r.source_offset))
}

/// Runs "poll within sandbox limits".
pub async fn poll_check(kit: &Kit) -> Finding {
    poll_within_limits(kit).await.unwrap_or_else(Finding::fail)
}

async fn poll_within_limits(kit: &Kit) -> Result<Finding, String> {
    kit.subject.runnable()?;
    let limits = kit.limits()?;
    let config = match kit.task_config_or_skip().await? {
        Ok(c) => c,
        Err(why) => return Ok(Finding::skip(why)),
    };
    let host = Arc::new(MemoryOffsets::default());
    let task = kit.source_task(0, &config, &host).await?;
    task.start(config).await.map_err(|e| describe("task start", &e))?;
    let p = poll_run(&task, ENOUGH_RECORDS, usize::MAX, false).await?;
    let memory = task.instance().memory_used().await.map_err(|e| describe("memory", &e))?;
    task.stop().await.map_err(|e| describe("task stop", &e))?;
    if p.slowest > limits.call_deadline {
        return Err(format!(
            "the slowest poll took {}, over the deadline of {}",
            millis(p.slowest),
            millis(limits.call_deadline)
        ));
    }
    if p.records.is_empty() {
        return Ok(Finding::skip(format!(
            "{} polls returned no record: nothing to check against the limits",
            p.polls
        )));
    }
    let rate = p.records.len() as f64 / p.busy.as_secs_f64().max(1e-6);
    Ok(Finding::pass(format!(
        "{} records in {} polls ({} empty), {} records/s; largest batch {} of {} records, \
         {} KiB of {} MiB; slowest poll {} of {}; memory {} of {} MiB",
        count(p.records.len() as u64),
        p.polls,
        p.empty,
        count(rate.round() as u64),
        count(p.largest_records as u64),
        count(u64::from(SOURCE_MAX_POLL_RECORDS)),
        count(p.largest_bytes.div_ceil(1024) as u64),
        limits.max_batch_bytes >> 20,
        millis(p.slowest),
        millis(limits.call_deadline),
        mib(memory),
        limits.memory_bytes >> 20,
    )))
}

/// Runs "restart" for a source.
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
    let first = kit.source_task(0, &config, &host).await?;
    first.start(config.clone()).await.map_err(|e| describe("task start", &e))?;
    let run1 = poll_run(&first, ENOUGH_RECORDS, RESTART_BATCHES, false).await?;
    if run1.records.is_empty() {
        let _ = first.stop().await;
        return Ok(Finding::skip(format!(
            "{} polls returned no record: nothing to commit",
            run1.polls
        )));
    }
    let acks = run1
        .records
        .iter()
        .enumerate()
        .map(|(i, _)| RecordAck { sequence: i as u64, partition: 0, offset: i as i64 })
        .collect();
    first.commit_records(acks).await.map_err(|e| describe("commit-records", &e))?;
    let committed: BTreeSet<(String, String)> = run1
        .records
        .iter()
        .map(|r| {
            let (p, o) = position(r);
            host.commit(&p, &o);
            (p.to_string(), o.to_string())
        })
        .collect();
    first.commit().await.map_err(|e| describe("commit", &e))?;
    first.stop().await.map_err(|e| describe("task stop", &e))?;

    let second = kit.source_task(0, &config, &host).await?;
    second.start(config).await.map_err(|e| describe("task start after restart", &e))?;
    let run2 = poll_run(&second, 1, 1, true).await?;
    second.stop().await.map_err(|e| describe("task stop after restart", &e))?;
    let repeated: Vec<&Record> = run2
        .records
        .iter()
        .filter(|r| {
            let (p, o) = position(r);
            committed.contains(&(p.to_string(), o.to_string()))
        })
        .collect();
    let before = format!(
        "{} records committed over {}",
        count(run1.records.len() as u64),
        plural(host.len(), "partition")
    );
    if let Some(r) = repeated.first() {
        let (p, o) = position(r);
        return Ok(Finding::fail(format!(
            "{before}; after restart {} of the first {} records repeat a committed position \
             (first: partition {p}, offset {o})",
            repeated.len(),
            run2.records.len()
        )));
    }
    if run2.records.is_empty() {
        return Ok(Finding::pass(format!(
            "{before}; after restart {} polls returned nothing new, no duplicate",
            run2.polls
        )));
    }
    Ok(Finding::pass(format!(
        "{before}; after restart {} records, 0 duplicates",
        count(run2.records.len() as u64)
    )))
}

/// Bytes as MiB with one decimal.
fn mib(bytes: usize) -> String {
    format!("{:.1}", bytes as f64 / (1 << 20) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(partition: Option<&str>, offset: Option<&str>) -> Record {
        Record {
            source_partition: partition.map(|s| s.as_bytes().to_vec()),
            source_offset: offset.map(|s| s.as_bytes().to_vec()),
            ..Record::default()
        }
    }

    #[test]
    fn a_record_needs_a_json_partition_and_offset() {
        assert_eq!(record_problem(&record(Some(r#"{"f":"a"}"#), Some("7"))), None);
        assert_eq!(record_problem(&record(None, Some("7"))).unwrap(), "no source partition");
        assert_eq!(record_problem(&record(Some("{}"), None)).unwrap(), "no source offset");
        let p = record_problem(&record(Some("{}"), Some("pos=7"))).unwrap();
        assert!(p.starts_with("source offset is not JSON"), "{p}");
    }

    #[test]
    fn positions_compare_as_canonical_json() {
        let a = position(&record(Some(r#"{"b":1,"a":2}"#), Some(r#"{"n": 3}"#)));
        let b = position(&record(Some(r#"{"a":2, "b":1}"#), Some(r#"{"n":3}"#)));
        assert_eq!(a.0.to_string(), b.0.to_string());
        assert_eq!(a.1.to_string(), b.1.to_string());
    }
}
