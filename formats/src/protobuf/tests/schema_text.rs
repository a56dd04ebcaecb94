//! Connect → `.proto` text, as `ProtobufData.fromConnectSchema` writes it.

use std::sync::Arc;

use super::support::{format, format_with, plain, record, round_trip};
use crate::protobuf::Options;
use crate::{Format, FormatError, Schema, Value};
use wasm_connect_transforms::data::{DATE, DECIMAL, TIME, TIMESTAMP, Type};

fn text(format: &dyn Format, schema: Schema) -> String {
    format.writer(&Arc::new(schema)).unwrap().registry_schema().text.clone()
}

#[test]
fn every_type_and_logical_type() {
    let mut decimal = Schema::new(Type::Bytes).named(DECIMAL);
    decimal.parameters.push(("scale".into(), "2".into()));
    decimal.parameters.push(("connect.decimal.precision".into(), "10".into()));
    let schema = Schema::structure()
        .named("com.example.Order")
        .with_field("i8", plain(Type::Int8))
        .with_field("i16", plain(Type::Int16))
        .with_field("i32", plain(Type::Int32))
        .with_field("i64", plain(Type::Int64))
        .with_field("f32", plain(Type::Float32))
        .with_field("f64", plain(Type::Float64))
        .with_field("flag", plain(Type::Boolean))
        .with_field("name", Arc::new(Schema::new(Type::String).optional()))
        .with_field("raw", plain(Type::Bytes))
        .with_field("amount", Arc::new(decimal))
        .with_field("day", Arc::new(Schema::new(Type::Int32).named(DATE)))
        .with_field("at", Arc::new(Schema::new(Type::Int32).named(TIME)))
        .with_field("ts", Arc::new(Schema::new(Type::Int64).named(TIMESTAMP)))
        .with_field("list", Arc::new(Schema::array(plain(Type::String))))
        .with_field("tags", Arc::new(Schema::map(plain(Type::String), plain(Type::Int32))));
    let expected = r#"syntax = "proto3";
package com.example;

import "confluent/meta.proto";
import "confluent/type/decimal.proto";
import "google/type/date.proto";
import "google/type/timeofday.proto";
import "google/protobuf/timestamp.proto";

message Order {
  int32 i8 = 1 [(confluent.field_meta) = { params: [{ key: "connect.type", value: "int8" }] }];
  int32 i16 = 2 [(confluent.field_meta) = { params: [{ key: "connect.type", value: "int16" }] }];
  int32 i32 = 3;
  int64 i64 = 4;
  float f32 = 5;
  double f64 = 6;
  bool flag = 7;
  string name = 8;
  bytes raw = 9;
  confluent.type.Decimal amount = 10 [(confluent.field_meta) = { params: [{ key: "precision", value: "10" }, { key: "scale", value: "2" }] }];
  google.type.Date day = 11;
  google.type.TimeOfDay at = 12;
  google.protobuf.Timestamp ts = 13;
  repeated string list = 14;
  repeated ConnectDefault1Entry tags = 15;
  message ConnectDefault1Entry {
    string key = 1;
    int32 value = 2;
  }
}
"#;
    assert_eq!(text(&format(), schema), expected);
}

#[test]
fn unnamed_structs_nested_structs_and_tags() {
    let inner = Arc::new(Schema::structure().named("a.b.Item").with_field("x", plain(Type::Int32)));
    let mut tagged = Schema::new(Type::String);
    tagged.parameters.push(("io.confluent.connect.protobuf.Tag".into(), "7".into()));
    let other =
        Arc::new(Schema::structure().named("a.b.Other").with_field("y", plain(Type::Int64)));
    let schema = Schema::structure()
        .with_field("Item", inner)
        .with_field("other", other.clone())
        .with_field("again", other)
        .with_field("tagged", Arc::new(tagged))
        .with_field("after", plain(Type::Boolean));
    // The field named like its message type gets a `Message` suffix on the type; the second
    // use of the same message type reuses the first nested definition.
    let expected = r#"syntax = "proto3";

message ConnectDefault1 {
  ItemMessage Item = 1;
  Other other = 2;
  Other again = 3;
  string tagged = 7;
  bool after = 4;
  message ItemMessage {
    int32 x = 1;
  }
  message Other {
    int64 y = 1;
  }
}
"#;
    assert_eq!(text(&format(), schema), expected);
}

#[test]
fn wrapper_and_optional_for_nullables() {
    let schema = Schema::structure()
        .named("N")
        .with_field("s", Arc::new(Schema::new(Type::String).optional()))
        .with_field("n", Arc::new(Schema::new(Type::Int64).optional()))
        .with_field("r", plain(Type::Int32));
    let wrappers = Options { wrapper_for_nullables: true, ..Options::default() };
    let expected = r#"syntax = "proto3";

import "google/protobuf/wrappers.proto";

message N {
  google.protobuf.StringValue s = 1;
  google.protobuf.Int64Value n = 2;
  int32 r = 3;
}
"#;
    assert_eq!(text(&format_with(wrappers), schema.clone()), expected);
    let optional = Options { optional_for_nullables: true, ..Options::default() };
    let expected = r#"syntax = "proto3";

message N {
  optional string s = 1;
  optional int64 n = 2;
  int32 r = 3;
}
"#;
    assert_eq!(text(&format_with(optional), schema.clone()), expected);
    // With wrappers a null stays null on the way back; without, it reads as the default.
    let schema = Arc::new(schema);
    let value = record(&schema, vec![Value::Null, Value::Int64(3), Value::Int32(0)]);
    let (payload, read) = round_trip(&format_with(wrappers), &schema, &value);
    assert_eq!(payload, [0x12, 0x02, 0x08, 0x03]);
    let Value::Struct(read) = read.value else { panic!("not a struct") };
    assert_eq!(read.values, [Value::Null, Value::Int64(3), Value::Int32(0)]);
    let (_, read) = round_trip(&format_with(optional), &schema, &value);
    let Value::Struct(read) = read.value else { panic!("not a struct") };
    assert_eq!(read.values, [Value::Null, Value::Int64(3), Value::Int32(0)]);
    let (_, read) = round_trip(&format(), &schema, &value);
    let Value::Struct(read) = read.value else { panic!("not a struct") };
    assert_eq!(read.values, [Value::String(String::new()), Value::Int64(3), Value::Int32(0)]);
}

#[test]
fn unions_and_enums_from_a_read_schema_write_back_the_same_text() {
    let original = r#"syntax = "proto3";
package shop;

message Event {
  Kind kind = 1;
  oneof payload {
    string text = 2;
    int64 number = 3;
  }
  enum Kind {
    UNKNOWN = 0;
    CREATED = 1;
  }
}
"#;
    let reader = format().reader(&super::support::proto(original)).unwrap();
    let schema = reader.connect_schema().clone();
    let written = format().writer(&schema).unwrap();
    let expected = r#"syntax = "proto3";

message Event {
  Kind kind = 1;
  oneof payload {
    string text = 2;
    int64 number = 3;
  }
  enum Kind {
    UNKNOWN = 0;
    CREATED = 1;
  }
}
"#;
    // The package is gone: without enhanced support the Connect name is the simple name.
    assert_eq!(written.registry_schema().text, expected);
    // Bytes read with the original schema write back the same.
    let payload = [0x08, 0x01, 0x18, 0x07];
    let read = reader.decode(&[], &payload).unwrap();
    assert_eq!(written.encode(&read.value).unwrap().payload, payload);
}

#[test]
fn scrubbed_names() {
    let schema =
        Schema::structure().named("my-ns.my rec").with_field("1st-field", plain(Type::Int32));
    let options = Options { scrub_invalid_names: true, ..Options::default() };
    let expected =
        "syntax = \"proto3\";\npackage my_ns;\n\nmessage my_rec {\n  int32 x1st_field = 1;\n}\n";
    assert_eq!(text(&format_with(options), schema.clone()), expected);
    let err = format().writer(&Arc::new(schema)).err().expect("an invalid name");
    assert!(matches!(err, FormatError::Schema(_)), "{err:?}");
}

#[test]
fn a_root_array_or_map_is_refused() {
    let map = Schema::map(plain(Type::String), plain(Type::Int32));
    for schema in [Schema::array(plain(Type::Int32)), map] {
        let err = format().writer(&Arc::new(schema)).err().expect("refused");
        assert!(matches!(err, FormatError::Schema(m) if m.starts_with("Unsupported root schema")));
    }
    let nested = Schema::structure()
        .with_field("a", Arc::new(Schema::array(Arc::new(Schema::array(plain(Type::Int32))))));
    assert_eq!(
        format().writer(&Arc::new(nested)).err(),
        Some(FormatError::Schema("Array cannot be nested".into()))
    );
}

#[test]
fn a_root_primitive_is_its_wrapper_message() {
    // StringValue is message 7 and Int32Value message 4 of google/protobuf/wrappers.proto.
    let writer = format().writer(&plain(Type::String)).unwrap();
    assert!(writer.registry_schema().text.contains("package google.protobuf;"));
    assert_eq!(writer.record_name(), Some("google.protobuf.StringValue"));
    let encoded = writer.encode(&Value::String("hi".into())).unwrap();
    assert_eq!(
        (encoded.message_indexes.as_slice(), encoded.payload.as_slice()),
        (&[7][..], &[0x0a, 0x02, 0x68, 0x69][..])
    );
    let reader = format().reader(writer.registry_schema()).unwrap();
    let read = reader.decode(&[7], &encoded.payload).unwrap();
    assert_eq!(read.value, Value::String("hi".into()));
    assert_eq!(*read.schema.unwrap(), Schema::new(Type::String));

    let writer = format().writer(&plain(Type::Int8)).unwrap();
    let encoded = writer.encode(&Value::Int8(-2)).unwrap();
    assert_eq!(encoded.message_indexes, [4]);
    let read = reader.decode(&encoded.message_indexes, &encoded.payload).unwrap();
    assert_eq!(read.value, Value::Int32(-2));
    // The same through a writer for the registered file.
    let registered = writer.registry_schema().clone();
    let again = format().writer_for(&registered, &plain(Type::Int64)).unwrap();
    assert_eq!(again.encode(&Value::Int64(1)).unwrap().message_indexes, [2]);
}
