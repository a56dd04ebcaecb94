//! Change data capture from PostgreSQL, compatible with Debezium 3.6's PostgreSQL connector
//! (`io.debezium.connector.postgresql.PostgresConnector`): the same configuration keys, and
//! records (topics, keys, values, schemas, headers, offsets) equal to Debezium's, read
//! through logical replication with `pgoutput` after an optional snapshot.
//!
//! Layout: `config` (keys, defaults, cross-key problems), `settings`
//! ([`settings::Settings`]), `filters` (include/exclude lists), `catalog` (table and type
//! metadata from the database), `pgoutput` (decoding replication messages), `pgtype` (what
//! a column's type is), `schema` (a column's Kafka Connect schema and default), `value` (a
//! column's text as its payload, with the `numeric`, `temporal`, `array` and `hstore`
//! helpers), `source_info` (the `source` block), `offset` (source partition and offset), `headers`,
//! `transaction` (transaction metadata counts), `envelope` ([`envelope::Emitter`]: row
//! change records) and `meta_records` (messages, BEGIN/END, heartbeats); then the
//! plugin's halves: `connector` ([`connector::CdcConnector`]: validation, the one task
//! config with the grants), `task` ([`task::CdcTask`]: phases and connections),
//! `publication` (made ready as `publication.autocreate.mode` says), `snapshot` (the
//! consistent read, with markers), `stream` (replication messages to records, resuming
//! after a committed offset) and `position` (what the slot may be told once records are
//! durable).
//!
//! How the pieces fit: the connector validates with `config::definition()` plus
//! `config::problems`; the task parses [`settings::Settings`], reads
//! [`catalog::tables`], and builds one [`envelope::Emitter`]. A snapshot row read as text
//! becomes `Datum`s aligned with `TableMeta::columns` and goes to `Emitter::change` with
//! `Op::Read` and a `source_info::SnapshotMarker::resolve`d marker; a streamed
//! `pgoutput::Message` is decoded, its `Relation` checked with `TableMeta::matches` (the
//! table read again when not), its tuples rearranged by `TableMeta::align` and given to
//! `change`, `truncate` or `message`, with the [`transaction::TxnTracker`] opened at BEGIN
//! (when `provide.transaction.metadata`) counting the events for each `transaction` block
//! and for the END record. The replication conversation itself is `postgres-wire`'s
//! (`Replication`).

pub mod array;
pub mod catalog;
pub mod config;
pub mod connector;
pub mod envelope;
pub mod filters;
pub mod headers;
pub mod hstore;
pub mod meta_records;
pub mod numeric;
pub mod offset;
pub mod pgoutput;
pub mod pgtype;
mod position;
mod publication;
pub mod schema;
pub mod settings;
mod snapshot;
pub mod source_info;
mod stream;
pub mod task;
pub mod temporal;
pub mod transaction;
pub mod value;

// Exported on wasm32 only: the crate is also an rlib for its native integration tests,
// and a native cdylib cannot carry the component's export names.
#[cfg(target_arch = "wasm32")]
wasm_connect_sdk::export_source!(connector::CdcConnector, task::CdcTask);
