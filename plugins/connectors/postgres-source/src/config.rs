//! The keys of the PostgreSQL source, named as Confluent's JDBC source names them, and
//! [`Settings`], their parsed form. `tables` is the key the connector adds to each task
//! config (the tables that task reads).
//!
//! This module owns key names, defaults and documentation; it does no I/O.

pub use postgres_wire::CONNECTION_URL;
use postgres_wire::{CONNECTION_USER, Connection, define_connection};
use wasm_connect_sdk::{
    Config, ConfigDef, ConfigKey, Error, Grant, Importance, Range, Result, ValidString,
};

pub const MODE: &str = "mode";
pub const INCREMENTING_COLUMN: &str = "incrementing.column.name";
pub const TIMESTAMP_COLUMN: &str = "timestamp.column.name";
pub const TABLE_WHITELIST: &str = "table.whitelist";
pub const TABLE_BLACKLIST: &str = "table.blacklist";
pub const QUERY: &str = "query";
pub const TOPIC_PREFIX: &str = "topic.prefix";
pub const POLL_INTERVAL_MS: &str = "poll.interval.ms";
pub const BATCH_MAX_ROWS: &str = "batch.max.rows";
pub const TIMESTAMP_DELAY: &str = "timestamp.delay.interval.ms";
/// Set by the connector in each task config: the tables of that task.
pub const TABLES: &str = "tables";

/// How new rows are found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Bulk,
    Incrementing,
    Timestamp,
    TimestampIncrementing,
}

/// The parsed settings.
#[derive(Clone, Debug)]
pub struct Settings {
    pub connection: Connection,
    pub mode: Mode,
    pub incrementing_column: Option<String>,
    pub timestamp_column: Option<String>,
    pub whitelist: Vec<String>,
    pub blacklist: Vec<String>,
    pub query: Option<String>,
    pub topic_prefix: String,
    pub poll_interval_ms: u64,
    pub batch_max_rows: usize,
    pub timestamp_delay_ms: u64,
    pub tables: Vec<String>,
}

impl Settings {
    /// The settings of `config`, or the first problem.
    pub fn parse(config: &Config) -> Result<Self> {
        let mode = match config.get_or(MODE, "").trim() {
            "bulk" => Mode::Bulk,
            "incrementing" => Mode::Incrementing,
            "timestamp" => Mode::Timestamp,
            "timestamp+incrementing" => Mode::TimestampIncrementing,
            other => return Err(Error::config(format!("{MODE}: unknown mode {other:?}"))),
        };
        let col = |k| config.get(k).map(str::trim).filter(|v| !v.is_empty()).map(str::to_owned);
        let s = Self {
            // The source's login is trimmed.
            connection: Connection { user: col(CONNECTION_USER), ..Connection::parse(config)? },
            mode,
            incrementing_column: col(INCREMENTING_COLUMN),
            timestamp_column: col(TIMESTAMP_COLUMN),
            whitelist: config.get_list(TABLE_WHITELIST),
            blacklist: config.get_list(TABLE_BLACKLIST),
            query: col(QUERY),
            topic_prefix: config.get_or(TOPIC_PREFIX, "").trim().to_owned(),
            poll_interval_ms: config.get_i64(POLL_INTERVAL_MS)?.unwrap_or(5000).max(0) as u64,
            batch_max_rows: config.get_i32(BATCH_MAX_ROWS)?.unwrap_or(100).max(1) as usize,
            timestamp_delay_ms: config.get_i64(TIMESTAMP_DELAY)?.unwrap_or(0).max(0) as u64,
            tables: config.get_list(TABLES),
        };
        let needs_inc = matches!(mode, Mode::Incrementing | Mode::TimestampIncrementing);
        let needs_ts = matches!(mode, Mode::Timestamp | Mode::TimestampIncrementing);
        if needs_inc && s.incrementing_column.is_none() {
            return Err(Error::config(format!(
                "{INCREMENTING_COLUMN} is required in mode {mode:?}"
            )));
        }
        if needs_ts && s.timestamp_column.is_none() {
            return Err(Error::config(format!("{TIMESTAMP_COLUMN} is required in mode {mode:?}")));
        }
        if !s.whitelist.is_empty() && !s.blacklist.is_empty() {
            return Err(Error::config("table.whitelist and table.blacklist cannot both be set"));
        }
        Ok(s)
    }
}

/// The keys of the connector.
pub fn definition() -> ConfigDef {
    define_connection(ConfigDef::new())
        .define(
            ConfigKey::string(MODE)
                .required()
                .ensure(ValidString::one_of([
                    "bulk",
                    "incrementing",
                    "timestamp",
                    "timestamp+incrementing",
                ]))
                .importance(Importance::High)
                .doc(
                    "bulk: the whole table every poll.interval.ms; incrementing: rows whose \
                     incrementing.column.name is above the last one seen; timestamp: rows \
                     whose timestamp.column.name is later than the last one seen; \
                     timestamp+incrementing: both, the safest for updated rows.",
                ),
        )
        .define(ConfigKey::string(INCREMENTING_COLUMN).importance(Importance::Medium).doc(
            "A strictly increasing integer column (e.g. a serial id), for the incrementing modes.",
        ))
        .define(ConfigKey::string(TIMESTAMP_COLUMN).importance(Importance::Medium).doc(
            "A timestamp column set on insert and update, for the timestamp modes.",
        ))
        .define(ConfigKey::list(TABLE_WHITELIST).importance(Importance::Medium).doc(
            "The tables to read, comma-separated; empty reads every table of the current schema (search_path).",
        ))
        .define(ConfigKey::list(TABLE_BLACKLIST).importance(Importance::Medium).doc(
            "Tables not to read; cannot be combined with table.whitelist.",
        ))
        .define(ConfigKey::string(QUERY).importance(Importance::Medium).doc(
            "A SELECT to run instead of reading tables; its rows go to the topic topic.prefix. \
             The mode's WHERE clause is appended, so the query must not have one of its own \
             in the incrementing and timestamp modes.",
        ))
        .define(
            ConfigKey::string(TOPIC_PREFIX)
                .required()
                .importance(Importance::High)
                .doc("Prefix of the topics: a table's rows go to <prefix><table>; a query's to <prefix>."),
        )
        .define(
            ConfigKey::int(POLL_INTERVAL_MS)
                .ensure(Range::at_least(0))
                .importance(Importance::High)
                .grant(Grant::Clock)
                .doc(
                    "How often to look for new rows in each table, in milliseconds; 5000 if \
                     unset. The connector writes it into every task config, where it grants \
                     the clock.",
                ),
        )
        .define(
            ConfigKey::int(BATCH_MAX_ROWS)
                .default_value(100)
                .ensure(Range::at_least(1))
                .importance(Importance::Low)
                .doc("The most rows one poll returns for a table."),
        )
        .define(
            ConfigKey::long(TIMESTAMP_DELAY)
                .default_value(0)
                .ensure(Range::at_least(0))
                .importance(Importance::Low)
                .doc(
                    "How long after a row's timestamp to wait before reading it (timestamp \
                     modes), so transactions with earlier timestamps commit first.",
                ),
        )
        .define(ConfigKey::list(TABLES).importance(Importance::Low).doc(
            "Set by the connector in each task config: the tables that task reads.",
        ))
}
