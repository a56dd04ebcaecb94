use serde_json::json;
use wasm_connect_sdk::Config;

use super::*;

fn settings(extra: &[(&str, &str)]) -> Settings {
    let mut c = Config::new()
        .with("database.hostname", "h")
        .with("database.user", "u")
        .with("database.dbname", "d")
        .with("topic.prefix", "pg");
    for (k, v) in extra {
        c.set(*k, *v);
    }
    Settings::parse(&c).unwrap()
}

fn column(ty: PgType, typmod: i32, not_null: bool, default: Option<&str>) -> ColumnMeta {
    ColumnMeta {
        name: "c".into(),
        position: 1,
        type_oid: 0,
        type_modifier: typmod,
        type_name: String::new(),
        not_null,
        default_expr: default.map(str::to_owned),
        key: false,
        ty,
    }
}

#[test]
fn numeric_schemas_follow_the_decimal_mode() {
    let s = settings(&[]);
    // numeric(10,2): typmod = (10 << 16 | 2) + 4.
    let typmod = ((10 << 16) | 2) + 4;
    assert_eq!(numeric_precision_scale(typmod), Some((10, 2)));
    let (schema, conv) = plan(&PgType::Numeric, typmod, &s).unwrap();
    assert_eq!(schema["name"], "org.apache.kafka.connect.data.Decimal");
    assert_eq!(schema["parameters"], json!({"scale": "2", "connect.decimal.precision": "10"}));
    assert_eq!(conv, Conv::Decimal { scale: 2, money: false });
    let (schema, _) = plan(&PgType::Numeric, -1, &s).unwrap();
    assert_eq!(schema["name"], "io.debezium.data.VariableScaleDecimal");
    let s = settings(&[("decimal.handling.mode", "string")]);
    assert_eq!(plan(&PgType::Numeric, typmod, &s).unwrap().0, json!({"type": "string"}));
    assert_eq!(
        plan(&PgType::Money, -1, &settings(&[])).unwrap().0["parameters"],
        json!({"scale": "2"})
    );
}

#[test]
fn temporal_schemas_follow_precision_and_mode() {
    let s = settings(&[]);
    assert_eq!(plan(&PgType::Time, -1, &s).unwrap().0["name"], "io.debezium.time.MicroTime");
    assert_eq!(
        plan(&PgType::Time, 3, &s).unwrap().0,
        json!({"type": "int32", "name": "io.debezium.time.Time", "version": 1})
    );
    assert_eq!(
        plan(&PgType::Timestamp, -1, &s).unwrap().0["name"],
        "io.debezium.time.MicroTimestamp"
    );
    assert_eq!(plan(&PgType::Timestamp, 3, &s).unwrap().0["name"], "io.debezium.time.Timestamp");
    assert_eq!(
        plan(&PgType::TimestampTz, -1, &s).unwrap().0["name"],
        "io.debezium.time.ZonedTimestamp"
    );
    assert_eq!(
        plan(&PgType::Interval, -1, &s).unwrap().0["name"],
        "io.debezium.time.MicroDuration"
    );
    let c = settings(&[("time.precision.mode", "connect"), ("interval.handling.mode", "string")]);
    assert_eq!(
        plan(&PgType::Timestamp, -1, &c).unwrap().0["name"],
        "org.apache.kafka.connect.data.Timestamp"
    );
    assert_eq!(
        plan(&PgType::Date, -1, &c).unwrap().0["name"],
        "org.apache.kafka.connect.data.Date"
    );
    assert_eq!(plan(&PgType::Interval, -1, &c).unwrap().0["name"], "io.debezium.time.Interval");
    let m = settings(&[("time.precision.mode", "adaptive_time_microseconds")]);
    assert_eq!(plan(&PgType::Time, 3, &m).unwrap().0["name"], "io.debezium.time.MicroTime");
}

#[test]
fn enums_arrays_and_unknown_types() {
    let s = settings(&[]);
    let e = PgType::Enum(vec!["sad".into(), "ok".into()]);
    assert_eq!(plan(&e, -1, &s).unwrap().0["parameters"], json!({"allowed": "sad,ok"}));
    let (schema, _) = plan(&PgType::Array(Box::new(PgType::Int4)), -1, &s).unwrap();
    assert_eq!(schema, json!({"type": "array", "items": {"type": "int32", "optional": true}}));
    let (schema, _) = plan(&PgType::Array(Box::new(e.clone())), -1, &s).unwrap();
    assert_eq!(
        schema["items"]["optional"], false,
        "enum arrays: SchemaBuilder.array(Enum.builder(..))"
    );
    assert_eq!(schema["items"]["name"], "io.debezium.data.Enum");
    assert!(plan(&PgType::Unknown("point".into()), -1, &s).is_none());
    assert_eq!(plan(&PgType::Bit, 1, &s).unwrap().0, json!({"type": "boolean"}));
    assert_eq!(
        plan(&PgType::Bit, 12, &s).unwrap().0,
        json!({"type": "bytes", "name": "io.debezium.data.Bits", "version": 1, "parameters": {"length": "12"}})
    );
    assert!(plan(&PgType::Bit, -1, &s).is_none(), "unconstrained varbit");
    let u = settings(&[("include.unknown.datatypes", "true")]);
    assert_eq!(plan(&PgType::Unknown("point".into()), -1, &u).unwrap().0, json!({"type": "bytes"}));
    let hex = settings(&[("include.unknown.datatypes", "true"), ("binary.handling.mode", "hex")]);
    let (schema, conv) = plan(&PgType::Unknown("point".into()), -1, &hex).unwrap();
    assert_eq!(schema, json!({"type": "string"}));
    // "(1,2)" is 28 31 2c 32 29.
    assert_eq!(crate::value::convert(&conv, "(1,2)").unwrap(), json!("28312c3229"));
}

#[test]
fn field_schemas_carry_optionality_and_defaults() {
    let s = settings(&[]);
    let (f, _) = field_schema(
        &column(PgType::Int4, -1, true, Some("nextval('t_id_seq'::regclass)")),
        &s,
        false,
    )
    .unwrap();
    assert_eq!(f, json!({"type": "int32", "optional": false, "default": 0, "field": "c"}));
    let (f, _) = field_schema(
        &column(PgType::Text, -1, false, Some("'dflt'::character varying")),
        &s,
        false,
    )
    .unwrap();
    assert_eq!(f, json!({"type": "string", "optional": true, "default": "dflt", "field": "c"}));
    let (f, _) =
        field_schema(&column(PgType::Text, -1, false, Some("'it''s'::text")), &s, false).unwrap();
    assert_eq!(f["default"], "it's");
    let (f, _) =
        field_schema(&column(PgType::Int8, -1, false, Some("'-5'::integer")), &s, false).unwrap();
    assert_eq!(f["default"], -5);
    // Debezium's placeholders for function defaults, whatever the nullability.
    let (f, _) =
        field_schema(&column(PgType::TimestampTz, -1, false, Some("now()")), &s, false).unwrap();
    assert_eq!(f["default"], "1970-01-01T00:00:00.000000Z");
    let (f, _) =
        field_schema(&column(PgType::Uuid, -1, false, Some("gen_random_uuid()")), &s, false)
            .unwrap();
    assert_eq!(f["default"], "00000000-0000-0000-0000-000000000000");
    let (f, _) =
        field_schema(&column(PgType::Timestamp, -1, true, Some("CURRENT_TIMESTAMP")), &s, false)
            .unwrap();
    assert_eq!(f["default"], 0);
    let (f, _) =
        field_schema(&column(PgType::Date, -1, false, Some("'2000-01-02'::date")), &s, false)
            .unwrap();
    assert_eq!(f["default"], 10958, "30 years incl. 7 leap days + 1 day");
    let (f, _) = field_schema(&column(PgType::Bool, -1, false, Some("true")), &s, false).unwrap();
    assert_eq!(f["default"], true);
    let (f, _) =
        field_schema(&column(PgType::Interval, -1, false, Some("'1 day'::interval")), &s, false)
            .unwrap();
    assert_eq!(f["default"], 86_400_000_000i64);
    let e = PgType::Enum(vec!["sad".into(), "ok".into()]);
    let (f, _) = field_schema(&column(e, -1, false, Some("'ok'::mood")), &s, false).unwrap();
    assert_eq!(f["default"], "ok");
    // No mapper (bytea), NULL defaults and struct values give none.
    let (f, _) =
        field_schema(&column(PgType::Bytea, -1, true, Some("'\\x00'::bytea")), &s, false).unwrap();
    assert!(f.get("default").is_none());
    let (f, _) =
        field_schema(&column(PgType::Text, -1, false, Some("NULL::character varying")), &s, false)
            .unwrap();
    assert!(f.get("default").is_none());
    let (f, _) = field_schema(&column(PgType::Numeric, -1, false, Some("1.5")), &s, false).unwrap();
    assert!(f.get("default").is_none(), "VariableScaleDecimal is a struct");
    let typmod = ((10 << 16) | 2) + 4;
    let (f, _) =
        field_schema(&column(PgType::Numeric, typmod, false, Some("1.5")), &s, false).unwrap();
    assert_eq!(f["default"], "AJY=", "150 at scale 2");
}
