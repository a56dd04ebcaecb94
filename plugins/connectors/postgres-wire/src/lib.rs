//! A small blocking PostgreSQL client for the wasm32-wasip2 plugins: the startup and
//! password handshake (SCRAM-SHA-256 or md5, as the server asks), simple queries, and
//! extended-protocol statements with text parameters and text results, over one
//! `std::net::TcpStream`. Message encoding and SCRAM come from `postgres-protocol`; this
//! crate only drives the conversation.
//!
//! It owns the connection and its errors (with the SQLSTATE, so callers can tell a
//! constraint violation from a lost server), JDBC-style URL parsing and the date/time text
//! conversions both plugins need, and the connection keys they share (`connection.url`,
//! `connection.user`, `connection.password`). Of Kafka Connect it knows only those keys:
//! no records, no schemas, no other config keys. Plain TCP only (no TLS).
//!
//! It also speaks logical replication for change data capture: [`Replication`] opens a
//! `replication=database` connection, creates and inspects slots (with an exported
//! snapshot) and streams a slot's WAL messages ([`Event`], undecoded plugin bytes) with
//! a bounded wait, sending standby status updates back. What the plugin's messages mean
//! is not its business.
//!
//! Layout: `connection` (the shared connection keys, [`Connection`]), `url`
//! (connection.url), `error` ([`PgError`], [`SlotProblem`]), `client` ([`Client`]),
//! `frame` (splitting whole backend messages), `session` ([`Session`]: a login and its
//! connection, reopened after a break), `time` (days, micros and their PostgreSQL text
//! forms), `ident` (quoting), `lsn` ([`Lsn`]), `slot` (replication commands' text and
//! answers), `wal_message` (the stream's messages), `replication` ([`Replication`]).

mod client;
mod connection;
mod error;
mod frame;
mod ident;
mod lsn;
mod replication;
mod session;
mod slot;
mod time;
mod url;
mod wal_message;

pub use bytes::Bytes;
pub use client::{Client, Column, QueryResult, Statement};
pub use connection::{
    CONNECTION_PASSWORD, CONNECTION_URL, CONNECTION_USER, Connection, define as define_connection,
    url_problem,
};
pub use error::{PgError, SlotProblem};
pub use ident::{quote_ident, quote_literal};
pub use lsn::Lsn;
pub use replication::Replication;
pub use session::Session;
pub use slot::{CreatedSlot, SlotInfo, SystemInfo, check_slot_name};
pub use time::{
    civil_from_days, days_from_civil, format_date, format_time_millis, format_timestamp_micros,
    parse_date, parse_time_micros, parse_timestamp_micros,
};
pub use url::ConnectUrl;
pub use wal_message::{Event, PG_EPOCH_UNIX_SECS, pg_now_us, status_update};
