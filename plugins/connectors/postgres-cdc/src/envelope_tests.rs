use serde_json::{Value, json};
use wasm_connect_sdk::Config;

use super::*;
use crate::catalog::ColumnMeta;
use crate::pgtype::PgType;

fn settings(extra: &[(&str, &str)]) -> Settings {
    let mut c = Config::new()
        .with("database.hostname", "h")
        .with("database.user", "u")
        .with("database.dbname", "inventory")
        .with("topic.prefix", "pg");
    for (k, v) in extra {
        c.set(*k, *v);
    }
    Settings::parse(&c).unwrap()
}

fn col(name: &str, ty: PgType, not_null: bool, key: bool) -> ColumnMeta {
    ColumnMeta {
        name: name.into(),
        position: 0,
        type_oid: 0,
        type_modifier: -1,
        type_name: String::new(),
        not_null,
        default_expr: None,
        key,
        ty,
    }
}

fn table() -> TableMeta {
    TableMeta {
        oid: 42,
        schema: "public".into(),
        name: "items".into(),
        replica_identity: 'd',
        columns: vec![
            col("id", PgType::Int4, true, true),
            col("name", PgType::Text, true, false),
            ColumnMeta { default_expr: Some("42".into()), ..col("qty", PgType::Int4, true, false) },
            col("body", PgType::Text, false, false),
        ],
    }
}

fn t(s: &str) -> Datum {
    Datum::Text(s.into())
}

fn json_of(bytes: &Option<Vec<u8>>) -> Value {
    serde_json::from_slice(bytes.as_deref().unwrap()).unwrap()
}

fn source() -> Source {
    Source {
        ts_us: 1_000_000,
        db: "inventory".into(),
        schema: "public".into(),
        table: "items".into(),
        ..Default::default()
    }
}

fn header(r: &SourceRecord, key: &str) -> Option<String> {
    r.headers
        .iter()
        .find(|h| h.key == key)
        .map(|h| String::from_utf8(h.value.clone().unwrap()).unwrap())
}

#[test]
fn an_insert_has_key_envelope_source_and_context_headers() {
    let mut e = Emitter::new(&settings(&[]), "run-1");
    let after = [t("1"), t("a"), t("3"), Datum::Null];
    let recs = e
        .change(
            &table(),
            Op::Create,
            None,
            Some(&after),
            &source(),
            None,
            &Offset::default(),
            2_000_123,
        )
        .unwrap();
    assert_eq!(recs.len(), 1);
    let r = &recs[0];
    assert_eq!(r.topic, "pg.public.items");
    assert_eq!(r.source_partition, json!({"server": "pg"}));
    let key = json_of(&r.key);
    assert_eq!(key["payload"], json!({"id": 1}));
    assert_eq!(key["schema"]["name"], "pg.public.items.Key");
    assert_eq!(
        key["schema"]["fields"],
        json!([{"type": "int32", "optional": false, "field": "id"}])
    );
    let value = json_of(&r.value);
    let schema = &value["schema"];
    assert_eq!(
        (schema["name"].clone(), schema["version"].clone()),
        (json!("pg.public.items.Envelope"), json!(2))
    );
    let fields: Vec<_> =
        schema["fields"].as_array().unwrap().iter().map(|f| f["field"].as_str().unwrap()).collect();
    assert_eq!(
        fields,
        ["before", "after", "source", "transaction", "op", "ts_ms", "ts_us", "ts_ns"]
    );
    assert_eq!(schema["fields"][0]["name"], "pg.public.items.Value");
    assert_eq!(schema["fields"][0]["optional"], true);
    let p = &value["payload"];
    assert_eq!(p["after"], json!({"id": 1, "name": "a", "qty": 3, "body": null}));
    assert_eq!(
        (p["before"].clone(), p["op"].clone(), p["transaction"].clone()),
        (Value::Null, json!("c"), Value::Null)
    );
    assert_eq!(
        (p["ts_ms"].clone(), p["ts_us"].clone(), p["ts_ns"].clone()),
        (json!(2000), json!(2_000_123), json!(2_000_123_000i64))
    );
    assert_eq!(p["source"]["ts_ms"], 1000);
    assert_eq!(header(r, headers::CONNECTOR_LOGICAL_NAME).as_deref(), Some("pg"));
    assert_eq!(header(r, headers::TASK_ID).as_deref(), Some("0"));
    assert_eq!(header(r, headers::CONNECTOR_NAME).as_deref(), Some("postgresql"));
    assert_eq!(header(r, headers::RUN_ID).as_deref(), Some("run-1"));
}

#[test]
fn a_default_identity_delete_fills_not_null_columns_with_zero_and_adds_a_tombstone() {
    let mut e = Emitter::new(&settings(&[]), "r");
    let old = [t("7"), Datum::Null, Datum::Null, Datum::Null];
    let recs = e
        .change(&table(), Op::Delete, Some(&old), None, &source(), None, &Offset::default(), 0)
        .unwrap();
    assert_eq!(recs.len(), 2);
    let p = json_of(&recs[0].value)["payload"].clone();
    assert_eq!(
        p["before"],
        json!({"id": 7, "name": "", "qty": 42, "body": null}),
        "zero, or the default"
    );
    assert_eq!((p["after"].clone(), p["op"].clone()), (Value::Null, json!("d")));
    assert_eq!(json_of(&recs[1].key)["payload"], json!({"id": 7}));
    assert!(recs[1].value.is_none(), "tombstone");
    assert!(header(&recs[1], headers::CONNECTOR_LOGICAL_NAME).is_some());
    let mut quiet = Emitter::new(
        &settings(&[("tombstones.on.delete", "false"), ("extended.headers.enabled", "false")]),
        "r",
    );
    let recs = quiet
        .change(&table(), Op::Delete, Some(&old), None, &source(), None, &Offset::default(), 0)
        .unwrap();
    assert_eq!(recs.len(), 1);
    assert!(recs[0].headers.is_empty());
}

#[test]
fn a_key_change_is_delete_tombstone_create_with_key_headers() {
    let mut e = Emitter::new(&settings(&[]), "r");
    let old = [t("2"), Datum::Null, Datum::Null, Datum::Null];
    let new = [t("100"), t("n"), t("1"), Datum::Unchanged];
    let recs = e
        .change(
            &table(),
            Op::Update,
            Some(&old),
            Some(&new),
            &source(),
            None,
            &Offset::default(),
            0,
        )
        .unwrap();
    let ops: Vec<_> = recs
        .iter()
        .map(|r| r.value.as_ref().map(|_| json_of(&r.value)["payload"]["op"].clone()))
        .collect();
    assert_eq!(ops, [Some(json!("d")), None, Some(json!("c"))]);
    assert_eq!(header(&recs[0], headers::NEW_KEY).as_deref(), Some(r#"{"id":100}"#));
    assert_eq!(header(&recs[1], headers::NEW_KEY).as_deref(), Some(r#"{"id":100}"#));
    assert_eq!(header(&recs[2], headers::OLD_KEY).as_deref(), Some(r#"{"id":2}"#));
    assert_eq!(
        json_of(&recs[2].value)["payload"]["after"]["body"],
        json!(crate::value::UNAVAILABLE)
    );
}

#[test]
fn updates_skips_truncates_and_keyless_tables() {
    let mut e = Emitter::new(&settings(&[("skipped.operations", "c")]), "r");
    let row = [t("1"), t("a"), t("1"), t("b")];
    assert!(
        e.change(&table(), Op::Create, None, Some(&row), &source(), None, &Offset::default(), 0)
            .unwrap()
            .is_empty()
    );
    let mut txn = crate::transaction::TxnTracker::new();
    txn.begin(5);
    let at_99 = Source { lsn: Some(99), ..source() };
    let recs = e
        .change(
            &table(),
            Op::Update,
            None,
            Some(&row),
            &at_99,
            Some(&mut txn),
            &Offset::default(),
            0,
        )
        .unwrap();
    let p = json_of(&recs[0].value)["payload"].clone();
    assert_eq!((p["op"].clone(), p["before"].clone()), (json!("u"), Value::Null));
    assert_eq!(
        p["transaction"],
        json!({"id": "5:99", "total_order": 1, "data_collection_order": 1})
    );
    // A key change counts its delete and its create (not the tombstone).
    let new = [t("2"), t("a"), t("1"), t("b")];
    let recs = e
        .change(
            &table(),
            Op::Update,
            Some(&row),
            Some(&new),
            &at_99,
            Some(&mut txn),
            &Offset::default(),
            0,
        )
        .unwrap();
    let orders: Vec<_> = [&recs[0], &recs[2]]
        .iter()
        .map(|r| json_of(&r.value)["payload"]["transaction"]["total_order"].clone())
        .collect();
    assert_eq!(orders, [json!(2), json!(3)]);
    assert_eq!(txn.end(), (3, vec![("public.items".to_owned(), 3)]));
    let mut default = Emitter::new(&settings(&[]), "r");
    assert!(
        default.truncate(&table(), &source(), None, &Offset::default(), 0).is_empty(),
        "t skipped by default"
    );
    let mut all = Emitter::new(&settings(&[("skipped.operations", "none")]), "r");
    let tr = all.truncate(&table(), &source(), None, &Offset::default(), 0);
    assert!(tr[0].key.is_none());
    assert_eq!(json_of(&tr[0].value)["payload"]["op"], "t");
    let mut keyless = table();
    keyless.columns[0].key = false;
    let recs = all
        .change(&keyless, Op::Read, None, Some(&row), &source(), None, &Offset::default(), 0)
        .unwrap();
    assert!(recs[0].key.is_none(), "no key without key columns");
}

#[test]
fn messages_transactions_and_heartbeats() {
    let e = Emitter::new(&settings(&[]), "r");
    let src = Source { schema: String::new(), table: String::new(), ..source() };
    let m = e.message("audit", b"hi", &src, None, &Offset::default(), 5_000);
    assert_eq!(m.topic, "pg.message");
    assert_eq!(json_of(&m.key)["payload"], json!({"prefix": "audit"}));
    assert_eq!(json_of(&m.key)["schema"]["name"], "io.debezium.connector.postgresql.MessageKey");
    let v = json_of(&m.value);
    assert_eq!(v["payload"]["message"], json!({"prefix": "audit", "content": "aGk="}));
    assert_eq!(
        (v["payload"]["op"].clone(), v["schema"]["name"].clone()),
        (json!("m"), json!("io.debezium.connector.postgresql.MessageValue"))
    );
    let b = e.begin("5:10", 77, &Offset::default());
    assert_eq!(b.topic, "pg.transaction");
    assert_eq!(
        json_of(&b.value)["payload"],
        json!({"status": "BEGIN", "id": "5:10", "event_count": null, "data_collections": null, "ts_ms": 77})
    );
    let end = e.end("5:30", 77, 3, &[("public.items".into(), 3)], &Offset::default());
    assert_eq!(
        json_of(&end.value)["payload"]["data_collections"],
        json!([{"data_collection": "public.items", "event_count": 3}])
    );
    assert!(b.headers.is_empty() && end.headers.is_empty());
    let h = e.heartbeat(123, &Offset::default());
    assert_eq!(h.topic, "__debezium-heartbeat.pg");
    assert_eq!(json_of(&h.key)["payload"], json!({"serverName": "pg"}));
    assert_eq!(json_of(&h.value)["payload"], json!({"ts_ms": 123}));
}
