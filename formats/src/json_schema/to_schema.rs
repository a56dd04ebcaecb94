//! Connect schema → JSON Schema, as Confluent's `JsonSchemaData.fromConnectSchema` builds
//! it and everit prints it: the keys of each schema object in everit's order, and the
//! properties and `connect.*` keywords in the order of the Java hash maps that hold them
//! (see `java_order`), so the text matches the Java converter's for the same schema.
//!
//! This module owns the schema side only; default values are written by `encode`.

use wasm_connect_transforms::data::schemaless::json::{Json, Number};
use wasm_connect_transforms::data::{DECIMAL, Schema, Type};

use super::encode::Encoder;
use super::java_order;
use super::names::*;
use crate::FormatError;

/// The JSON Schema of `schema`.
pub fn to_json_schema(schema: &Schema, encoder: &Encoder) -> Result<Json, FormatError> {
    convert(schema, None, false, encoder)
}

/// A schema object being built, in everit's printing order.
#[derive(Default)]
struct Node {
    /// Keys everit prints before the common ones (`type`, `enum`, ...).
    head: Vec<(String, Json)>,
    /// `title`, `description`, `default`.
    meta: Vec<(String, Json)>,
    /// The `connect.*` keywords, in insertion order (printed in hash order).
    unprocessed: Vec<(String, Json)>,
    /// Keys everit prints after the common ones (`items`, `properties`, `oneOf`).
    tail: Vec<(String, Json)>,
    /// A boolean schema prints its `type` last.
    type_last: bool,
}

impl Node {
    fn typed(ty: &str) -> Self {
        Node { head: vec![entry("type", Json::String(ty.into()))], ..Node::default() }
    }

    fn render(self) -> Json {
        let unprocessed = java_order::copy_of(java_order::hash_map(self.unprocessed));
        let mut out = Vec::new();
        if self.type_last {
            out.extend(self.meta);
            out.extend(unprocessed);
            out.extend(self.head);
        } else {
            out.extend(self.head);
            out.extend(self.meta);
            out.extend(unprocessed);
        }
        out.extend(self.tail);
        Json::Object(out)
    }
}

fn entry(key: &str, value: Json) -> (String, Json) {
    (key.to_owned(), value)
}

fn one_of(members: Vec<Json>) -> Node {
    Node { tail: vec![entry("oneOf", Json::Array(members))], ..Node::default() }
}

fn null_schema() -> Json {
    Json::Object(vec![entry("type", Json::String("null".into()))])
}

fn index_json(index: usize) -> Json {
    Json::int(index as i64)
}

/// Whether `schema` is a union STRUCT (a read `oneOf`).
pub fn is_union(schema: &Schema) -> bool {
    schema.name.as_deref() == Some(ONE_OF) || schema.parameter(GENERALIZED_UNION).is_some()
}

fn non_optional(schema: &Schema) -> Schema {
    Schema { optional: false, ..schema.clone() }
}

fn inner<'a>(
    schema: &'a Option<std::sync::Arc<Schema>>,
    what: &str,
) -> Result<&'a Schema, FormatError> {
    schema.as_deref().ok_or_else(|| FormatError::Schema(format!("{what} schema missing")))
}

fn convert(
    schema: &Schema,
    index: Option<usize>,
    ignore_optional: bool,
    encoder: &Encoder,
) -> Result<Json, FormatError> {
    let mut combined = false;
    let mut node = match schema.ty {
        Type::Int8 | Type::Int16 | Type::Int32 | Type::Int64 => {
            let mut n = Node::typed("integer");
            let ty = match schema.ty {
                Type::Int8 => "int8",
                Type::Int16 => "int16",
                Type::Int32 => "int32",
                _ => "int64",
            };
            n.unprocessed.push(entry(CONNECT_TYPE, Json::String(ty.into())));
            n
        }
        Type::Float32 | Type::Float64 => {
            let mut n = Node::typed("number");
            let ty = if schema.ty == Type::Float32 { "float32" } else { "float64" };
            n.unprocessed.push(entry(CONNECT_TYPE, Json::String(ty.into())));
            n
        }
        Type::Boolean => Node { type_last: true, ..Node::typed("boolean") },
        Type::String => match enum_symbols(schema, encoder.options().generalized_sum_types) {
            Some(symbols) => {
                Node { head: vec![entry("enum", Json::Array(symbols))], ..Node::default() }
            }
            None => Node::typed("string"),
        },
        Type::Bytes => {
            let numeric = schema.is_logical(DECIMAL) && encoder.options().decimal_numeric;
            let mut n = Node::typed(if numeric { "number" } else { "string" });
            n.unprocessed.push(entry(CONNECT_TYPE, Json::String(CONNECT_TYPE_BYTES.into())));
            n
        }
        Type::Array => {
            let items = convert(inner(&schema.value_schema, "ARRAY value")?, None, false, encoder)?;
            let mut n = Node::typed("array");
            n.tail.push(entry("items", items));
            n
        }
        Type::Map => {
            let keys = inner(&schema.key_schema, "MAP key")?;
            let values = inner(&schema.value_schema, "MAP value")?;
            let mut n = if keys.ty == Type::String && !keys.optional {
                let mut n = Node::typed("object");
                n.tail.push(entry("additionalProperties", convert(values, None, false, encoder)?));
                n
            } else {
                let properties = java_order::hash_map(vec![
                    entry(KEY_FIELD, convert(keys, Some(0), false, encoder)?),
                    entry(VALUE_FIELD, convert(values, Some(1), false, encoder)?),
                ]);
                let entry_schema = Json::Object(vec![
                    entry("type", Json::String("object".into())),
                    entry("properties", Json::Object(properties)),
                ]);
                let mut n = Node::typed("array");
                n.tail.push(entry("items", entry_schema));
                n
            };
            n.unprocessed.push(entry(CONNECT_TYPE, Json::String(CONNECT_TYPE_MAP.into())));
            n
        }
        Type::Struct if is_union(schema) => {
            combined = true;
            let mut members = Vec::new();
            if schema.optional {
                members.push(null_schema());
            }
            for field in &schema.fields {
                members.push(convert(
                    &non_optional(&field.schema),
                    Some(field.index),
                    true,
                    encoder,
                )?);
            }
            one_of(members)
        }
        Type::Struct if schema.optional => {
            combined = true;
            one_of(vec![null_schema(), convert(&non_optional(schema), None, false, encoder)?])
        }
        Type::Struct => {
            let mut n = Node::typed("object");
            if !encoder.options().additional_properties {
                n.head.push(entry("additionalProperties", Json::Bool(false)));
            }
            let mut properties = Vec::with_capacity(schema.fields.len());
            for field in &schema.fields {
                properties.push(entry(
                    &field.name,
                    convert(&field.schema, Some(field.index), false, encoder)?,
                ));
            }
            if !properties.is_empty() {
                n.tail.push(entry("properties", Json::Object(java_order::hash_map(properties))));
            }
            n
        }
    };
    if !combined {
        if let Some(name) = &schema.name {
            node.meta.push(entry("title", Json::String(name.clone())));
        }
        if let Some(version) = schema.version {
            node.unprocessed.push(entry(CONNECT_VERSION, Json::int(version)));
        }
        if let Some(doc) = &schema.doc {
            node.meta.push(entry("description", Json::String(doc.clone())));
        }
        let parameters: Vec<(String, Json)> = schema
            .parameters
            .iter()
            .filter(|(k, _)| !k.starts_with(NAMESPACE))
            .map(|(k, v)| (k.clone(), Json::String(v.clone())))
            .collect();
        if !parameters.is_empty() {
            let printed = java_order::sized_copy_of(java_order::hash_map(parameters));
            node.unprocessed.push(entry(CONNECT_PARAMETERS, Json::Object(printed)));
        }
        if let Some(default) = &schema.default
            && let Some(json) = encoder.default_json(schema, default)?
        {
            node.meta.push(entry("default", json));
        }
        if !ignore_optional && schema.optional {
            let mut wrapper = one_of(vec![null_schema(), node.render()]);
            if let Some(i) = index {
                wrapper.unprocessed.push(entry(CONNECT_INDEX, index_json(i)));
            }
            return Ok(wrapper.render());
        }
    }
    if let Some(i) = index {
        node.unprocessed.push(entry(CONNECT_INDEX, index_json(i)));
    }
    Ok(node.render())
}

/// The `enum` symbols of a STRING marked as one, in parameter order (`<NULL>` is null).
fn enum_symbols(schema: &Schema, generalized: bool) -> Option<Vec<Json>> {
    if schema.parameter(GENERALIZED_ENUM).is_none() && schema.parameter(JSON_ENUM).is_none() {
        return None;
    }
    let marker = if generalized { GENERALIZED_ENUM } else { JSON_ENUM };
    let prefix = format!("{marker}.");
    Some(
        schema
            .parameters
            .iter()
            .filter_map(|(k, _)| k.strip_prefix(&prefix))
            .map(|s| if s == NULL_MARKER { Json::Null } else { Json::String(s.to_owned()) })
            .collect(),
    )
}

/// A default as everit prints it from the org.json value Confluent makes of it: numbers
/// through `JSONObject.numberToString` (trailing fraction zeros dropped), objects in hash
/// order.
pub fn printed_default(json: Json) -> Json {
    match json {
        Json::Number(n) => {
            let text = n.as_str();
            if text.contains('.') && !text.contains(['e', 'E']) {
                let trimmed = text.trim_end_matches('0').trim_end_matches('.');
                Number::from_text(trimmed).map_or(Json::Number(n.clone()), Json::Number)
            } else {
                Json::Number(n)
            }
        }
        Json::Array(items) => Json::Array(items.into_iter().map(printed_default).collect()),
        Json::Object(entries) => Json::Object(java_order::hash_map(
            entries.into_iter().map(|(k, v)| (k, printed_default(v))).collect(),
        )),
        other => other,
    }
}
