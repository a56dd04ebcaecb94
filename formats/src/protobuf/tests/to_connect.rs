//! Registered `.proto` files → Connect, as `ProtobufData.toConnectSchema` reads them,
//! for files written by hand the way other producers write them (no `connect.*` options).

use std::sync::Arc;

use super::support::{format, format_with, proto};
use crate::protobuf::Options;
use crate::{Format, FormatError, Schema, Value};
use wasm_connect_transforms::data::{Struct, TIMESTAMP, Type};

const CUSTOMER: &str = r#"
syntax = "proto3";
package acme.v1;

import "google/protobuf/timestamp.proto";
import "google/protobuf/wrappers.proto";

message Customer {
  uint32 id = 1;
  sint64 delta = 2;
  fixed64 big = 3;
  Status status = 4;
  repeated string emails = 5;
  map<string, int32> scores = 6;
  google.protobuf.Timestamp created = 7;
  google.protobuf.StringValue nickname = 8;
  Address address = 9;
  oneof contact {
    string phone = 10;
    string fax = 11;
  }
  optional string note = 12;

  message Address {
    string city = 1;
  }
  enum Status {
    ACTIVE = 0;
    INACTIVE = 1;
  }
}

message Other {
  int32 x = 1;
}
"#;

const TAG: &str = "io.confluent.connect.protobuf.Tag";

fn tagged(mut schema: Schema, tag: u32) -> Arc<Schema> {
    schema.optional = true;
    schema.parameters.push((TAG.into(), tag.to_string()));
    Arc::new(schema)
}

fn with_params(mut schema: Schema, params: &[(&str, &str)]) -> Schema {
    schema.parameters.extend(params.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    schema
}

fn expected_customer() -> Schema {
    let union = Schema::structure()
        .named("io.confluent.connect.protobuf.Union.contact")
        .optional()
        .with_field("phone", tagged(Schema::new(Type::String), 10))
        .with_field("fax", tagged(Schema::new(Type::String), 11));
    let status = with_params(
        Schema::new(Type::String).named("Status"),
        &[
            ("io.confluent.connect.protobuf.Enum", "Status"),
            ("io.confluent.connect.protobuf.Enum.ACTIVE", "0"),
            ("io.confluent.connect.protobuf.Enum.INACTIVE", "1"),
        ],
    );
    let scores =
        Schema::map(tagged(Schema::new(Type::String), 1), tagged(Schema::new(Type::Int32), 2))
            .named("scores");
    let mut created = Schema::new(Type::Int64).named(TIMESTAMP);
    created.version = Some(1);
    let type_param = |ty: &str| {
        with_params(Schema::new(Type::Int64), &[("io.confluent.connect.protobuf.Type", ty)])
    };
    Schema::structure()
        .named("Customer")
        .with_field("contact_0", Arc::new(union))
        .with_field("id", tagged(type_param("uint32"), 1))
        .with_field("delta", tagged(type_param("sint64"), 2))
        .with_field("big", tagged(type_param("fixed64"), 3))
        .with_field("status", tagged(status, 4))
        .with_field(
            "emails",
            tagged(Schema::array(Arc::new(Schema::new(Type::String).optional())), 5),
        )
        .with_field("scores", tagged(scores, 6))
        .with_field("created", tagged(created, 7))
        .with_field(
            "nickname",
            tagged(
                Schema::structure()
                    .named("StringValue")
                    .with_field("value", tagged(Schema::new(Type::String), 1)),
                8,
            ),
        )
        .with_field(
            "address",
            tagged(
                Schema::structure()
                    .named("Address")
                    .with_field("city", tagged(Schema::new(Type::String), 1)),
                9,
            ),
        )
        .with_field("note", tagged(Schema::new(Type::String), 12))
}

#[test]
fn a_hand_written_file_reads_as_protobuf_data_maps_it() {
    let reader = format().reader(&proto(CUSTOMER)).unwrap();
    assert_eq!(**reader.connect_schema(), expected_customer());
}

#[test]
fn values_of_a_hand_written_file() {
    let reader = format().reader(&proto(CUSTOMER)).unwrap();
    // id=1, status=INACTIVE, emails=["a"], scores={"x": 2}, nickname="n", phone="5".
    let payload = [
        0x08, 0x01, 0x20, 0x01, 0x2a, 0x01, 0x61, 0x32, 0x05, 0x0a, 0x01, 0x78, 0x10, 0x02, 0x42,
        0x03, 0x0a, 0x01, 0x6e, 0x52, 0x01, 0x35,
    ];
    let read = reader.decode(&[], &payload).unwrap();
    let schema = read.schema.clone().unwrap();
    let Value::Struct(value) = read.value else { panic!("not a struct") };
    let union_schema = schema.fields[0].schema.clone();
    let nickname_schema = schema.fields[8].schema.clone();
    let expected = vec![
        Value::Struct(Struct {
            schema: union_schema,
            values: vec![Value::String("5".into()), Value::Null],
        }),
        Value::Int64(1),
        Value::Int64(0),
        Value::Int64(0),
        Value::String("INACTIVE".into()),
        Value::Array(vec![Value::String("a".into())]),
        Value::Map(vec![(Value::String("x".into()), Value::Int32(2))]),
        Value::Null,
        Value::Struct(Struct { schema: nickname_schema, values: vec![Value::String("n".into())] }),
        Value::Null,
        Value::Null,
    ];
    assert_eq!(value.values, expected);
    // Written back with a writer for the registered file, the bytes are the same.
    let writer = format().writer_for(&proto(CUSTOMER), &schema).unwrap();
    let encoded = writer.encode(&Value::Struct(value)).unwrap();
    assert_eq!(encoded.payload, payload);
    assert!(encoded.message_indexes.is_empty());
    assert_eq!(writer.record_name(), Some("acme.v1.Customer"));
}

#[test]
fn message_indexes_select_the_message() {
    let reader = format().reader(&proto(CUSTOMER)).unwrap();
    let read = reader.decode(&[1], &[0x08, 0x05]).unwrap();
    let schema = read.schema.unwrap();
    assert_eq!(schema.name.as_deref(), Some("Other"));
    let Value::Struct(value) = read.value else { panic!("not a struct") };
    assert_eq!(value.values, [Value::Int32(5)]);
    // The nested Address is message 0 of message 0.
    let read = reader.decode(&[0, 0], &[0x0a, 0x01, 0x62]).unwrap();
    assert_eq!(read.schema.unwrap().name.as_deref(), Some("Address"));
    let err = reader.decode(&[2], &[]).unwrap_err();
    assert!(matches!(err, FormatError::Decode(_)), "{err:?}");
    // A writer for the second message frames its index.
    let other =
        format().reader(&proto(CUSTOMER)).unwrap().decode(&[1], &[]).unwrap().schema.unwrap();
    let writer = format().writer_for(&proto(CUSTOMER), &other).unwrap();
    assert_eq!(
        writer
            .encode(&Value::Struct(Struct::new(other).with(0, Value::Int32(5))))
            .unwrap()
            .message_indexes,
        [1]
    );
}

trait With {
    fn with(self, index: usize, value: Value) -> Self;
}

impl With for Struct {
    fn with(mut self, index: usize, value: Value) -> Self {
        self.values[index] = value;
        self
    }
}

#[test]
fn settings_change_the_read_schema() {
    let wrappers = format_with(Options { wrapper_for_nullables: true, ..Options::default() });
    let schema = wrappers.reader(&proto(CUSTOMER)).unwrap().connect_schema().clone();
    let nickname = &schema.field("nickname").unwrap().schema;
    assert_eq!((nickname.ty, nickname.optional), (Type::String, true));
    assert!(!schema.field("id").unwrap().schema.optional);
    assert!(schema.field("status").unwrap().schema.optional);

    let ints = format_with(Options { int_for_enums: true, ..Options::default() });
    let reader = ints.reader(&proto(CUSTOMER)).unwrap();
    assert_eq!(reader.connect_schema().field("status").unwrap().schema.ty, Type::Int32);
    let Value::Struct(value) = reader.decode(&[], &[0x20, 0x01]).unwrap().value else { panic!() };
    assert_eq!(value.values[4], Value::Int32(1));

    let enhanced = format_with(Options {
        enhanced: true,
        generate_index_for_unions: false,
        ..Options::default()
    });
    let schema = enhanced.reader(&proto(CUSTOMER)).unwrap().connect_schema().clone();
    assert_eq!(schema.name.as_deref(), Some("acme.v1.Customer"));
    assert_eq!(
        schema.field("contact").unwrap().schema.name.as_deref(),
        Some("io.confluent.connect.protobuf.Union.acme.v1.Customer.contact")
    );
    assert_eq!(
        schema.field("status").unwrap().schema.name.as_deref(),
        Some("acme.v1.Customer.Status")
    );
    assert_eq!(
        schema.field("scores").unwrap().schema.name.as_deref(),
        Some("acme.v1.Customer.scores")
    );

    let optional = format_with(Options { optional_for_nullables: true, ..Options::default() });
    let schema = optional.reader(&proto(CUSTOMER)).unwrap().connect_schema().clone();
    assert!(schema.field("note").unwrap().schema.optional);
    assert!(!schema.field("id").unwrap().schema.optional);
}

#[test]
fn proto2_optional_fields_read_as_null_when_absent() {
    let text = "syntax = \"proto2\";\nmessage P {\n  required int32 a = 1;\n  optional string b = 2;\n  optional int32 c = 3 [default = 7];\n  repeated int32 d = 4;\n}\n";
    let reader = format().reader(&proto(text)).unwrap();
    let Value::Struct(value) = reader.decode(&[], &[0x08, 0x01]).unwrap().value else { panic!() };
    assert_eq!(value.values, [Value::Int32(1), Value::Null, Value::Null, Value::Array(vec![])]);
}

#[test]
fn a_top_level_wrapper_reads_as_its_primitive() {
    let text = "syntax = \"proto3\";\npackage google.protobuf;\nmessage StringValue {\n  string value = 1;\n}\n";
    let reader = format().reader(&proto(text)).unwrap();
    assert_eq!(**reader.connect_schema(), Schema::new(Type::String));
    let read = reader.decode(&[], &[0x0a, 0x02, 0x68, 0x69]).unwrap();
    assert_eq!(read.value, Value::String("hi".into()));
}

#[test]
fn schemas_that_cannot_be_read() {
    let recursive = "syntax = \"proto3\";\nmessage Node {\n  Node next = 1;\n}\n";
    let unknown_import =
        "syntax = \"proto3\";\nimport \"other/thing.proto\";\nmessage A {\n  int32 x = 1;\n}\n";
    let clash = "syntax = \"proto3\";\nmessage A {\n  oneof u {\n    int32 x = 1;\n  }\n  int32 u_0 = 2;\n}\n";
    for text in [recursive, unknown_import, clash, "not a proto file", "syntax = \"proto3\";\n"] {
        let err = format().reader(&proto(text)).err().expect("refused");
        assert!(matches!(err, FormatError::RegisteredSchema(_)), "{text}: {err:?}");
    }
    let avro =
        crate::RegistrySchema { schema_type: crate::SchemaType::Avro, text: "\"int\"".into() };
    assert!(matches!(format().reader(&avro).err(), Some(FormatError::RegisteredSchema(_))));
}

#[test]
fn a_read_schema_written_and_read_again_is_the_same() {
    let first = format().reader(&proto(CUSTOMER)).unwrap().connect_schema().clone();
    let writer = format().writer(&first).unwrap();
    let second = format().reader(writer.registry_schema()).unwrap().connect_schema().clone();
    assert_eq!(first, second);
    assert!(writer.registry_schema().text.contains("  uint32 id = 1;\n"));
    // With full names the package survives the trip too.
    let enhanced = format_with(Options { enhanced: true, ..Options::default() });
    let first = enhanced.reader(&proto(CUSTOMER)).unwrap().connect_schema().clone();
    let writer = enhanced.writer(&first).unwrap();
    assert!(writer.registry_schema().text.starts_with("syntax = \"proto3\";\npackage acme.v1;\n"));
    let second = enhanced.reader(writer.registry_schema()).unwrap().connect_schema().clone();
    // All but the wrapper read as a STRUCT, which comes back as a nested message (as
    // ProtobufData writes it): `google.protobuf.StringValue` becomes
    // `acme.v1.Customer.StringValue`.
    let nickname = |s: &Schema| s.field("nickname").unwrap().schema.name.clone();
    assert_eq!(nickname(&first).as_deref(), Some("google.protobuf.StringValue"));
    assert_eq!(nickname(&second).as_deref(), Some("acme.v1.Customer.StringValue"));
    let others =
        |s: &Schema| s.fields.iter().filter(|f| f.name != "nickname").cloned().collect::<Vec<_>>();
    assert_eq!(others(&first), others(&second));
    assert!(writer.registry_schema().text.contains("  sint64 delta = 2;\n"));
}

#[test]
fn a_writer_for_a_registered_schema_needs_every_field() {
    let extra = Arc::new(
        Schema::structure()
            .named("Other")
            .with_field("x", Arc::new(Schema::new(Type::Int32)))
            .with_field("y", Arc::new(Schema::new(Type::Int32))),
    );
    let err = format().writer_for(&proto(CUSTOMER), &extra).err().expect("refused");
    assert_eq!(err, FormatError::Schema("Cannot find field with name y in acme.v1.Other".into()));
    let wrong_type = Arc::new(
        Schema::structure().named("Other").with_field("x", Arc::new(Schema::new(Type::String))),
    );
    assert!(matches!(
        format().writer_for(&proto(CUSTOMER), &wrong_type),
        Err(FormatError::Schema(_))
    ));
}
