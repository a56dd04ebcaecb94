//! [`ChaosSourceTask`]: counts up in `ok` mode, misbehaves at `start` or `poll` when told
//! to, and answers probes with one record per poll.
//!
//! Records: key = the decimal count `n`, value = `n` zero-padded to `value.size` bytes,
//! source partition `{"chaos": "p"}`, offset `{"n": n}`; a restarted task resumes after
//! the committed `n`, unless `chaos.offsets.ignore` makes it start again from 0. With
//! `chaos.partition.per.task`, each task counts on its own: partition
//! `{"chaos": "p", "task": <index>}`, key `<index>-<n>`.
//!
//! Transactions: with a transaction context (exactly-once source, `transaction.boundary=
//! connector`), every `ok` poll makes the requests `chaos.transaction.requests` lists:
//! `commit`, `abort` (the batch), `commit@i`, `abort@i` (after record `i` of the batch).

use chaos_common::{Call, ChaosConnector, Mode, Settings, chatter, keys, misbehave, probe};
use wasm_connect_sdk::serde_json::{Value, json};
use wasm_connect_sdk::{
    Config, Error, Result, SourceRecord, SourceTask, offsets, transaction_context,
};

use crate::connector::{
    BATCH_SIZE, IGNORE_OFFSETS, PER_TASK, TOPIC, TRANSACTION_REQUESTS, VALUE_SIZE,
};

/// The bytes of one record of a `huge` batch.
const HUGE_RECORD: usize = 64 * 1024;

/// The task.
#[derive(Default)]
pub struct ChaosSourceTask {
    settings: Option<Settings>,
    topic: String,
    batch_size: usize,
    value_size: usize,
    /// The count of the next record.
    next: u64,
    /// A probe's outcome from the connector or from `start`.
    probe_result: Option<String>,
    /// The transaction requests every `ok` poll makes (`chaos.transaction.requests`).
    requests: Vec<String>,
    /// With `chaos.partition.per.task`: this task's index, which keys its records.
    per_task: Option<String>,
}

impl ChaosSourceTask {
    fn settings(&self) -> Result<&Settings> {
        self.settings.as_ref().ok_or_else(|| Error::fatal("poll before start"))
    }

    fn partition(&self) -> Value {
        match &self.per_task {
            Some(task) => json!({"chaos": "p", "task": task}),
            None => json!({"chaos": "p"}),
        }
    }

    fn record(&self, n: u64, value: Vec<u8>) -> SourceRecord {
        let key = match &self.per_task {
            Some(task) => format!("{task}-{n}"),
            None => n.to_string(),
        };
        SourceRecord::new(&self.topic, self.partition(), json!({ "n": n })).key(key).value(value)
    }

    fn counted_value(&self, n: u64) -> Vec<u8> {
        let digits = format!("{n:0width$}", width = self.value_size);
        digits.as_bytes()[digits.len() - self.value_size..].to_vec()
    }
}

fn bad(request: &str) -> Error {
    Error::config(format!("{TRANSACTION_REQUESTS}: cannot read {request:?}"))
}

impl SourceTask for ChaosSourceTask {
    fn start(&mut self, config: Config) -> Result<()> {
        ChaosConnector::check_task(&config)?;
        let settings = Settings::parse(&config, "poll")?;
        self.topic = config.get_or(TOPIC, "chaos").to_owned();
        self.batch_size = usize::try_from(config.get_i32(BATCH_SIZE)?.unwrap_or(100)).unwrap_or(0);
        self.value_size = usize::try_from(config.get_i32(VALUE_SIZE)?.unwrap_or(100)).unwrap_or(0);
        self.probe_result = config.get(keys::PROBE_RESULT).map(str::to_owned);
        self.requests = config.get_list(TRANSACTION_REQUESTS);
        let ignore = config.get_bool(IGNORE_OFFSETS)?.unwrap_or(false);
        if config.get_bool(PER_TASK)?.unwrap_or(false) {
            self.per_task = Some(config.get_or(keys::TASK_INDEX, "0").trim().to_owned());
        }
        let committed = if ignore { None } else { offsets(&[self.partition()]).pop().flatten() };
        self.next = committed.and_then(|o| o.get("n").and_then(Value::as_u64)).map_or(0, |n| n + 1);
        if settings.at(Call::TaskStart) {
            misbehave(settings.mode);
            if let Some(result) = probe(&settings) {
                self.probe_result = Some(result);
            }
        }
        self.settings = Some(settings);
        Ok(())
    }

    fn poll(&mut self, max_records: u32) -> Result<Vec<SourceRecord>> {
        let settings = self.settings()?.clone();
        let n = self.next;
        if settings.mode.is_probe() {
            let result =
                if settings.at(Call::Data) { probe(&settings) } else { self.probe_result.clone() };
            let result = result.unwrap_or_else(|| "denied: no probe ran".to_owned());
            self.next += 1;
            return Ok(vec![self.record(n, result.into_bytes())]);
        }
        if settings.at(Call::Data) {
            misbehave(settings.mode);
            if settings.mode == Mode::Chatty {
                chatter(settings.huge_bytes);
            }
            if settings.mode == Mode::Huge {
                let count = settings.huge_bytes.div_ceil(HUGE_RECORD).max(1) as u64;
                let size = HUGE_RECORD.min(settings.huge_bytes);
                self.next += count;
                return Ok((n..n + count).map(|k| self.record(k, vec![b'h'; size])).collect());
            }
        }
        let count = self.batch_size.min(max_records as usize) as u64;
        self.next += count;
        if let Some(tx) = transaction_context() {
            for request in &self.requests {
                let (what, index) = match request.split_once('@') {
                    Some((what, i)) => (what, Some(i.parse().map_err(|_| bad(request))?)),
                    None => (request.as_str(), None),
                };
                match (what, index) {
                    ("commit", None) => tx.commit_transaction(),
                    ("abort", None) => tx.abort_transaction(),
                    ("commit", Some(i)) => tx.commit_transaction_after(i),
                    ("abort", Some(i)) => tx.abort_transaction_after(i),
                    _ => return Err(bad(request)),
                }
            }
        }
        Ok((n..n + count).map(|k| self.record(k, self.counted_value(k))).collect())
    }

    fn stop(&mut self) {
        if let Some(settings) = &self.settings
            && settings.at(Call::TaskStop)
        {
            misbehave(settings.mode);
        }
    }
}
