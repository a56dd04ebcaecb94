//! `InsertField`'s tests, from Kafka Connect's `InsertFieldTest` and its documentation.

use std::sync::Arc;

use super::*;
use crate::smt::test_support::{build, map, null, problems, record, typed};

const ALL: &[(&str, &str)] = &[
    ("topic.field", "topic_field!"),
    ("partition.field", "partition_field"),
    ("timestamp.field", "timestamp_field?"),
    ("static.field", "instance_id"),
    ("static.value", "my-instance-id"),
];

fn simple_schema() -> Arc<Schema> {
    Arc::new(Schema {
        version: Some(1),
        doc: Some("doc".into()),
        ..Schema::structure().named("name").with_field("magic", plain(Type::Int64, true))
    })
}

fn simple(magic: Value) -> SchemaAndValue {
    let schema = simple_schema();
    SchemaAndValue::new(schema.clone(), Value::Struct(Struct { schema, values: vec![magic] }))
}

fn value_after(props: &[(&str, &str)], value: SchemaAndValue) -> Result<SchemaAndValue, String> {
    let mut t = build("InsertField$Value", props).unwrap();
    let out = t.apply(record(null(), value)).map_err(|e| e.message)?.unwrap();
    Ok(typed(out.value))
}

#[test]
fn top_level_struct_required() {
    let err = value_after(
        &[("topic.field", "topic_field")],
        SchemaAndValue::new(plain(Type::Int32, false), Value::Int32(42)),
    );
    assert_eq!(
        err.unwrap_err(),
        "Only Struct objects supported for [field insertion], found: java.lang.Integer"
    );
    let err = value_after(&[("topic.field", "t")], SchemaAndValue::schemaless(Value::Int64(42)));
    assert_eq!(
        err.unwrap_err(),
        "Only Map objects supported in absence of schema for [field insertion], found: java.lang.Long"
    );
}

#[test]
fn copies_the_schema_and_inserts_the_configured_fields() {
    let mut t = build("InsertField$Value", ALL).unwrap();
    let out = t.apply(record(null(), simple(Value::Int64(42)))).unwrap().unwrap();
    let out = typed(out.value);
    let expected_schema = Schema {
        version: Some(1),
        doc: Some("doc".into()),
        ..Schema::structure()
            .named("name")
            .with_field("magic", plain(Type::Int64, true))
            .with_field("topic_field", plain(Type::String, false))
            .with_field("partition_field", plain(Type::Int32, true))
            .with_field("timestamp_field", timestamp_schema(true))
            .with_field("instance_id", plain(Type::String, true))
    };
    let schema = out.schema.clone().unwrap();
    assert_eq!(*schema, expected_schema);
    let Value::Struct(s) = out.value else { panic!("a struct") };
    assert_eq!(
        s.values,
        [
            Value::Int64(42),
            Value::String("test".into()),
            Value::Int32(0),
            Value::Int64(789),
            Value::String("my-instance-id".into()),
        ]
    );
    // The updated schema is cached per input schema.
    let out2 = t.apply(record(null(), simple(Value::Null))).unwrap().unwrap();
    assert!(Arc::ptr_eq(&typed(out2.value).schema.unwrap(), &schema));
}

#[test]
fn schemaless_inserts_into_the_map() {
    let value = SchemaAndValue::schemaless(map(&[("magic", Value::Int64(42))]));
    let out = value_after(ALL, value).unwrap();
    let expected = map(&[
        ("magic", Value::Int64(42)),
        ("topic_field", Value::String("test".into())),
        ("partition_field", Value::Int32(0)),
        ("timestamp_field", Value::Int64(789)),
        ("instance_id", Value::String("my-instance-id".into())),
    ]);
    assert_eq!(out, SchemaAndValue::schemaless(expected));
    // An existing entry is overwritten, as `HashMap.put` does.
    let value = SchemaAndValue::schemaless(map(&[("t", Value::Int64(1))]));
    let out = value_after(&[("topic.field", "t")], value).unwrap();
    assert_eq!(out.value, map(&[("t", Value::String("test".into()))]));
}

#[test]
fn tombstones_are_left_unchanged() {
    assert_eq!(value_after(ALL, null()).unwrap(), null());
    let schema = simple_schema();
    let tombstone = SchemaAndValue::new(schema, Value::Null);
    assert_eq!(value_after(ALL, tombstone.clone()).unwrap(), tombstone);
    let raw = Record { value: Data::raw(Kind::Json, None), ..record(null(), null()) };
    let mut t = build("InsertField$Value", ALL).unwrap();
    assert_eq!(t.apply(raw.clone()).unwrap().unwrap(), raw);
}

#[test]
fn key_fields_go_into_the_key_only() {
    let mut t = build("InsertField$Key", ALL).unwrap();
    let key = SchemaAndValue::schemaless(map(&[("magic", Value::Int64(42))]));
    let rec = Record { timestamp: None, ..record(key, null()) };
    let out = t.apply(rec).unwrap().unwrap();
    let expected = map(&[
        ("magic", Value::Int64(42)),
        ("topic_field", Value::String("test".into())),
        ("partition_field", Value::Int32(0)),
        ("instance_id", Value::String("my-instance-id".into())),
    ]);
    assert_eq!(typed(out.key).value, expected, "no timestamp, no timestamp field");
    assert_eq!(typed(out.value), null());
    // A null key leaves the record as it is.
    let rec = record(null(), SchemaAndValue::schemaless(map(&[])));
    assert_eq!(t.apply(rec.clone()).unwrap().unwrap(), rec);
}

#[test]
fn replace_null_with_default_decides_how_fields_are_copied() {
    let with_default = Arc::new(Schema {
        default: Some(Value::Int64(123)),
        ..Schema::new(Type::Int64).optional()
    });
    let schema = Arc::new(Schema::structure().with_field("magic_with_default", with_default));
    let value = SchemaAndValue::new(
        schema.clone(),
        Value::Struct(Struct { schema, values: vec![Value::Null] }),
    );
    for (setting, expected) in [("true", Value::Int64(123)), ("false", Value::Null)] {
        let props = [("topic.field", "t"), ("replace.null.with.default", setting)];
        let Value::Struct(s) = value_after(&props, value.clone()).unwrap().value else { panic!() };
        assert_eq!(s.values[0], expected, "replace.null.with.default={setting}");
    }
}

#[test]
fn schema_rebuilding_follows_kafka_connects_builder() {
    // The copy keeps name, version, doc and parameters but not optionality: an optional
    // input struct gives a required one.
    let optional =
        Arc::new(Schema::structure().with_field("a", plain(Type::Int8, false)).optional());
    let value = SchemaAndValue::new(
        optional.clone(),
        Value::Struct(Struct { schema: optional, values: vec![Value::Int8(1)] }),
    );
    let out = value_after(&[("topic.field", "t")], value.clone()).unwrap();
    assert!(!out.schema.unwrap().optional);
    // A field that exists already cannot be added again.
    let err = value_after(&[("topic.field", "a")], value.clone()).unwrap_err();
    assert_eq!(err, "Cannot create field because of field name duplication a");
    // `!` alone names the empty field, which a struct cannot have.
    let err = value_after(&[("topic.field", "!")], value.clone()).unwrap_err();
    assert_eq!(err, "fieldName cannot be null.");
    // A required partition field with no partition stays null: Kafka Connect does not
    // check it here (the converter will).
    let mut t = build("InsertField$Value", &[("partition.field", "p!")]).unwrap();
    let rec = Record { partition: None, ..record(null(), value) };
    let Value::Struct(s) = typed(t.apply(rec).unwrap().unwrap().value).value else { panic!() };
    assert_eq!(s.values, [Value::Int8(1), Value::Null]);
}

#[test]
fn offset_needs_a_sink_record() {
    // Kafka Connect's docs say the offset field applies to sink connectors; its code fails
    // every other record. A source record has no offset.
    let err = value_after(&[("offset.field", "o")], SchemaAndValue::schemaless(map(&[])));
    assert_eq!(
        err.unwrap_err(),
        "Only SinkRecord supported for [field insertion], found: \
         org.apache.kafka.connect.source.SourceRecord"
    );
    // A sink record's offset goes in as an INT64.
    let mut t = build("InsertField$Value", &[("offset.field", "o")]).unwrap();
    let sink = Record { offset: Some(42), ..record(null(), SchemaAndValue::schemaless(map(&[]))) };
    let out = typed(t.apply(sink).unwrap().unwrap().value);
    assert_eq!(out.value.map_get("o"), Some(&Value::Int64(42)));
}

#[test]
fn config_problems() {
    assert_eq!(problems("InsertField$Value", &[]), ["No field insertion configured"]);
    assert_eq!(
        problems("InsertField$Key", &[("static.field", "s")]),
        ["Invalid value null for configuration transforms.t.static.value: No value specified \
          for static field: s"]
    );
    assert_eq!(
        problems("InsertField$Key", &[("topic.field", "t"), ("replace.null.with.default", "x")]),
        ["Invalid value x for configuration transforms.t.replace.null.with.default: Expected \
          value to be either true or false"]
    );
}
