//! Change data capture from PostgreSQL, compatible with Debezium 3.6's PostgreSQL connector
//! (`io.debezium.connector.postgresql.PostgresConnector`): the same configuration keys, and
//! records (topics, keys, values, schemas, headers, offsets) equal to Debezium's, read
//! through logical replication with `pgoutput` after an optional snapshot.
//!
//! Layout: `config` (keys and defaults), `settings` ([`settings::Settings`]), `filters`
//! (include/exclude lists), `catalog` (table and type metadata from the database),
//! `pgoutput` (decoding replication messages), `pgtype` (what a column's type is),
//! `schema` (a column's Kafka Connect schema), `value` (a column's text as its Kafka
//! Connect value, with `numeric`, `temporal` and `array` helpers), `source_info` (the
//! `source` block), `offset` (source partition and offset), `headers`, `transaction`
//! (transaction metadata counts), and `envelope`
//! ([`envelope::Emitter`], which builds the records). The replication conversation and the
//! connector and task state machines live elsewhere and use these modules.

pub mod array;
pub mod catalog;
pub mod config;
pub mod envelope;
pub mod filters;
pub mod headers;
pub mod numeric;
pub mod offset;
pub mod pgoutput;
pub mod pgtype;
pub mod schema;
pub mod settings;
pub mod source_info;
pub mod temporal;
pub mod transaction;
pub mod value;
