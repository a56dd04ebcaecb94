//! Connect values ↔ JSON payloads. Expected payloads are the JSON (RFC 8259) of the values
//! as Jackson writes them (Java's number texts, base64 for bytes), from Confluent's
//! `JsonSchemaDataTest` where it has the case.

use super::*;

/// Every Connect type and logical type in one struct, with optional fields.
fn everything() -> Arc<Schema> {
    Arc::new(
        Schema::structure()
            .named("com.example.Everything")
            .with_field("i8", prim(Type::Int8))
            .with_field("i16", prim(Type::Int16))
            .with_field("i32", prim(Type::Int32))
            .with_field("i64", prim(Type::Int64))
            .with_field("f32", prim(Type::Float32))
            .with_field("f64", prim(Type::Float64))
            .with_field("bool", prim(Type::Boolean))
            .with_field("text", prim(Type::String))
            .with_field("bytes", prim(Type::Bytes))
            .with_field("price", Arc::new(decimal(2)))
            .with_field("day", Arc::new(date()))
            .with_field("at", Arc::new(time()))
            .with_field("when", Arc::new(timestamp()))
            .with_field("tags", Arc::new(Schema::array(prim(Type::String))))
            .with_field("counts", Arc::new(Schema::map(prim(Type::String), prim(Type::Int64))))
            .with_field("by_id", Arc::new(Schema::map(prim(Type::Int32), opt(Type::String))))
            .with_field("note", opt(Type::String))
            .with_field(
                "nested",
                Arc::new(
                    Schema::structure()
                        .named("com.example.Inner")
                        .with_field("x", prim(Type::Int32))
                        .optional(),
                ),
            ),
    )
}

#[test]
fn every_type_writes_as_jackson_and_reads_back() {
    let schema = everything();
    let inner = schema.field("nested").unwrap().schema.clone();
    let value = structure(
        &schema,
        vec![
            Value::Int8(-12),
            Value::Int16(300),
            Value::Int32(70_000),
            Value::Int64(5_000_000_000),
            Value::Float32(12.2),
            Value::Float64(1e10),
            Value::Boolean(true),
            s("a \"quoted\"\ntext"),
            Value::Bytes(b"foo".to_vec()),
            Value::Bytes(vec![0x00, 0x9C]), // 1.56
            Value::Int32(19_000),
            Value::Int32(3_600_000),
            Value::Int64(1_234_567_890),
            Value::Array(vec![s("a"), s("b")]),
            Value::Map(vec![(s("hi"), Value::Int64(32))]),
            Value::Map(vec![(Value::Int32(54), s("x")), (Value::Int32(55), Value::Null)]),
            Value::Null,
            structure(&inner, vec![Value::Int32(1)]),
        ],
    );
    let payload = round_trip(&format(), &schema, &value);
    // "Zm9v" is base64 of "foo" (RFC 4648 §10); "AJw=" of the Decimal's bytes 00 9C.
    assert_eq!(
        payload,
        concat!(
            r#"{"i8":-12,"i16":300,"i32":70000,"i64":5000000000,"f32":12.2,"f64":1.0E10,"#,
            r#""bool":true,"text":"a \"quoted\"\ntext","bytes":"Zm9v","price":"AJw=","#,
            r#""day":19000,"at":3600000,"when":1234567890,"tags":["a","b"],"counts":{"hi":32},"#,
            r#""by_id":[{"key":54,"value":"x"},{"key":55,"value":null}],"note":null,"#,
            r#""nested":{"x":1}}"#
        )
    );
}

#[test]
fn numeric_decimals_are_json_numbers_both_ways() {
    let f = format_with(&[("decimal.format", "NUMERIC")]);
    let schema = Arc::new(decimal(2));
    // testFromConnectNumericDecimal: 1.56.
    assert_eq!(round_trip(&f, &schema, &Value::Bytes(vec![0x00, 0x9C])), "1.56");
    assert_eq!(round_trip(&f, &schema, &Value::Bytes(vec![0xFF, 0x64])), "-1.56");
    // testFromConnectNumericDecimalWithTrailingZeros: 15600 at scale 4 is 1.5600.
    assert_eq!(round_trip(&f, &Arc::new(decimal(4)), &Value::Bytes(vec![0x3C, 0xF0])), "1.5600");
    // A reader takes a number of another scale when it is exact, and base64 too.
    let r = reader(&f, &writer(&f, &schema).registry_schema().text);
    assert_eq!(r.decode(&[], b"1.5").unwrap().value, Value::Bytes(vec![0x00, 0x96]));
    assert_eq!(r.decode(&[], b"\"AJw=\"").unwrap().value, Value::Bytes(vec![0x00, 0x9C]));
    assert!(matches!(r.decode(&[], b"1.567"), Err(crate::FormatError::Decode(_))));
}

#[test]
fn nulls_defaults_and_optional_values() {
    let f = format();
    let optional = opt(Type::Int32);
    assert_eq!(round_trip(&f, &optional, &Value::Null), "null");
    assert_eq!(round_trip(&f, &optional, &Value::Int32(5)), "5");
    // A required field left null is left out of the object (testFromConnectRecordWith-
    // MissingNonoptional), and reads back as null.
    let record = Arc::new(
        Schema::structure()
            .named("Record")
            .with_field("int8", prim(Type::Int8))
            .with_field("string", prim(Type::String)),
    );
    let payload = encode(&f, &record, &structure(&record, vec![Value::Int8(12), Value::Null]));
    assert_eq!(payload, r#"{"int8":12}"#);
    let r = reader(&f, &writer(&f, &record).registry_schema().text);
    assert_eq!(
        r.decode(&[], payload.as_bytes()).unwrap().value,
        structure(&record, vec![Value::Int8(12), Value::Null])
    );
    // An optional field with a default writes the default for null, or null with
    // ignore.default.for.nullables (testFromConnectRecordIgnoreDefaultForNullables).
    let mut with_default = Schema::new(Type::String).optional();
    with_default.default = Some(s("default-string"));
    let rec = Arc::new(Schema::structure().named("R").with_field("string", Arc::new(with_default)));
    assert_eq!(
        encode(&f, &rec, &structure(&rec, vec![Value::Null])),
        r#"{"string":"default-string"}"#
    );
    let ignoring = format_with(&[("ignore.default.for.nullables", "true")]);
    assert_eq!(encode(&ignoring, &rec, &structure(&rec, vec![Value::Null])), r#"{"string":null}"#);
    // Reading a null or a missing property gives the default.
    let r = reader(&f, &writer(&f, &rec).registry_schema().text);
    assert_eq!(
        r.decode(&[], b"{}").unwrap().value,
        structure(r.connect_schema(), vec![s("default-string")])
    );
    // An explicit null of a required top-level schema is an error.
    let r = reader(&f, r#"{"type":"string"}"#);
    assert!(matches!(r.decode(&[], b"null"), Err(crate::FormatError::Decode(_))));
}

#[test]
fn unions_write_their_set_member_and_read_the_fitting_one() {
    let f = format();
    let union = Arc::new(
        Schema::structure()
            .named("io.confluent.connect.json.OneOf")
            .with_field("io.confluent.connect.json.OneOf.field.0", opt(Type::Int32))
            .with_field("io.confluent.connect.json.OneOf.field.1", opt(Type::String)),
    );
    // testFromConnectUnion: the member that is set is the payload.
    assert_eq!(encode(&f, &union, &structure(&union, vec![Value::Int32(12), Value::Null])), "12");
    let r = reader(&f, &writer(&f, &union).registry_schema().text);
    assert_eq!(**r.connect_schema(), *union);
    assert_eq!(
        r.decode(&[], b"\"x\"").unwrap().value,
        structure(&union, vec![Value::Null, s("x")])
    );
    assert_eq!(
        r.decode(&[], b"7").unwrap().value,
        structure(&union, vec![Value::Int32(7), Value::Null])
    );
    assert!(r.decode(&[], b"true").is_err(), "no member takes a boolean");
}

#[test]
fn floats_and_non_finite_numbers_follow_java() {
    let f = format();
    assert_eq!(round_trip(&f, &prim(Type::Float64), &Value::Float64(1.0)), "1.0");
    assert_eq!(round_trip(&f, &prim(Type::Float64), &Value::Float64(0.0001234)), "1.234E-4");
    // Jackson quotes non-finite numbers.
    assert_eq!(encode(&f, &prim(Type::Float64), &Value::Float64(f64::INFINITY)), "\"Infinity\"");
    let r = reader(&f, &writer(&f, &prim(Type::Float64)).registry_schema().text);
    assert_eq!(r.decode(&[], b"\"-Infinity\"").unwrap().value, Value::Float64(f64::NEG_INFINITY));
}

#[test]
fn values_that_do_not_match_their_schema_are_value_errors() {
    let f = format();
    let w = writer(&f, &prim(Type::Int32));
    assert_eq!(
        w.encode(&s("x")).unwrap_err(),
        crate::FormatError::Value("Invalid type for INT32: class java.lang.String".into())
    );
    assert!(matches!(w.encode(&Value::Null), Err(crate::FormatError::Value(_))));
    let other = Arc::new(Schema::structure().named("Other").with_field("a", prim(Type::Int32)));
    let record = Arc::new(Schema::structure().named("Record").with_field("a", prim(Type::Int32)));
    let w = writer(&f, &record);
    assert_eq!(
        w.encode(&structure(&other, vec![Value::Int32(1)])).unwrap_err(),
        crate::FormatError::Value("Mismatching schema.".into())
    );
    let w = writer(&f, &Arc::new(date()));
    assert!(w.encode(&Value::Int64(1)).unwrap_err().to_string().contains("Invalid type for Date"));
}
