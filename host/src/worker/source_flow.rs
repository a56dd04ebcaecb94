//! How much one source task may hand the worker: [`FlowLimits`] (the keys and their
//! defaults) and [`Flow`] (a task's account of them, kept by its loop in
//! `source_task.rs`).
//!
//! Three bounds, each per task, so every task gets the same share whatever its neighbours
//! do:
//! - **Per call**: a `poll` returns at most `max-records` records and
//!   `wasm.batch.max.bytes` bytes (the sandbox's, `runtime/limits.rs`). A batch over
//!   either is a breach of the contract and fails the task (the instance is discarded), as
//!   a guest that asks for more memory than its cap does: the host cannot give part of a
//!   batch back, and a connector author expects either the whole batch taken or a clear
//!   failure, never records silently split or dropped.
//! - **In flight**: `buffer.memory` (Kafka's producer key and default, 32 MiB; set with
//!   `producer.buffer.memory` on the worker, `producer.override.buffer.memory` on a
//!   connector). In Kafka Connect every task has a producer of its own whose `send` blocks
//!   while its buffer is full; here source tasks share the worker's producer, so the same
//!   bound is kept per task by the task itself: it does not poll while the bytes it polled
//!   and that are not yet acknowledged, plus its last batch's, would exceed the bound
//!   (one batch is always allowed). A shared producer writes what it is given in order, so
//!   a task's share of its throughput is its share of the bytes in flight: this bound is
//!   what keeps a task returning 15 MiB batches from taking nearly all of it (it had eight
//!   batches, 120 MiB, in flight before).
//! - **Per second**: `wasm.poll.bytes.per.second` and `wasm.poll.records.per.second`
//!   (worker defaults, overridden per connector; unset: no rate), a [`TokenBucket`] each,
//!   charged with every batch; the task waits out any debt before it polls again.
//!
//! Bytes are the record's key, value and header bytes as polled, what the producer
//! carries. This module decides when a task may poll; it does not poll, sleep or produce.

use std::collections::BTreeMap;
use std::time::Duration;

use tokio::time::Instant;

use super::token_bucket::TokenBucket;
use crate::runtime::PolledRecord;

/// Kafka's producer `buffer.memory` default: 32 MiB.
pub const DEFAULT_BUFFER_MEMORY: u64 = 33_554_432;

/// The producer key of the in-flight bound (`producer.` / `producer.override.` prefixed).
pub const BUFFER_MEMORY: &str = "buffer.memory";

/// The key of the bytes-per-second bound, on the worker and on a connector.
pub const BYTES_PER_SECOND: &str = "wasm.poll.bytes.per.second";

/// The key of the records-per-second bound, on the worker and on a connector.
pub const RECORDS_PER_SECOND: &str = "wasm.poll.records.per.second";

/// What one source task may hand the worker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowLimits {
    /// Bytes polled and not yet acknowledged, at most (one batch is always allowed).
    pub buffer_memory: u64,
    /// Bytes polled per second, at most; `None`: no rate.
    pub bytes_per_second: Option<u64>,
    /// Records polled per second, at most; `None`: no rate.
    pub records_per_second: Option<u64>,
}

impl Default for FlowLimits {
    fn default() -> Self {
        Self {
            buffer_memory: DEFAULT_BUFFER_MEMORY,
            bytes_per_second: None,
            records_per_second: None,
        }
    }
}

impl FlowLimits {
    /// The worker's defaults: `buffer.memory` from its `producer.*` settings (prefix
    /// stripped) and the two rates (0 or unset: none). A bad value names its key.
    pub fn worker(
        producer: &BTreeMap<String, String>,
        bytes_per_second: Option<u64>,
        records_per_second: Option<u64>,
    ) -> Result<Self, String> {
        let mut limits = Self {
            bytes_per_second: bytes_per_second.filter(|&r| r > 0),
            records_per_second: records_per_second.filter(|&r| r > 0),
            ..Self::default()
        };
        if let Some(v) = producer.get(BUFFER_MEMORY) {
            limits.buffer_memory = number(&format!("producer.{BUFFER_MEMORY}"), v)?;
        }
        Ok(limits)
    }

    /// These limits with a connector's overrides: `buffer.memory` among its
    /// `producer.override.*` settings (prefix stripped), the rates among its own keys
    /// (0: none). A bad value names its key.
    pub fn for_connector<'a>(
        mut self,
        producer_overrides: &[(String, String)],
        own: impl IntoIterator<Item = (&'a String, &'a String)>,
    ) -> Result<Self, String> {
        if let Some((_, v)) = producer_overrides.iter().find(|(k, _)| k == BUFFER_MEMORY) {
            self.buffer_memory = number(&format!("producer.override.{BUFFER_MEMORY}"), v)?;
        }
        for (k, v) in own {
            match k.as_str() {
                BYTES_PER_SECOND => self.bytes_per_second = Some(number(k, v)?).filter(|&r| r > 0),
                RECORDS_PER_SECOND => {
                    self.records_per_second = Some(number(k, v)?).filter(|&r| r > 0)
                }
                _ => {}
            }
        }
        Ok(self)
    }
}

fn number(key: &str, value: &str) -> Result<u64, String> {
    value
        .trim()
        .parse()
        .map_err(|_| format!("{key}: expected a non-negative integer, got {value:?}"))
}

/// The bytes a polled record carries to the producer: key, value and headers.
pub(super) fn record_bytes(r: &PolledRecord) -> u64 {
    let field = |b: &Option<bytes::Bytes>| b.as_ref().map_or(0, |b| b.len());
    let headers: usize =
        r.headers.iter().map(|h| h.key.len() + h.value.as_ref().map_or(0, Vec::len)).sum();
    (field(&r.key) + field(&r.value) + headers) as u64
}

/// One task's account of its limits.
#[derive(Debug)]
pub(super) struct Flow {
    limits: FlowLimits,
    bytes: Option<TokenBucket>,
    records: Option<TokenBucket>,
    /// Bytes polled and not yet acknowledged.
    in_flight: u64,
    /// Bytes of the last batch polled: what the next one is expected to bring.
    last_batch: u64,
}

impl Flow {
    /// A fresh account, its buckets full at `now`.
    pub(super) fn new(limits: FlowLimits, now: Instant) -> Self {
        Self {
            limits,
            bytes: limits.bytes_per_second.map(|r| TokenBucket::new(r, now)),
            records: limits.records_per_second.map(|r| TokenBucket::new(r, now)),
            in_flight: 0,
            last_batch: 0,
        }
    }

    /// Whether the bytes in flight leave room for another batch like the last one.
    /// With nothing in flight there is always room, so a batch larger than the bound
    /// still goes through, alone.
    pub(super) fn has_room(&self) -> bool {
        self.in_flight == 0
            || self.in_flight.saturating_add(self.last_batch) <= self.limits.buffer_memory
    }

    /// How long to wait before the next poll for the rates; zero when none is in debt.
    pub(super) fn wait(&self, now: Instant) -> Duration {
        let wait = |b: &Option<TokenBucket>| b.as_ref().map_or(Duration::ZERO, |b| b.wait(now));
        wait(&self.bytes).max(wait(&self.records))
    }

    /// Charges a polled batch of `records` records and `bytes` bytes, now in flight.
    pub(super) fn polled(&mut self, records: usize, bytes: u64, now: Instant) {
        if let Some(b) = &mut self.bytes {
            b.charge(bytes, now);
        }
        if let Some(b) = &mut self.records {
            b.charge(records as u64, now);
        }
        self.in_flight += bytes;
        self.last_batch = bytes;
    }

    /// A batch of `bytes` bytes was acknowledged (or failed): no longer in flight.
    pub(super) fn written(&mut self, bytes: u64) {
        self.in_flight = self.in_flight.saturating_sub(bytes);
    }

    /// Bytes polled and not yet acknowledged.
    #[cfg(test)]
    pub(super) fn in_flight(&self) -> u64 {
        self.in_flight
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = 1 << 20;

    fn flow(limits: FlowLimits) -> (Flow, Instant) {
        let now = Instant::now();
        (Flow::new(limits, now), now)
    }

    #[test]
    fn huge_batches_get_as_many_in_flight_as_the_buffer_holds_and_at_least_one() {
        let (mut f, now) = flow(FlowLimits::default());
        let mut in_flight = 0;
        while f.has_room() && in_flight < 8 {
            f.polled(240, 15 * MIB, now);
            in_flight += 1;
        }
        // 32 MiB holds two 15 MiB batches; the source task allowed 8 (120 MiB) before.
        assert_eq!(in_flight, 2);
        f.written(15 * MIB);
        assert!(f.has_room());
        // A batch larger than the whole buffer goes alone.
        let (mut f, now) = flow(FlowLimits { buffer_memory: MIB, ..FlowLimits::default() });
        assert!(f.has_room());
        f.polled(1, 4 * MIB, now);
        assert!(!f.has_room());
        f.written(4 * MIB);
        assert!(f.has_room());
        assert_eq!(f.in_flight(), 0);
    }

    #[test]
    fn small_batches_are_not_held_back() {
        let (mut f, now) = flow(FlowLimits::default());
        for _ in 0..8 {
            assert!(f.has_room());
            f.polled(1000, 100_000, now);
        }
    }

    #[test]
    fn the_rates_make_the_next_poll_wait_for_the_slower_of_the_two() {
        let limits = FlowLimits {
            bytes_per_second: Some(MIB),
            records_per_second: Some(100),
            ..FlowLimits::default()
        };
        let (mut f, now) = flow(limits);
        assert_eq!(f.wait(now), Duration::ZERO);
        // 300 records (2 s of debt past the burst) of 2 MiB (1 s of debt).
        f.polled(300, 2 * MIB, now);
        assert_eq!(f.wait(now), Duration::from_secs(2));
        assert_eq!(f.wait(now + Duration::from_secs(2)), Duration::ZERO);
    }

    /// Over a long run with paused time, a task polling as fast as its flow allows gets
    /// the rate: a second's burst plus `rate × seconds`, and no more.
    #[tokio::test(start_paused = true)]
    async fn a_greedy_task_gets_its_rate_and_no_more() {
        let limits = FlowLimits { records_per_second: Some(1000), ..FlowLimits::default() };
        let start = Instant::now();
        let mut f = Flow::new(limits, start);
        let mut records = 0u64;
        while start.elapsed() < Duration::from_secs(60) {
            tokio::time::sleep(f.wait(Instant::now())).await;
            f.polled(700, 0, Instant::now());
            records += 700;
        }
        assert!((60_000..=62_500).contains(&records), "{records} records in 60 s");
    }

    #[test]
    fn keys_are_read_from_the_worker_then_the_connector() {
        let worker = BTreeMap::from([("buffer.memory".to_owned(), "1000".to_owned())]);
        let base = FlowLimits::worker(&worker, Some(5), Some(0)).unwrap();
        assert_eq!(
            base,
            FlowLimits { buffer_memory: 1000, bytes_per_second: Some(5), records_per_second: None }
        );
        let own = BTreeMap::from([
            (RECORDS_PER_SECOND.to_owned(), "7".to_owned()),
            (BYTES_PER_SECOND.to_owned(), "0".to_owned()),
        ]);
        let overrides = [("buffer.memory".to_owned(), "2000".to_owned())];
        let c = base.for_connector(&overrides, &own).unwrap();
        assert_eq!(
            c,
            FlowLimits { buffer_memory: 2000, bytes_per_second: None, records_per_second: Some(7) }
        );
        let bad = BTreeMap::from([(RECORDS_PER_SECOND.to_owned(), "fast".to_owned())]);
        let err = base.for_connector(&[], &bad).unwrap_err();
        assert!(err.starts_with(RECORDS_PER_SECOND), "{err}");
        let bad = BTreeMap::from([("buffer.memory".to_owned(), "-1".to_owned())]);
        let err = FlowLimits::worker(&bad, None, None).unwrap_err();
        assert!(err.starts_with("producer.buffer.memory"), "{err}");
    }
}
