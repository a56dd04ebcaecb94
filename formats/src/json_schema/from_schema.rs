//! JSON Schema → Connect schema, as Confluent's `JsonSchemaData.toConnectSchema` reads
//! the schema everit loads from any registered draft-07 text (not only ours):
//!
//! - `integer`/`number` with `connect.type` are that type, without it INT64/FLOAT64;
//!   `string` is STRING, or BYTES with `connect.type: bytes`; `boolean` is BOOLEAN;
//! - `object` with `connect.type: map` is a MAP from STRING to its
//!   `additionalProperties`; other objects are STRUCTs of their `properties`, ordered by
//!   `connect.index` (else in the order of everit's property hash map), optional only
//!   with `use.optional.for.nonrequired` for a property not in `required`;
//! - `array` is an ARRAY of its `items`, or with `connect.type: map` a MAP of its items'
//!   `key` and `value` properties;
//! - `enum` and `const` are STRINGs with Confluent's enum parameters;
//! - `oneOf`/`anyOf` (and a `type` list) of null and one schema is that schema optional;
//!   of one schema, that schema; else the `io.confluent.connect.json.OneOf` STRUCT of
//!   optional members; `allOf` merges the properties of its object members;
//! - `$ref` to a JSON pointer in the same document (`#/definitions/…`, `#/$defs/…`);
//! - `title` is the name (so the logical names read back as Decimal, Date, Time,
//!   Timestamp), `description` the doc, `connect.version`, `connect.parameters` and
//!   `default` as named.
//!
//! Not read (a `RegisteredSchema` error): recursive schemas, references to other
//! documents, schemas that accept anything (`{}`, `true`: Confluent's Variant) and tuple
//! `items`. This module owns the schema side of reading; values are `decode`'s.
//!
//! Layout: this file (dispatch and the typed schemas), `combined` (`oneOf`, `anyOf`,
//! `allOf`), `meta` (title, doc, version, parameters, default; enums), `pointer` (`$ref`).

use std::collections::BTreeMap;
use std::sync::Arc;

use wasm_connect_transforms::data::schemaless::json::Json;
use wasm_connect_transforms::data::{Field, Schema, Type};

use super::java_order;
use super::names::*;
use super::options::Options;
use crate::FormatError;

mod combined;
mod meta;
mod pointer;

use self::meta::enum_schema;
use self::pointer::resolve;

/// How deep schemas may nest before we refuse them (a guard for the recursion).
const MAX_DEPTH: usize = 256;

/// The Connect schema of the JSON Schema `root`.
pub fn to_connect_schema(root: &Json, options: &Options) -> Result<Schema, FormatError> {
    let mut reading = Reading { root, options, unions: 0, refs: Vec::new(), depth: 0 };
    reading.convert(root, false)
}

fn unsupported<T>(message: impl Into<String>) -> Result<T, FormatError> {
    Err(FormatError::RegisteredSchema(message.into()))
}

/// Keywords that make an object schema without `type` (everit's property sniffing).
const OBJECT_WORDS: &[&str] = &[
    "properties",
    "additionalProperties",
    "required",
    "patternProperties",
    "minProperties",
    "maxProperties",
    "dependencies",
    "propertyNames",
];
const ARRAY_WORDS: &[&str] =
    &["items", "additionalItems", "minItems", "maxItems", "uniqueItems", "contains"];
const STRING_WORDS: &[&str] = &["minLength", "maxLength", "pattern", "format"];
const NUMBER_WORDS: &[&str] =
    &["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"];
/// Keywords that are a part of their own (everit's extractors other than the typed one).
const PART_WORDS: &[&str] = &["enum", "const", "allOf", "anyOf", "oneOf", "not"];
/// Keywords that describe rather than constrain, left off a `type` list's members.
const META_WORDS: &[&str] =
    &["title", "description", "default", CONNECT_VERSION, CONNECT_PARAMETERS];

struct Reading<'a> {
    root: &'a Json,
    options: &'a Options,
    /// Unions read so far (generalized sum types number them).
    unions: usize,
    /// The `$ref`s being expanded, to refuse recursion.
    refs: Vec<String>,
    depth: usize,
}

fn get<'j>(node: &'j Json, key: &str) -> Option<&'j Json> {
    node.get(key)
}

fn has(node: &Json, words: &[&str]) -> bool {
    words.iter().any(|w| node.get(w).is_some())
}

fn without(node: &Json, words: &[&str]) -> Json {
    match node {
        Json::Object(entries) => Json::Object(
            entries.iter().filter(|(k, _)| !words.contains(&k.as_str())).cloned().collect(),
        ),
        other => other.clone(),
    }
}

fn only(node: &Json, word: &str) -> Json {
    Json::Object(node.get(word).map(|v| vec![(word.to_owned(), v.clone())]).unwrap_or_default())
}

fn is_null_schema(node: &Json) -> bool {
    matches!(get(node, "type"), Some(Json::String(t)) if t == "null") && !has(node, PART_WORDS)
}

fn connect_type(node: &Json) -> Option<&str> {
    match get(node, CONNECT_TYPE) {
        Some(Json::String(s)) => Some(s),
        _ => None,
    }
}

impl<'a> Reading<'a> {
    fn convert(&mut self, node: &Json, force_optional: bool) -> Result<Schema, FormatError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return unsupported("JSON Schema nests too deeply");
        }
        let result = self.convert_node(node, force_optional);
        self.depth -= 1;
        result
    }

    fn convert_node(&mut self, node: &Json, force_optional: bool) -> Result<Schema, FormatError> {
        let Json::Object(_) = node else {
            return unsupported(format!(
                "Unsupported schema type {}: a boolean schema accepts anything",
                node.node_type()
            ));
        };
        if let Some(reference) = get(node, "$ref") {
            return self.reference(reference, force_optional);
        }
        // everit's extractors: each keyword group makes one schema; several make a
        // synthetic allOf of them.
        let mut parts: Vec<Json> = Vec::new();
        let typed = get(node, "type").is_some()
            || has(node, OBJECT_WORDS)
            || has(node, ARRAY_WORDS)
            || has(node, STRING_WORDS)
            || has(node, NUMBER_WORDS);
        for word in PART_WORDS {
            if node.get(word).is_some() {
                parts.push(only(node, word));
            }
        }
        if parts.is_empty() {
            return if typed {
                self.typed(node, force_optional)
            } else {
                unsupported("Unsupported schema type EmptySchema: a schema that accepts anything")
            };
        }
        if typed {
            parts.insert(0, without(node, PART_WORDS));
        }
        if parts.len() > 1 {
            return self.all_of(&parts, force_optional);
        }
        let part = &parts[0];
        let mut builder = if let Some(Json::Array(values)) = get(part, "enum") {
            enum_schema(values, self.options.generalized_sum_types)
        } else if let Some(value) = get(part, "const") {
            enum_schema(std::slice::from_ref(value), self.options.generalized_sum_types)
        } else if let Some(Json::Array(subs)) = get(part, "allOf") {
            if subs.len() == 1 && self.options.flatten_singleton_unions {
                return self.convert(&subs[0], false);
            }
            return self.all_of(subs, force_optional);
        } else if let Some(Json::Array(subs)) = get(part, "oneOf").or_else(|| get(part, "anyOf")) {
            match self.union(subs)? {
                Union::Done(schema) => return Ok(schema),
                Union::Struct(schema) => schema,
            }
        } else {
            return unsupported(format!("Unsupported schema: {}", keys_of(part)));
        };
        self.finish(&mut builder, node, force_optional)?;
        Ok(builder)
    }

    fn reference(&mut self, reference: &Json, force_optional: bool) -> Result<Schema, FormatError> {
        let Json::String(pointer) = reference else {
            return unsupported("$ref must be a string");
        };
        if self.refs.contains(pointer) {
            return unsupported(format!("Recursive schemas are not supported ($ref {pointer})"));
        }
        let target = resolve(self.root, pointer)?;
        self.refs.push(pointer.clone());
        let result = self.convert(target, force_optional);
        self.refs.pop();
        result
    }

    /// A schema made by its `type` (or the keywords that imply one).
    fn typed(&mut self, node: &Json, force_optional: bool) -> Result<Schema, FormatError> {
        let ty = match get(node, "type") {
            Some(Json::String(t)) => t.clone(),
            Some(Json::Array(types)) => return self.type_list(node, types, force_optional),
            Some(_) => return unsupported("type must be a string or an array of strings"),
            None if has(node, OBJECT_WORDS) => "object".into(),
            None if has(node, ARRAY_WORDS) => "array".into(),
            None if has(node, STRING_WORDS) => "string".into(),
            None => "number".into(),
        };
        let mut builder = match ty.as_str() {
            "boolean" => Schema::new(Type::Boolean),
            "integer" | "number" => Schema::new(match connect_type(node) {
                None if ty == "integer" => Type::Int64,
                None => Type::Float64,
                Some("int8") => Type::Int8,
                Some("int16") => Type::Int16,
                Some("int32") => Type::Int32,
                Some("int64") => Type::Int64,
                Some("float32") => Type::Float32,
                Some("float64") => Type::Float64,
                Some(CONNECT_TYPE_BYTES) => Type::Bytes,
                Some(other) => return unsupported(format!("Unsupported type {other}")),
            }),
            "string" if connect_type(node) == Some(CONNECT_TYPE_BYTES) => Schema::new(Type::Bytes),
            "string" => Schema::new(Type::String),
            "array" => self.array(node)?,
            "object" => self.object(node)?,
            "null" => return unsupported("Unsupported schema type NullSchema"),
            other => return unsupported(format!("Unsupported schema type {other}")),
        };
        self.finish(&mut builder, node, force_optional)?;
        Ok(builder)
    }

    /// `"type": [..]`: everit's synthetic anyOf of one schema per type.
    fn type_list(
        &mut self,
        node: &Json,
        types: &[Json],
        force_optional: bool,
    ) -> Result<Schema, FormatError> {
        let base = without(node, META_WORDS);
        let members: Vec<Json> = types
            .iter()
            .map(|t| match &base {
                Json::Object(entries) => Json::Object(
                    entries
                        .iter()
                        .map(|(k, v)| {
                            if k == "type" {
                                (k.clone(), t.clone())
                            } else {
                                (k.clone(), v.clone())
                            }
                        })
                        .collect(),
                ),
                other => other.clone(),
            })
            .collect();
        match self.union(&members)? {
            Union::Done(schema) => Ok(schema),
            Union::Struct(mut schema) => {
                self.finish(&mut schema, node, force_optional)?;
                Ok(schema)
            }
        }
    }

    fn array(&mut self, node: &Json) -> Result<Schema, FormatError> {
        let items = match get(node, "items") {
            Some(items @ (Json::Object(_) | Json::Bool(_))) => items,
            _ => return unsupported("Array schema did not specify the items type"),
        };
        if connect_type(node) == Some(CONNECT_TYPE_MAP) && matches!(items, Json::Object(_)) {
            let properties = get(items, "properties");
            let key = properties.and_then(|p| p.get(KEY_FIELD));
            let value = properties.and_then(|p| p.get(VALUE_FIELD));
            let (Some(key), Some(value)) = (key, value) else {
                return unsupported("A map's entries need key and value properties");
            };
            let key = self.convert(key, false)?;
            let value = self.convert(value, false)?;
            return Ok(Schema::map(Arc::new(key), Arc::new(value)));
        }
        Ok(Schema::array(Arc::new(self.convert(items, false)?)))
    }

    fn object(&mut self, node: &Json) -> Result<Schema, FormatError> {
        if connect_type(node) == Some(CONNECT_TYPE_MAP) {
            let Some(values @ Json::Object(_)) = get(node, "additionalProperties") else {
                return unsupported("A map schema needs an additionalProperties schema");
            };
            let values = self.convert(values, false)?;
            return Ok(Schema::map(Arc::new(Schema::new(Type::String)), Arc::new(values)));
        }
        let required: Vec<&str> = match get(node, "required") {
            Some(Json::Array(names)) => names
                .iter()
                .filter_map(|n| match n {
                    Json::String(s) => Some(s.as_str()),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        };
        let properties: Vec<(String, &Json)> = match get(node, "properties") {
            Some(Json::Object(entries)) => entries.iter().map(|(k, v)| (k.clone(), v)).collect(),
            Some(_) => return unsupported("properties must be an object"),
            None => Vec::new(),
        };
        // org.json's HashMap, then everit's builder HashMap.
        let properties = java_order::hash_map(java_order::hash_map(properties));
        let mut sorted: BTreeMap<i64, (String, &Json)> = BTreeMap::new();
        for (name, property) in properties {
            let index = match get(property, CONNECT_INDEX) {
                Some(Json::Number(n)) if n.is_int() => i64::from(n.int_value()),
                _ => sorted.len() as i64,
            };
            sorted.insert(index, (name, property));
        }
        let mut schema = Schema::structure();
        for (name, property) in sorted.into_values() {
            let optional =
                self.options.optional_for_nonrequired && !required.contains(&name.as_str());
            let field_schema = self.convert(property, optional)?;
            if schema.field(&name).is_some() {
                return unsupported(format!("Duplicate property {name}"));
            }
            let index = schema.fields.len();
            schema.fields.push(Field { name, index, schema: Arc::new(field_schema) });
        }
        Ok(schema)
    }
}

/// What `oneOf`/`anyOf` made: a finished schema, or the union STRUCT to finish.
enum Union {
    Done(Schema),
    Struct(Schema),
}

fn keys_of(node: &Json) -> String {
    match node {
        Json::Object(entries) => {
            entries.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>().join(", ")
        }
        other => other.node_type().to_owned(),
    }
}
