//! Bad input never panics: truncated and garbage payloads are `Decode` errors, and
//! settings are parsed with Confluent's defaults.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::support::{format, plain, record};
use crate::protobuf::{KEYS, Options, ProtobufFormat};
use crate::{Format, FormatError, Schema, Settings, Value};
use wasm_connect_transforms::data::{DATE, DECIMAL, TIME, TIMESTAMP, Type};

fn everything() -> Arc<Schema> {
    let mut decimal = Schema::new(Type::Bytes).named(DECIMAL);
    decimal.parameters.push(("scale".into(), "0".into()));
    let inner = Arc::new(Schema::structure().named("In").with_field("s", plain(Type::String)));
    Arc::new(
        Schema::structure()
            .named("All")
            .with_field("a", plain(Type::Int32))
            .with_field("b", plain(Type::String))
            .with_field("c", Arc::new(Schema::array(plain(Type::Int64))))
            .with_field("d", Arc::new(Schema::map(plain(Type::String), inner.clone())))
            .with_field("e", inner)
            .with_field("f", Arc::new(decimal))
            .with_field("g", Arc::new(Schema::new(Type::Int32).named(DATE)))
            .with_field("h", Arc::new(Schema::new(Type::Int32).named(TIME)))
            .with_field("i", Arc::new(Schema::new(Type::Int64).named(TIMESTAMP))),
    )
}

#[test]
fn truncated_and_garbage_payloads_are_decode_errors() {
    let schema = everything();
    let inner = schema.field("e").unwrap().schema.clone();
    let value = record(
        &schema,
        vec![
            Value::Int32(-7),
            Value::String("hello".into()),
            Value::Array(vec![Value::Int64(1), Value::Int64(-1)]),
            Value::Map(vec![(
                Value::String("k".into()),
                record(&inner, vec![Value::String("v".into())]),
            )]),
            record(&inner, vec![Value::String("w".into())]),
            Value::Bytes(vec![0xff, 0x85]),
            Value::Int32(100),
            Value::Int32(1000),
            Value::Int64(123_456),
        ],
    );
    let writer = format().writer(&schema).unwrap();
    let payload = writer.encode(&value).unwrap().payload;
    let reader = format().reader(writer.registry_schema()).unwrap();
    assert!(reader.decode(&[], &payload).is_ok());
    for end in 0..payload.len() {
        // Any prefix either decodes (a field boundary) or is a Decode error.
        match reader.decode(&[], &payload[..end]) {
            Ok(_) | Err(FormatError::Decode(_)) => {}
            Err(other) => panic!("prefix {end}: {other:?}"),
        }
    }
    // A length that runs past the end, an invalid wire type, a bad varint, bad UTF-8.
    for bad in [
        &[0x12, 0x05, 0x61][..],
        &[0x0f],
        &[0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],
        &[0x12, 0x01, 0xff],
    ] {
        assert!(matches!(reader.decode(&[], bad), Err(FormatError::Decode(_))), "{bad:02x?}");
    }
    // Pseudo-random bytes (a fixed linear congruential sequence) never panic.
    let mut state: u32 = 12345;
    for len in 0..400 {
        let bytes: Vec<u8> = (0..len % 40)
            .map(|_| {
                state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                (state >> 16) as u8
            })
            .collect();
        let _ = reader.decode(&[], &bytes);
        let _ = reader.decode(&[0, 0], &bytes);
    }
}

#[test]
fn impossible_logical_values_are_decode_errors() {
    let schema = everything();
    let reader = format().reader(format().writer(&schema).unwrap().registry_schema()).unwrap();
    // g = Date with month 13; h = TimeOfDay with hours 25.
    let bad_date = [0x3a, 0x07, 0x08, 0xe8, 0x0f, 0x10, 0x0d, 0x18, 0x01];
    assert_eq!(
        reader.decode(&[], &bad_date).err(),
        Some(FormatError::Decode("Invalid date 2024-13-1".into()))
    );
    let bad_time = [0x42, 0x02, 0x08, 0x19];
    assert_eq!(
        reader.decode(&[], &bad_time).err(),
        Some(FormatError::Decode("Invalid time of day 25:0:0.0".into()))
    );
    // f = Decimal with scale 3 where the schema says 0.
    let bad_scale = [0x32, 0x05, 0x0a, 0x01, 0x01, 0x18, 0x03];
    assert!(matches!(reader.decode(&[], &bad_scale), Err(FormatError::Decode(_))));
}

#[test]
fn invalid_values_are_value_errors() {
    let schema = everything();
    let writer = format().writer(&schema).unwrap();
    let mut values = vec![Value::Null; 9];
    values[7] = Value::Int32(86_400_001);
    assert!(matches!(writer.encode(&record(&schema, values)), Err(FormatError::Value(_))));
    let mut values = vec![Value::Null; 9];
    values[2] = Value::Array(vec![Value::Null]);
    assert!(matches!(writer.encode(&record(&schema, values)), Err(FormatError::Value(_))));
    assert!(matches!(writer.encode(&Value::Null), Err(FormatError::Value(_))));
}

#[test]
fn settings_and_their_defaults() {
    let none = BTreeMap::new();
    let defaults = ProtobufFormat::new(&Settings::new("value.converter", &none)).unwrap();
    let _ = defaults;
    assert_eq!(
        Options::default(),
        Options {
            enhanced: false,
            scrub_invalid_names: false,
            int_for_enums: false,
            optional_for_nullables: false,
            wrapper_for_nullables: false,
            generate_index_for_unions: true,
        }
    );
    let mut keys = KEYS.to_vec();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "enhanced.protobuf.schema.support",
            "generate.index.for.unions",
            "int.for.enums",
            "optional.for.nullables",
            "scrub.invalid.names",
            "wrapper.for.nullables",
        ]
    );
    let set = BTreeMap::from([("int.for.enums", " TRUE "), ("generate.index.for.unions", "false")]);
    let options = Options::new(&Settings::new("value.converter", &set)).unwrap();
    assert!(options.int_for_enums && !options.generate_index_for_unions);
    let bad = BTreeMap::from([("wrapper.for.nullables", "yes")]);
    let err = crate::format(crate::SchemaType::Protobuf, "value.converter", &bad).err().unwrap();
    assert_eq!(
        err,
        FormatError::InvalidSetting {
            key: "value.converter.wrapper.for.nullables".into(),
            value: "yes".into(),
            expected: "Expected value to be either true or false".into(),
        }
    );
    assert_eq!(crate::keys(crate::SchemaType::Protobuf), KEYS);
}
