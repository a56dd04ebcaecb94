//! The Rust SDK for wasm-connect plugins: Kafka Connect style connectors that run as
//! sandboxed WebAssembly components (`wasm32-wasip2`).
//!
//! A connector plugin is a connector plus a task. Implement [`Connector`] and either
//! [`SourceTask`] or [`SinkTask`] on types that also implement `Default`, then export them
//! with one macro at the root of a `cdylib` crate (a transform plugin implements
//! [`Transform`] and exports it with [`export_transform!`]):
//!
//! ```no_run
//! use wasm_connect_sdk::{
//!     Config, ConfigDef, ConfigKey, Connector, Importance, Result, SourceRecord, SourceTask,
//!     export_source, serde_json::json,
//! };
//!
//! #[derive(Default)]
//! struct Hello {
//!     config: Config,
//! }
//!
//! impl Connector for Hello {
//!     fn name(&self) -> &str {
//!         "HelloSource"
//!     }
//!     fn version(&self) -> &str {
//!         env!("CARGO_PKG_VERSION")
//!     }
//!     fn config_definition(&self) -> ConfigDef {
//!         ConfigDef::new().define(
//!             ConfigKey::string("topic").required().importance(Importance::High).doc("Topic."),
//!         )
//!     }
//!     fn start(&mut self, config: Config) -> Result<()> {
//!         self.config = config;
//!         Ok(())
//!     }
//!     fn task_configs(&mut self, _max_tasks: u32) -> Result<Vec<Config>> {
//!         Ok(vec![self.config.clone()])
//!     }
//!     fn stop(&mut self) {}
//! }
//!
//! #[derive(Default)]
//! struct HelloTask {
//!     topic: String,
//!     sent: bool,
//! }
//!
//! impl SourceTask for HelloTask {
//!     fn start(&mut self, config: Config) -> Result<()> {
//!         self.topic = config.require("topic")?.to_owned();
//!         self.sent = wasm_connect_sdk::offsets(&[json!({"hello": 1})])[0].is_some();
//!         Ok(())
//!     }
//!     fn poll(&mut self, _max_records: u32) -> Result<Vec<SourceRecord>> {
//!         if std::mem::replace(&mut self.sent, true) {
//!             return Ok(Vec::new());
//!         }
//!         Ok(vec![SourceRecord::new(&self.topic, json!({"hello": 1}), json!({"sent": true}))
//!             .string_value("hello, world")])
//!     }
//!     fn stop(&mut self) {}
//! }
//!
//! export_source!(Hello, HelloTask);
//! ```
//!
//! The SDK owns everything between those types and the WIT contract
//! (`wit/connector.wit`, `wit/transform.wit`): instance state, the `record-batch`
//! encoding, record sequence numbers, and the conversion of every WIT value. Authors
//! never see generated bindings. It must not hold plugin logic, and it never panics on a well-formed call.
//!
//! Layout: the traits [`Connector`], [`SourceTask`], [`SinkTask`], [`Transform`] (with
//! [`TransformResult`]); the values
//! [`Config`], [`ConfigDef`] / [`ConfigKey`] (with the [`Validator`]s [`Range`],
//! [`ValidString`], [`ValidList`], [`NonEmptyString`], checked by
//! [`ConfigDef::validate`]), [`Error`] (and [`ResultExt`] to classify other errors),
//! [`SourceRecord`] / [`SinkRecord`] / [`SinkRecordRef`] (with the [`Kind`] of their keys
//! and values, and [`RecordText`] or [`text`] to read them as text) and the positions in `position`; the host calls
//! [`log`] (with [`info!`] and friends), [`request_task_reconfiguration`],
//! [`raise_error`] and [`offsets`]; exactly-once delivery: the [`ExactlyOnceSupport`] a
//! connector answers and a source task's [`transaction_context`] ([`TransactionContext`],
//! requests as [`Action`]s); the macros [`export_source!`], [`export_sink!`] and
//! [`export_transform!`];
//! with the `testing` feature, [`testing`], a native harness for unit tests. The hidden
//! modules `bindings` (generated code) and `glue` (the generated `Guest` traits
//! implemented over the author's types) are only public because the macros expand in the
//! plugin's crate; `mock_host` stands in for the worker's imports off wasm.
//!
//! The guide for plugin authors, from an empty directory to a running connector, is the
//! crate's `README.md`.
#![deny(missing_docs)]

#[doc(hidden)]
pub mod bindings;
mod config;
mod config_def;
mod connector;
mod error;
mod exactly_once;
mod export;
#[doc(hidden)]
pub mod glue;
mod host;
mod log;
#[cfg(any(not(target_arch = "wasm32"), test, doc, feature = "testing"))]
mod mock_host;
mod position;
mod record;
mod record_text;
mod sink;
mod source;
#[cfg(any(test, doc, feature = "testing"))]
pub mod testing;
mod transform;
mod validator;

pub use config::Config;
pub use config_def::{ConfigDef, ConfigKey, ConfigProblem, ConfigType, Grant, Importance};
pub use connector::Connector;
pub use error::{Error, Result, ResultExt};
pub use exactly_once::{Action, ExactlyOnceSupport, TransactionContext, transaction_context};
pub use host::{offsets, raise_error, request_task_reconfiguration};
pub use log::{Level, log};
pub use position::{RecordAck, RecordFailure, TopicPartition, TopicPartitionOffset};
pub use record::{Header, Kind, SinkRecord, SinkRecordRef, SourceRecord};
pub use record_text::{RecordText, text};
pub use serde_json;
pub use sink::SinkTask;
pub use source::SourceTask;
pub use transform::{Transform, TransformResult};
pub use validator::{Bound, NonEmptyString, Range, ValidList, ValidString, Validator};
