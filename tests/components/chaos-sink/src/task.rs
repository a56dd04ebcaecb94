//! [`ChaosSinkTask`]: counts the records it is given and fails those whose value contains
//! the bad marker; misbehaves at `start`, `put` or `stop` when told to, and answers
//! `pre_commit` `chaos.pre.commit.ahead` offsets beyond what it was given. A probe's outcome is
//! logged (message `Chaos probe`, field `result`), never returned as an error.

use chaos_common::{Call, ChaosConnector, Settings, keys, misbehave, probe};
use wasm_connect_sdk::{
    Config, Error, Level, RecordFailure, Result, SinkRecord, SinkTask, TopicPartitionOffset, log,
};

use crate::connector::{BAD_MARKER, PRE_COMMIT_AHEAD};

/// The task.
#[derive(Default)]
pub struct ChaosSinkTask {
    settings: Option<Settings>,
    marker: Vec<u8>,
    /// Records handled so far.
    count: u64,
    /// Added to every offset `pre_commit` returns.
    ahead: i64,
}

fn log_probe(result: &str) {
    log(Level::Info, "Chaos probe", &[("result", result)]);
}

impl SinkTask for ChaosSinkTask {
    fn start(&mut self, config: Config) -> Result<()> {
        ChaosConnector::check_task(&config)?;
        let settings = Settings::parse(&config, "put")?;
        self.marker = config.get_or(BAD_MARKER, "BAD").as_bytes().to_vec();
        self.ahead = config.get_i64(PRE_COMMIT_AHEAD)?.unwrap_or(0);
        if let Some(result) = config.get(keys::PROBE_RESULT) {
            log_probe(result);
        }
        if settings.at(Call::TaskStart) {
            misbehave(settings.mode);
            if let Some(result) = probe(&settings) {
                log_probe(&result);
            }
        }
        self.settings = Some(settings);
        Ok(())
    }

    fn put(&mut self, records: &[SinkRecord]) -> Result<Vec<RecordFailure>> {
        let settings = self.settings.as_ref().ok_or_else(|| Error::fatal("put before start"))?;
        if settings.at(Call::Data) {
            misbehave(settings.mode);
            if let Some(result) = probe(settings) {
                log_probe(&result);
            }
        }
        self.count += records.len() as u64;
        let marker = &self.marker;
        Ok(records
            .iter()
            .enumerate()
            .filter(|(_, r)| {
                !marker.is_empty()
                    && r.value
                        .as_deref()
                        .is_some_and(|v| v.windows(marker.len()).any(|w| w == marker.as_slice()))
            })
            .map(|(i, _)| RecordFailure::new(i, "chaos: value contains the bad marker"))
            .collect())
    }

    fn pre_commit(
        &mut self,
        offsets: Vec<TopicPartitionOffset>,
    ) -> Result<Vec<TopicPartitionOffset>> {
        let ahead = self.ahead;
        Ok(offsets
            .into_iter()
            .map(|o| TopicPartitionOffset { offset: o.offset + ahead, ..o })
            .collect())
    }

    fn stop(&mut self) {
        if let Some(settings) = &self.settings
            && settings.at(Call::TaskStop)
        {
            misbehave(settings.mode);
        }
        log(Level::Info, "Chaos sink stopped", &[("records", &self.count.to_string())]);
    }
}
