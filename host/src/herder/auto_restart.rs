//! The bookkeeping of automatic restarts (`restart.policy=on-failure`): per instance, the
//! restarts made since it last ran healthily, the restart waiting, and the note its
//! statuses carry afterwards. Pure state over explicit [`Instant`]s, so the policy is
//! tested without a runtime; the herder starts the instances and writes the statuses.
//!
//! The count resets lazily: when an instance fails after running for at least
//! `restart.healthy.after.ms`, that failure counts as the first again.

use std::collections::BTreeMap;
use std::time::Duration;

use tokio::time::Instant;

use crate::model::InstanceId;
use crate::model::RestartPolicy;

#[derive(Clone, Debug, Default)]
struct Entry {
    /// Restarts scheduled since the count last reset.
    restarts: u32,
    /// The limit in force when the last restart was scheduled.
    retries_max: Option<u32>,
    /// When the instance last reached RUNNING, while it runs.
    running_since: Option<Instant>,
    /// When the waiting restart runs.
    due: Option<Instant>,
    /// The failure the waiting restart follows.
    trace: String,
    /// What the statuses of an instance restarted by the policy say.
    note: Option<String>,
}

/// What follows a failure under the policy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AfterFailure {
    /// Restart number `attempt` runs after `delay`, at `due`.
    Restart {
        /// The restart's number since the count last reset, from 1.
        attempt: u32,
        /// The limit, if any.
        retries_max: Option<u32>,
        /// The back-off delay.
        delay: Duration,
        /// `now + delay`.
        due: Instant,
    },
    /// Every allowed restart was made: the instance stays FAILED.
    Exhausted {
        /// The trace to show.
        trace: String,
    },
}

/// Every instance's restart count.
#[derive(Debug, Default)]
pub struct AutoRestarts {
    entries: BTreeMap<InstanceId, Entry>,
}

impl AutoRestarts {
    /// The instance reached RUNNING at `now`. Returns the note for its status when the
    /// policy restarted it.
    pub fn running(&mut self, id: &InstanceId, now: Instant) -> Option<String> {
        let e = self.entries.entry(id.clone()).or_default();
        e.running_since = Some(now);
        e.note.clone()
    }

    /// The instance failed at `now` with `trace`: schedules a restart or gives up.
    /// `unit` is a uniform random number in `[0, 1]` for the jitter.
    pub fn failed(
        &mut self,
        id: &InstanceId,
        now: Instant,
        trace: &str,
        policy: &RestartPolicy,
        unit: f64,
    ) -> AfterFailure {
        let e = self.entries.entry(id.clone()).or_default();
        let healthy =
            e.running_since.is_some_and(|t| now.duration_since(t) >= policy.healthy_after);
        if healthy {
            e.restarts = 0;
        }
        e.running_since = None;
        e.due = None;
        let retries_max = policy.retry.max_retries;
        if !policy.retry.allows_retry(e.restarts + 1) {
            return AfterFailure::Exhausted { trace: exhausted_trace(e.restarts, trace) };
        }
        let delay = policy.retry.backoff.delay(e.restarts, unit);
        e.restarts += 1;
        e.retries_max = retries_max;
        e.due = Some(now + delay);
        e.trace = trace.to_owned();
        AfterFailure::Restart { attempt: e.restarts, retries_max, delay, due: now + delay }
    }

    /// The instances whose restart is due at `now`, with the restart's number. Their
    /// statuses carry [`restarted_note`] from now on.
    pub fn take_due(&mut self, now: Instant) -> Vec<(InstanceId, u32)> {
        let mut due = Vec::new();
        for (id, e) in &mut self.entries {
            if e.due.is_some_and(|d| d <= now) {
                e.due = None;
                e.note = Some(restarted_note(e.restarts, e.retries_max, &e.trace));
                due.push((id.clone(), e.restarts));
            }
        }
        due
    }

    /// The note of an instance the policy restarted.
    pub fn note(&self, id: &InstanceId) -> Option<String> {
        self.entries.get(id).and_then(|e| e.note.clone())
    }

    /// The earliest waiting restart.
    pub fn next_due(&self) -> Option<Instant> {
        self.entries.values().filter_map(|e| e.due).min()
    }

    /// Forgets the instances `which` selects (a manual restart, new configs, deletion):
    /// their counts start over and their waiting restarts are dropped.
    pub fn forget(&mut self, which: impl Fn(&InstanceId) -> bool) {
        self.entries.retain(|id, _| !which(id));
    }

    /// Drops every waiting restart (shutdown).
    pub fn cancel_all(&mut self) {
        for e in self.entries.values_mut() {
            e.due = None;
        }
    }
}

/// The trace of an instance the policy restarted.
pub fn restarted_note(attempt: u32, retries_max: Option<u32>, trace: &str) -> String {
    let of = retries_max.map(|m| format!(" of {m}")).unwrap_or_default();
    format!("Restarted automatically, attempt {attempt}{of}, after: {trace}")
}

/// The trace of an instance left FAILED once the limit is reached.
pub fn exhausted_trace(restarts: u32, trace: &str) -> String {
    format!(
        "Not restarted automatically: the limit of {restarts} restarts (restart.retries.max) \
         is reached, after: {trace}"
    )
}

#[cfg(test)]
#[path = "auto_restart_tests.rs"]
mod tests;
