//! The keys of the PostgreSQL sink, named as Confluent's JDBC sink names them, and
//! [`Settings`], their parsed form.
//!
//! This module owns key names, defaults and documentation; it does no I/O.

pub use postgres_wire::CONNECTION_URL;
use postgres_wire::{Connection, define_connection};
use wasm_connect_sdk::{
    Config, ConfigDef, ConfigKey, Error, Grant, Importance, Range, Result, ValidString,
};

pub const TABLE_NAME_FORMAT: &str = "table.name.format";
pub const INSERT_MODE: &str = "insert.mode";
pub const PK_MODE: &str = "pk.mode";
pub const PK_FIELDS: &str = "pk.fields";
pub const FIELDS_WHITELIST: &str = "fields.whitelist";
pub const AUTO_CREATE: &str = "auto.create";
pub const AUTO_EVOLVE: &str = "auto.evolve";
pub const BATCH_SIZE: &str = "batch.size";
pub const DELETE_ENABLED: &str = "delete.enabled";
pub const MAX_RETRIES: &str = "max.retries";
pub const RETRY_BACKOFF_MS: &str = "retry.backoff.ms";
pub const TOPICS: &str = "topics";

/// How records become rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InsertMode {
    Insert,
    Upsert,
    Update,
}

/// Where the primary key comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PkMode {
    None,
    Kafka,
    RecordKey,
    RecordValue,
}

/// The parsed settings of a task.
#[derive(Clone, Debug)]
pub struct Settings {
    pub connection: Connection,
    pub table_name_format: String,
    pub insert_mode: InsertMode,
    pub pk_mode: PkMode,
    pub pk_fields: Vec<String>,
    pub fields_whitelist: Vec<String>,
    pub auto_create: bool,
    pub auto_evolve: bool,
    pub batch_size: usize,
    pub delete_enabled: bool,
    pub max_retries: u32,
    pub retry_backoff_ms: u64,
}

impl Settings {
    /// The settings of `config` (defaults filled in by the worker), or the first problem.
    pub fn parse(config: &Config) -> Result<Self> {
        let insert_mode =
            match config.get_or(INSERT_MODE, "insert").trim().to_ascii_lowercase().as_str() {
                "insert" => InsertMode::Insert,
                "upsert" => InsertMode::Upsert,
                "update" => InsertMode::Update,
                other => {
                    return Err(Error::config(format!("{INSERT_MODE}: unknown mode {other:?}")));
                }
            };
        let pk_mode = match config.get_or(PK_MODE, "none").trim().to_ascii_lowercase().as_str() {
            "none" => PkMode::None,
            "kafka" => PkMode::Kafka,
            "record_key" => PkMode::RecordKey,
            "record_value" => PkMode::RecordValue,
            other => return Err(Error::config(format!("{PK_MODE}: unknown mode {other:?}"))),
        };
        let mut pk_fields = config.get_list(PK_FIELDS);
        if pk_mode == PkMode::Kafka && pk_fields.is_empty() {
            pk_fields = ["__connect_topic", "__connect_partition", "__connect_offset"]
                .map(String::from)
                .to_vec();
        }
        if pk_mode == PkMode::Kafka && pk_fields.len() != 3 {
            return Err(Error::config(format!(
                "{PK_FIELDS}: pk.mode=kafka needs exactly 3 names (topic, partition, offset)"
            )));
        }
        let delete_enabled = config.get_bool(DELETE_ENABLED)?.unwrap_or(false);
        if delete_enabled && pk_mode != PkMode::RecordKey {
            return Err(Error::config(format!("{DELETE_ENABLED}=true needs {PK_MODE}=record_key")));
        }
        if insert_mode != InsertMode::Insert && pk_mode == PkMode::None {
            return Err(Error::config(format!("{INSERT_MODE} upsert and update need a {PK_MODE}")));
        }
        Ok(Self {
            connection: Connection::parse(config)?,
            table_name_format: config.get_or(TABLE_NAME_FORMAT, "${topic}").trim().to_owned(),
            insert_mode,
            pk_mode,
            pk_fields,
            fields_whitelist: config.get_list(FIELDS_WHITELIST),
            auto_create: config.get_bool(AUTO_CREATE)?.unwrap_or(false),
            auto_evolve: config.get_bool(AUTO_EVOLVE)?.unwrap_or(false),
            batch_size: config.get_i32(BATCH_SIZE)?.unwrap_or(3000).max(1) as usize,
            delete_enabled,
            max_retries: config.get_i32(MAX_RETRIES)?.unwrap_or(10).max(0) as u32,
            retry_backoff_ms: config.get_i64(RETRY_BACKOFF_MS)?.unwrap_or(3000).max(0) as u64,
        })
    }

    /// The table for a topic.
    pub fn table(&self, topic: &str) -> String {
        self.table_name_format.replace("${topic}", topic)
    }
}

/// The keys of the connector.
pub fn definition() -> ConfigDef {
    define_connection(ConfigDef::new())
        .define(
            ConfigKey::list(TOPICS).importance(Importance::High).doc("The topics to consume."),
        )
        .define(
            ConfigKey::string(TABLE_NAME_FORMAT)
                .default_value("${topic}")
                .importance(Importance::Medium)
                .doc(
                    "The destination table name; ${topic} stands for the record's topic. A \
                     dotted name (schema.table) names a schema.",
                ),
        )
        .define(
            ConfigKey::string(INSERT_MODE)
                .default_value("insert")
                .ensure(ValidString::one_of(["insert", "upsert", "update"]).ignore_case())
                .importance(Importance::High)
                .doc(
                    "insert: INSERT; upsert: INSERT .. ON CONFLICT (pk) DO UPDATE; update: \
                     UPDATE .. WHERE pk.",
                ),
        )
        .define(
            ConfigKey::string(PK_MODE)
                .default_value("none")
                .ensure(
                    ValidString::one_of(["none", "kafka", "record_key", "record_value"])
                        .ignore_case(),
                )
                .importance(Importance::High)
                .doc(
                    "Where the primary key comes from. none: no key; kafka: the topic, \
                     partition and offset; record_key: the record key (a primitive or a \
                     struct); record_value: the record value's fields.",
                ),
        )
        .define(ConfigKey::list(PK_FIELDS).importance(Importance::Medium).doc(
            "The primary key columns. kafka: three names (default __connect_topic, \
             __connect_partition, __connect_offset); record_key: the key's fields (all if \
             empty), or one name for a primitive key (default __connect_key); record_value: \
             the value's fields (all if empty).",
        ))
        .define(ConfigKey::list(FIELDS_WHITELIST).importance(Importance::Medium).doc(
            "The value fields to write, comma-separated; empty writes all of them.",
        ))
        .define(
            ConfigKey::boolean(AUTO_CREATE)
                .default_value(false)
                .importance(Importance::Medium)
                .doc("Create a missing table (CREATE TABLE) from the record's schema."),
        )
        .define(
            ConfigKey::boolean(AUTO_EVOLVE)
                .default_value(false)
                .importance(Importance::Medium)
                .doc("Add missing columns (ALTER TABLE .. ADD) from the record's schema."),
        )
        .define(
            ConfigKey::int(BATCH_SIZE)
                .default_value(3000)
                .ensure(Range::at_least(1))
                .importance(Importance::Medium)
                .doc("The most rows one statement writes (a multi-row INSERT)."),
        )
        .define(
            ConfigKey::boolean(DELETE_ENABLED)
                .default_value(false)
                .importance(Importance::Medium)
                .doc("A tombstone (null value) deletes the row of its key; needs pk.mode=record_key."),
        )
        .define(
            ConfigKey::int(MAX_RETRIES)
                .default_value(10)
                .ensure(Range::at_least(0))
                .importance(Importance::Medium)
                .doc(
                    "How many times in a row a put may fail on a database error that may pass \
                     (down, restarting, deadlock) before the task fails.",
                ),
        )
        .define(
            ConfigKey::int(RETRY_BACKOFF_MS)
                .ensure(Range::at_least(0))
                .importance(Importance::Medium)
                .grant(Grant::Clock)
                .doc(
                    "How long to wait after such an error before trying again, in \
                     milliseconds; 3000 if unset. The connector writes it into every task \
                     config, where it grants the clock.",
                ),
        )
}
