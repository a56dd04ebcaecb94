//! Routes a task's failed records by its [`ErrorPolicy`]: the errors log, the dead letter
//! queue, the tolerated count, or a trace the task fails with. One per task. It must not
//! retry or skip records itself: the loop does, from its answer.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::dead_letter::DeadLetterQueue;
use super::failure::{FailedRecord, Failure};
use super::log::log_failure;
use super::origin::Origin;
use super::policy::{ErrorPolicy, Tolerance};
use super::report_error::ReportError;
use crate::telemetry::events::RecordErrorsTolerated;
use crate::worker::topics::{OutRecord, RecordProducer};

/// Routes failures by the policy; one per task.
pub struct ErrorReporter {
    policy: ErrorPolicy,
    origin: Origin,
    dlq: Option<DeadLetterQueue>,
    tolerated: AtomicU64,
}

impl ErrorReporter {
    /// A reporter for task `task` of `connector`, which runs `plugin`. `dlq` writes the
    /// dead letter queue when the policy has one (the loop creates its topic first, see
    /// [`DlqSettings::new_topic`](super::DlqSettings::new_topic)); without it, every DLQ
    /// write fails.
    pub fn new(
        policy: ErrorPolicy,
        connector: &str,
        task: u32,
        plugin: &str,
        dlq: Option<Arc<dyn RecordProducer>>,
    ) -> Self {
        let dlq = policy.dlq.clone().map(|settings| DeadLetterQueue { settings, producer: dlq });
        let origin = Origin { connector: connector.into(), task, plugin: plugin.into() };
        Self { policy, origin, dlq, tolerated: AtomicU64::new(0) }
    }

    /// The policy it follows.
    pub fn policy(&self) -> &ErrorPolicy {
        &self.policy
    }

    /// Reports `failures`. Under `all`: logs them (if enabled), writes the sink records to
    /// the dead letter queue and waits for it, counts them, and returns `Ok`: the loop
    /// skips them. Under `none`: the first is logged and dead-lettered the same way, then
    /// [`ReportError::NotTolerated`] says why the task must fail. A failed DLQ write is an
    /// error under both. An empty list is `Ok`.
    pub async fn report(&self, failures: Vec<Failure<'_>>) -> Result<(), ReportError> {
        let Some(first) = failures.first() else { return Ok(()) };
        if self.policy.tolerance == Tolerance::None {
            log_failure(self.policy.log, &self.origin, first, false);
            self.dead_letter(std::slice::from_ref(first)).await?;
            let mut trace = first.trace(&self.origin.plugin);
            if failures.len() > 1 {
                trace.push_str(&format!(
                    "\n({} more records of the batch failed)",
                    failures.len() - 1
                ));
            }
            return Err(ReportError::NotTolerated { trace });
        }
        for failure in &failures {
            log_failure(self.policy.log, &self.origin, failure, true);
        }
        let written = self.dead_letter(&failures).await?;
        self.tolerated.fetch_add(failures.len() as u64, Ordering::Relaxed);
        let mut by_stage: BTreeMap<&'static str, (u64, u64)> = BTreeMap::new();
        for failure in &failures {
            let counts = by_stage.entry(failure.stage.name()).or_default();
            counts.0 += 1;
            counts.1 += u64::from(written && matches!(failure.record, FailedRecord::Sink(_)));
        }
        for (stage, (records, dead_lettered)) in by_stage {
            let connector = &self.origin.connector;
            RecordErrorsTolerated { connector, stage, records, dead_lettered }.emit();
        }
        Ok(())
    }

    /// Failures tolerated so far: one per skipped record, or per failed operation without
    /// records (read by the tests; the metric is what users see).
    #[cfg(test)]
    pub fn tolerated(&self) -> u64 {
        self.tolerated.load(Ordering::Relaxed)
    }

    /// Writes the sink records among `failures` to the dead letter queue, if there is one;
    /// returns whether it wrote any.
    async fn dead_letter(&self, failures: &[Failure<'_>]) -> Result<bool, ReportError> {
        let Some(dlq) = &self.dlq else { return Ok(false) };
        let records: Vec<OutRecord> = failures
            .iter()
            .filter_map(|f| match f.record {
                FailedRecord::Sink(r) => Some(dlq.record(&self.origin, f, r)),
                FailedRecord::Source(_) | FailedRecord::NoRecord => None,
            })
            .collect();
        if records.is_empty() {
            return Ok(false);
        }
        dlq.write(records).await?;
        Ok(true)
    }
}

#[cfg(test)]
#[path = "reporter_tests.rs"]
mod tests;
