//! The bookkeeping of task reconfiguration retries: one chain per connector, as pure
//! state over explicit [`Instant`]s, so the schedule is tested without a runtime.
//!
//! A chain counts the failed attempts since its last success. At most one request for
//! task configs is outstanding per connector: a trigger while one is in flight asks for
//! one more run once the answer is in, and a trigger while a retry waits replaces that
//! retry (it runs now). The herder turns the outcomes into requests, statuses and logs.

use std::collections::BTreeMap;
use std::time::Duration;

use tokio::time::Instant;

use crate::model::RetryPolicy;

/// One connector's chain.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Chain {
    /// Failed attempts since the chain began or last succeeded.
    pub failures: u32,
    /// The last failure.
    pub last_error: Option<String>,
    /// When the pending retry runs.
    pub due: Option<Instant>,
    in_flight: bool,
    rerun: bool,
}

/// What follows a failed attempt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AfterFailure {
    /// Retry number `retry` (= failures so far) runs after `delay`, at `due`.
    Retry {
        /// The retry's number, from 1.
        retry: u32,
        /// The back-off delay.
        delay: Duration,
        /// `now + delay`.
        due: Instant,
    },
    /// The retry limit is reached after `failures` failed attempts; the chain is gone.
    GiveUp {
        /// Failed attempts, the first one included.
        failures: u32,
    },
}

/// Every connector's chain.
#[derive(Debug, Default)]
pub struct RetryChains {
    chains: BTreeMap<String, Chain>,
}

impl RetryChains {
    /// A fresh chain for a newly started instance (or a resume): the count starts over.
    /// The caller sends a request now.
    pub fn begin(&mut self, name: &str) {
        let chain = Chain { in_flight: true, ..Chain::default() };
        self.chains.insert(name.to_owned(), chain);
    }

    /// Another trigger of a running connector (it asked to be reconfigured): a waiting
    /// retry is replaced and the count is kept. Returns whether to send a request now;
    /// `false` when one is in flight, which is then followed by one more.
    pub fn trigger(&mut self, name: &str) -> bool {
        let chain = self.chains.entry(name.to_owned()).or_default();
        chain.due = None;
        if chain.in_flight {
            chain.rerun = true;
            false
        } else {
            chain.in_flight = true;
            true
        }
    }

    /// An answer came in. Returns whether a trigger asked for one more run meanwhile.
    pub fn answered(&mut self, name: &str) -> bool {
        self.chains.get_mut(name).is_some_and(|c| {
            c.in_flight = false;
            std::mem::take(&mut c.rerun)
        })
    }

    /// A successful attempt: the count resets. Returns whether there had been failures
    /// (a status showing them must be cleared).
    pub fn succeeded(&mut self, name: &str) -> bool {
        self.chains.get_mut(name).is_some_and(|c| {
            let failed = c.failures > 0;
            c.failures = 0;
            c.last_error = None;
            c.due = None;
            failed
        })
    }

    /// A failed attempt at `now`: schedules the next one under `policy`, or gives up.
    /// `unit` is a uniform random number in `[0, 1]` for the jitter.
    pub fn failed(
        &mut self,
        name: &str,
        now: Instant,
        error: &str,
        policy: &RetryPolicy,
        unit: f64,
    ) -> AfterFailure {
        let chain = self.chains.entry(name.to_owned()).or_default();
        chain.failures += 1;
        chain.last_error = Some(error.to_owned());
        let failures = chain.failures;
        if !policy.allows_retry(failures) {
            self.chains.remove(name);
            return AfterFailure::GiveUp { failures };
        }
        let delay = policy.backoff.delay(failures - 1, unit);
        let due = now + delay;
        chain.due = Some(due);
        AfterFailure::Retry { retry: failures, delay, due }
    }

    /// Ends the chain (pause, stop, delete, instance gone). Returns whether a retry was
    /// waiting.
    pub fn cancel(&mut self, name: &str) -> bool {
        self.chains.remove(name).is_some_and(|c| c.due.is_some())
    }

    /// Ends every chain (shutdown).
    pub fn clear(&mut self) {
        self.chains.clear();
    }

    /// The earliest waiting retry.
    pub fn next_due(&self) -> Option<Instant> {
        self.chains.values().filter_map(|c| c.due).min()
    }

    /// The connectors whose retry is due at `now`, now in flight.
    pub fn take_due(&mut self, now: Instant) -> Vec<String> {
        let mut due = Vec::new();
        for (name, c) in &mut self.chains {
            if c.due.is_some_and(|d| d <= now) {
                c.due = None;
                c.in_flight = true;
                due.push(name.clone());
            }
        }
        due
    }

    /// A connector's chain.
    pub fn get(&self, name: &str) -> Option<&Chain> {
        self.chains.get(name)
    }
}

#[cfg(test)]
#[path = "retry_chain_tests.rs"]
mod tests;
