//! A small blocking PostgreSQL client for the wasm32-wasip2 plugins: the startup and
//! password handshake (SCRAM-SHA-256 or md5, as the server asks), simple queries, and
//! extended-protocol statements with text parameters and text results, over one
//! `std::net::TcpStream`. Message encoding and SCRAM come from `postgres-protocol`; this
//! crate only drives the conversation.
//!
//! It owns the connection and its errors (with the SQLSTATE, so callers can tell a
//! constraint violation from a lost server), JDBC-style URL parsing and the date/time text
//! conversions both plugins need. It knows nothing of Kafka Connect: no records, no
//! schemas, no config keys. Plain TCP only (no TLS).
//!
//! Layout: `url` (connection.url), `error` ([`PgError`]), `client` ([`Client`]),
//! `session` ([`Session`]: a login and its connection, reopened after a break),
//! `time` (days, micros and their PostgreSQL text forms), `ident` (quoting).

mod client;
mod error;
mod ident;
mod session;
mod time;
mod url;

pub use client::{Client, Column, QueryResult, Statement};
pub use error::PgError;
pub use ident::{quote_ident, quote_literal};
pub use session::Session;
pub use time::{
    civil_from_days, days_from_civil, format_date, format_time_millis, format_timestamp_micros,
    parse_date, parse_time_micros, parse_timestamp_micros,
};
pub use url::ConnectUrl;
