//! Connect → Avro schema text, as `AvroData.fromConnectSchema` builds it and Avro's
//! `Schema.toString()` prints it (expected texts derived from `AvroDataTest`'s expected
//! schemas and AvroData's order of properties).

use wasm_connect_transforms::data::{DATE, DECIMAL, Schema, TIME, TIMESTAMP, Type, Value};

use super::super::names;
use super::*;

#[test]
fn primitives_map_to_avro_primitives_with_int8_and_int16_annotated() {
    let cases = [
        (Type::Int8, r#"{"type":"int","connect.type":"int8"}"#),
        (Type::Int16, r#"{"type":"int","connect.type":"int16"}"#),
        (Type::Int32, r#""int""#),
        (Type::Int64, r#""long""#),
        (Type::Float32, r#""float""#),
        (Type::Float64, r#""double""#),
        (Type::Boolean, r#""boolean""#),
        (Type::String, r#""string""#),
        (Type::Bytes, r#""bytes""#),
    ];
    for (ty, expected) in cases {
        assert_eq!(text(Schema::new(ty)), expected, "{ty:?}");
    }
    assert_eq!(text(Schema::new(Type::String).optional()), r#"["null","string"]"#);
}

#[test]
fn logical_types_carry_connect_names_versions_and_avro_logical_types() {
    let mut decimal = Schema::new(Type::Bytes).named(DECIMAL);
    decimal.version = Some(1);
    decimal.parameters.push(("scale".into(), "2".into()));
    assert_eq!(
        text(decimal.clone()),
        r#"{"type":"bytes","scale":2,"precision":64,"connect.version":1,"connect.parameters":{"scale":"2"},"connect.name":"org.apache.kafka.connect.data.Decimal","logicalType":"decimal"}"#
    );
    decimal.parameters.push(("connect.decimal.precision".into(), "10".into()));
    assert_eq!(
        text(decimal),
        r#"{"type":"bytes","scale":2,"precision":10,"connect.version":1,"connect.parameters":{"scale":"2","connect.decimal.precision":"10"},"connect.name":"org.apache.kafka.connect.data.Decimal","logicalType":"decimal"}"#
    );
    let logical = |ty, name: &str| Schema { version: Some(1), ..Schema::new(ty).named(name) };
    assert_eq!(
        text(logical(Type::Int32, DATE)),
        r#"{"type":"int","connect.version":1,"connect.name":"org.apache.kafka.connect.data.Date","logicalType":"date"}"#
    );
    assert_eq!(
        text(logical(Type::Int32, TIME)),
        r#"{"type":"int","connect.version":1,"connect.name":"org.apache.kafka.connect.data.Time","logicalType":"time-millis"}"#
    );
    assert_eq!(
        text(logical(Type::Int64, TIMESTAMP)),
        r#"{"type":"long","connect.version":1,"connect.name":"org.apache.kafka.connect.data.Timestamp","logicalType":"timestamp-millis"}"#
    );
}

#[test]
fn named_struct_is_a_record_in_its_namespace() {
    let order = Schema::structure()
        .named("t3.Order")
        .with_field("id", prim(Type::Int32))
        .with_field("sku", prim(Type::String));
    assert_eq!(
        text(order),
        r#"{"type":"record","name":"Order","namespace":"t3","fields":[{"name":"id","type":"int"},{"name":"sku","type":"string"}],"connect.name":"t3.Order"}"#
    );
}

#[test]
fn unnamed_structs_are_numbered_connect_defaults_and_reused_by_reference() {
    // AvroDataTest.testFromConnectStructsWithNullName.
    let inner = a(Schema::structure().with_field("value", prim(Type::Int64)).optional());
    let outer = Schema::structure()
        .with_field("struct", inner.clone())
        .with_field("array", a(Schema::array(inner)));
    assert_eq!(
        text(outer),
        r#"{"type":"record","name":"ConnectDefault","namespace":"io.confluent.connect.avro","fields":[{"name":"struct","type":["null",{"type":"record","name":"ConnectDefault2","fields":[{"name":"value","type":"long"}]}],"default":null},{"name":"array","type":{"type":"array","items":["null","ConnectDefault2"]}}]}"#
    );
}

#[test]
fn maps_with_string_keys_are_maps_and_others_arrays_of_map_entries() {
    assert_eq!(
        text(Schema::map(prim(Type::String), prim(Type::Int32))),
        r#"{"type":"map","values":"int"}"#
    );
    let entry = r#"{"type":"array","items":{"type":"record","name":"MapEntry","namespace":"io.confluent.connect.avro","fields":[{"name":"key","type":"int"},{"name":"value","type":"int"}]}}"#;
    assert_eq!(text(Schema::map(prim(Type::Int32), prim(Type::Int32))), entry);
    // An optional string key is not an Avro map key unless allow.optional.map.keys.
    assert_eq!(
        text(Schema::map(opt(Type::String), prim(Type::Int32))),
        r#"{"type":"array","items":{"type":"record","name":"MapEntry","namespace":"io.confluent.connect.avro","fields":[{"name":"key","type":["null","string"],"default":null},{"name":"value","type":"int"}]}}"#
    );
    let allowing = format_with(&[("allow.optional.map.keys", "true")]);
    let w = allowing.writer(&a(Schema::map(opt(Type::String), opt(Type::String)))).unwrap();
    assert_eq!(w.registry_schema().text, r#"{"type":"map","values":["null","string"]}"#);
    // A named map: the entry record takes the name and is marked as a map entry.
    let named = Schema::map(opt(Type::String), prim(Type::Int32)).named("foo.bar");
    assert_eq!(
        text(named),
        r#"{"type":"array","items":{"type":"record","name":"bar","namespace":"foo","fields":[{"name":"key","type":["null","string"],"default":null},{"name":"value","type":"int"}],"connect.internal.type":"MapEntry"},"connect.name":"foo.bar"}"#
    );
}

#[test]
fn optional_schema_with_a_default_puts_its_branch_first_with_all_metadata() {
    // AvroDataTest.testFromConnectOptionalPrimitiveWithMetadata.
    let mut schema = Schema::new(Type::String).optional().named("io.confluent.stringtype");
    schema.doc = Some("doc".into());
    schema.version = Some(2);
    schema.default = Some(s("foo"));
    schema.parameters = vec![("foo".into(), "bar".into()), ("baz".into(), "baz".into())];
    assert_eq!(
        text(schema),
        r#"[{"type":"string","connect.doc":"doc","connect.version":2,"connect.parameters":{"foo":"bar","baz":"baz"},"connect.default":"foo","connect.name":"io.confluent.stringtype"},"null"]"#
    );
}

#[test]
fn field_defaults_go_to_the_field_and_to_connect_default() {
    // AvroDataTest.testFromConnectComplex's int8 field.
    let mut int8 = Schema::new(Type::Int8);
    int8.default = Some(Value::Int8(2));
    int8.doc = Some("int8 field".into());
    let mut float = Schema::new(Type::Float32);
    float.default = Some(Value::Float32(12.2));
    let record = Schema::structure()
        .named("r")
        .with_field("int8", a(int8))
        .with_field("f", a(float))
        .with_field("o", opt(Type::Boolean));
    assert_eq!(
        text(record),
        r#"{"type":"record","name":"r","fields":[{"name":"int8","type":{"type":"int","connect.doc":"int8 field","connect.default":2,"connect.type":"int8"},"default":2},{"name":"f","type":{"type":"float","connect.default":12.2},"default":12.2},{"name":"o","type":["null","boolean"],"default":null}],"connect.name":"r"}"#
    );
}

#[test]
fn a_default_avro_refuses_is_left_off_the_field() {
    // AvroDataTest.testFromConnectOptionalWithInvalidDefault: ["a","b","c"] does not match
    // items ["null","string"] (a union default matches its first branch).
    let mut array = Schema::array(opt(Type::String));
    array.default = Some(Value::Array(vec![s("a"), s("b"), s("c")]));
    let record = Schema::structure().with_field("array", a(array));
    assert_eq!(
        text(record),
        r#"{"type":"record","name":"ConnectDefault","namespace":"io.confluent.connect.avro","fields":[{"name":"array","type":{"type":"array","items":["null","string"],"connect.default":["a","b","c"]}}]}"#
    );
}

#[test]
fn connect_meta_data_false_drops_the_connect_annotations() {
    let f = format_with(&[("connect.meta.data", "false")]);
    let mut schema = Schema::structure().named("a.B").with_field("x", prim(Type::Int8));
    schema.version = Some(3);
    schema.doc = Some("d".into());
    let w = f.writer(&a(schema)).unwrap();
    assert_eq!(
        w.registry_schema().text,
        r#"{"type":"record","name":"B","namespace":"a","fields":[{"name":"x","type":"int"}]}"#
    );
    assert_eq!(w.record_name(), Some("a.B"));
}

#[test]
fn invalid_names_are_scrubbed_or_refused() {
    // AvroDataTest.testNameScrubbing.
    let cases = [
        ("abc_DEF_123", "abc_DEF_123"),
        ("abc+-.*_", "abc_2B____"),
        ("abc-def", "abc_def"),
        ("abc+def", "abc_2Bdef"),
        ("abc  def", "abc__def"),
        ("abc.def", "abc_def"),
        ("0abc.def", "x0abc_def"),
        ("0abc", "x0abc"),
    ];
    for (name, scrubbed) in cases {
        assert_eq!(names::scrub(name), scrubbed, "{name}");
    }
    // AvroDataTest.testFromConnectWithInvalidName.
    let schema = a(Schema::structure()
        .named("org.acme-corp.invalid record-name")
        .with_field("invalid field-name", prim(Type::String)));
    let f = format_with(&[("scrub.invalid.names", "true"), ("connect.meta.data", "false")]);
    let w = f.writer(&schema).unwrap();
    assert_eq!(
        w.registry_schema().text,
        r#"{"type":"record","name":"invalid_record_name","namespace":"org.acme_corp","fields":[{"name":"invalid_field_name","type":"string"}]}"#
    );
    assert_eq!(encode(&w, &structure(&schema, vec![s("foo")])), "06666f6f");
    match format().writer(&schema) {
        Err(FormatError::Schema(m)) => assert!(m.contains("Illegal character"), "{m}"),
        other => panic!("expected a schema error, got {:?}", other.map(|_| ())),
    }
}

#[test]
fn enhanced_support_writes_string_enums_as_avro_enums() {
    let mut e = Schema::new(Type::String).named("x.Suit");
    e.parameters = vec![
        ("io.confluent.connect.avro.Enum".into(), "x.Suit".into()),
        ("io.confluent.connect.avro.Enum.HEARTS".into(), "HEARTS".into()),
        ("io.confluent.connect.avro.Enum.SPADES".into(), "SPADES".into()),
    ];
    let schema = a(e);
    let w = format_with(&[("enhanced.avro.schema.support", "true")]).writer(&schema).unwrap();
    assert_eq!(
        w.registry_schema().text,
        r#"{"type":"enum","name":"Suit","namespace":"x","symbols":["HEARTS","SPADES"],"connect.parameters":{"io.confluent.connect.avro.Enum":"x.Suit","io.confluent.connect.avro.Enum.HEARTS":"HEARTS","io.confluent.connect.avro.Enum.SPADES":"SPADES"},"connect.name":"x.Suit"}"#
    );
    // The enum index, not the text.
    assert_eq!(encode(&w, &s("SPADES")), "02");
    assert!(is_value_error(&w.encode(&s("CLUBS")).unwrap_err()));
    // Without the option the same schema is a string.
    assert!(text((*schema).clone()).starts_with(r#"{"type":"string","#));
}

#[test]
fn remove_java_properties_drops_avro_java_string() {
    let mut st = Schema::new(Type::String);
    st.parameters = vec![("avro.java.string".into(), "String".into())];
    let schema = a(st);
    assert_eq!(
        writer(&schema).registry_schema().text,
        r#"{"type":"string","connect.parameters":{"avro.java.string":"String"},"avro.java.string":"String"}"#
    );
    let w = format_with(&[("avro.remove.java.properties", "true")]).writer(&schema).unwrap();
    assert_eq!(w.registry_schema().text, r#"{"type":"string","connect.parameters":{}}"#);
}

#[test]
fn bad_settings_are_invalid_setting_errors() {
    let map: BTreeMap<&str, &str> = [("connect.meta.data", "maybe")].into_iter().collect();
    let e = AvroFormat::new(&Settings::new("value.converter", &map)).err().unwrap();
    assert!(
        matches!(e, FormatError::InvalidSetting { ref key, .. } if key == "value.converter.connect.meta.data")
    );
    for key in [
        "connect.meta.data",
        "enhanced.avro.schema.support",
        "scrub.invalid.names",
        "avro.use.logical.type.converters",
        "avro.remove.java.properties",
    ] {
        assert!(super::super::KEYS.contains(&key), "{key}");
    }
}
