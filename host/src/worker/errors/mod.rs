//! Error handling on the data path (KIP-298): what a task does when one record, or one
//! call into its plugin, fails. It owns the `errors.*` connector keys, the retry schedule
//! of retriable plugin errors, and the reporting of failed records (the errors log, the
//! dead letter queue, the tolerated count). It must not run plugin calls or loops itself:
//! the source and sink task loops call [`Retries`] and [`ErrorReporter`], and decide
//! what to do next from their answers.
//!
//! # Keys
//!
//! Kafka Connect's names and defaults (see [`keys`]):
//!
//! | key | default | |
//! |---|---|---|
//! | `errors.tolerance` | `none` | `none` or `all` |
//! | `errors.retry.timeout` | `0` | ms; `0` and `-1` retry without end |
//! | `errors.retry.delay.max.ms` | `60000` | cap of the retry delay |
//! | `errors.log.enable` | `false` | log every failure |
//! | `errors.log.include.messages` | `false` | with the record's key, value, headers |
//! | `errors.deadletterqueue.topic.name` | `""` | sinks only; empty: no DLQ |
//! | `errors.deadletterqueue.topic.replication.factor` | `3` | sinks only |
//! | `errors.deadletterqueue.context.headers.enable` | `false` | sinks only |
//!
//! The dead letter queue keys are read for sink connectors only; on a source connector
//! they are ignored, as in Kafka Connect. A dead letter queue with `errors.tolerance=none`
//! is allowed. The DLQ topic may not be one of the sink's `topics`. (Kafka Connect also
//! rejects a DLQ topic matched by `topics.regex`; this worker has no regular expression
//! engine of its own, so that check is left to the broker-side subscription.)
//!
//! # Record failures
//!
//! A converter failure, or a record the sink plugin's `put` returned as failed, is never
//! retried. The loop hands it to [`ErrorReporter::report`] as a [`Failure`] naming the
//! [`Stage`]:
//!
//! - Under `none` the first failure is reported (logged when `errors.log.enable`, written
//!   to the dead letter queue when one is set, as Kafka Connect's reporters run before its
//!   tolerance check), then `report` returns
//!   [`ReportError::NotTolerated`](report_error::ReportError::NotTolerated) with a trace
//!   naming the stage, the record's topic, partition and offset, and the error. The task
//!   must fail with it.
//! - Under `all` every failure is logged (when `errors.log.enable`; the record's key, value
//!   and headers only with `errors.log.include.messages`), written to the dead letter queue
//!   (sinks only), and counted; `report` returns `Ok` and the loop skips the records.
//!
//! # Retriable errors
//!
//! A retriable error from the plugin's `poll` or `put` is retried after 300 ms, doubling,
//! capped at `errors.retry.delay.max.ms` (no jitter). A positive `errors.retry.timeout`
//! bounds the total time; `0` (the default, under which Kafka Connect retries a
//! `RetriableException` from `put` without end) and `-1` retry without end. Once the bound
//! is passed, the loop reports the batch's records as failed with the stage `TASK_PUT` or
//! `TASK_POLL` (a failed `poll` has no records: one [`FailedRecord::NoRecord`]), and the rules
//! above apply: the task fails under `none`, the records are skipped under `all`.
//!
//! # Dead letter queue
//!
//! A sink record's DLQ copy carries the bytes as consumed (key, value, headers, timestamp;
//! not converted again) to `errors.deadletterqueue.topic.name`, with the partition left to
//! the producer. With context headers enabled, Kafka Connect's `__connect.errors.*` headers
//! follow the record's own, each a UTF-8 string: `topic`, `partition`, `offset`,
//! `connector.name`, `task.id`, `stage`, `class.name` (the plugin's name: the code that
//! ran), `exception.class.name` (the failure's error kind, e.g. `record-failed` or
//! `retriable`), `exception.message` (the error) and `exception.stacktrace` (there are no
//! Java stacks here: `<kind>: <error>`, the first line Java would print). The write is
//! awaited before `report` returns; a failed write fails the task under any tolerance,
//! as in Kafka Connect. [`DlqSettings::new_topic`] is the topic to create when it is
//! missing (one partition, as Kafka Connect creates it).
//!
//! Layout: `keys.rs` (names, defaults, the framework's key definitions), `reader.rs`
//! (value parsing with Kafka's messages), `policy.rs` ([`ErrorPolicy`]), `stage.rs`,
//! `backoff.rs` ([`Retries`], the retry schedule of a retriable call), `failure.rs` ([`Failure`]), `origin.rs` (the task a
//! failure is reported for), `dead_letter.rs` (the DLQ copy and its headers), `log.rs` (the
//! errors log line), `reporter.rs` ([`ErrorReporter`]), `report_error.rs`
//! ([`ReportError`](report_error::ReportError)).

mod backoff;
mod dead_letter;
mod failure;
pub mod keys;
mod log;
mod origin;
mod policy;
mod reader;
mod report_error;
mod reporter;
mod stage;

pub use backoff::Retries;
pub use failure::{FailedRecord, Failure};
pub use policy::{ErrorPolicy, Tolerance};
pub use reporter::ErrorReporter;
pub use stage::Stage;
