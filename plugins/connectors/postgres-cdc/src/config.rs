//! The configuration keys of Debezium 3.x's PostgreSQL connector, with Debezium's names,
//! defaults and documentation, as one [`ConfigDef`] ([`definition`]), and the cross-key
//! checks Debezium makes at validation ([`problems`]).
//!
//! This module owns key names, defaults and per-key validators. Parsing values into typed
//! settings belongs to `settings`, matching tables and columns to `filters`. It does no I/O.
//!
//! Deliberate differences from Debezium: `plugin.name` defaults to `pgoutput` (Debezium's
//! default, `decoderbufs`, needs a server plugin we do not speak and is refused);
//! `database.address` is an internal key (`host:port`) the connector writes into task
//! configs so the sandbox may connect there.
//! Any other `database.*` key is accepted and ignored (Debezium hands those to JDBC).
//! `tasks.max` is the worker's key: like Debezium, the connector runs one task whatever it
//! says.

use wasm_connect_sdk::{
    Config, ConfigDef, ConfigKey, ConfigProblem, Grant, Importance, Range, ValidString,
};

pub const HOSTNAME: &str = "database.hostname";
pub const PORT: &str = "database.port";
pub const USER: &str = "database.user";
pub const PASSWORD: &str = "database.password";
pub const DBNAME: &str = "database.dbname";
/// Internal: `host:port` of the database, set by the connector in task configs.
pub const ADDRESS: &str = "database.address";
pub const TOPIC_PREFIX: &str = "topic.prefix";
pub const PLUGIN_NAME: &str = "plugin.name";
pub const SLOT_NAME: &str = "slot.name";
pub const SLOT_DROP_ON_STOP: &str = "slot.drop.on.stop";
pub const PUBLICATION_NAME: &str = "publication.name";
pub const PUBLICATION_AUTOCREATE: &str = "publication.autocreate.mode";
pub const SCHEMA_INCLUDE: &str = "schema.include.list";
pub const SCHEMA_EXCLUDE: &str = "schema.exclude.list";
pub const TABLE_INCLUDE: &str = "table.include.list";
pub const TABLE_EXCLUDE: &str = "table.exclude.list";
pub const COLUMN_INCLUDE: &str = "column.include.list";
pub const COLUMN_EXCLUDE: &str = "column.exclude.list";
pub const MESSAGE_PREFIX_INCLUDE: &str = "message.prefix.include.list";
pub const MESSAGE_PREFIX_EXCLUDE: &str = "message.prefix.exclude.list";
pub const SNAPSHOT_MODE: &str = "snapshot.mode";
pub const TOMBSTONES_ON_DELETE: &str = "tombstones.on.delete";
pub const SKIPPED_OPERATIONS: &str = "skipped.operations";
pub const PROVIDE_TRANSACTION_METADATA: &str = "provide.transaction.metadata";
pub const DECIMAL_HANDLING: &str = "decimal.handling.mode";
pub const TIME_PRECISION: &str = "time.precision.mode";
pub const INTERVAL_HANDLING: &str = "interval.handling.mode";
pub const BINARY_HANDLING: &str = "binary.handling.mode";
pub const HSTORE_HANDLING: &str = "hstore.handling.mode";
pub const HEARTBEAT_INTERVAL_MS: &str = "heartbeat.interval.ms";
pub const HEARTBEAT_ACTION_QUERY: &str = "heartbeat.action.query";
pub const HEARTBEAT_TOPICS_PREFIX: &str = "heartbeat.topics.prefix";
pub const EXTENDED_HEADERS: &str = "extended.headers.enabled";
pub const MESSAGE_KEY_COLUMNS: &str = "message.key.columns";
pub const POLL_INTERVAL_MS: &str = "poll.interval.ms";
pub const MAX_BATCH_SIZE: &str = "max.batch.size";
pub const INCLUDE_UNKNOWN_DATATYPES: &str = "include.unknown.datatypes";
pub const STATUS_UPDATE_INTERVAL_MS: &str = "status.update.interval.ms";
pub const SNAPSHOT_FETCH_SIZE: &str = "snapshot.fetch.size";
pub const TRANSACTION_TOPIC: &str = "transaction.topic";
pub const TOPIC_TRANSACTION: &str = "topic.transaction";
pub const TOPIC_HEARTBEAT_PREFIX: &str = "topic.heartbeat.prefix";
pub const TOPIC_HEARTBEAT_NAME: &str = "topic.heartbeat.name";
pub const TOPIC_DELIMITER: &str = "topic.delimiter";

/// Snapshot modes Debezium 3.6 accepts and we implement (Debezium 3 dropped `never`, the
/// old name of `no_data`; `configuration_based` and `custom` are not supported).
pub const SNAPSHOT_MODES: [&str; 5] =
    ["initial", "no_data", "when_needed", "initial_only", "always"];

fn one_of(values: &[&str]) -> ValidString {
    ValidString::one_of(values.iter().copied()).ignore_case()
}

fn s(name: &str, default: &str, doc: &str) -> ConfigKey {
    ConfigKey::string(name).default_value(default).doc(doc)
}

fn b(name: &str, default: bool, doc: &str) -> ConfigKey {
    ConfigKey::boolean(name).default_value(default).doc(doc)
}

/// The connection keys.
fn connection(def: ConfigDef) -> ConfigDef {
    let other = "Other `database.*` keys are accepted and ignored (Debezium \
    passes them to JDBC).";
    def.define(ConfigKey::string(HOSTNAME).required().importance(Importance::High).doc(format!(
        "Resolvable hostname or IP address of the PostgreSQL \
        server.{other}"
    )))
    .define(
        ConfigKey::int(PORT)
            .default_value(5432)
            .ensure(Range::between(1, 65535))
            .importance(Importance::High)
            .doc("Port of the PostgreSQL server."),
    )
    .define(ConfigKey::string(USER).required().importance(Importance::High).doc(
        "Name of the database user (it needs the REPLICATION \
        attribute and LOGIN).",
    ))
    .define(
        ConfigKey::password(PASSWORD)
            .importance(Importance::High)
            .doc("Password of the database user."),
    )
    .define(
        ConfigKey::string(DBNAME)
            .required()
            .importance(Importance::High)
            .doc("Name of the database to capture changes from."),
    )
    .define(
        ConfigKey::string(ADDRESS).grant(Grant::Connect).importance(Importance::Low).doc(
            "Internal: host:port of the database, written by the \
            connector into task configs so the task may connect. Do not \
            set it.",
        ),
    )
}

/// Every key, in the order users should read them.
pub fn definition() -> ConfigDef {
    let lists = |def: ConfigDef, names: [(&str, &str); 8]| {
        names.into_iter().fold(def, |d, (n, doc)| d.define(ConfigKey::list(n).doc(doc)))
    };
    let def = connection(ConfigDef::new())
        .define(ConfigKey::string(TOPIC_PREFIX).required().importance(Importance::High).doc(
            "Topic prefix: the logical name of this server; every topic \
            name starts with it, and it is the source partition's \
            `server`.",
        ))
        .define(
            s(
                PLUGIN_NAME,
                "pgoutput",
                "Logical decoding plugin. Only `pgoutput` is supported; \
                unlike Debezium, whose default is `decoderbufs`, the default \
                here is `pgoutput`.",
            )
            .ensure(one_of(&["pgoutput", "decoderbufs"])),
        )
        .define(s(SLOT_NAME, "debezium", "Name of the logical replication slot."))
        .define(b(SLOT_DROP_ON_STOP, false, "Whether to drop the slot when the task stops."))
        .define(s(PUBLICATION_NAME, "dbz_publication", "Name of the publication streamed from."))
        .define(
            s(
                PUBLICATION_AUTOCREATE,
                "all_tables",
                "all_tables: create the publication FOR ALL TABLES when \
                missing; filtered: create it for the included tables (and \
                keep it in step); disabled: the publication must exist.",
            )
            .ensure(one_of(&["all_tables", "filtered", "disabled"])),
        );
    let def = lists(
        def,
        [
            (
                SCHEMA_INCLUDE,
                "Regular expressions matching whole schema names to capture; \
                none: every non-system schema. Not with schema.exclude.list.",
            ),
            (
                SCHEMA_EXCLUDE,
                "Regular expressions matching whole schema names not to \
                capture. Not with schema.include.list.",
            ),
            (
                TABLE_INCLUDE,
                "Regular expressions matching whole `schema.table` names to \
                capture. Not with table.exclude.list.",
            ),
            (
                TABLE_EXCLUDE,
                "Regular expressions matching whole `schema.table` names not \
                to capture. Not with table.include.list.",
            ),
            (
                COLUMN_INCLUDE,
                "Regular expressions matching whole `schema.table.column` \
                names of the columns to keep. Not with column.exclude.list.",
            ),
            (
                COLUMN_EXCLUDE,
                "Regular expressions matching whole `schema.table.column` \
                names of the columns to drop. Not with column.include.list.",
            ),
            (
                MESSAGE_PREFIX_INCLUDE,
                "Regular expressions matching the prefixes of the logical \
                decoding messages to emit. Not with \
                message.prefix.exclude.list.",
            ),
            (
                MESSAGE_PREFIX_EXCLUDE,
                "Regular expressions matching the prefixes of the logical \
                decoding messages not to emit. Not with \
                message.prefix.include.list.",
            ),
        ],
    );
    def.define(
        s(
            SNAPSHOT_MODE,
            "initial",
            "initial: snapshot then stream; no_data (Debezium 2's never): \
            stream only; when_needed: snapshot when no usable offset; \
            initial_only: snapshot and stop; always: snapshot at every \
            start.",
        )
        .ensure(one_of(&SNAPSHOT_MODES)),
    )
    .define(b(
        TOMBSTONES_ON_DELETE,
        true,
        "Whether a delete is followed by a tombstone (null value) \
        with the same key.",
    ))
    .define(
        s(
            SKIPPED_OPERATIONS,
            "t",
            "Comma-separated operations not to emit: c (create), u \
            (update), d (delete), t (truncate); `none` skips nothing.",
        )
        .validator(|v| crate::settings::SkippedOps::parse(v).map(|_| ())),
    )
    .define(b(
        PROVIDE_TRANSACTION_METADATA,
        false,
        "Whether to emit BEGIN/END records on the transaction topic \
        and a `transaction` block in each event.",
    ))
    .define(
        s(
            DECIMAL_HANDLING,
            "precise",
            "numeric and money as precise (Decimal / \
            VariableScaleDecimal), double or string.",
        )
        .ensure(one_of(&["precise", "double", "string"])),
    )
    .define(
        s(
            TIME_PRECISION,
            "adaptive",
            "Temporal types as adaptive, adaptive_time_microseconds, \
            connect or microseconds (isostring, nanoseconds and \
            structured are not supported).",
        )
        .ensure(one_of(&[
            "adaptive",
            "adaptive_time_microseconds",
            "connect",
            "microseconds",
        ])),
    )
    .define(
        s(
            INTERVAL_HANDLING,
            "numeric",
            "interval as numeric (MicroDuration microseconds) or string \
            (ISO 8601 Interval).",
        )
        .ensure(one_of(&["numeric", "string"])),
    )
    .define(
        s(BINARY_HANDLING, "bytes", "bytea as bytes, base64, base64-url-safe or hex.")
            .ensure(one_of(&["bytes", "base64", "base64-url-safe", "hex"])),
    )
    .define(
        s(HSTORE_HANDLING, "json", "hstore as json (io.debezium.data.Json text) or map.")
            .ensure(one_of(&["json", "map"])),
    )
    .define(
        ConfigKey::int(HEARTBEAT_INTERVAL_MS)
            .default_value(0)
            .ensure(Range::at_least(0))
            .doc("Milliseconds between heartbeat records; 0 sends none."),
    )
    .define(
        ConfigKey::string(HEARTBEAT_ACTION_QUERY)
            .doc("A query run on the database at each heartbeat."),
    )
    .define(s(
        HEARTBEAT_TOPICS_PREFIX,
        "__debezium-heartbeat",
        "Accepted as Debezium accepts it; as in Debezium 3.x the \
        heartbeat topic is named from topic.heartbeat.prefix.",
    ))
    .define(s(
        TOPIC_HEARTBEAT_PREFIX,
        "__debezium-heartbeat",
        "Prefix of the heartbeat topic, \
        `<topic.heartbeat.prefix>.<topic.prefix>`.",
    ))
    .define(ConfigKey::string(TOPIC_HEARTBEAT_NAME).doc(
        "The whole heartbeat topic name, instead of \
        `<topic.heartbeat.prefix>.<topic.prefix>`.",
    ))
    .define(b(
        EXTENDED_HEADERS,
        true,
        "Whether data records carry the __debezium.context.* headers.",
    ))
    .define(ConfigKey::string(MESSAGE_KEY_COLUMNS).doc(
        "Custom keys: `<schema.table regex>:<column>,<column>;...`, \
        replacing the primary key of matching tables.",
    ))
    .define(ConfigKey::long(POLL_INTERVAL_MS).ensure(Range::at_least(0)).grant(Grant::Clock).doc(
        "Milliseconds to wait for new changes when none are ready; 500 when unset \
                 (the connector puts it in the task config, which grants the task the clock).",
    ))
    .define(
        ConfigKey::int(MAX_BATCH_SIZE)
            .default_value(2048)
            .ensure(Range::at_least(1))
            .doc("The most records one poll returns."),
    )
    .define(b(
        INCLUDE_UNKNOWN_DATATYPES,
        false,
        "Whether columns of unknown types are emitted (as their \
        text's bytes); otherwise they are left out.",
    ))
    .define(
        ConfigKey::int(STATUS_UPDATE_INTERVAL_MS)
            .default_value(10000)
            .ensure(Range::at_least(0))
            .doc("Milliseconds between standby status updates to the server."),
    )
    .define(
        ConfigKey::int(SNAPSHOT_FETCH_SIZE)
            .ensure(Range::at_least(1))
            .doc("Rows fetched at a time during the snapshot; default 10240."),
    )
    .define(s(
        TOPIC_TRANSACTION,
        "transaction",
        "Name of the transaction topic after the prefix: \
        `<topic.prefix>.<topic.transaction>`.",
    ))
    .define(ConfigKey::string(TRANSACTION_TOPIC).doc(
        "Not a Debezium 3.x key (Debezium's is topic.transaction): \
        when set, the whole transaction topic name; \
        `${topic.prefix}` is replaced.",
    ))
    .define(s(TOPIC_DELIMITER, ".", "Delimiter between the parts of topic names."))
}

/// The problems Debezium finds between keys: include and exclude lists of the same level
/// together, and `decoderbufs`.
pub fn problems(config: &Config) -> Vec<ConfigProblem> {
    let mut out = Vec::new();
    let set = |k: &str| config.get(k).is_some_and(|v| !v.trim().is_empty());
    for (inc, exc, what) in [
        (SCHEMA_INCLUDE, SCHEMA_EXCLUDE, "schema"),
        (TABLE_INCLUDE, TABLE_EXCLUDE, "table"),
        (COLUMN_INCLUDE, COLUMN_EXCLUDE, "column"),
        (MESSAGE_PREFIX_INCLUDE, MESSAGE_PREFIX_EXCLUDE, "message prefix"),
    ] {
        if set(inc) && set(exc) {
            out.push(ConfigProblem::new(
                exc,
                format!(
                    "\"{exc}\" is already specified: both {inc} and {exc} are \
                    set; use one {what} filter only"
                ),
            ));
        }
    }
    if config.get(PLUGIN_NAME).is_some_and(|v| v.trim().eq_ignore_ascii_case("decoderbufs")) {
        out.push(ConfigProblem::new(
            PLUGIN_NAME,
            "plugin.name decoderbufs is not supported: set \
            plugin.name=pgoutput",
        ));
    }
    for key in [
        SCHEMA_INCLUDE,
        SCHEMA_EXCLUDE,
        TABLE_INCLUDE,
        TABLE_EXCLUDE,
        COLUMN_INCLUDE,
        COLUMN_EXCLUDE,
    ] {
        for pattern in config.get_list(key) {
            if let Err(e) = crate::filters::compile(&pattern) {
                out.push(ConfigProblem::new(
                    key,
                    format!("Invalid value {pattern} for configuration {key}: {e}"),
                ));
            }
        }
    }
    out
}
