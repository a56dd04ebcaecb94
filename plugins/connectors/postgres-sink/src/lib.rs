//! `io.confluent.connect.jdbc.JdbcSinkConnector` for PostgreSQL: writes records to
//! tables, configured with the keys of Confluent's JDBC sink (`connection.url`,
//! `insert.mode`, `pk.mode`, `auto.create`, `delete.enabled`, ...).
//!
//! The sandbox may reach the host and port of `connection.url` and nothing else (the key's
//! `connect` grant), and the clock (`retry.backoff.ms`). The wire protocol is
//! `postgres-wire`'s.
//!
//! Layout: `config` (keys, settings), `connector`, `record` (a record's key or value as
//! typed columns), `rows` (a record as a row under `pk.mode`), `sql` (statement text),
//! `plan` (a batch as statements), `tables` (table cache, auto.create / auto.evolve),
//! `task` (transactions, record failures, retries, offsets).

mod config;
mod connector;
mod plan;
mod record;
mod rows;
mod sql;
mod tables;
mod task;

wasm_connect_sdk::export_sink!(connector::JdbcSinkConnector, task::JdbcSinkTask);

#[cfg(test)]
mod tests;
