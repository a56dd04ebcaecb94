//! `io.confluent.connect.jdbc.JdbcSourceConnector` for PostgreSQL: reads tables (or a
//! query) into topics, configured with the keys of Confluent's JDBC source (`mode`,
//! `incrementing.column.name`, `timestamp.column.name`, `table.whitelist`, `query`,
//! `topic.prefix`, ...), with the JDBC source's offsets, so a restart resumes after the
//! last committed row.
//!
//! The sandbox may reach the host and port of `connection.url` and nothing else (the key's
//! `connect` grant), and the clock (`poll.interval.ms`).
//!
//! Layout: `config` (keys, settings), `connector` (tables split between tasks), `schema`
//! (columns as a Connect struct), `querier` (one table's SQL and offset), `task` (the
//! polling loop).

mod config;
mod connector;
mod querier;
mod schema;
mod task;

wasm_connect_sdk::export_source!(connector::JdbcSourceConnector, task::JdbcSourceTask);

#[cfg(test)]
mod tests;
