//! Values both ways: byte vectors from the protobuf encoding guide and Confluent's types,
//! and round trips of every Connect type through the generated schema.

use std::sync::Arc;

use super::support::{format, hex, plain, proto, record, round_trip};
use crate::{Format, Schema, Value};
use wasm_connect_transforms::data::{DATE, DECIMAL, TIME, TIMESTAMP, Type};

fn one_field(name: &str, schema: Arc<Schema>) -> Arc<Schema> {
    Arc::new(Schema::structure().named("Test").with_field(name, schema))
}

fn struct_values(value: &Value) -> &[Value] {
    match value {
        Value::Struct(s) => &s.values,
        other => panic!("not a struct: {other:?}"),
    }
}

#[test]
fn encoding_guide_examples() {
    // "message Test1 { int32 a = 1; }" with a = 150 is 08 96 01.
    let schema = one_field("a", plain(Type::Int32));
    let (payload, read) = round_trip(&format(), &schema, &record(&schema, vec![Value::Int32(150)]));
    assert_eq!(hex(&payload), "089601");
    assert_eq!(struct_values(&read.value), [Value::Int32(150)]);
    // "message Test2 { string b = 2; }" with b = "testing": 12 07 74 65 73 74 69 6e 67.
    let reader =
        format().reader(&proto("syntax = \"proto3\"; message Test2 { string b = 2; }")).unwrap();
    let read = reader.decode(&[], &[0x12, 0x07, 0x74, 0x65, 0x73, 0x74, 0x69, 0x6e, 0x67]).unwrap();
    assert_eq!(struct_values(&read.value), [Value::String("testing".into())]);
}

#[test]
fn order_id_and_sku() {
    // Tag 1 varint 42 (08 2a), tag 2 length-delimited "abc" (12 03 61 62 63).
    let schema = Arc::new(
        Schema::structure()
            .named("t3.Order")
            .with_field("id", plain(Type::Int32))
            .with_field("sku", plain(Type::String)),
    );
    let value = record(&schema, vec![Value::Int32(42), Value::String("abc".into())]);
    let writer = format().writer(&schema).unwrap();
    let encoded = writer.encode(&value).unwrap();
    assert_eq!(hex(&encoded.payload), "082a1203616263");
    assert!(encoded.message_indexes.is_empty());
    assert_eq!(writer.record_name(), Some("t3.Order"));
}

#[test]
fn zero_and_empty_values_are_not_written() {
    let schema = Arc::new(
        Schema::structure()
            .with_field("n", plain(Type::Int64))
            .with_field("s", plain(Type::String))
            .with_field("list", Arc::new(Schema::array(plain(Type::Int32)))),
    );
    let value =
        record(&schema, vec![Value::Int64(0), Value::String(String::new()), Value::Array(vec![])]);
    let (payload, read) = round_trip(&format(), &schema, &value);
    assert!(payload.is_empty());
    // Unset proto3 scalars read as their defaults, not null.
    assert_eq!(struct_values(&read.value), struct_values(&value));
}

#[test]
fn integers_floats_and_packed_arrays() {
    let schema = Arc::new(
        Schema::structure()
            .with_field("a", plain(Type::Int8))
            .with_field("b", plain(Type::Int16))
            .with_field("c", plain(Type::Int64))
            .with_field("d", plain(Type::Float32))
            .with_field("e", plain(Type::Float64))
            .with_field("f", plain(Type::Boolean))
            .with_field("g", plain(Type::Bytes))
            .with_field("h", Arc::new(Schema::array(plain(Type::Int32)))),
    );
    let value = record(
        &schema,
        vec![
            Value::Int8(-1),
            Value::Int16(300),
            Value::Int64(1),
            Value::Float32(1.0),
            Value::Float64(-2.0),
            Value::Boolean(true),
            Value::Bytes(vec![0xde, 0xad]),
            Value::Array(vec![Value::Int32(1), Value::Int32(2), Value::Int32(3)]),
        ],
    );
    let (payload, read) = round_trip(&format(), &schema, &value);
    // Tags are (field << 3) | wire type: int32 -1 is a ten-byte varint; 300 is ac 02; 1.0f
    // is 0000803f (fixed32, wire type 5); -2.0 is 00000000000000c0 (fixed64, wire type 1);
    // proto3 packs repeated scalars: 42 03 01 02 03.
    let expected = "08ffffffffffffffffff01".to_owned()
        + "10ac02"
        + "1801"
        + "250000803f"
        + "2900000000000000c0"
        + "3001"
        + "3a02dead"
        + "4203010203";
    assert_eq!(hex(&payload), expected);
    assert_eq!(struct_values(&read.value), struct_values(&value));
}

#[test]
fn logical_types() {
    let mut decimal = Schema::new(Type::Bytes).named(DECIMAL);
    decimal.version = Some(1);
    decimal.parameters.push(("scale".into(), "2".into()));
    let schema = Arc::new(
        Schema::structure()
            .with_field("amount", Arc::new(decimal))
            .with_field("day", Arc::new(Schema::new(Type::Int32).named(DATE)))
            .with_field("at", Arc::new(Schema::new(Type::Int32).named(TIME)))
            .with_field("ts", Arc::new(Schema::new(Type::Int64).named(TIMESTAMP))),
    );
    let value = record(
        &schema,
        vec![
            // 12.34: unscaled 1234 = 04 d2, with a redundant sign byte to drop.
            Value::Bytes(vec![0x00, 0x04, 0xd2]),
            Value::Int32(19782),    // 2024-02-29
            Value::Int32(49530250), // 13:45:30.250
            Value::Int64(1_500),    // 1 s and 500 000 000 ns
        ],
    );
    let (payload, read) = round_trip(&format(), &schema, &value);
    let decimal = "0a08".to_owned() + "0a0204d2" + "1004" + "1802";
    let date = "1207".to_owned() + "08e80f" + "1002" + "181d";
    let time = "1a0b".to_owned() + "080d" + "102d" + "181e" + "2080e59a77";
    let ts = "2208".to_owned() + "0801" + "1080cab5ee01";
    assert_eq!(hex(&payload), decimal + &date + &time + &ts);
    let values = struct_values(&read.value);
    assert_eq!(values[0], Value::Bytes(vec![0x04, 0xd2]));
    assert_eq!(&values[1..], &struct_values(&value)[1..]);
}

#[test]
fn negative_timestamps_and_dates_before_the_epoch() {
    let schema = Arc::new(
        Schema::structure()
            .with_field("day", Arc::new(Schema::new(Type::Int32).named(DATE)))
            .with_field("ts", Arc::new(Schema::new(Type::Int64).named(TIMESTAMP))),
    );
    let value = record(&schema, vec![Value::Int32(-1), Value::Int64(-1)]);
    let (payload, read) = round_trip(&format(), &schema, &value);
    // 1969-12-31; -1 ms is seconds -1 and nanos 999 000 000.
    let date = "0a07".to_owned() + "08b10f" + "100c" + "181f";
    let ts = "1211".to_owned() + "08ffffffffffffffffff01" + "10c08faedc03";
    assert_eq!(hex(&payload), date + &ts);
    assert_eq!(struct_values(&read.value), struct_values(&value));
}

#[test]
fn nested_structs_maps_and_nulls() {
    let inner =
        Arc::new(Schema::structure().named("Inner").with_field("x", plain(Type::Int32)).optional());
    let schema = Arc::new(
        Schema::structure()
            .named("Outer")
            .with_field("inner", inner.clone())
            .with_field("tags", Arc::new(Schema::map(plain(Type::String), plain(Type::String))))
            .with_field("by_id", Arc::new(Schema::map(plain(Type::Int64), inner.clone())))
            .with_field("missing", inner.clone()),
    );
    let inner_value = record(&inner, vec![Value::Int32(7)]);
    let value = record(
        &schema,
        vec![
            inner_value.clone(),
            Value::Map(vec![(Value::String("k".into()), Value::String("v".into()))]),
            Value::Map(vec![(Value::Int64(5), inner_value)]),
            Value::Null,
        ],
    );
    let (payload, read) = round_trip(&format(), &schema, &value);
    // inner: 0a 02 08 07; tags entry: 12 06 (0a 01 6b 12 01 76); by_id entry: 1a 06 (08 05 12 02 08 07).
    assert_eq!(
        hex(&payload),
        "0a020807".to_owned() + "12060a016b120176" + "1a060805120208 07".replace(' ', "").as_str()
    );
    let values = struct_values(&read.value);
    assert_eq!(struct_values(&values[0]), [Value::Int32(7)]);
    assert_eq!(values[1], Value::Map(vec![(Value::String("k".into()), Value::String("v".into()))]));
    let Value::Map(by_id) = &values[2] else { panic!("not a map") };
    assert_eq!(by_id[0].0, Value::Int64(5));
    assert_eq!(struct_values(&by_id[0].1), [Value::Int32(7)]);
    assert_eq!(values[3], Value::Null);
}

#[test]
fn a_null_field_with_a_default_writes_the_default() {
    let mut with_default = Schema::new(Type::Int32).optional();
    with_default.default = Some(Value::Int32(5));
    let schema = one_field("a", Arc::new(with_default));
    let (payload, _) = round_trip(&format(), &schema, &record(&schema, vec![Value::Null]));
    assert_eq!(hex(&payload), "0805");
}

#[test]
fn every_optional_primitive_reads_back_its_default_or_value() {
    for (ty, value) in [
        (Type::Int32, Value::Int32(-5)),
        (Type::Int64, Value::Int64(i64::MIN)),
        (Type::Float32, Value::Float32(f32::MAX)),
        (Type::Float64, Value::Float64(0.1)),
        (Type::Boolean, Value::Boolean(false)),
        (Type::String, Value::String("é".into())),
        (Type::Bytes, Value::Bytes(vec![0, 1, 2])),
    ] {
        let schema = one_field("v", Arc::new(Schema::new(ty).optional()));
        let (_, read) = round_trip(&format(), &schema, &record(&schema, vec![value.clone()]));
        assert_eq!(struct_values(&read.value), [value], "{ty:?}");
    }
}

#[test]
fn a_value_that_does_not_match_is_a_value_error() {
    let schema = one_field("a", plain(Type::Int32));
    let writer = format().writer(&schema).unwrap();
    let err = writer.encode(&record(&schema, vec![Value::String("x".into())])).unwrap_err();
    assert!(matches!(err, crate::FormatError::Value(_)), "{err:?}");
    let other = one_field("a", plain(Type::String));
    let err = writer.encode(&record(&other, vec![Value::String("x".into())])).unwrap_err();
    assert_eq!(err, crate::FormatError::Value("Mismatching struct schema".into()));
    assert!(matches!(writer.encode(&Value::Int32(1)), Err(crate::FormatError::Value(_))));
}
