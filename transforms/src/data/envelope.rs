//! Kafka Connect's JSON envelope, `{"schema": {...}, "payload": ...}`, to and from typed
//! data, as `JsonConverter` with `schemas.enable=true` reads (`asConnectSchema`,
//! `convertToConnect`) and writes (`asJsonSchema`, `convertToJson`) it, with its defaults
//! (`replace.null.with.default=true`, `decimal.format=BASE64`).
//!
//! This module owns the envelope's JSON form of schemas and payloads and their messages;
//! it must not decide when to use it (that is `data`'s). JSON text is `schemaless::json`'s.

use std::sync::Arc;

use super::schemaless::json::{self, Json};
use super::schemaless::{json_of, value_of};
use super::unscaled::{minimal, unscaled_bytes};
use super::{DATE, DECIMAL, DECIMAL_SCALE, Schema, SchemaAndValue, Struct, TIME, TIMESTAMP};
use super::{Type, Value, java_class, validate};
use crate::TransformError;

const NOT_AN_ENVELOPE: &str = "JsonConverter with schemas.enable requires \"schema\" and \
    \"payload\" fields and may not contain additional fields. If you are trying to deserialize \
    plain JSON data, set schemas.enable=false in your converter configuration.";

fn err<T>(message: impl Into<String>) -> Result<T, TransformError> {
    Err(TransformError::new(message))
}

/// Reads an envelope. A `null` schema gives schemaless data (the payload read as
/// `schemaless` reads JSON).
pub fn from_json(bytes: &[u8]) -> Result<SchemaAndValue, TransformError> {
    let root = json::read(bytes)?;
    let (schema, payload) = match &root {
        Some(r @ Json::Object(entries)) if entries.len() == 2 => {
            match (r.get("schema"), r.get("payload")) {
                (Some(s), Some(p)) => (s, p),
                _ => return err(NOT_AN_ENVELOPE),
            }
        }
        _ => return err(NOT_AN_ENVELOPE),
    };
    match as_connect_schema(schema)? {
        None => Ok(SchemaAndValue::schemaless(value_of(payload))),
        Some(schema) => {
            let schema = Arc::new(schema);
            let value = to_connect(&schema, Some(payload))?;
            Ok(SchemaAndValue::new(schema, value))
        }
    }
}

/// Writes `value` of `schema` as an envelope, after checking it against the schema.
pub fn to_json(schema: &Schema, value: &Value) -> Result<Vec<u8>, TransformError> {
    validate(schema, value)?;
    let payload = to_json_value(schema, value)?;
    let mut out = Vec::with_capacity(256);
    out.extend_from_slice(b"{\"schema\":");
    with_schema_text(schema, |text| out.extend_from_slice(text))?;
    out.extend_from_slice(b",\"payload\":");
    json::write(&payload, &mut out);
    out.push(b'}');
    Ok(out)
}

/// Reads a schema's JSON text as `asConnectSchema` does: `None` for `null`, else the
/// schema, or Kafka Connect's message for what is wrong with it. The one reading of
/// envelope schemas: the host's converters check theirs with it too.
pub fn read_schema(bytes: &[u8]) -> Result<Option<Schema>, TransformError> {
    match json::read(bytes)? {
        None | Some(Json::Null) => Ok(None),
        Some(node) => as_connect_schema(&node),
    }
}

/// Reads an envelope's payload, JSON text, as a value of `schema` (`convertToConnect`): for
/// a caller that has split the envelope and read its schema once for many payloads.
pub fn payload_from_json(schema: &Arc<Schema>, payload: &[u8]) -> Result<Value, TransformError> {
    let node = json::read(payload)?;
    to_connect(schema, node.as_ref())
}

/// How many schemas' JSON text a thread keeps: a task's records share a handful.
const SCHEMA_TEXTS: usize = 8;

thread_local! {
    /// The JSON text of the schemas written last on this thread, newest first. Looked up
    /// by equality, so a schema rebuilt for every record (as a transform without a schema
    /// cache does) still hits.
    static WRITTEN: std::cell::RefCell<Vec<(Schema, std::rc::Rc<[u8]>)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// Calls `f` with the JSON text of `schema`, from the thread's cache when it is there.
fn with_schema_text(schema: &Schema, f: impl FnOnce(&[u8])) -> Result<(), TransformError> {
    let hit = WRITTEN
        .with_borrow(|cache| cache.iter().find(|(s, _)| s == schema).map(|(_, text)| text.clone()));
    let text = match hit {
        Some(text) => text,
        None => {
            let text: std::rc::Rc<[u8]> = json::to_vec(&as_json_schema(schema)?).into();
            WRITTEN.with_borrow_mut(|cache| {
                cache.insert(0, (schema.clone(), text.clone()));
                cache.truncate(SCHEMA_TEXTS);
            });
            text
        }
    };
    f(&text);
    Ok(())
}

/// `asConnectSchema`: `None` for a JSON `null`.
fn as_connect_schema(node: &Json) -> Result<Option<Schema>, TransformError> {
    if *node == Json::Null {
        return Ok(None);
    }
    let Some(Json::String(ty)) = node.get("type") else {
        return err("Schema must contain 'type' field");
    };
    let mut schema = match ty.as_str() {
        "array" => match node.get("items") {
            None | Some(Json::Null) => return err("Array schema did not specify the element type"),
            Some(items) => Schema::array(Arc::new(required(as_connect_schema(items)?)?)),
        },
        "map" => {
            let Some(keys) = node.get("keys") else {
                return err("Map schema did not specify the key type");
            };
            let Some(values) = node.get("values") else {
                return err("Map schema did not specify the value type");
            };
            let (keys, values) = (as_connect_schema(keys)?, as_connect_schema(values)?);
            let keys = keys.ok_or_else(|| TransformError::new("keySchema cannot be null."))?;
            let values =
                values.ok_or_else(|| TransformError::new("valueSchema cannot be null."))?;
            Schema::map(Arc::new(keys), Arc::new(values))
        }
        "struct" => {
            let Some(Json::Array(fields)) = node.get("fields") else {
                return err("Struct schema's \"fields\" argument is not an array.");
            };
            let mut schema = Schema::structure();
            for field in fields {
                let Some(Json::String(name)) = field.get("field") else {
                    return err("Struct schema's field name not specified properly");
                };
                let field_schema = required(as_connect_schema(field)?)?;
                if schema.field(name).is_some() {
                    return err(format!(
                        "Cannot create field because of field name duplication {name}"
                    ));
                }
                schema = schema.with_field(name.clone(), Arc::new(field_schema));
            }
            schema
        }
        other => match Type::from_name(other) {
            Some(t) if t.is_primitive() => Schema::new(t),
            _ => return err(format!("Unknown schema type: {other}")),
        },
    };
    schema.optional = node.get("optional") == Some(&Json::Bool(true));
    if let Some(Json::String(name)) = node.get("name") {
        schema.name = Some(name.clone());
    }
    if let Some(Json::Number(n)) = node.get("version")
        && n.is_integral()
    {
        schema.version = Some(n.int_value());
    }
    if let Some(Json::String(doc)) = node.get("doc") {
        schema.doc = Some(doc.clone());
    }
    if let Some(Json::Object(params)) = node.get("parameters") {
        for (k, v) in params {
            let Json::String(v) = v else {
                return err("Schema parameters must have string values.");
            };
            schema.parameters.push((k.clone(), v.clone()));
        }
    }
    if let Some(default) = node.get("default") {
        let shell = Arc::new(schema.clone());
        match to_connect(&shell, Some(default))? {
            // `SchemaBuilder.defaultValue(null)` on an optional schema sets no default.
            Value::Null if schema.optional => {}
            // A struct default is built on the finished schema, which Kafka Connect's
            // `SchemaBuilder.defaultValue` then finds different from the builder itself.
            Value::Null | Value::Struct(_) => return err("Invalid default value"),
            value => schema.default = Some(value),
        }
    }
    Ok(Some(schema))
}

/// An inner schema that was given (a `null` inner schema only matters for maps).
fn required(schema: Option<Schema>) -> Result<Schema, TransformError> {
    schema.ok_or_else(|| TransformError::new("Schema must contain 'type' field"))
}

/// `convertToConnect` with a schema; `None` is a missing field.
fn to_connect(schema: &Arc<Schema>, node: Option<&Json>) -> Result<Value, TransformError> {
    let node = match node {
        None | Some(Json::Null) => {
            return match &schema.default {
                Some(d) if !d.is_null() => Ok(d.clone()),
                _ if schema.optional => Ok(Value::Null),
                _ => err(format!("Invalid null value for required {} field", schema.ty.upper())),
            };
        }
        Some(node) => node,
    };
    match schema.name.as_deref() {
        Some(DECIMAL) => return decimal_to_connect(schema, node),
        Some(DATE) | Some(TIME) => {
            return match node {
                Json::Number(n) if n.is_int() => Ok(Value::Int32(n.int_value())),
                _ => err(format!(
                    "Invalid type for {}, underlying representation should be integer but was {}",
                    if schema.is_logical(DATE) { "Date" } else { "Time" },
                    node.node_type()
                )),
            };
        }
        Some(TIMESTAMP) => {
            return match node {
                Json::Number(n) if n.is_integral() => Ok(Value::Int64(n.long_value())),
                _ => err(format!(
                    "Invalid type for Timestamp, underlying representation should be integral \
                     but was {}",
                    node.node_type()
                )),
            };
        }
        _ => {}
    }
    // Jackson's accessors: a node of another kind reads as 0, false or null.
    let number = match node {
        Json::Number(n) => Some(n),
        _ => None,
    };
    Ok(match schema.ty {
        Type::Boolean => Value::Boolean(*node == Json::Bool(true)),
        Type::Int8 => Value::Int8(number.map_or(0, |n| n.int_value() as i8)),
        Type::Int16 => Value::Int16(number.map_or(0, |n| n.int_value() as i16)),
        Type::Int32 => Value::Int32(number.map_or(0, |n| n.int_value())),
        Type::Int64 => Value::Int64(number.map_or(0, |n| n.long_value())),
        Type::Float32 => Value::Float32(number.map_or(0.0, |n| n.float_value())),
        Type::Float64 => Value::Float64(number.map_or(0.0, |n| n.double_value())),
        Type::String => match node {
            Json::String(s) => Value::String(s.clone()),
            _ => Value::Null,
        },
        Type::Bytes => match node {
            Json::String(s) => Value::Bytes(
                json::base64_decode(s).ok_or_else(|| TransformError::new("Invalid bytes field"))?,
            ),
            _ => Value::Null,
        },
        Type::Array => {
            let items = schema.value_schema.as_ref().expect("an ARRAY schema has items");
            let nodes: Vec<&Json> = match node {
                Json::Array(a) => a.iter().collect(),
                Json::Object(o) => o.iter().map(|(_, v)| v).collect(),
                _ => Vec::new(),
            };
            Value::Array(
                nodes.into_iter().map(|n| to_connect(items, Some(n))).collect::<Result<_, _>>()?,
            )
        }
        Type::Map => map_to_connect(schema, node)?,
        Type::Struct => {
            if !matches!(node, Json::Object(_)) {
                return err(format!(
                    "Structs should be encoded as JSON objects, but found {}",
                    node.node_type()
                ));
            }
            let mut result = Struct::new(schema.clone());
            for field in &schema.fields {
                let value = to_connect(&field.schema, node.get(&field.name))?;
                if value.is_null() && !field.schema.optional {
                    return err(format!(
                        "Invalid value: null used for required field: \"{}\", schema type: {}",
                        field.name,
                        field.schema.ty.upper()
                    ));
                }
                result.values[field.index] = value;
            }
            Value::Struct(result)
        }
    })
}

fn map_to_connect(schema: &Schema, node: &Json) -> Result<Value, TransformError> {
    let keys = schema.key_schema.as_ref().expect("a MAP schema has keys");
    let values = schema.value_schema.as_ref().expect("a MAP schema has values");
    let mut result: Vec<(Value, Value)> = Vec::new();
    if keys.ty == Type::String {
        let Json::Object(entries) = node else {
            return err(format!(
                "Maps with string fields should be encoded as JSON objects, but found {}",
                node.node_type()
            ));
        };
        for (k, v) in entries {
            result.push((Value::String(k.clone()), to_connect(values, Some(v))?));
        }
        return Ok(Value::Map(result));
    }
    let Json::Array(entries) = node else {
        return err(format!(
            "Maps with non-string fields should be encoded as JSON array of tuples, but found {}",
            node.node_type()
        ));
    };
    for entry in entries {
        let Json::Array(pair) = entry else {
            return err(format!(
                "Found invalid map entry instead of array tuple: {}",
                entry.node_type()
            ));
        };
        if pair.len() != 2 {
            return err(format!(
                "Found invalid map entry, expected length 2 but found :{}",
                pair.len()
            ));
        }
        let k = to_connect(keys, Some(&pair[0]))?;
        let v = to_connect(values, Some(&pair[1]))?;
        // A Java `HashMap`: a repeated key keeps its last value.
        match result.iter_mut().find(|(existing, _)| *existing == k) {
            Some(e) => e.1 = v,
            None => result.push((k, v)),
        }
    }
    Ok(Value::Map(result))
}

/// The scale a Decimal schema names, with Kafka Connect's messages.
fn decimal_scale(schema: &Schema) -> Result<i32, TransformError> {
    let text = schema
        .parameter(DECIMAL_SCALE)
        .ok_or_else(|| TransformError::new("Invalid Decimal schema: scale parameter not found."))?;
    text.parse()
        .map_err(|_| TransformError::new("Invalid scale parameter found in Decimal schema: "))
}

/// Decimal's `toConnect`: base64 of the unscaled bytes, or a JSON number (brought to the
/// schema's scale, since a Decimal here is its unscaled bytes).
fn decimal_to_connect(schema: &Schema, node: &Json) -> Result<Value, TransformError> {
    match node {
        Json::Number(n) => {
            let scale = decimal_scale(schema)?;
            let d = n.decimal();
            let shift = i64::from(scale) - d.scale;
            let mismatch = || {
                TransformError::new(format!(
                    "Decimal value has mismatching scale for given Decimal schema. Schema has \
                     scale {scale}, value has scale {}.",
                    d.scale
                ))
            };
            let digits = if shift >= 0 {
                if shift > 10_000 {
                    return Err(mismatch());
                }
                format!("{}{}", d.unscaled, "0".repeat(shift as usize))
            } else if d.unscaled == "0" {
                d.unscaled.clone()
            } else {
                let drop = usize::try_from(-shift).unwrap_or(usize::MAX);
                let cut = d.unscaled.len().checked_sub(drop).ok_or_else(mismatch)?;
                if d.unscaled[cut..].bytes().any(|b| b != b'0') {
                    return Err(mismatch());
                }
                d.unscaled[..cut].to_owned()
            };
            Ok(Value::Bytes(unscaled_bytes(d.negative, &digits)))
        }
        Json::String(s) => {
            let bytes = json::base64_decode(s)
                .filter(|b| !b.is_empty())
                .filter(|_| decimal_scale(schema).is_ok())
                .ok_or_else(|| TransformError::new("Invalid bytes for Decimal field"))?;
            Ok(Value::Bytes(minimal(bytes)))
        }
        other => err(format!(
            "Invalid type for Decimal, underlying representation should be numeric or bytes \
             but was {}",
            other.node_type()
        )),
    }
}

/// `asJsonSchema`, keys in Kafka Connect's order.
fn as_json_schema(schema: &Schema) -> Result<Json, TransformError> {
    let mut out: Vec<(String, Json)> = vec![("type".into(), Json::String(schema.ty.name().into()))];
    let inner = |s: &Option<Arc<Schema>>| {
        as_json_schema(s.as_deref().expect("ARRAY and MAP schemas have their inner schemas"))
    };
    match schema.ty {
        Type::Array => out.push(("items".into(), inner(&schema.value_schema)?)),
        Type::Map => {
            out.push(("keys".into(), inner(&schema.key_schema)?));
            out.push(("values".into(), inner(&schema.value_schema)?));
        }
        Type::Struct => {
            let mut fields = Vec::with_capacity(schema.fields.len());
            for field in &schema.fields {
                let Json::Object(mut entries) = as_json_schema(&field.schema)? else {
                    unreachable!("a schema is a JSON object")
                };
                entries.push(("field".into(), Json::String(field.name.clone())));
                fields.push(Json::Object(entries));
            }
            out.push(("fields".into(), Json::Array(fields)));
        }
        _ => {}
    }
    out.push(("optional".into(), Json::Bool(schema.optional)));
    if let Some(name) = &schema.name {
        out.push(("name".into(), Json::String(name.clone())));
    }
    if let Some(version) = schema.version {
        out.push(("version".into(), Json::int(version)));
    }
    if let Some(doc) = &schema.doc {
        out.push(("doc".into(), Json::String(doc.clone())));
    }
    if !schema.parameters.is_empty() {
        let mut params: Vec<(String, Json)> = Vec::new();
        for (k, v) in &schema.parameters {
            match params.iter_mut().find(|(existing, _)| existing == k) {
                Some(e) => e.1 = Json::String(v.clone()),
                None => params.push((k.clone(), Json::String(v.clone()))),
            }
        }
        out.push(("parameters".into(), Json::Object(params)));
    }
    if let Some(default) = schema.default.as_ref().filter(|d| !d.is_null()) {
        out.push(("default".into(), to_json_value(schema, default)?));
    }
    Ok(Json::Object(out))
}

/// `convertToJson` with a schema (a null value becomes the schema's default).
fn to_json_value(schema: &Schema, value: &Value) -> Result<Json, TransformError> {
    if value.is_null() {
        return match &schema.default {
            Some(d) if !d.is_null() => to_json_value(schema, d),
            _ if schema.optional => Ok(Json::Null),
            _ => err(
                "Conversion error: null value for field that is required and has no default value",
            ),
        };
    }
    let logical = match schema.name.as_deref() {
        Some(DECIMAL) => Some(("Decimal", "BigDecimal")),
        Some(DATE) => Some(("Date", "Date")),
        Some(TIME) => Some(("Time", "Date")),
        Some(TIMESTAMP) => Some(("Timestamp", "Date")),
        _ => None,
    };
    if let Some((logical, class)) = logical {
        return match value {
            Value::Bytes(b) if logical == "Decimal" => {
                Ok(Json::String(json::base64_encode(&minimal(b.clone()))))
            }
            Value::Int32(n) if logical != "Decimal" && logical != "Timestamp" => Ok(Json::int(*n)),
            Value::Int64(n) if logical == "Timestamp" => Ok(Json::int(*n)),
            other => err(format!(
                "Invalid type for {logical}, expected {class} but was class {}",
                java_class(other)
            )),
        };
    }
    let mismatch =
        || err(format!("Invalid type for {}: class {}", schema.ty.upper(), java_class(value)));
    Ok(match (schema.ty, value) {
        (Type::Int8, Value::Int8(_))
        | (Type::Int16, Value::Int16(_))
        | (Type::Int32, Value::Int32(_))
        | (Type::Int64, Value::Int64(_))
        | (Type::Float32, Value::Float32(_))
        | (Type::Float64, Value::Float64(_))
        | (Type::Boolean, Value::Boolean(_))
        | (Type::String, Value::String(_))
        | (Type::Bytes, Value::Bytes(_)) => json_of(value)?,
        (Type::Bytes, other) => {
            return err(format!("Invalid type for bytes type: class {}", java_class(other)));
        }
        (Type::Array, Value::Array(items)) => {
            let items_schema = schema.value_schema.as_deref().expect("an ARRAY schema has items");
            Json::Array(
                items.iter().map(|i| to_json_value(items_schema, i)).collect::<Result<_, _>>()?,
            )
        }
        (Type::Map, Value::Map(entries)) => {
            let keys = schema.key_schema.as_deref().expect("a MAP schema has keys");
            let values = schema.value_schema.as_deref().expect("a MAP schema has values");
            if keys.ty == Type::String {
                let mut object: Vec<(String, Json)> = Vec::with_capacity(entries.len());
                for (k, v) in entries {
                    let key = as_text(&to_json_value(keys, k)?);
                    let v = to_json_value(values, v)?;
                    match object.iter_mut().find(|(existing, _)| *existing == key) {
                        Some(e) => e.1 = v,
                        None => object.push((key, v)),
                    }
                }
                Json::Object(object)
            } else {
                let mut pairs = Vec::with_capacity(entries.len());
                for (k, v) in entries {
                    pairs.push(Json::Array(vec![
                        to_json_value(keys, k)?,
                        to_json_value(values, v)?,
                    ]));
                }
                Json::Array(pairs)
            }
        }
        (Type::Struct, Value::Struct(st)) => {
            if *st.schema != *schema {
                return err("Mismatching schema.");
            }
            let mut object = Vec::with_capacity(schema.fields.len());
            for (field, v) in schema.fields.iter().zip(&st.values) {
                object.push((field.name.clone(), to_json_value(&field.schema, v)?));
            }
            Json::Object(object)
        }
        _ => return mismatch(),
    })
}

/// Jackson's `JsonNode.asText()` of a map key.
fn as_text(node: &Json) -> String {
    match node {
        Json::String(s) => s.clone(),
        Json::Null => "null".into(),
        other => String::from_utf8(json::to_vec(other)).expect("JSON text is UTF-8"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(s: &str) -> Result<SchemaAndValue, TransformError> {
        from_json(s.as_bytes())
    }

    fn ok(s: &str) -> SchemaAndValue {
        read(s).unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    fn fails(s: &str) -> String {
        read(s).unwrap_err().message
    }

    fn write(schema: &Schema, value: &Value) -> String {
        String::from_utf8(to_json(schema, value).unwrap()).unwrap()
    }

    fn prim(ty: Type) -> Arc<Schema> {
        Arc::new(Schema::new(ty))
    }

    fn s(v: &str) -> Value {
        Value::String(v.into())
    }

    #[test]
    fn cached_schema_texts_are_each_schemas_own() {
        // More schemas than the cache holds, written twice over: every text is its own.
        let schemas: Vec<Schema> = (0..SCHEMA_TEXTS as i32 + 3)
            .map(|v| Schema { version: Some(v), ..Schema::new(Type::Int32) })
            .collect();
        for _ in 0..2 {
            for (v, schema) in schemas.iter().enumerate() {
                let text = write(schema, &Value::Int32(1));
                assert_eq!(
                    text,
                    format!(
                        r#"{{"schema":{{"type":"int32","optional":false,"version":{v}}},"payload":1}}"#
                    )
                );
            }
        }
    }

    #[test]
    fn schema_metadata_reads_as_json_converter_test_shows() {
        // JsonConverterTest.testConnectSchemaMetadataTranslation
        let sv = ok(r#"{ "schema": { "type": "boolean" }, "payload": true }"#);
        assert_eq!(sv, SchemaAndValue::new(prim(Type::Boolean), Value::Boolean(true)));
        let sv = ok(r#"{ "schema": { "type": "boolean", "optional": true }, "payload": null }"#);
        assert_eq!(
            sv,
            SchemaAndValue::new(Arc::new(Schema::new(Type::Boolean).optional()), Value::Null)
        );
        let sv = ok(r#"{ "schema": { "type": "boolean", "default": true }, "payload": null }"#);
        assert_eq!(sv.value, Value::Boolean(true));
        assert_eq!(sv.schema.unwrap().default, Some(Value::Boolean(true)));
        let sv = ok(
            r#"{ "schema": { "type": "boolean", "optional": false, "name": "bool", "version": 2,
            "doc": "the documentation", "parameters": { "foo": "bar" }}, "payload": true }"#,
        );
        let schema = sv.schema.unwrap();
        assert_eq!(
            (schema.name.as_deref(), schema.version, schema.doc.as_deref(), schema.optional),
            (Some("bool"), Some(2), Some("the documentation"), false)
        );
        assert_eq!(schema.parameters, [("foo".to_owned(), "bar".to_owned())]);
    }

    #[test]
    fn every_primitive_type_reads() {
        let cases: &[(&str, &str, Value)] = &[
            ("int8", "12", Value::Int8(12)),
            ("int16", "12", Value::Int16(12)),
            ("int32", "12", Value::Int32(12)),
            ("int64", "4398046511104", Value::Int64(4398046511104)),
            ("float", "12.34", Value::Float32(12.34)),
            ("double", "12.34", Value::Float64(12.34)),
            ("string", "\"foo-bar-baz\"", s("foo-bar-baz")),
            ("bytes", "\"dGVzdC1zdHJpbmc=\"", Value::Bytes(b"test-string".to_vec())),
            ("boolean", "false", Value::Boolean(false)),
            // JsonConverterTest.numberWithLeadingZerosToConnect
            ("int8", "0012", Value::Int8(12)),
            ("int64", "00000123456789", Value::Int64(123456789)),
        ];
        for (ty, payload, expected) in cases {
            let sv = ok(&format!(r#"{{ "schema": {{ "type": "{ty}" }}, "payload": {payload} }}"#));
            assert_eq!(&sv.value, expected, "{ty} {payload}");
            assert_eq!(sv.schema.unwrap().ty, Type::from_name(ty).unwrap());
        }
    }

    #[test]
    fn containers_read_with_their_inner_schemas() {
        let sv = ok(
            r#"{ "schema": { "type": "array", "items": { "type" : "int32" } }, "payload": [1, 2, 3] }"#,
        );
        assert_eq!(sv.schema.unwrap().value_schema.as_deref(), Some(&Schema::new(Type::Int32)));
        assert_eq!(sv.value, Value::Array(vec![Value::Int32(1), Value::Int32(2), Value::Int32(3)]));
        let sv = ok(
            r#"{ "schema": { "type": "map", "keys": { "type" : "string" }, "values": { "type" : "int32" } },
            "payload": { "key1": 12, "key2": 15} }"#,
        );
        assert_eq!(
            sv.value,
            Value::Map(vec![(s("key1"), Value::Int32(12)), (s("key2"), Value::Int32(15))])
        );
        let sv = ok(
            r#"{ "schema": { "type": "map", "keys": { "type" : "int32" }, "values": { "type" : "int32" } },
            "payload": [ [1, 12], [2, 15] ] }"#,
        );
        assert_eq!(
            sv.value,
            Value::Map(vec![
                (Value::Int32(1), Value::Int32(12)),
                (Value::Int32(2), Value::Int32(15))
            ])
        );
    }

    #[test]
    fn structs_read_fields_by_name_with_optional_and_default_fields() {
        // JsonConverterTest.structToConnect and structWithOptionalFieldToConnect
        let sv = ok(
            r#"{ "schema": { "type": "struct", "fields": [{ "field": "field1", "type": "boolean" },
            { "field": "field2", "type": "string" }] }, "payload": { "field2": "string", "field1": true } }"#,
        );
        let schema = sv.schema.unwrap();
        let expected = Schema::structure()
            .with_field("field1", prim(Type::Boolean))
            .with_field("field2", prim(Type::String));
        assert_eq!(*schema, expected);
        let Value::Struct(st) = &sv.value else { panic!() };
        assert_eq!(st.values, [Value::Boolean(true), s("string")]);
        assert!(Arc::ptr_eq(&st.schema, &schema));

        let sv = ok(
            r#"{ "schema": { "type": "struct", "fields": [{ "field":"optional", "type": "string", "optional": true },
            {  "field": "required", "type": "string" }] }, "payload": { "required": "required" } }"#,
        );
        let Value::Struct(st) = &sv.value else { panic!() };
        assert_eq!(st.values, [Value::Null, s("required")]);

        // JsonConverterTest.deserializeFieldNullToDefault (replace.null.with.default=true)
        let sv = ok(
            r#"{"schema":{"type":"struct","fields":[{"field":"field1","type":"string","optional":true,
            "default":"default"}],"optional":false},"payload":{"field1":null}}"#,
        );
        let Value::Struct(st) = &sv.value else { panic!() };
        assert_eq!(st.values, [s("default")]);

        let e = fails(
            r#"{"schema":{"type":"struct","fields":[{"field":"a","type":"string"}]},"payload":{}}"#,
        );
        assert_eq!(e, "Invalid null value for required STRING field");
        // A string field given a number reads as null (Jackson's textValue), which the
        // struct refuses.
        let e = fails(
            r#"{"schema":{"type":"struct","fields":[{"field":"a","type":"string"}]},"payload":{"a":1}}"#,
        );
        assert_eq!(e, "Invalid value: null used for required field: \"a\", schema type: STRING");
    }

    #[test]
    fn logical_types_read_as_their_base_values() {
        let decimal =
            r#""type": "bytes", "name": "org.apache.kafka.connect.data.Decimal", "version": 1"#;
        // JsonConverterTest.decimalToConnect: "AJw=" is [0, -100], 156 unscaled.
        let sv = ok(&format!(
            r#"{{ "schema": {{ {decimal}, "parameters": {{ "scale": "2" }} }}, "payload": "AJw=" }}"#
        ));
        assert_eq!(sv.value, Value::Bytes(vec![0x00, 0x9c]));
        let schema = sv.schema.unwrap();
        assert!(schema.is_logical(DECIMAL) && schema.parameter("scale") == Some("2"));
        let sv = ok(&format!(
            r#"{{ "schema": {{ {decimal}, "default": "AJw=", "parameters": {{ "scale": "2" }} }}, "payload": null }}"#
        ));
        assert_eq!(sv.value, Value::Bytes(vec![0x00, 0x9c]));
        // numericDecimalToConnect, numericDecimalWithTrailingZerosToConnect,
        // highPrecisionNumericDecimalToConnect
        let numeric = |scale: u32, payload: &str| {
            ok(&format!(
                r#"{{ "schema": {{ {decimal}, "parameters": {{ "scale": "{scale}" }} }}, "payload": {payload} }}"#
            ))
            .value
        };
        assert_eq!(numeric(2, "1.56"), Value::Bytes(vec![0x00, 0x9c]));
        assert_eq!(numeric(4, "1.5600"), Value::Bytes(unscaled_bytes(false, "15600")));
        assert_eq!(
            numeric(17, "1.23456789123456789"),
            Value::Bytes(unscaled_bytes(false, "123456789123456789"))
        );
        assert_eq!(numeric(2, "-1.5"), Value::Bytes(vec![0xff, 0x6a]), "-150");
        assert_eq!(numeric(0, "12"), Value::Bytes(vec![12]));
        let e = read(&format!(
            r#"{{ "schema": {{ {decimal}, "parameters": {{ "scale": "1" }} }}, "payload": 1.25 }}"#
        ))
        .unwrap_err();
        assert_eq!(
            e.message,
            "Decimal value has mismatching scale for given Decimal schema. Schema has scale 1, value has scale 2."
        );
        let e = fails(&format!(
            r#"{{ "schema": {{ {decimal}, "parameters": {{ "scale": "2" }} }}, "payload": "" }}"#
        ));
        assert_eq!(e, "Invalid bytes for Decimal field");
        let e = fails(&format!(
            r#"{{ "schema": {{ {decimal}, "parameters": {{ "scale": "2" }} }}, "payload": true }}"#
        ));
        assert_eq!(
            e,
            "Invalid type for Decimal, underlying representation should be numeric or bytes but was BOOLEAN"
        );

        let date = r#"{ "schema": { "type": "int32", "name": "org.apache.kafka.connect.data.Date", "version": 1 }, "payload": 10000 }"#;
        assert_eq!(ok(date).value, Value::Int32(10000));
        let time = r#"{ "schema": { "type": "int32", "name": "org.apache.kafka.connect.data.Time", "version": 1 }, "payload": 14400000 }"#;
        assert_eq!(ok(time).value, Value::Int32(14400000));
        let ts = r#"{ "schema": { "type": "int64", "name": "org.apache.kafka.connect.data.Timestamp", "version": 1 }, "payload": 4000000000 }"#;
        assert_eq!(ok(ts).value, Value::Int64(4000000000));
        let ts = r#"{ "schema": { "type": "int64", "name": "org.apache.kafka.connect.data.Timestamp", "optional": true, "default": 42 }, "payload": null }"#;
        assert_eq!(ok(ts).value, Value::Int64(42));
        let e = fails(
            r#"{ "schema": { "type": "int32", "name": "org.apache.kafka.connect.data.Date" }, "payload": 1.5 }"#,
        );
        assert_eq!(
            e,
            "Invalid type for Date, underlying representation should be integer but was NUMBER"
        );
        let e = fails(
            r#"{ "schema": { "type": "int64", "name": "org.apache.kafka.connect.data.Timestamp" }, "payload": "x" }"#,
        );
        assert_eq!(
            e,
            "Invalid type for Timestamp, underlying representation should be integral but was STRING"
        );
    }

    #[test]
    fn schemas_read_alone_as_in_an_envelope() {
        assert_eq!(read_schema(b"null").unwrap(), None);
        let schema = read_schema(br#"{"type": "int8", "optional": true}"#).unwrap().unwrap();
        assert_eq!(schema, Schema::new(Type::Int8).optional());
        let message = |s: &str| read_schema(s.as_bytes()).unwrap_err().message;
        assert_eq!(message("3"), "Schema must contain 'type' field");
        assert_eq!(
            message(r#"{"type": "array"}"#),
            "Array schema did not specify the element type"
        );
    }

    #[test]
    fn a_null_schema_gives_schemaless_data() {
        // JsonConverterTest.nullSchemaPrimitiveToConnect
        assert_eq!(
            ok(r#"{ "schema": null, "payload": null }"#),
            SchemaAndValue::schemaless(Value::Null)
        );
        assert_eq!(ok(r#"{ "schema": null, "payload": 12 }"#).value, Value::Int64(12));
        assert_eq!(ok(r#"{ "schema": null, "payload": 12.24 }"#).value, Value::Float64(12.24));
        let sv = ok(r#"{ "payload": { "field1": 1, "field2": 2}, "schema": null }"#);
        assert_eq!(
            sv,
            SchemaAndValue::schemaless(Value::Map(vec![
                (s("field1"), Value::Int64(1)),
                (s("field2"), Value::Int64(2))
            ]))
        );
    }

    #[test]
    fn bad_envelopes_and_schemas_carry_kafka_connects_messages() {
        assert_eq!(fails(r#"{"payload": 1}"#), NOT_AN_ENVELOPE);
        assert_eq!(fails(r#"{"schema": null, "payload": 1, "extra": 2}"#), NOT_AN_ENVELOPE);
        assert_eq!(fails("[1]"), NOT_AN_ENVELOPE);
        assert_eq!(fails(""), NOT_AN_ENVELOPE);
        assert!(fails("{").starts_with(
            "Converting byte[] to Kafka Connect data failed due to serialization error: "
        ));
        let cases = [
            (r#"{"optional": true}"#, "Schema must contain 'type' field"),
            (r#"{"type": "uint8"}"#, "Unknown schema type: uint8"),
            (r#"{"type": "array"}"#, "Array schema did not specify the element type"),
            (
                r#"{"type": "map", "values": {"type": "string"}}"#,
                "Map schema did not specify the key type",
            ),
            (
                r#"{"type": "map", "keys": {"type": "string"}}"#,
                "Map schema did not specify the value type",
            ),
            (
                r#"{"type": "map", "keys": null, "values": {"type": "string"}}"#,
                "keySchema cannot be null.",
            ),
            (r#"{"type": "struct"}"#, "Struct schema's \"fields\" argument is not an array."),
            (
                r#"{"type": "struct", "fields": [{"type": "int8"}]}"#,
                "Struct schema's field name not specified properly",
            ),
            (
                r#"{"type": "struct", "fields": [{"type": "int8", "field": "a"}, {"type": "int8", "field": "a"}]}"#,
                "Cannot create field because of field name duplication a",
            ),
            (
                r#"{"type": "int8", "parameters": {"a": 1}}"#,
                "Schema parameters must have string values.",
            ),
            (r#"{"type": "int8", "default": null}"#, "Invalid null value for required INT8 field"),
            (r#"{"type": "string", "default": 5}"#, "Invalid default value"),
            // Kafka Connect's docs let a struct schema have a default; its JsonConverter
            // builds the default on the finished schema and SchemaBuilder then refuses it.
            (
                r#"{"type": "struct", "fields": [], "optional": true, "default": {}}"#,
                "Invalid default value",
            ),
        ];
        for (schema, message) in cases {
            assert_eq!(
                fails(&format!(r#"{{"schema": {schema}, "payload": null}}"#)),
                message,
                "{schema}"
            );
        }
        let map = r#"{"type": "map", "keys": {"type": "int8"}, "values": {"type": "int8"}}"#;
        let payload_cases = [
            (
                r#"{"type": "map", "keys": {"type": "string"}, "values": {"type": "int8"}}"#,
                "[]",
                "Maps with string fields should be encoded as JSON objects, but found ARRAY",
            ),
            (
                map,
                "{}",
                "Maps with non-string fields should be encoded as JSON array of tuples, but found OBJECT",
            ),
            (map, "[1]", "Found invalid map entry instead of array tuple: NUMBER"),
            (map, "[[1]]", "Found invalid map entry, expected length 2 but found :1"),
            (
                r#"{"type": "struct", "fields": []}"#,
                "\"x\"",
                "Structs should be encoded as JSON objects, but found STRING",
            ),
            (r#"{"type": "bytes"}"#, "\"!!\"", "Invalid bytes field"),
            (r#"{"type": "int8"}"#, "null", "Invalid null value for required INT8 field"),
        ];
        for (schema, payload, message) in payload_cases {
            assert_eq!(
                fails(&format!(r#"{{"schema": {schema}, "payload": {payload}}}"#)),
                message,
                "{payload}"
            );
        }
    }

    #[test]
    fn writes_schemas_with_kafka_connects_key_order() {
        // JsonConverterTest.testJsonSchemaMetadataTranslation / booleanToJson
        assert_eq!(
            write(&Schema::new(Type::Boolean), &Value::Boolean(true)),
            r#"{"schema":{"type":"boolean","optional":false},"payload":true}"#
        );
        let mut meta = Schema::new(Type::Boolean).named("bool");
        meta.version = Some(3);
        meta.doc = Some("the documentation".into());
        meta.parameters = vec![("foo".into(), "bar".into())];
        meta.default = Some(Value::Boolean(true));
        assert_eq!(
            write(&meta, &Value::Null),
            r#"{"schema":{"type":"boolean","optional":false,"name":"bool","version":3,"doc":"the documentation","parameters":{"foo":"bar"},"default":true},"payload":true}"#
        );
        // serializeFieldNullToDefault: the field's default replaces its null; `field` comes last.
        let mut field = Schema::new(Type::String).optional();
        field.default = Some(s("default"));
        let st = Arc::new(Schema::structure().with_field("field1", Arc::new(field)));
        assert_eq!(
            write(&st, &Value::Struct(Struct::new(st.clone()))),
            r#"{"schema":{"type":"struct","fields":[{"type":"string","optional":true,"default":"default","field":"field1"}],"optional":false},"payload":{"field1":"default"}}"#
        );
        let array = Schema::array(prim(Type::Int32));
        assert_eq!(
            write(&array, &Value::Array(vec![Value::Int32(1), Value::Int32(2), Value::Int32(3)])),
            r#"{"schema":{"type":"array","items":{"type":"int32","optional":false},"optional":false},"payload":[1,2,3]}"#
        );
        let map = Schema::map(prim(Type::Int32), prim(Type::Int32));
        assert_eq!(
            write(
                &map,
                &Value::Map(vec![
                    (Value::Int32(1), Value::Int32(12)),
                    (Value::Int32(2), Value::Int32(15))
                ])
            ),
            r#"{"schema":{"type":"map","keys":{"type":"int32","optional":false},"values":{"type":"int32","optional":false},"optional":false},"payload":[[1,12],[2,15]]}"#
        );
        let map = Schema::map(prim(Type::String), prim(Type::Int32));
        assert_eq!(
            write(
                &map,
                &Value::Map(vec![(s("key1"), Value::Int32(12)), (s("key2"), Value::Int32(15))])
            ),
            r#"{"schema":{"type":"map","keys":{"type":"string","optional":false},"values":{"type":"int32","optional":false},"optional":false},"payload":{"key1":12,"key2":15}}"#
        );
    }

    #[test]
    fn logical_types_and_bytes_write_as_json_converter_writes_them() {
        // JsonConverterTest.decimalToJson: 1.56 at scale 2 is "AJw=".
        let mut decimal = Schema::new(Type::Bytes).named(DECIMAL);
        decimal.version = Some(1);
        decimal.parameters = vec![("scale".into(), "2".into())];
        assert_eq!(
            write(&decimal, &Value::Bytes(vec![0x00, 0x00, 0x9c])),
            r#"{"schema":{"type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2"}},"payload":"AJw="}"#
        );
        let mut date = Schema::new(Type::Int32).named(DATE);
        date.version = Some(1);
        assert_eq!(
            write(&date, &Value::Int32(10000)),
            r#"{"schema":{"type":"int32","optional":false,"name":"org.apache.kafka.connect.data.Date","version":1},"payload":10000}"#
        );
        let ts = Schema::new(Type::Int64).named(TIMESTAMP);
        assert!(write(&ts, &Value::Int64(4000000000)).ends_with(r#""payload":4000000000}"#));
        let bytes = Schema::new(Type::Bytes);
        assert!(
            write(&bytes, &Value::Bytes(b"test-string".to_vec()))
                .ends_with(r#""payload":"dGVzdC1zdHJpbmc="}"#)
        );
        assert!(
            write(&Schema::new(Type::Float32), &Value::Float32(12.34))
                .ends_with(r#""payload":12.34}"#)
        );
    }

    #[test]
    fn writing_checks_the_value_against_its_schema() {
        // JsonConverterTest.mismatchSchemaJson
        assert!(to_json(&Schema::new(Type::Float64), &Value::Boolean(true)).is_err());
        assert!(to_json(&Schema::new(Type::Int8), &Value::Null).is_err());
        assert_eq!(
            write(&Schema::new(Type::Int8).optional(), &Value::Null),
            r#"{"schema":{"type":"int8","optional":true},"payload":null}"#
        );
    }

    #[test]
    fn round_trips_keep_every_type() {
        let inner = Arc::new(
            Schema::structure()
                .with_field("i8", prim(Type::Int8))
                .with_field("opt", Arc::new(Schema::new(Type::String).optional())),
        );
        let mut decimal = Schema::new(Type::Bytes).named(DECIMAL);
        decimal.parameters = vec![("scale".into(), "3".into())];
        let mut doc = Schema::new(Type::Int64).named(TIMESTAMP);
        doc.doc = Some("when \"it\" happened\n".into());
        doc.version = Some(7);
        let schema = Arc::new(
            Schema::structure()
                .named("com.example.Row")
                .with_field("i16", prim(Type::Int16))
                .with_field("i32", prim(Type::Int32))
                .with_field("f32", prim(Type::Float32))
                .with_field("f64", prim(Type::Float64))
                .with_field("b", prim(Type::Boolean))
                .with_field("bytes", prim(Type::Bytes))
                .with_field("dec", Arc::new(decimal))
                .with_field("ts", Arc::new(doc))
                .with_field("list", Arc::new(Schema::array(inner.clone())))
                .with_field("smap", Arc::new(Schema::map(prim(Type::String), prim(Type::Float64))))
                .with_field(
                    "imap",
                    Arc::new(Schema::map(prim(Type::Int64), Schema::optional_string())),
                ),
        );
        let mut item = Struct::new(inner.clone());
        item.values = vec![Value::Int8(-8), s("é")];
        let mut row = Struct::new(schema.clone());
        row.values = vec![
            Value::Int16(-300),
            Value::Int32(i32::MIN),
            Value::Float32(0.1),
            Value::Float64(1e300),
            Value::Boolean(true),
            Value::Bytes(vec![0, 255, 7]),
            Value::Bytes(unscaled_bytes(true, "123456789012345678901234567890")),
            Value::Int64(-1),
            Value::Array(vec![Value::Struct(item.clone()), Value::Struct(Struct::new(inner))]),
            Value::Map(vec![(s("z"), Value::Float64(-0.5)), (s("a"), Value::Float64(2.0))]),
            Value::Map(vec![(Value::Int64(3), Value::Null), (Value::Int64(1), s("one"))]),
        ];
        // A struct in the list with a required null field cannot be written.
        assert!(to_json(&schema, &Value::Struct(row.clone())).is_err());
        row.values[8] = Value::Array(vec![Value::Struct(item)]);
        let bytes = to_json(&schema, &Value::Struct(row.clone())).unwrap();
        let back = from_json(&bytes).unwrap();
        assert_eq!(back, SchemaAndValue::new(schema.clone(), Value::Struct(row)));
        assert_eq!(to_json(&schema, &back.value).unwrap(), bytes);
    }

    #[test]
    fn decimal_bytes_are_minimal_twos_complement() {
        assert_eq!(unscaled_bytes(false, "0"), [0]);
        assert_eq!(unscaled_bytes(false, "127"), [0x7f]);
        assert_eq!(unscaled_bytes(false, "128"), [0x00, 0x80]);
        assert_eq!(unscaled_bytes(true, "128"), [0x80]);
        assert_eq!(unscaled_bytes(true, "129"), [0xff, 0x7f]);
        assert_eq!(unscaled_bytes(false, "65536"), [0x01, 0x00, 0x00]);
        assert_eq!(minimal(vec![0xff, 0xff, 0x80]), [0x80]);
        assert_eq!(minimal(vec![]), [0]);
    }
}
