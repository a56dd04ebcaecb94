//! Plain JSON to and from schemaless data, as `JsonConverter` with `schemas.enable=false`
//! reads and writes it: objects are maps with string keys (in their order), integers are
//! INT64, other numbers FLOAT64, arrays are arrays; BYTES are written as base64 strings.
//!
//! This module owns that mapping; it must not know about schemas beyond rejecting data
//! that cannot be written without one (a STRUCT). The JSON text itself (parsing, numbers,
//! writing) is the private `json` module's, which `envelope` shares.
//!
//! Layout: this file (the mapping), `json` (the JSON tree, its reader and writer).

/// The JSON tree, shared with the JSON Schema format of the formats crate.
pub mod json;

use self::json::Json;
use super::Value;
use crate::TransformError;

/// Reads JSON text as schemaless data. Text with no value in it (empty, or only white
/// space) is null, as Jackson's `MissingNode` converts.
pub fn from_json(bytes: &[u8]) -> Result<Value, TransformError> {
    Ok(json::read(bytes)?.map_or(Value::Null, |j| value_of(&j)))
}

/// Writes schemaless data as JSON text.
pub fn to_json(value: &Value) -> Result<Vec<u8>, TransformError> {
    Ok(json::to_vec(&json_of(value)?))
}

/// `JsonConverter.convertToConnect` without a schema: what a JSON node is as schemaless
/// data. Integers are INT64 (beyond 64 bits, their low 64 bits, as Jackson's
/// `BigInteger.longValue`), other numbers FLOAT64.
pub(crate) fn value_of(json: &Json) -> Value {
    match json {
        Json::Null => Value::Null,
        Json::Bool(b) => Value::Boolean(*b),
        Json::Number(n) if n.is_integral() => Value::Int64(n.long_value()),
        Json::Number(n) => Value::Float64(n.double_value()),
        Json::String(s) => Value::String(s.clone()),
        Json::Array(items) => Value::Array(items.iter().map(value_of).collect()),
        Json::Object(entries) => Value::Map(
            entries.iter().map(|(k, v)| (Value::String(k.clone()), value_of(v))).collect(),
        ),
    }
}

/// `JsonConverter.convertToJson` without a schema: each value as its Java class maps it.
/// A map whose keys are all strings is an object, any other map an array of `[key, value]`
/// pairs; a STRUCT cannot be written without its schema (Kafka Connect's message for that
/// is `Mismatching schema.`).
pub(crate) fn json_of(value: &Value) -> Result<Json, TransformError> {
    Ok(match value {
        Value::Null => Json::Null,
        Value::Boolean(b) => Json::Bool(*b),
        Value::Int8(n) => Json::int(*n),
        Value::Int16(n) => Json::int(*n),
        Value::Int32(n) => Json::int(*n),
        Value::Int64(n) => Json::int(*n),
        Value::Float32(f) => Json::float(*f),
        Value::Float64(d) => Json::double(*d),
        Value::String(s) => Json::String(s.clone()),
        Value::Bytes(b) => Json::String(json::base64_encode(b)),
        Value::Array(items) => Json::Array(items.iter().map(json_of).collect::<Result<_, _>>()?),
        Value::Map(entries) if entries.iter().all(|(k, _)| matches!(k, Value::String(_))) => {
            let mut object: Vec<(String, Json)> = Vec::with_capacity(entries.len());
            for (k, v) in entries {
                let key = k.as_str().expect("checked above").to_owned();
                let v = json_of(v)?;
                match object.iter_mut().find(|(existing, _)| *existing == key) {
                    Some(entry) => entry.1 = v,
                    None => object.push((key, v)),
                }
            }
            Json::Object(object)
        }
        Value::Map(entries) => Json::Array(
            entries
                .iter()
                .map(|(k, v)| Ok(Json::Array(vec![json_of(k)?, json_of(v)?])))
                .collect::<Result<_, TransformError>>()?,
        ),
        Value::Struct(_) => return Err(TransformError::new("Mismatching schema.")),
    })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::{Schema, Struct, Type};

    fn s(v: &str) -> Value {
        Value::String(v.into())
    }

    fn text(value: &Value) -> String {
        String::from_utf8(to_json(value).unwrap()).unwrap()
    }

    #[test]
    fn kafka_connects_schemaless_examples_read() {
        // JsonConverterTest.nullSchemaPrimitiveToConnect and schemalessWithEmptyFieldValueToConnect.
        assert_eq!(from_json(b"null").unwrap(), Value::Null);
        assert_eq!(from_json(b"true").unwrap(), Value::Boolean(true));
        assert_eq!(from_json(b"12").unwrap(), Value::Int64(12));
        assert_eq!(from_json(b"12.24").unwrap(), Value::Float64(12.24));
        assert_eq!(from_json(b"\"a string\"").unwrap(), s("a string"));
        assert_eq!(
            from_json(br#"[1, "2", 3]"#).unwrap(),
            Value::Array(vec![Value::Int64(1), s("2"), Value::Int64(3)])
        );
        assert_eq!(
            from_json(br#"{ "a": "", "b": null}"#).unwrap(),
            Value::Map(vec![(s("a"), s("")), (s("b"), Value::Null)])
        );
        // JsonConverterTest.emptyBytesToConnect: no content is null.
        assert_eq!(from_json(b"").unwrap(), Value::Null);
    }

    #[test]
    fn object_keys_keep_their_input_order() {
        let v = from_json(br#"{"z": 1, "a": {"y": 2.5, "b": [false]}, "m": null}"#).unwrap();
        let Value::Map(entries) = &v else { panic!("{v:?}") };
        let keys: Vec<&str> = entries.iter().map(|(k, _)| k.as_str().unwrap()).collect();
        assert_eq!(keys, ["z", "a", "m"]);
        assert_eq!(text(&v), r#"{"z":1,"a":{"y":2.5,"b":[false]},"m":null}"#);
    }

    #[test]
    fn big_integers_keep_their_low_bits_as_jackson_and_kafka_read_them() {
        assert_eq!(from_json(b"9223372036854775807").unwrap(), Value::Int64(i64::MAX));
        assert_eq!(from_json(b"9223372036854775808").unwrap(), Value::Int64(i64::MIN));
        assert_eq!(from_json(b"1e2").unwrap(), Value::Float64(100.0));
        assert_eq!(from_json(b"007").unwrap(), Value::Int64(7), "leading zeros are allowed");
    }

    #[test]
    fn every_type_writes_as_json_converter_writes_it_without_a_schema() {
        // JsonConverterTest.nullSchemaAndArrayToJson / nullSchemaAndMapToJson /
        // nullSchemaAndMapNonStringKeysToJson.
        let array = Value::Array(vec![Value::Int32(1), s("string"), Value::Boolean(true)]);
        assert_eq!(text(&array), r#"[1,"string",true]"#);
        let map = Value::Map(vec![
            (s("key1"), Value::Int32(12)),
            (s("key2"), s("string")),
            (s("key3"), Value::Boolean(true)),
        ]);
        assert_eq!(text(&map), r#"{"key1":12,"key2":"string","key3":true}"#);
        let mixed = Value::Map(vec![(s("string"), Value::Int32(12)), (Value::Int32(52), s("x"))]);
        assert_eq!(text(&mixed), r#"[["string",12],[52,"x"]]"#);
        assert_eq!(text(&Value::Bytes(b"test-string".to_vec())), r#""dGVzdC1zdHJpbmc=""#);
        assert_eq!(text(&Value::Int8(-3)), "-3");
        assert_eq!(text(&Value::Int16(300)), "300");
        assert_eq!(text(&Value::Int64(4398046511104)), "4398046511104");
        assert_eq!(text(&Value::Float32(12.34)), "12.34");
        assert_eq!(text(&Value::Float64(12.34)), "12.34");
        assert_eq!(text(&Value::Array(vec![Value::Null])), "[null]");
    }

    #[test]
    fn round_trips_keep_what_json_can_say() {
        for json in [r#"{"a":[1,2.5,"x",null,{"b":false}],"c":{}}"#, "[]", "-4", "\"\""] {
            assert_eq!(text(&from_json(json.as_bytes()).unwrap()), json);
        }
    }

    #[test]
    fn structs_and_bad_text_are_refused_with_kafka_connects_messages() {
        let schema =
            Arc::new(Schema::structure().with_field("a", Arc::new(Schema::new(Type::Int32))));
        let st = Value::Struct(Struct::new(schema));
        assert_eq!(to_json(&st).unwrap_err().message, "Mismatching schema.");
        let nested = Value::Map(vec![(s("k"), st)]);
        assert_eq!(to_json(&nested).unwrap_err().message, "Mismatching schema.");
        let e = from_json(b"{\"a\":").unwrap_err();
        assert!(
            e.message.starts_with(
                "Converting byte[] to Kafka Connect data failed due to serialization error: "
            ),
            "{e}"
        );
    }
}
