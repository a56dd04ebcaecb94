use wasm_connect_sdk::Config;

use super::*;

fn base() -> Config {
    Config::new()
        .with(HOSTNAME, "db")
        .with(USER, "u")
        .with(DBNAME, "inventory")
        .with(TOPIC_PREFIX, "pg")
}

#[test]
fn defaults_are_debeziums() {
    let s = Settings::parse(&base()).unwrap();
    assert_eq!((s.port, s.address.as_str()), (5432, "db:5432"));
    assert_eq!(
        (s.slot_name.as_str(), s.publication_name.as_str()),
        ("debezium", "dbz_publication")
    );
    assert_eq!(s.publication_mode, PublicationMode::AllTables);
    assert_eq!(s.snapshot_mode, SnapshotMode::Initial);
    assert!(s.tombstones_on_delete && s.extended_headers && !s.provide_transaction_metadata);
    assert_eq!(s.skipped, SkippedOps { truncate: true, ..Default::default() });
    assert_eq!((s.decimal, s.time), (DecimalMode::Precise, TimeMode::Adaptive));
    assert_eq!(
        (s.interval, s.binary, s.hstore),
        (IntervalMode::Numeric, BinaryMode::Bytes, HstoreMode::Json)
    );
    assert_eq!(s.transaction_topic, "pg.transaction");
    assert_eq!(s.heartbeat_topic(), "__debezium-heartbeat.pg");
    assert_eq!(s.table_topic("public", "t"), "pg.public.t");
    assert_eq!(s.message_topic(), "pg.message");
    assert_eq!((s.poll_interval_ms, s.max_batch_size), (500, 2048));
}

#[test]
fn modes_and_lists_parse() {
    let c = base()
        .with(SNAPSHOT_MODE, "no_data")
        .with(SKIPPED_OPERATIONS, "none")
        .with(DECIMAL_HANDLING, "STRING")
        .with(MESSAGE_KEY_COLUMNS, "public.a:x,y;inv\\..*:z")
        .with(TRANSACTION_TOPIC, "tx.${topic.prefix}")
        .with(ADDRESS, "10.0.0.1:6543");
    let s = Settings::parse(&c).unwrap();
    assert_eq!(s.snapshot_mode, SnapshotMode::NoData);
    assert!(Settings::parse(&base().with(SNAPSHOT_MODE, "never")).is_err(), "gone in Debezium 3");
    assert_eq!(definition().validate(&base().with(SNAPSHOT_MODE, "never")).len(), 1);
    assert_eq!(s.skipped, SkippedOps::default());
    assert_eq!(s.decimal, DecimalMode::String);
    assert_eq!(s.key_columns_of("public", "a"), Some(&["x".to_owned(), "y".to_owned()][..]));
    assert_eq!(s.key_columns_of("inv", "b"), Some(&["z".to_owned()][..]));
    assert_eq!(s.key_columns_of("public", "b"), None);
    assert_eq!(s.transaction_topic, "tx.pg");
    assert_eq!(s.address, "10.0.0.1:6543");
    let s = Settings::parse(
        &base()
            .with(TOPIC_TRANSACTION, "tx")
            .with(TOPIC_HEARTBEAT_PREFIX, "hb")
            .with(TOPIC_DELIMITER, "_"),
    )
    .unwrap();
    assert_eq!((s.transaction_topic.as_str(), s.heartbeat_topic().as_str()), ("pg_tx", "hb_pg"));
    assert_eq!(s.table_topic("public", "t"), "pg_public_t");
    assert_eq!(s.message_topic(), "pg.message");
    let s = Settings::parse(&base().with(TOPIC_HEARTBEAT_NAME, "beats")).unwrap();
    assert_eq!(s.heartbeat_topic(), "beats");
    assert_eq!(
        SkippedOps::parse("c, d").unwrap(),
        SkippedOps { create: true, delete: true, ..Default::default() }
    );
    assert!(SkippedOps::parse("x").is_err());
}

#[test]
fn debeziums_refusals() {
    let err = Settings::parse(&base().with(PLUGIN_NAME, "decoderbufs")).unwrap_err();
    assert!(err.message().contains("set plugin.name=pgoutput"), "{err:?}");
    let err =
        Settings::parse(&base().with(TABLE_INCLUDE, "a").with(TABLE_EXCLUDE, "b")).unwrap_err();
    assert!(err.message().contains("table.exclude.list"), "{err:?}");
    assert!(
        Settings::parse(&base().with("tasks.max", "2")).is_ok(),
        "one task anyway, as Debezium"
    );
    assert!(Settings::parse(&base().with(TIME_PRECISION, "nanoseconds")).is_err());
    let err = Settings::parse(&base().with(PORT, "70000")).unwrap_err();
    assert!(err.message().contains("database.port"), "the definition's checks run: {err:?}");
    assert!(Settings::parse(&base().remove_key(TOPIC_PREFIX)).is_err());
}

#[test]
fn the_definition_validates_and_accepts_unknown_database_keys() {
    let def = definition();
    let problems = def.validate(&base().with("database.sslmode", "require"));
    assert!(problems.is_empty(), "{problems:?}");
    let problems =
        def.validate(&base().with(SKIPPED_OPERATIONS, "c,x").with(BINARY_HANDLING, "raw"));
    let keys: Vec<_> = problems.iter().map(|p| p.key.as_str()).collect();
    assert_eq!(keys, [SKIPPED_OPERATIONS, BINARY_HANDLING]);
    assert_eq!(def.key(PLUGIN_NAME).unwrap().default_value.as_deref(), Some("pgoutput"));
    assert_eq!(def.key(POLL_INTERVAL_MS).unwrap().grant, Some(wasm_connect_sdk::Grant::Clock));
    assert_eq!(def.key(ADDRESS).unwrap().grant, Some(wasm_connect_sdk::Grant::Connect));
    assert!(def.key(PASSWORD).unwrap().is_secret());
    let doc = &def.key(PLUGIN_NAME).unwrap().documentation;
    assert!(doc.contains("is supported; unlike Debezium, whose"), "{doc}");
    assert!(
        def.keys().iter().all(|k| !k.documentation.contains("  ")),
        "wrapped docs keep single spaces"
    );
}

trait RemoveKey {
    fn remove_key(self, key: &str) -> Self;
}

impl RemoveKey for Config {
    fn remove_key(mut self, key: &str) -> Self {
        self.remove(key);
        self
    }
}
