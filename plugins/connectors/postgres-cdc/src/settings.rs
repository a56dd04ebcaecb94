//! [`Settings`]: the typed form of a configuration (see `config` for the keys), with the
//! handling modes as enums.
//!
//! This module owns parsing and the derived names (transaction and heartbeat topics). It
//! does no I/O and builds no records.

use regex_lite::Regex;
use wasm_connect_sdk::{Config, Error, Result};

use crate::config::*;
use crate::filters::{Filters, compile};

/// `snapshot.mode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SnapshotMode {
    Initial,
    NoData,
    WhenNeeded,
    InitialOnly,
    Always,
}

/// `publication.autocreate.mode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PublicationMode {
    AllTables,
    Filtered,
    Disabled,
}

/// `decimal.handling.mode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecimalMode {
    Precise,
    Double,
    String,
}

/// `time.precision.mode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeMode {
    Adaptive,
    AdaptiveTimeMicroseconds,
    Connect,
    Microseconds,
}

/// `interval.handling.mode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntervalMode {
    Numeric,
    String,
}

/// `binary.handling.mode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryMode {
    Bytes,
    Base64,
    Base64UrlSafe,
    Hex,
}

/// `hstore.handling.mode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HstoreMode {
    Json,
    Map,
}

/// `skipped.operations`: which operations are not emitted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SkippedOps {
    pub create: bool,
    pub update: bool,
    pub delete: bool,
    pub truncate: bool,
}

impl SkippedOps {
    /// `none`, or comma-separated letters among `c`, `u`, `d`, `t`.
    pub fn parse(value: &str) -> std::result::Result<Self, String> {
        let mut out = Self::default();
        if value.trim().eq_ignore_ascii_case("none") {
            return Ok(out);
        }
        for op in value.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            match op {
                "c" => out.create = true,
                "u" => out.update = true,
                "d" => out.delete = true,
                "t" => out.truncate = true,
                other => {
                    return Err(format!("unknown operation {other:?}: use c, u, d, t or none"));
                }
            }
        }
        Ok(out)
    }
}

/// The parsed settings.
#[derive(Clone, Debug)]
pub struct Settings {
    pub hostname: String,
    pub port: u16,
    pub user: String,
    pub password: Option<String>,
    pub dbname: String,
    /// `database.address` when the connector set it, else `hostname:port`.
    pub address: String,
    pub topic_prefix: String,
    pub slot_name: String,
    pub slot_drop_on_stop: bool,
    pub publication_name: String,
    pub publication_mode: PublicationMode,
    pub filters: Filters,
    pub snapshot_mode: SnapshotMode,
    pub tombstones_on_delete: bool,
    pub skipped: SkippedOps,
    pub provide_transaction_metadata: bool,
    pub decimal: DecimalMode,
    pub time: TimeMode,
    pub interval: IntervalMode,
    pub binary: BinaryMode,
    pub hstore: HstoreMode,
    pub heartbeat_interval_ms: u64,
    pub heartbeat_action_query: Option<String>,
    /// `topic.heartbeat.name`, else `<topic.heartbeat.prefix>.<topic.prefix>`.
    pub heartbeat_topic: String,
    pub extended_headers: bool,
    /// `message.key.columns`: a table pattern and the columns forming its key.
    pub message_key_columns: Vec<(Regex, Vec<String>)>,
    pub poll_interval_ms: u64,
    pub max_batch_size: usize,
    pub include_unknown_datatypes: bool,
    pub status_update_interval_ms: u64,
    pub snapshot_fetch_size: usize,
    /// `transaction.topic` when set, else `<topic.prefix>.<topic.transaction>`.
    pub transaction_topic: String,
    pub topic_delimiter: String,
}

fn pick<T: Copy>(config: &Config, key: &str, default: &str, values: &[(&str, T)]) -> Result<T> {
    let v = config.get_or(key, default).trim().to_ascii_lowercase();
    values.iter().find(|(n, _)| *n == v).map(|(_, t)| *t).ok_or_else(|| {
        let names: Vec<_> = values.iter().map(|(n, _)| *n).collect();
        Error::config(format!("{key}: {v:?} is not one of {}", names.join(", ")))
    })
}

/// `message.key.columns`: `table-regex:col,col;table-regex:col`.
fn key_columns(value: &str) -> Result<Vec<(Regex, Vec<String>)>> {
    let mut out = Vec::new();
    for part in value.split(';').map(str::trim).filter(|p| !p.is_empty()) {
        let (table, cols) = part.rsplit_once(':').ok_or_else(|| {
            Error::config(format!("{MESSAGE_KEY_COLUMNS}: {part:?} is not <table>:<columns>"))
        })?;
        let re =
            compile(table).map_err(|e| Error::config(format!("{MESSAGE_KEY_COLUMNS}: {e}")))?;
        let cols = cols.split(',').map(|c| c.trim().to_owned()).filter(|c| !c.is_empty());
        out.push((re, cols.collect()));
    }
    Ok(out)
}

impl Settings {
    /// The settings of `config`, or its first problem (`config::definition()`'s checks,
    /// then `config::problems`). Unset keys take their defaults.
    pub fn parse(config: &Config) -> Result<Self> {
        let mut all = definition().validate(config).into_iter().chain(problems(config));
        if let Some(p) = all.next() {
            return Err(Error::config(p.message));
        }
        let int = |key: &str, default: i64| -> Result<i64> {
            Ok(config.get_i64(key)?.unwrap_or(default))
        };
        let flag = |key: &str, default: bool| -> Result<bool> {
            Ok(config.get_bool(key)?.unwrap_or(default))
        };
        let text = |key: &str, default: &str| config.get_or(key, default).trim().to_owned();
        let hostname = config.require(HOSTNAME)?.trim().to_owned();
        let port = u16::try_from(int(PORT, 5432)?)
            .map_err(|_| Error::config(format!("{PORT}: not a port")))?;
        let topic_prefix = config.require(TOPIC_PREFIX)?.trim().to_owned();
        let snapshot_mode = pick(
            config,
            SNAPSHOT_MODE,
            "initial",
            &[
                ("initial", SnapshotMode::Initial),
                ("no_data", SnapshotMode::NoData),
                ("when_needed", SnapshotMode::WhenNeeded),
                ("initial_only", SnapshotMode::InitialOnly),
                ("always", SnapshotMode::Always),
            ],
        )?;
        Ok(Self {
            address: config
                .get(ADDRESS)
                .map(|a| a.trim().to_owned())
                .unwrap_or_else(|| format!("{hostname}:{port}")),
            hostname,
            port,
            user: config.require(USER)?.trim().to_owned(),
            password: config.get(PASSWORD).map(str::to_owned),
            dbname: config.require(DBNAME)?.trim().to_owned(),
            slot_name: text(SLOT_NAME, "debezium"),
            slot_drop_on_stop: flag(SLOT_DROP_ON_STOP, false)?,
            publication_name: text(PUBLICATION_NAME, "dbz_publication"),
            publication_mode: pick(
                config,
                PUBLICATION_AUTOCREATE,
                "all_tables",
                &[
                    ("all_tables", PublicationMode::AllTables),
                    ("filtered", PublicationMode::Filtered),
                    ("disabled", PublicationMode::Disabled),
                ],
            )?,
            filters: Filters::parse(config).map_err(Error::config)?,
            snapshot_mode,
            tombstones_on_delete: flag(TOMBSTONES_ON_DELETE, true)?,
            skipped: SkippedOps::parse(config.get_or(SKIPPED_OPERATIONS, "t"))
                .map_err(|e| Error::config(format!("{SKIPPED_OPERATIONS}: {e}")))?,
            provide_transaction_metadata: flag(PROVIDE_TRANSACTION_METADATA, false)?,
            decimal: pick(
                config,
                DECIMAL_HANDLING,
                "precise",
                &[
                    ("precise", DecimalMode::Precise),
                    ("double", DecimalMode::Double),
                    ("string", DecimalMode::String),
                ],
            )?,
            time: pick(
                config,
                TIME_PRECISION,
                "adaptive",
                &[
                    ("adaptive", TimeMode::Adaptive),
                    ("adaptive_time_microseconds", TimeMode::AdaptiveTimeMicroseconds),
                    ("connect", TimeMode::Connect),
                    ("microseconds", TimeMode::Microseconds),
                ],
            )?,
            interval: pick(
                config,
                INTERVAL_HANDLING,
                "numeric",
                &[("numeric", IntervalMode::Numeric), ("string", IntervalMode::String)],
            )?,
            binary: pick(
                config,
                BINARY_HANDLING,
                "bytes",
                &[
                    ("bytes", BinaryMode::Bytes),
                    ("base64", BinaryMode::Base64),
                    ("base64-url-safe", BinaryMode::Base64UrlSafe),
                    ("hex", BinaryMode::Hex),
                ],
            )?,
            hstore: pick(
                config,
                HSTORE_HANDLING,
                "json",
                &[("json", HstoreMode::Json), ("map", HstoreMode::Map)],
            )?,
            heartbeat_interval_ms: int(HEARTBEAT_INTERVAL_MS, 0)?.max(0) as u64,
            heartbeat_action_query: config
                .get(HEARTBEAT_ACTION_QUERY)
                .map(str::trim)
                .filter(|q| !q.is_empty())
                .map(str::to_owned),
            heartbeat_topic: match config.get(TOPIC_HEARTBEAT_NAME).map(str::trim) {
                Some(name) if !name.is_empty() => name.to_owned(),
                _ => format!(
                    "{}{}{topic_prefix}",
                    text(TOPIC_HEARTBEAT_PREFIX, "__debezium-heartbeat"),
                    text(TOPIC_DELIMITER, ".")
                ),
            },
            extended_headers: flag(EXTENDED_HEADERS, true)?,
            message_key_columns: key_columns(config.get_or(MESSAGE_KEY_COLUMNS, ""))?,
            poll_interval_ms: int(POLL_INTERVAL_MS, 500)?.max(0) as u64,
            max_batch_size: int(MAX_BATCH_SIZE, 2048)?.max(1) as usize,
            include_unknown_datatypes: flag(INCLUDE_UNKNOWN_DATATYPES, false)?,
            status_update_interval_ms: int(STATUS_UPDATE_INTERVAL_MS, 10000)?.max(0) as u64,
            snapshot_fetch_size: int(SNAPSHOT_FETCH_SIZE, 10240)?.max(1) as usize,
            transaction_topic: match config.get(TRANSACTION_TOPIC).map(str::trim) {
                Some(name) if !name.is_empty() => name.replace("${topic.prefix}", &topic_prefix),
                _ => format!(
                    "{topic_prefix}{}{}",
                    text(TOPIC_DELIMITER, "."),
                    text(TOPIC_TRANSACTION, "transaction")
                ),
            },
            topic_delimiter: text(TOPIC_DELIMITER, "."),
            topic_prefix,
        })
    }

    /// The topic of a table's changes: `<prefix>.<schema>.<table>`.
    pub fn table_topic(&self, schema: &str, table: &str) -> String {
        let d = &self.topic_delimiter;
        format!("{}{d}{schema}{d}{table}", self.topic_prefix)
    }

    /// The heartbeat topic.
    pub fn heartbeat_topic(&self) -> String {
        self.heartbeat_topic.clone()
    }

    /// The logical decoding message topic: `<prefix>.message` (Debezium writes the dot
    /// whatever `topic.delimiter` says).
    pub fn message_topic(&self) -> String {
        format!("{}.message", self.topic_prefix)
    }

    /// The `message.key.columns` of `schema.table`, if a pattern matches it.
    pub fn key_columns_of(&self, schema: &str, table: &str) -> Option<&[String]> {
        let name = format!("{schema}.{table}");
        self.message_key_columns.iter().find(|(re, _)| re.is_match(&name)).map(|(_, c)| &c[..])
    }
}

#[cfg(test)]
#[path = "settings_tests.rs"]
mod tests;
