//! JSON tree → Connect value of the reader's schema, as Confluent's
//! `JsonSchemaData.toConnectData` converts it: a missing or null node takes the schema's
//! default, else is null (an error only for an explicit `null` of a required schema);
//! numbers convert as Jackson's accessors do (a node of another kind reads as 0, false or
//! null); Decimal reads from a number or a base64 string; a `oneOf` STRUCT takes the first
//! member whose type fits the node, else the STRUCT member sharing the most property
//! names with it.
//!
//! This module owns the value side of reading; parsing the text is the shared JSON tree's,
//! and the Connect schema is `from_schema`'s.

use std::collections::HashSet;
use std::sync::Arc;

use wasm_connect_transforms::data::schemaless::json::{self, Json};
use wasm_connect_transforms::data::{DATE, DECIMAL, Schema, Struct, TIME, TIMESTAMP, Type, Value};

use super::decimal;
use super::encode::decimal_scale;
use super::to_schema::is_union;
use crate::FormatError;

fn fail<T>(message: String) -> Result<T, FormatError> {
    Err(FormatError::Decode(message))
}

/// The Connect value of `node` (`None` for a missing property) read with `schema`.
pub fn decode(schema: &Arc<Schema>, node: Option<&Json>) -> Result<Value, FormatError> {
    let node = match node {
        None | Some(Json::Null) => {
            if let Some(default) = &schema.default {
                return Ok(default.clone());
            }
            if node.is_none() || schema.optional {
                return Ok(Value::Null);
            }
            return fail(format!("Invalid null value for required {} field", schema.ty.upper()));
        }
        Some(node) => node,
    };
    match schema.name.as_deref() {
        Some(DECIMAL) => return decode_decimal(schema, node),
        Some(DATE) | Some(TIME) => {
            return match node {
                Json::Number(n) if n.is_int() => Ok(Value::Int32(n.int_value())),
                _ => fail(format!(
                    "Invalid type for {}, underlying representation should be integer but was {}",
                    if schema.is_logical(DATE) { "Date" } else { "Time" },
                    node.node_type()
                )),
            };
        }
        Some(TIMESTAMP) => {
            return match node {
                Json::Number(n) if n.is_integral() => Ok(Value::Int64(n.long_value())),
                _ => fail(format!(
                    "Invalid type for Timestamp, underlying representation should be integral \
                     but was {}",
                    node.node_type()
                )),
            };
        }
        _ => {}
    }
    let number = match node {
        Json::Number(n) => Some(n),
        _ => None,
    };
    Ok(match schema.ty {
        Type::Boolean => Value::Boolean(*node == Json::Bool(true)),
        Type::Int8 => Value::Int8(number.map_or(0, |n| n.int_value() as i16 as i8)),
        Type::Int16 => Value::Int16(number.map_or(0, |n| n.int_value() as i16)),
        Type::Int32 => Value::Int32(number.map_or(0, |n| n.int_value())),
        Type::Int64 => Value::Int64(number.map_or(0, |n| n.long_value())),
        Type::Float32 => Value::Float32(match node {
            Json::String(s) => non_finite(s).map_or(0.0, |d| d as f32),
            _ => number.map_or(0.0, |n| n.float_value()),
        }),
        Type::Float64 => Value::Float64(match node {
            Json::String(s) => non_finite(s).unwrap_or(0.0),
            _ => number.map_or(0.0, |n| n.double_value()),
        }),
        Type::String => match node {
            Json::String(s) => Value::String(s.clone()),
            _ => Value::Null,
        },
        Type::Bytes => match node {
            Json::String(s) => Value::Bytes(
                json::base64_decode(s)
                    .ok_or_else(|| FormatError::Decode("Invalid bytes field".into()))?,
            ),
            Json::Number(_) => return fail("Invalid bytes field: a number for BYTES".into()),
            _ => Value::Null,
        },
        Type::Array => {
            let items = inner(&schema.value_schema)?;
            let mut out = Vec::new();
            match node {
                Json::Array(a) => {
                    out.reserve(a.len());
                    for n in a {
                        out.push(decode(items, Some(n))?);
                    }
                }
                Json::Object(o) => {
                    for (_, n) in o {
                        out.push(decode(items, Some(n))?);
                    }
                }
                _ => {}
            }
            Value::Array(out)
        }
        Type::Map => decode_map(schema, node)?,
        Type::Struct if is_union(schema) => decode_union(schema, node)?,
        Type::Struct => {
            let Json::Object(entries) = node else {
                return fail(format!(
                    "Structs should be encoded as JSON objects, but found {}",
                    node.node_type()
                ));
            };
            let mut values = Vec::with_capacity(schema.fields.len());
            for (i, field) in schema.fields.iter().enumerate() {
                // Properties usually come in field order: look there first.
                let found = match entries.get(i) {
                    Some((k, v)) if *k == field.name => Some(v),
                    _ => entries.iter().find(|(k, _)| *k == field.name).map(|(_, v)| v),
                };
                values.push(decode(&field.schema, found)?);
            }
            Value::Struct(Struct { schema: schema.clone(), values })
        }
    })
}

/// Jackson reads `"NaN"`, `"Infinity"` and `"-Infinity"` back as doubles.
fn non_finite(s: &str) -> Option<f64> {
    match s {
        "NaN" => Some(f64::NAN),
        "Infinity" => Some(f64::INFINITY),
        "-Infinity" => Some(f64::NEG_INFINITY),
        _ => None,
    }
}

fn inner(schema: &Option<Arc<Schema>>) -> Result<&Arc<Schema>, FormatError> {
    schema
        .as_ref()
        .ok_or_else(|| FormatError::Decode("container schema without its inner schema".into()))
}

fn decode_decimal(schema: &Schema, node: &Json) -> Result<Value, FormatError> {
    match node {
        Json::Number(n) => {
            let scale = decimal_scale(schema).map_err(FormatError::Decode)?;
            Ok(Value::Bytes(decimal::rescale(&n.decimal(), scale).map_err(FormatError::Decode)?))
        }
        Json::String(s) => {
            let bytes = json::base64_decode(s)
                .filter(|b| !b.is_empty())
                .filter(|_| decimal_scale(schema).is_ok())
                .ok_or_else(|| FormatError::Decode("Invalid bytes for Decimal field".into()))?;
            Ok(Value::Bytes(decimal::minimal(&bytes).to_vec()))
        }
        other => fail(format!(
            "Invalid type for Decimal, underlying representation should be numeric or bytes but \
             was {}",
            other.node_type()
        )),
    }
}

fn decode_map(schema: &Schema, node: &Json) -> Result<Value, FormatError> {
    let keys = inner(&schema.key_schema)?;
    let values = inner(&schema.value_schema)?;
    let mut result: Vec<(Value, Value)> = Vec::new();
    if keys.ty == Type::String && !keys.optional {
        let Json::Object(entries) = node else {
            return fail(format!(
                "Maps with string fields should be encoded as JSON objects, but found {}",
                node.node_type()
            ));
        };
        result.reserve(entries.len());
        for (k, v) in entries {
            result.push((Value::String(k.clone()), decode(values, Some(v))?));
        }
        return Ok(Value::Map(result));
    }
    let Json::Array(entries) = node else {
        return fail(format!(
            "Maps with non-string fields should be encoded as JSON array of objects, but found {}",
            node.node_type()
        ));
    };
    for entry in entries {
        let Json::Object(pair) = entry else {
            return fail(format!(
                "Found invalid map entry instead of object: {}",
                entry.node_type()
            ));
        };
        if pair.len() != 2 {
            return fail(format!(
                "Found invalid map entry, expected length 2 but found :{}",
                pair.len()
            ));
        }
        let k = decode(keys, entry.get("key"))?;
        let v = decode(values, entry.get("value"))?;
        // A Java `HashMap`: a repeated key keeps its last value.
        match result.iter_mut().find(|(existing, _)| *existing == k) {
            Some(e) => e.1 = v,
            None => result.push((k, v)),
        }
    }
    Ok(Value::Map(result))
}

/// Whether `node` is of `schema`'s type, for a union member that is not a STRUCT.
fn fits_simple(schema: &Schema, node: &Json) -> bool {
    match (schema.ty, node) {
        (Type::Int8 | Type::Int16 | Type::Int32 | Type::Int64, Json::Number(n)) => n.is_integral(),
        (Type::Float32 | Type::Float64, Json::Number(_)) => true,
        (Type::Boolean, Json::Bool(_)) => true,
        (Type::String, Json::String(_)) => true,
        // Jackson reads fractional numbers as BigDecimal (`isBigDecimal`).
        (Type::Bytes, Json::Number(n)) => !n.is_integral(),
        (Type::Array, Json::Array(_)) => true,
        (Type::Map, Json::Object(_) | Json::Array(_)) => true,
        _ => false,
    }
}

/// How many property names a STRUCT member shares with `node`, nested ones included.
fn struct_match(schema: &Schema, node: &Json) -> usize {
    let (Type::Struct, Json::Object(entries)) = (schema.ty, node) else {
        return 0;
    };
    let names: HashSet<&str> = entries.iter().map(|(k, _)| k.as_str()).collect();
    schema
        .fields
        .iter()
        .filter(|f| names.contains(f.name.as_str()))
        .map(|f| 1 + node.get(&f.name).map_or(0, |child| struct_match(&f.schema, child)))
        .sum()
}

fn decode_union(schema: &Arc<Schema>, node: &Json) -> Result<Value, FormatError> {
    let mut best: Option<(usize, usize)> = None;
    for (i, field) in schema.fields.iter().enumerate() {
        if fits_simple(&field.schema, node) {
            return union_with(schema, i, decode(&field.schema, Some(node))?);
        }
        let matching = struct_match(&field.schema, node);
        if matching > best.map_or(0, |(_, m)| m) {
            best = Some((i, matching));
        }
    }
    match best {
        Some((i, _)) => union_with(schema, i, decode(&schema.fields[i].schema, Some(node))?),
        None => fail("Did not find matching oneof field for data".into()),
    }
}

fn union_with(schema: &Arc<Schema>, index: usize, value: Value) -> Result<Value, FormatError> {
    let mut st = Struct::new(schema.clone());
    st.values[index] = value;
    Ok(Value::Struct(st))
}
