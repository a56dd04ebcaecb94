//! Avro → Connect schemas: hand-written schemas as other producers write them, and round
//! trips of the schemas this format writes.

use wasm_connect_transforms::data::{DATE, DECIMAL, Schema, TIMESTAMP, Type, Value};

use super::super::AVRO_TYPE_UNION;
use super::*;

const HAND_WRITTEN: &str = r#"{
  "type": "record", "name": "Payment", "namespace": "com.example", "doc": "A payment",
  "fields": [
    {"name": "id", "type": "long"},
    {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 2}},
    {"name": "currency", "type": {"type": "enum", "name": "Currency", "symbols": ["EUR", "USD"]}, "doc": "ISO code"},
    {"name": "note", "type": ["null", "string"], "default": null},
    {"name": "retries", "type": "int", "default": 3},
    {"name": "day", "type": {"type": "int", "logicalType": "date"}},
    {"name": "at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
    {"name": "at_micros", "type": {"type": "long", "logicalType": "timestamp-micros"}},
    {"name": "hash", "type": {"type": "fixed", "name": "Hash", "size": 2}},
    {"name": "tags", "type": {"type": "array", "items": "string"}},
    {"name": "attrs", "type": {"type": "map", "values": "int"}},
    {"name": "either", "type": ["int", "string", "null"]}
  ]
}"#;

#[test]
fn hand_written_schema_reads_as_avro_data_reads_it() {
    let r = reader(HAND_WRITTEN);
    let s = r.connect_schema();
    assert_eq!(s.ty, Type::Struct);
    assert_eq!(s.name.as_deref(), Some("com.example.Payment"));
    assert_eq!(
        s.parameters,
        vec![
            ("io.confluent.connect.avro.record.doc".to_owned(), "A payment".to_owned()),
            ("io.confluent.connect.avro.field.doc.currency".to_owned(), "ISO code".to_owned()),
        ]
    );
    let field = |name: &str| s.field(name).unwrap().schema.clone();
    assert_eq!(*field("id"), Schema::new(Type::Int64));
    let amount = field("amount");
    assert_eq!((amount.name.as_deref(), amount.version), (Some(DECIMAL), Some(1)));
    assert_eq!(
        amount.parameters,
        vec![
            ("scale".to_owned(), "2".to_owned()),
            ("connect.decimal.precision".to_owned(), "9".to_owned())
        ]
    );
    let currency = field("currency");
    assert_eq!(
        (currency.ty, currency.name.as_deref()),
        (Type::String, Some("com.example.Currency"))
    );
    assert_eq!(
        currency.parameters,
        vec![
            ("io.confluent.connect.avro.Enum".to_owned(), "com.example.Currency".to_owned()),
            ("io.confluent.connect.avro.Enum.EUR".to_owned(), "EUR".to_owned()),
            ("io.confluent.connect.avro.Enum.USD".to_owned(), "USD".to_owned()),
        ]
    );
    assert_eq!(*field("note"), Schema::new(Type::String).optional());
    let retries = field("retries");
    assert_eq!(retries.default, Some(Value::Int32(3)));
    assert_eq!(
        retries.parameters,
        vec![("io.confluent.connect.avro.field.default".to_owned(), "true".to_owned())]
    );
    assert_eq!((field("day").name.as_deref(), field("day").ty), (Some(DATE), Type::Int32));
    assert_eq!(field("at").name.as_deref(), Some(TIMESTAMP));
    assert_eq!(*field("at_micros"), Schema::new(Type::Int64));
    let hash = field("hash");
    assert_eq!((hash.ty, hash.name.as_deref()), (Type::Bytes, Some("com.example.Hash")));
    assert_eq!(hash.parameters, vec![("connect.fixed.size".to_owned(), "2".to_owned())]);
    assert_eq!(*field("tags"), Schema::array(prim(Type::String)));
    assert_eq!(*field("attrs"), Schema::map(prim(Type::String), prim(Type::Int32)));
    let either = field("either");
    assert_eq!((either.name.as_deref(), either.optional), (Some(AVRO_TYPE_UNION), true));
    let names: Vec<&str> = either.fields.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["int", "string"]);
    assert!(either.fields.iter().all(|f| f.schema.optional));
}

#[test]
fn hand_written_payload_decodes() {
    let r = reader(HAND_WRITTEN);
    // id 1; amount 0x04d2 (12.34); currency USD; note null; retries 3; day 1; at 2; micros 3;
    // hash "hi"; tags ["a"]; attrs {"k": 1}; either "x" (branch 1).
    let payload = unhex(concat!(
        "02",
        "0404d2",
        "02",
        "00",
        "06",
        "02",
        "04",
        "06",
        "6869",
        "02026100",
        "02026b0200",
        "020278"
    ));
    let got = r.decode(&[], &payload).unwrap();
    let Value::Struct(st) = got.value else { panic!("a struct") };
    assert_eq!(st.values[0], Value::Int64(1));
    assert_eq!(st.values[1], Value::Bytes(vec![0x04, 0xd2]));
    assert_eq!(st.values[2], s("USD"));
    assert_eq!(st.values[3], Value::Null);
    assert_eq!(st.values[4], Value::Int32(3));
    assert_eq!(st.values[8], Value::Bytes(b"hi".to_vec()));
    assert_eq!(st.values[9], Value::Array(vec![s("a")]));
    assert_eq!(st.values[10], Value::Map(vec![(s("k"), Value::Int32(1))]));
    let Value::Struct(either) = &st.values[11] else { panic!("a union struct") };
    assert_eq!(either.values, vec![Value::Null, s("x")]);
}

#[test]
fn written_schemas_read_back_equal() {
    let mut decimal = Schema::new(Type::Bytes).named(DECIMAL);
    decimal.version = Some(1);
    decimal.parameters = vec![("scale".into(), "3".into())];
    let mut int16 = Schema::new(Type::Int16).optional();
    int16.default = Some(Value::Int16(7));
    int16.doc = Some("small".into());
    let inner =
        a(Schema::structure().named("x.Inner").with_field("n", prim(Type::Int8)).optional());
    let mut outer = Schema::structure()
        .named("x.Outer")
        .with_field("d", a(decimal))
        .with_field("i16", a(int16))
        .with_field("inner", inner.clone())
        .with_field("list", a(Schema::array(inner)))
        .with_field("m", a(Schema::map(prim(Type::Int64), opt(Type::Float64))))
        .with_field("sm", a(Schema::map(prim(Type::String), prim(Type::Bytes))));
    outer.version = Some(4);
    outer.doc = Some("outer doc".into());
    outer.parameters = vec![("k1".into(), "v1".into()), ("a2".into(), "v2".into())];
    let outer = a(outer);
    assert_eq!(read_back(&outer), outer);
    for ty in Type::ALL.into_iter().filter(|t| t.is_primitive()) {
        assert_eq!(read_back(&prim(ty)), prim(ty), "{ty:?}");
        assert_eq!(read_back(&opt(ty)), opt(ty), "{ty:?}");
    }
}

#[test]
fn the_registry_version_applies_without_connect_version() {
    let r = format()
        .reader_at_version(&avro(r#"{"type":"record","name":"R","fields":[]}"#), Some(5))
        .unwrap();
    assert_eq!(r.connect_schema().version, Some(5));
    let r = format()
        .reader_at_version(
            &avro(r#"{"type":"record","name":"R","fields":[],"connect.version":2}"#),
            Some(5),
        )
        .unwrap();
    assert_eq!(r.connect_schema().version, Some(2));
}

#[test]
fn unreadable_schemas_are_registered_schema_errors() {
    for text in [
        "not json",
        r#""null""#,
        r#"{"type":"record","name":"L","fields":[{"name":"next","type":["null","L"]}]}"#,
        r#"{"type":"int","connect.type":"int128"}"#,
        r#"["int","int"]"#,
    ] {
        match format().reader(&avro(text)) {
            Err(FormatError::RegisteredSchema(_)) => {}
            other => {
                panic!("{text}: expected a registered-schema error, got {:?}", other.map(|_| ()))
            }
        }
    }
}

#[test]
fn singleton_unions_flatten_unless_told_not_to() {
    assert_eq!(*reader(r#"["string"]"#).connect_schema(), prim(Type::String));
    let f = format_with(&[("flatten.singleton.unions", "false")]);
    let r = f.reader(&avro(r#"["string"]"#)).unwrap();
    assert_eq!(r.connect_schema().name.as_deref(), Some(AVRO_TYPE_UNION));
}

#[test]
fn record_and_field_docs_travel_as_avro_docs_and_read_back() {
    let mut schema = Schema::structure().named("d.R").with_field("x", prim(Type::Int32));
    schema.parameters = vec![
        ("k".into(), "v".into()),
        ("io.confluent.connect.avro.record.doc".into(), "rd".into()),
        ("io.confluent.connect.avro.field.doc.x".into(), "fd".into()),
    ];
    let schema = a(schema);
    let text = writer(&schema).registry_schema().text.clone();
    assert_eq!(
        text,
        r#"{"type":"record","name":"R","namespace":"d","doc":"rd","fields":[{"name":"x","type":"int","doc":"fd"}],"connect.parameters":{"k":"v","io.confluent.connect.avro.record.doc":"rd","io.confluent.connect.avro.field.doc.x":"fd"},"connect.name":"d.R"}"#
    );
    assert_eq!(*reader(&text).connect_schema(), schema);
}

#[test]
fn a_shared_named_type_keeps_each_fields_parameters() {
    let s1 = Schema {
        parameters: vec![("p".into(), "1".into())],
        ..Schema::structure().named("p.S").with_field("a", prim(Type::Int32))
    };
    let s2 = Schema { parameters: vec![("p".into(), "2".into())], ..s1.clone() }.optional();
    let outer = a(Schema::structure().named("p.O").with_field("x", a(s1)).with_field("y", a(s2)));
    let text = writer(&outer).registry_schema().text.clone();
    assert_eq!(
        text,
        r#"{"type":"record","name":"O","namespace":"p","fields":[{"name":"x","type":{"type":"record","name":"S","fields":[{"name":"a","type":"int"}],"connect.parameters":{"p":"1"},"connect.name":"p.S"}},{"name":"y","type":["null","S"],"default":null,"connect.parameters":{"p":"2"}}],"connect.name":"p.O"}"#
    );
    assert_eq!(*reader(&text).connect_schema(), outer);
}

#[test]
fn names_resolve_against_namespaces_and_references_reuse_the_type() {
    let text = r#"{"type":"record","name":"A","namespace":"n1","fields":[
      {"name":"b","type":{"type":"record","name":"B","namespace":"n2","fields":[{"name":"x","type":"int"}]}},
      {"name":"b2","type":"n2.B"},
      {"name":"c","type":{"type":"record","name":"C","fields":[{"name":"y","type":"n2.B"}]}},
      {"name":"e","type":{"type":"enum","name":"E","symbols":["P"]}},
      {"name":"e2","type":["null","E"]}
    ]}"#;
    let s = reader(text).connect_schema().clone();
    let field = |name: &str| s.field(name).unwrap().schema.clone();
    assert_eq!(field("b").name.as_deref(), Some("n2.B"));
    assert_eq!(field("b2"), field("b"));
    assert_eq!(field("c").name.as_deref(), Some("n1.C"));
    assert_eq!(field("c").fields[0].schema, field("b"));
    assert_eq!(field("e").name.as_deref(), Some("n1.E"));
    assert_eq!(*field("e2"), Schema { optional: true, ..(*field("e")).clone() });
    // b {x 1}, b2 {x 2}, c {y {x 3}}, e P (index 0), e2 branch 1 then P.
    let v = reader(text).decode(&[], &unhex("020406000200")).unwrap().value;
    let Value::Struct(st) = v else { panic!("struct") };
    assert_eq!(st.values[3], s_val("P"));
    assert_eq!(st.values[4], s_val("P"));
}

fn s_val(text: &str) -> Value {
    Value::String(text.to_owned())
}

#[test]
fn defaults_of_every_type_round_trip() {
    // After AvroDataTest.testFromConnectComplexWithDefaults.
    let with = |mut schema: Schema, default: Value| {
        schema.default = Some(default);
        a(schema)
    };
    let logical = |ty, name: &str| Schema { version: Some(1), ..Schema::new(ty).named(name) };
    let mut decimal = logical(Type::Bytes, DECIMAL);
    decimal.parameters = vec![("scale".into(), "5".into())];
    let record = a(Schema::structure()
        .with_field("int8", with(Schema::new(Type::Int8), Value::Int8(2)))
        .with_field("int16", with(Schema::new(Type::Int16), Value::Int16(12)))
        .with_field("int32", with(Schema::new(Type::Int32), Value::Int32(12)))
        .with_field("int64", with(Schema::new(Type::Int64), Value::Int64(12)))
        .with_field("float32", with(Schema::new(Type::Float32), Value::Float32(12.2)))
        .with_field("float64", with(Schema::new(Type::Float64), Value::Float64(12.2)))
        .with_field("boolean", with(Schema::new(Type::Boolean), Value::Boolean(true)))
        .with_field("string", with(Schema::new(Type::String), s("foo")))
        .with_field("bytes", with(Schema::new(Type::Bytes), Value::Bytes(b"foo".to_vec())))
        .with_field(
            "array",
            with(Schema::array(prim(Type::String)), Value::Array(vec![s("a"), s("b")])),
        )
        .with_field(
            "map",
            with(
                Schema::map(prim(Type::String), prim(Type::Int32)),
                Value::Map(vec![(s("field"), Value::Int32(1))]),
            ),
        )
        .with_field(
            "intmap",
            with(
                Schema::map(prim(Type::Int32), prim(Type::Int32)),
                Value::Map(vec![(Value::Int32(1), Value::Int32(1))]),
            ),
        )
        .with_field("date", with(logical(Type::Int32, DATE), Value::Int32(100)))
        .with_field("ts", with(logical(Type::Int64, TIMESTAMP), Value::Int64(31_536_000_100)))
        .with_field("decimal", with(decimal, Value::Bytes(vec![0x04, 0xcb, 0x2f])))
        .with_field("optional", with(Schema::new(Type::String).optional(), s("o"))));
    let text = writer(&record).registry_schema().text.clone();
    for part in [
        r#"{"name":"int16","type":{"type":"int","connect.default":12,"connect.type":"int16"},"default":12}"#,
        r#"{"name":"bytes","type":{"type":"bytes","connect.default":"foo"},"default":"foo"}"#,
        r#"{"name":"map","type":{"type":"map","values":"int","connect.default":{"field":1}},"default":{"field":1}}"#,
        r#"{"name":"intmap","type":{"type":"array","items":{"type":"record","name":"MapEntry","fields":[{"name":"key","type":"int"},{"name":"value","type":"int"}]},"connect.default":[[1,1]]}}"#,
        r#""connect.parameters":{"scale":"5"},"connect.default":"\u0004Ë/""#,
        r#"{"name":"optional","type":[{"type":"string","connect.default":"o"},"null"],"default":"o"}"#,
    ] {
        assert!(text.contains(part), "{part} not in {text}");
    }
    // AvroData cannot read a non-string-key map's default back (its pairs are not records);
    // everything else comes back as written.
    let mut expected = (*record).clone();
    let intmap = &mut expected.fields[11];
    intmap.schema = a(Schema { default: None, ..(*intmap.schema).clone() });
    assert_eq!(**reader(&text).connect_schema(), expected);
}
