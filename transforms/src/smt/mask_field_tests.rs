//! `MaskField`'s tests, from Kafka Connect's `MaskFieldTest` and its documentation.

use std::sync::Arc;

use super::*;
use crate::Type;
use crate::smt::connect_struct::plain;
use crate::smt::test_support::{build, map, null, problems, record, typed};

fn logical(ty: Type, name: &str) -> Arc<Schema> {
    Arc::new(Schema { version: Some(1), ..Schema::new(ty).named(name) })
}

fn decimal(scale: i32) -> Arc<Schema> {
    Arc::new(Schema {
        version: Some(1),
        parameters: vec![(DECIMAL_SCALE.into(), scale.to_string())],
        ..Schema::new(Type::Bytes).named(DECIMAL)
    })
}

/// `MaskFieldTest`'s SCHEMA and VALUES_WITH_SCHEMA.
fn with_schema() -> SchemaAndValue {
    let with_default = Arc::new(Schema {
        default: Some(Value::String("default".into())),
        ..Schema::new(Type::String).optional()
    });
    let fields: Vec<(&str, Arc<Schema>, Value)> = vec![
        ("magic", plain(Type::Int32, false), Value::Int32(42)),
        ("bool", plain(Type::Boolean, false), Value::Boolean(true)),
        ("byte", plain(Type::Int8, false), Value::Int8(42)),
        ("short", plain(Type::Int16, false), Value::Int16(42)),
        ("int", plain(Type::Int32, false), Value::Int32(42)),
        ("long", plain(Type::Int64, false), Value::Int64(42)),
        ("float", plain(Type::Float32, false), Value::Float32(42.0)),
        ("double", plain(Type::Float64, false), Value::Float64(42.0)),
        ("string", plain(Type::String, false), Value::String("hmm".into())),
        ("date", logical(Type::Int32, DATE), Value::Int32(19000)),
        ("time", logical(Type::Int32, TIME), Value::Int32(3600)),
        ("timestamp", logical(Type::Int64, TIMESTAMP), Value::Int64(1_700_000_000_000)),
        ("decimal", decimal(0), Value::Bytes(vec![42])),
        (
            "array",
            Arc::new(Schema::array(plain(Type::Int32, false))),
            Value::Array(vec![Value::Int32(1), Value::Int32(2), Value::Int32(3)]),
        ),
        (
            "map",
            Arc::new(Schema::map(plain(Type::String, false), plain(Type::String, false))),
            map(&[("what", Value::String("what".into()))]),
        ),
        ("withDefault", with_default, Value::Null),
    ];
    let mut schema = Schema::structure();
    let mut values = Vec::new();
    for (name, s, v) in fields {
        schema = schema.with_field(name, s);
        values.push(v);
    }
    let schema = Arc::new(schema);
    SchemaAndValue::new(schema.clone(), Value::Struct(Struct { schema, values }))
}

/// `MaskFieldTest`'s VALUES, as JSON would give them (and the other kinds a transform may
/// have put in a map).
fn schemaless() -> SchemaAndValue {
    SchemaAndValue::schemaless(map(&[
        ("magic", Value::Int32(42)),
        ("bool", Value::Boolean(true)),
        ("byte", Value::Int8(42)),
        ("short", Value::Int16(42)),
        ("int", Value::Int32(42)),
        ("long", Value::Int64(42)),
        ("float", Value::Float32(42.0)),
        ("double", Value::Float64(42.0)),
        ("string", Value::String("55.121.20.20".into())),
        ("list", Value::Array(vec![Value::Int32(42)])),
        ("map", map(&[("key", Value::String("value".into()))])),
        ("bytes", Value::Bytes(vec![1])),
    ]))
}

fn masked(
    fields: &str,
    replacement: Option<&str>,
    value: SchemaAndValue,
) -> Result<SchemaAndValue, String> {
    let mut props = vec![("fields", fields), ("replace.null.with.default", "false")];
    if let Some(r) = replacement {
        props.push(("replacement", r));
    }
    let mut t = build("MaskField$Value", &props).unwrap();
    let out = t.apply(record(null(), value)).map_err(|e| e.message)?.unwrap();
    Ok(typed(out.value))
}

fn field(data: &SchemaAndValue, name: &str) -> Value {
    match &data.value {
        Value::Struct(s) => s.get(name).unwrap().clone(),
        other => other.map_get(name).cloned().expect("the entry"),
    }
}

#[test]
fn with_schema_masks_every_type_with_its_empty_value() {
    let all = "bool,byte,short,int,long,float,double,string,date,time,timestamp,decimal,array,map,withDefault";
    let out = masked(all, None, with_schema()).unwrap();
    assert_eq!(out.schema, with_schema().schema, "the schema is kept");
    let expected = [
        ("magic", Value::Int32(42)),
        ("bool", Value::Boolean(false)),
        ("byte", Value::Int8(0)),
        ("short", Value::Int16(0)),
        ("int", Value::Int32(0)),
        ("long", Value::Int64(0)),
        ("float", Value::Float32(0.0)),
        ("double", Value::Float64(0.0)),
        ("string", Value::String(String::new())),
        ("date", Value::Int32(0)),
        ("time", Value::Int32(0)),
        ("timestamp", Value::Int64(0)),
        ("decimal", Value::Bytes(vec![0])),
        ("array", Value::Array(vec![])),
        ("map", Value::Map(vec![])),
        ("withDefault", Value::Null),
    ];
    for (name, v) in expected {
        assert_eq!(field(&out, name), v, "{name}");
    }
    // With replace.null.with.default (the default), a null field is masked as its default.
    let mut t = build("MaskField$Value", &[("fields", "withDefault")]).unwrap();
    let out = typed(t.apply(record(null(), with_schema())).unwrap().unwrap().value);
    assert_eq!(field(&out, "withDefault"), Value::String(String::new()));
}

#[test]
fn schemaless_masks_by_the_values_kind() {
    let fields = "bool,byte,short,int,long,float,double,string,list,map,absent";
    let out = masked(fields, None, schemaless()).unwrap();
    assert!(out.schema.is_none());
    assert_eq!(field(&out, "magic"), Value::Int32(42));
    assert_eq!(field(&out, "bool"), Value::Boolean(false));
    assert_eq!(field(&out, "byte"), Value::Int8(0));
    assert_eq!(field(&out, "long"), Value::Int64(0));
    assert_eq!(field(&out, "double"), Value::Float64(0.0));
    assert_eq!(field(&out, "string"), Value::String(String::new()));
    assert_eq!(field(&out, "list"), Value::Array(vec![]));
    assert_eq!(field(&out, "map"), Value::Map(vec![]));
    // A field the map lacks is put in as null.
    assert_eq!(field(&out, "absent"), Value::Null);
    assert_eq!(
        masked("bytes", None, schemaless()).unwrap_err(),
        "Cannot mask value of type: class [B"
    );
}

#[test]
fn replacements_are_converted_to_the_fields_type() {
    let cases = [
        ("short", "123", Value::Int16(123)),
        ("byte", "123", Value::Int8(123)),
        ("int", "123", Value::Int32(123)),
        ("long", "123", Value::Int64(123)),
        ("float", "123.0", Value::Float32(123.0)),
        ("double", "123.0", Value::Float64(123.0)),
        ("string", "123", Value::String("123".into())),
        // Values.convertTo* parse a BigDecimal and narrow it as Java does.
        ("int", "1.9", Value::Int32(1)),
        ("byte", "300", Value::Int8(44)),
        ("long", "1e3", Value::Int64(1000)),
    ];
    for (name, replacement, expected) in cases {
        let out = masked(name, Some(replacement), with_schema()).unwrap();
        assert_eq!(field(&out, name), expected, "{name} <- {replacement} with a schema");
        let out = masked(name, Some(replacement), schemaless()).unwrap();
        assert_eq!(field(&out, name), expected, "{name} <- {replacement} schemaless");
    }
    let out = masked("decimal", Some("123"), with_schema()).unwrap();
    assert_eq!(field(&out, "decimal"), Value::Bytes(vec![123]));
}

#[test]
fn decimal_scales_must_match_the_schema() {
    // Kafka Connect's MaskFieldTest masks a scale-0 Decimal with "123.0" (scale 1) and
    // checks only the struct; its converter then rejects the value. Here the check comes
    // when masking, with the converter's message.
    let err = masked("decimal", Some("123.0"), with_schema()).unwrap_err();
    assert_eq!(
        err,
        "Decimal value has mismatching scale for given Decimal schema. Schema has scale 0, \
         value has scale 1."
    );
    assert_eq!(
        masked("decimal", Some("foo"), with_schema()).unwrap_err(),
        "Unable to convert foo (class java.lang.String) to number"
    );
}

#[test]
fn unsupported_replacements_fail() {
    let schema_cases = [
        ("date", "class java.util.Date"),
        ("time", "class java.util.Date"),
        ("timestamp", "class java.util.Date"),
        ("array", "class java.util.ArrayList"),
        ("bool", "class java.lang.Boolean"),
    ];
    for (name, class) in schema_cases {
        assert_eq!(
            masked(name, Some("123"), with_schema()).unwrap_err(),
            format!("Cannot mask value of type {class} with custom replacement.")
        );
    }
    assert_eq!(
        masked("map", Some("123"), schemaless()).unwrap_err(),
        "Cannot mask value of type class java.util.HashMap with custom replacement."
    );
    for name in ["byte", "short", "int", "long", "float", "double"] {
        assert_eq!(
            masked(name, Some("foo"), schemaless()).unwrap_err(),
            "Unable to convert foo (class java.lang.String) to a number",
            "{name}"
        );
    }
    // A string field takes any replacement; the int after it does not.
    assert!(masked("string,int", Some("foo"), schemaless()).is_err());
}

#[test]
fn tombstones_and_other_data_fail() {
    assert_eq!(
        masked("a", None, null()).unwrap_err(),
        "Only Map objects supported in absence of schema for [mask fields], found: null"
    );
    let schema = with_schema().schema.unwrap();
    assert_eq!(
        masked("a", None, SchemaAndValue::new(schema, Value::Null)).unwrap_err(),
        "Only Struct objects supported for [mask fields], found: null"
    );
}

#[test]
fn key_side() {
    let mut t = build("MaskField$Key", &[("fields", "int")]).unwrap();
    let out = t.apply(record(schemaless(), schemaless())).unwrap().unwrap();
    assert_eq!(field(&typed(out.key), "int"), Value::Int32(0));
    assert_eq!(field(&typed(out.value), "int"), Value::Int32(42));
}

#[test]
fn config_problems() {
    assert_eq!(
        problems("MaskField$Value", &[("fields", "a"), ("replacement", "")]),
        ["Invalid value  for configuration transforms.t.replacement: String must be non-empty"]
    );
    assert_eq!(
        problems("MaskField$Value", &[]),
        ["Missing required configuration \"transforms.t.fields\" which has no default value."]
    );
    assert_eq!(
        problems("MaskField$Value", &[("fields", " ")]),
        ["Invalid value   for configuration transforms.t.fields: Empty list"]
    );
}
