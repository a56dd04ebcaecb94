//! Defaults between Connect and Avro: a Connect default as Avro default JSON
//! (`AvroData.defaultValueFromConnect`), Avro default JSON as a Connect value
//! (`defaultValueFromAvro`), and Avro's check that a default fits its schema. This module
//! owns default values only.

use std::sync::Arc;

use wasm_connect_transforms::data::{DECIMAL, Schema, Struct, Type, Value, java_class};

use super::json::Json;
use super::model::{AvroSchema, Body, Kind, Node};
use super::names;
use super::options::Options;
use super::{is_union, normalize_decimal};
use crate::FormatError;

fn err(message: impl Into<String>) -> FormatError {
    FormatError::Schema(message.into())
}

/// `AvroData.defaultValueFromConnect`: a Connect default as Avro default JSON.
pub fn default_json(
    options: &Options,
    schema: &Schema,
    value: &Value,
) -> Result<Json, FormatError> {
    let bad = || {
        err(format!(
            "Invalid type used for default value of {} field: {}",
            schema.ty.upper(),
            java_class(value)
        ))
    };
    Ok(match (schema.ty, value) {
        (_, Value::Null) => Json::Null,
        (Type::Int8, Value::Int8(v)) => Json::Int((*v).into()),
        (Type::Int16, Value::Int16(v)) => Json::Int((*v).into()),
        (Type::Int32, Value::Int32(v)) => Json::Int((*v).into()),
        (Type::Int64, Value::Int64(v)) => Json::Int(*v),
        // Jackson prints a float node with the float's own shortest digits.
        (Type::Float32, Value::Float32(v)) => {
            Json::Float(v.to_string().parse::<f64>().unwrap_or(f64::from(*v)))
        }
        (Type::Float64, Value::Float64(v)) => Json::Float(*v),
        (Type::Boolean, Value::Boolean(v)) => Json::Bool(*v),
        (Type::String, Value::String(v)) => Json::Str(v.clone()),
        (Type::Bytes, Value::Bytes(v)) => Json::Str(v.iter().map(|&b| char::from(b)).collect()),
        (Type::Array, Value::Array(items)) => {
            let items_schema = schema.value_schema.as_deref().ok_or_else(bad)?;
            Json::Array(
                items
                    .iter()
                    .map(|v| default_json(options, items_schema, v))
                    .collect::<Result<_, _>>()?,
            )
        }
        (Type::Map, Value::Map(entries)) => {
            let keys = schema.key_schema.as_deref().ok_or_else(bad)?;
            let values = schema.value_schema.as_deref().ok_or_else(bad)?;
            if keys.ty == Type::String && (!keys.optional || options.allow_optional_map_keys) {
                let mut members = Vec::new();
                for (k, v) in entries {
                    let Value::String(k) = k else { return Err(bad()) };
                    members.push((k.clone(), default_json(options, values, v)?));
                }
                Json::Object(members)
            } else {
                Json::Array(
                    entries
                        .iter()
                        .map(|(k, v)| {
                            Ok(Json::Array(vec![
                                default_json(options, keys, k)?,
                                default_json(options, values, v)?,
                            ]))
                        })
                        .collect::<Result<_, FormatError>>()?,
                )
            }
        }
        (Type::Struct, Value::Struct(s)) => {
            let mut members = Vec::new();
            for (field, v) in schema.fields.iter().zip(&s.values) {
                let v = match (v, &field.schema.default) {
                    (Value::Null, Some(d)) => d,
                    _ => v,
                };
                let json = default_json(options, &field.schema, v)?;
                if is_union(schema) {
                    return Ok(json);
                }
                members.push((names::maybe_scrub(&field.name, options.scrub_invalid_names), json));
            }
            Json::Object(members)
        }
        _ => return Err(bad()),
    })
}

/// Avro's check of a field default against the field's schema (a union's default matches
/// its first branch).
pub fn valid_default(schema: &AvroSchema, node: &Node, default: &Json) -> bool {
    match (&node.kind, default) {
        (Kind::Null, Json::Null) => true,
        (Kind::Boolean, Json::Bool(_)) => true,
        (Kind::Int, Json::Int(i)) => i32::try_from(*i).is_ok(),
        (Kind::Long, Json::Int(_)) => true,
        (Kind::Float | Kind::Double, Json::Int(_) | Json::Float(_)) => true,
        (Kind::Bytes | Kind::String, Json::Str(_)) => true,
        (Kind::Array(items), Json::Array(values)) => {
            values.iter().all(|v| valid_default(schema, items, v))
        }
        (Kind::Map(values), Json::Object(members)) => {
            members.iter().all(|(_, v)| valid_default(schema, values, v))
        }
        (Kind::Union(branches), d) => branches.first().is_some_and(|b| valid_default(schema, b, d)),
        (Kind::Named(i), d) => match (&schema.named[*i].body, d) {
            (Body::Enum { .. } | Body::Fixed(_), Json::Str(_)) => true,
            (Body::Record(fields), Json::Object(_)) => {
                fields.iter().all(|f| match d.get(&f.name) {
                    Some(v) => valid_default(schema, &f.node, v),
                    None => f.default.is_some(),
                })
            }
            _ => false,
        },
        _ => false,
    }
}

/// `AvroData.defaultValueFromAvro`: an Avro default (JSON) as a value of the Connect schema
/// `connect` read from `node`; `None` when it does not fit (AvroData then ignores it).
pub fn default_value(
    avro: &AvroSchema,
    connect: &Schema,
    node: &Node,
    json: &Json,
) -> Option<Value> {
    if matches!(json, Json::Null) {
        return Some(Value::Null);
    }
    let latin1 = |s: &str| -> Option<Vec<u8>> {
        s.chars().map(|c| u8::try_from(u32::from(c)).ok()).collect()
    };
    Some(match (&node.kind, connect.ty) {
        (Kind::Int, Type::Int8) => Value::Int8(json.as_i64()? as i8),
        (Kind::Int, Type::Int16) => Value::Int16(json.as_i64()? as i16),
        (Kind::Int, Type::Int32) => Value::Int32(json.as_i64()? as i32),
        (Kind::Long, Type::Int64) => Value::Int64(json.as_i64()?),
        (Kind::Float, Type::Float32) => Value::Float32(json.as_f64()? as f32),
        (Kind::Double, Type::Float64) => Value::Float64(json.as_f64()?),
        (Kind::Boolean, Type::Boolean) => match json {
            Json::Bool(b) => Value::Boolean(*b),
            _ => return None,
        },
        (Kind::String, Type::String) => Value::String(json.as_str()?.to_owned()),
        (Kind::Bytes, Type::Bytes) => bytes_default(connect, latin1(json.as_str()?)?)?,
        (Kind::Array(items), Type::Array) => {
            let Json::Array(values) = json else { return None };
            let item_schema = connect.value_schema.as_deref()?;
            Value::Array(
                values
                    .iter()
                    .map(|v| default_value(avro, item_schema, items, v))
                    .collect::<Option<_>>()?,
            )
        }
        (Kind::Map(values), Type::Map) => {
            let Json::Object(members) = json else { return None };
            let value_schema = connect.value_schema.as_deref()?;
            Value::Map(
                members
                    .iter()
                    .map(|(k, v)| {
                        Some((
                            Value::String(k.clone()),
                            default_value(avro, value_schema, values, v)?,
                        ))
                    })
                    .collect::<Option<_>>()?,
            )
        }
        (Kind::Named(i), _) => match (&avro.named[*i].body, connect.ty) {
            (Body::Enum { .. }, Type::String) => Value::String(json.as_str()?.to_owned()),
            (Body::Fixed(_), Type::Bytes) => bytes_default(connect, latin1(json.as_str()?)?)?,
            (Body::Record(fields), Type::Struct) => {
                let Json::Object(_) = json else { return None };
                // The struct's schema is the field's schema without this default (a schema
                // cannot hold a value that holds the schema).
                let mut value = Struct::new(Arc::new(Schema { default: None, ..connect.clone() }));
                for f in fields {
                    let cf = connect.field(&f.name)?;
                    let v = match json.get(&f.name) {
                        Some(j) => default_value(avro, &cf.schema, &f.node, j)?,
                        None => cf.schema.default.clone().unwrap_or(Value::Null),
                    };
                    value.values[cf.index] = v;
                }
                Value::Struct(value)
            }
            _ => return None,
        },
        _ => return None,
    })
}

fn bytes_default(connect: &Schema, bytes: Vec<u8>) -> Option<Value> {
    if connect.is_logical(DECIMAL) {
        return normalize_decimal(&bytes).map(Value::Bytes);
    }
    Some(Value::Bytes(bytes))
}
