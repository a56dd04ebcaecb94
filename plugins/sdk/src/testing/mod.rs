//! A native test harness: unit-test a connector with plain `cargo test`, no wasm and no
//! worker.
//!
//! Enable it in the plugin's `Cargo.toml` as a dev-dependency feature, so it never
//! reaches the component:
//!
//! ```toml
//! [dev-dependencies]
//! wasm-connect-sdk = { path = "../sdk", features = ["testing"] }
//! ```
//!
//! Then drive the plugin's types as the worker would:
//!
//! - [`ConnectorHarness`]: `name`, `version`, `config_definition`, `validate` (the
//!   definition's checks, then the plugin's own, exactly as the `validate` export runs
//!   them), `exactly_once_support` and `can_define_transaction_boundaries` (a source
//!   plugin's answers), `start` (with defaults filled in), `task_configs` (checked against
//!   `max_tasks`), `stop`.
//! - [`SourceHarness`]: `start`, `poll` (acknowledging every record as the worker does
//!   once it is written), `commit` (storing the last source offset of each source
//!   partition), `restart` (a fresh `T::default()` that sees the committed offsets).
//! - [`SinkHarness`]: `open`, `put`, `commit` (`pre_commit` with the delivered offsets),
//!   `close`, `stop`, and builders of [`SinkRecord`](crate::SinkRecord)s with increasing
//!   Kafka offsets.
//! - [`TransformHarness`]: `name`, `version`, `config_definition`, `validate`,
//!   `configure` (defaults filled in), `apply` (a batch, answered as a
//!   [`TransformOutput`]: survivors, their origins, failures, each input's outcome),
//!   `apply_one`, `close`, and the same record builders.
//!
//! The harnesses call the same glue a component's exports call: configs, errors and
//! offsets go through the WIT conversions, and records through the `record-batch`
//! encoding, so a wrong kind or a malformed source offset fails a unit test as it would
//! fail in the worker.
//!
//! The host imports are mocked per thread: [`logs`], [`reconfiguration_requests`],
//! [`raised_errors`] read what the plugin asked for, [`set_committed_offset`] seeds what
//! [`offsets`](crate::offsets) returns, [`set_transactions_active`] and
//! [`take_transaction_requests`] stand in for the transaction context, [`reset`] clears
//! it all. `cargo test` runs each
//! test on a thread of its own, so tests never share this state. At most one harness of
//! each kind may be alive on a thread: a component holds one connector and one task.
//!
//! The harness is for native tests. With the feature on, it also compiles for
//! `wasm32-wasip2` (so `cargo clippy --all-targets --target wasm32-wasip2` checks the
//! tests), but there the host calls reach the real worker imports and the mocks stay
//! empty.
//!
//! ```
//! use wasm_connect_sdk::testing::{RecordsExt, SourceHarness};
//! use wasm_connect_sdk::{Config, Result, SourceRecord, SourceTask, offsets, serde_json::json};
//!
//! /// Counts to three, resuming after the last committed number.
//! #[derive(Default)]
//! struct Count {
//!     next: u64,
//! }
//!
//! impl SourceTask for Count {
//!     fn start(&mut self, _config: Config) -> Result<()> {
//!         let committed = offsets(&[json!({"counter": 0})]).pop().flatten();
//!         self.next = committed.and_then(|o| o["n"].as_u64()).map_or(0, |n| n + 1);
//!         Ok(())
//!     }
//!     fn poll(&mut self, _max_records: u32) -> Result<Vec<SourceRecord>> {
//!         if self.next >= 3 {
//!             return Ok(Vec::new());
//!         }
//!         let n = self.next;
//!         self.next += 1;
//!         let record = SourceRecord::new("t", json!({"counter": 0}), json!({"n": n}));
//!         Ok(vec![record.string_value(n.to_string())])
//!     }
//!     fn stop(&mut self) {}
//! }
//!
//! let mut task = SourceHarness::<Count>::new();
//! task.start(Config::new()).unwrap();
//! assert_eq!(task.poll().unwrap().values_as_strings(), ["0"]);
//! task.commit().unwrap();
//! task.restart().unwrap();
//! assert_eq!(task.poll_until_empty().unwrap().values_as_strings(), ["1", "2"]);
//! assert_eq!(task.committed_offset(&json!({"counter": 0})), Some(json!({"n": 0})));
//! ```
//!
//! Layout: this file (the mocked host, [`RecordsExt`] and the one-harness-per-kind
//! guard), `connector`, `source`, `sink` and `transform` (one harness each), `records`
//! (the record builders the sink and transform harnesses share).

mod connector;
mod records;
mod sink;
mod source;
mod transform;

use std::borrow::Cow;
use std::cell::Cell;
use std::thread::LocalKey;

use serde_json::Value;

use crate::glue::{Slot, drop_state};
pub use crate::mock_host::LogLine;
use crate::{Action, Error, Level, RecordText, mock_host};
pub use connector::ConnectorHarness;
pub use sink::SinkHarness;
pub use source::{DEFAULT_MAX_RECORDS, SourceHarness};
pub use transform::{TransformHarness, TransformOutput};

/// Every line the plugin logged on this thread, oldest first.
pub fn logs() -> Vec<LogLine> {
    mock_host::with(|h| h.logs.clone())
}

/// The messages of the lines logged at `level` or above, oldest first.
pub fn log_messages(level: Level) -> Vec<String> {
    mock_host::with(|h| {
        h.logs.iter().filter(|l| l.level >= level).map(|l| l.message.clone()).collect()
    })
}

/// How many times the plugin called
/// [`request_task_reconfiguration`](crate::request_task_reconfiguration).
pub fn reconfiguration_requests() -> usize {
    mock_host::with(|h| h.reconfiguration_requests)
}

/// The errors the plugin passed to [`raise_error`](crate::raise_error), oldest first.
pub fn raised_errors() -> Vec<Error> {
    mock_host::with(|h| h.raised_errors.clone())
}

/// Stores `offset` as the committed source offset of `partition` (both JSON objects, as
/// the task writes them in its records): [`offsets`](crate::offsets) returns it from now
/// on. [`SourceHarness::commit`] calls this for every partition it commits.
pub fn set_committed_offset(partition: &Value, offset: &Value) {
    mock_host::with(|h| h.offsets.insert(partition.to_string(), offset.to_string()));
}

/// The committed source offset of `partition`, if any.
pub fn committed_offset(partition: &Value) -> Option<Value> {
    let text = mock_host::with(|h| h.offsets.get(&partition.to_string()).cloned())?;
    Some(serde_json::from_str(&text).expect("committed offsets are stored as JSON"))
}

/// Makes [`transaction_context`](crate::transaction_context) answer `Some` (`true`) or
/// `None` on this thread, as a worker running exactly-once source with
/// `transaction.boundary=connector` would.
pub fn set_transactions_active(active: bool) {
    mock_host::with(|h| h.transactions_active = active);
}

/// The transaction requests the task made on this thread, oldest first, and forgets
/// them: `(action, Some(index))` after a record of the batch, `(action, None)` after the
/// whole batch.
pub fn take_transaction_requests() -> Vec<(Action, Option<u32>)> {
    mock_host::with(|h| std::mem::take(&mut h.transaction_requests))
}

/// Forgets every log line, request, raised error and committed offset of this thread.
pub fn reset() {
    mock_host::with(|h| *h = Default::default());
}

/// Short reads of a batch of records, for assertions. Implemented for slices of
/// [`SourceRecord`](crate::SourceRecord) and [`SinkRecord`](crate::SinkRecord) (and so
/// for `Vec`s of them); texts are rendered as [`RecordText`] renders them.
pub trait RecordsExt {
    /// Each value as text; panics on a null value, naming the record.
    fn values_as_strings(&self) -> Vec<String>;
    /// Each value as text, `None` for a null value.
    fn value_texts(&self) -> Vec<Option<String>>;
    /// Each key as text; panics on a null key, naming the record.
    fn keys_as_strings(&self) -> Vec<String>;
    /// Each value parsed as JSON (a `connect-json` value as its envelope); panics on a
    /// value that is null or not JSON, naming the record.
    fn values_as_json(&self) -> Vec<Value>;
}

macro_rules! impl_records_ext {
    ($record:ty) => {
        impl RecordsExt for [$record] {
            fn values_as_strings(&self) -> Vec<String> {
                self.value_texts()
                    .into_iter()
                    .enumerate()
                    .map(|(i, v)| v.unwrap_or_else(|| panic!("record {i} has a null value")))
                    .collect()
            }

            fn value_texts(&self) -> Vec<Option<String>> {
                self.iter().map(|r| r.value_text().map(Cow::into_owned)).collect()
            }

            fn keys_as_strings(&self) -> Vec<String> {
                self.iter()
                    .enumerate()
                    .map(|(i, r)| {
                        let key = r.key_text().map(Cow::into_owned);
                        key.unwrap_or_else(|| panic!("record {i} has a null key"))
                    })
                    .collect()
            }

            fn values_as_json(&self) -> Vec<Value> {
                self.iter().enumerate().map(|(i, r)| json_of(i, r.value.as_deref())).collect()
            }
        }
    };
}

impl_records_ext!(crate::SourceRecord);
impl_records_ext!(crate::SinkRecord);

/// Record `i`'s value parsed as JSON, or a panic saying why not.
fn json_of(i: usize, value: Option<&[u8]>) -> Value {
    let bytes = value.unwrap_or_else(|| panic!("record {i} has a null value"));
    serde_json::from_slice(bytes).unwrap_or_else(|e| panic!("record {i}'s value is not JSON: {e}"))
}

/// Which glue slot a harness holds.
#[derive(Clone, Copy)]
enum Kind {
    Connector,
    Source,
    Sink,
    Transform,
}

thread_local! {
    /// The slots held by a live harness on this thread, one bit per [`Kind`].
    static HELD: Cell<u8> = const { Cell::new(0) };
}

/// A harness's hold on one glue slot: the slot starts empty and is emptied again when
/// the harness is dropped.
struct SlotGuard {
    slot: &'static LocalKey<Slot>,
    bit: u8,
}

impl SlotGuard {
    fn take(kind: Kind) -> Self {
        let (slot, name) = match kind {
            Kind::Connector => (&crate::glue::CONNECTOR, "ConnectorHarness"),
            Kind::Source => (&crate::glue::SOURCE_TASK, "SourceHarness"),
            Kind::Sink => (&crate::glue::SINK_TASK, "SinkHarness"),
            Kind::Transform => (&crate::glue::TRANSFORM, "TransformHarness"),
        };
        let bit = 1 << kind as u8;
        HELD.with(|held| {
            assert!(
                held.get() & bit == 0,
                "another {name} is alive on this thread: drop it first (a component holds one)"
            );
            held.set(held.get() | bit);
        });
        drop_state(slot);
        Self { slot, bit }
    }
}

impl Drop for SlotGuard {
    fn drop(&mut self) {
        drop_state(self.slot);
        HELD.with(|held| held.set(held.get() & !self.bit));
    }
}

#[cfg(test)]
mod tests;
