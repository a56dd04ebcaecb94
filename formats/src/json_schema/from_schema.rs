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

use std::collections::BTreeMap;
use std::sync::Arc;

use wasm_connect_transforms::data::schemaless::json::Json;
use wasm_connect_transforms::data::{Field, Schema, Type};

use super::decode::decode;
use super::java_order;
use super::names::*;
use super::options::Options;
use crate::FormatError;

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
            match self.union(subs, force_optional)? {
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
        match self.union(&members, force_optional)? {
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

    /// `oneOf`/`anyOf`: null and one schema is that schema optional, one schema is that
    /// schema, anything else the union STRUCT (still to be finished by the caller).
    fn union(&mut self, members: &[Json], force_optional: bool) -> Result<Union, FormatError> {
        if members.len() == 1 && self.options.flatten_singleton_unions {
            return self.convert(&members[0], false).map(Union::Done);
        }
        if members.len() == 2
            && let Some(i) = members.iter().position(is_null_schema)
        {
            return self.convert(&members[1 - i], true).map(Union::Done);
        }
        let name = if self.options.generalized_sum_types {
            self.unions += 1;
            format!("{UNION_PREFIX}{}", self.unions - 1)
        } else {
            ONE_OF.to_owned()
        };
        let mut schema = Schema::structure().named(name.clone());
        if self.options.generalized_sum_types {
            schema.parameters.push((GENERALIZED_UNION.to_owned(), name.clone()));
        }
        let _ = force_optional;
        for member in members {
            if is_null_schema(member) {
                schema.optional = true;
                continue;
            }
            let field_name = if self.options.generalized_sum_types {
                format!("{UNION_FIELD_PREFIX}{}", schema.fields.len())
            } else {
                format!("{name}.field.{}", schema.fields.len())
            };
            let member = self.convert(member, true)?;
            let index = schema.fields.len();
            schema.fields.push(Field { name: field_name, index, schema: Arc::new(member) });
        }
        Ok(Union::Struct(schema))
    }

    /// `allOf`: the merged properties of its object members, else its one union member,
    /// else a string or number member that a `const`, `enum` or `format` qualifies.
    fn all_of(&mut self, members: &[Json], force_optional: bool) -> Result<Schema, FormatError> {
        let mut properties: Vec<(String, &Json, bool)> = Vec::new();
        let mut visited: Vec<*const Json> = Vec::new();
        for member in members {
            self.collect_properties(member, &mut properties, &mut visited)?;
        }
        if !properties.is_empty() {
            let mut schema = Schema::structure();
            for (name, property, required) in properties {
                let optional = self.options.optional_for_nonrequired && !required;
                let field_schema = Arc::new(self.convert(property, optional)?);
                match schema.fields.iter_mut().find(|f| f.name == name) {
                    Some(f) => f.schema = field_schema,
                    None => {
                        let index = schema.fields.len();
                        schema.fields.push(Field { name, index, schema: field_schema });
                    }
                }
            }
            schema.optional = force_optional;
            return Ok(schema);
        }
        let find = |pred: &dyn Fn(&Json) -> bool| members.iter().rev().find(|m| pred(m));
        let type_is = |m: &Json, t: &[&str]| matches!(get(m, "type"), Some(Json::String(s)) if t.contains(&s.as_str()));
        let combined = find(&|m| has(m, &["allOf", "anyOf", "oneOf"]));
        let number = find(&|m| type_is(m, &["number", "integer"]));
        let string = find(&|m| type_is(m, &["string"]));
        let constant = find(&|m| m.get("const").is_some());
        let enumeration = find(&|m| m.get("enum").is_some());
        let reference = find(&|m| m.get("$ref").is_some());
        let chosen = if combined.is_some() {
            combined
        } else if constant.is_some() {
            string.or(number)
        } else if enumeration.is_some() {
            if string.is_some() { enumeration } else { number }
        } else if string.is_some_and(|s| s.get("format").is_some()) {
            number.or(string)
        } else {
            reference
        };
        match chosen {
            Some(member) => self.convert(member, force_optional),
            None => unsupported("Unsupported criterion allOf"),
        }
    }

    fn collect_properties<'j>(
        &self,
        member: &'j Json,
        out: &mut Vec<(String, &'j Json, bool)>,
        visited: &mut Vec<*const Json>,
    ) -> Result<(), FormatError>
    where
        'a: 'j,
    {
        if visited.contains(&(member as *const Json)) {
            return Ok(());
        }
        visited.push(member as *const Json);
        if let Some(Json::String(pointer)) = get(member, "$ref") {
            let target: &'j Json = resolve(self.root, pointer)?;
            return self.collect_properties(target, out, visited);
        }
        if let Some(Json::Array(subs)) = get(member, "allOf") {
            for sub in subs {
                self.collect_properties(sub, out, visited)?;
            }
        }
        if let Some(Json::Object(entries)) = get(member, "properties") {
            let required: Vec<&str> = match get(member, "required") {
                Some(Json::Array(names)) => names
                    .iter()
                    .filter_map(|n| match n {
                        Json::String(s) => Some(s.as_str()),
                        _ => None,
                    })
                    .collect(),
                _ => Vec::new(),
            };
            let ordered = java_order::hash_map(java_order::hash_map(
                entries.iter().map(|(k, v)| (k.clone(), v)).collect(),
            ));
            for (name, property) in ordered {
                let is_required = required.contains(&name.as_str());
                match out.iter_mut().find(|(n, _, _)| *n == name) {
                    Some(e) => *e = (name, property, is_required),
                    None => out.push((name, property, is_required)),
                }
            }
        }
        Ok(())
    }

    /// The metadata every schema object may carry: `title` (unless the schema has a name
    /// already), `connect.version`, `description`, `connect.parameters`, `default`; then
    /// optional when forced.
    fn finish(
        &mut self,
        schema: &mut Schema,
        node: &Json,
        force_optional: bool,
    ) -> Result<(), FormatError> {
        if let Some(Json::String(title)) = get(node, "title")
            && schema.name.is_none()
        {
            schema.name = Some(title.clone());
        }
        match get(node, CONNECT_VERSION) {
            Some(Json::Number(n)) if n.is_int() => schema.version = Some(n.int_value()),
            Some(_) => return unsupported("connect.version must be an integer"),
            None => {}
        }
        if let Some(Json::String(doc)) = get(node, "description") {
            schema.doc = Some(doc.clone());
        }
        match get(node, CONNECT_PARAMETERS) {
            Some(Json::Object(entries)) => {
                let mut parameters = Vec::with_capacity(entries.len());
                for (k, v) in entries {
                    let Json::String(v) = v else {
                        return unsupported(format!(
                            "connect.parameters value of {k} must be a string"
                        ));
                    };
                    parameters.push((k.clone(), v.clone()));
                }
                for (k, v) in java_order::hash_map(parameters) {
                    match schema.parameters.iter_mut().find(|(existing, _)| *existing == k) {
                        Some(e) => e.1 = v,
                        None => schema.parameters.push((k, v)),
                    }
                }
            }
            Some(_) => return unsupported("connect.parameters must be an object"),
            None => {}
        }
        if let Some(default) = get(node, "default") {
            let value = decode(&Arc::new(schema.clone()), Some(default))
                .map_err(|e| FormatError::RegisteredSchema(format!("Invalid default: {e}")))?;
            schema.default = Some(value).filter(|v| !v.is_null());
        }
        if force_optional {
            schema.optional = true;
        }
        Ok(())
    }
}

/// What `oneOf`/`anyOf` made: a finished schema, or the union STRUCT to finish.
enum Union {
    Done(Schema),
    Struct(Schema),
}

/// Confluent's STRING for `enum` values (`<NULL>` names a null symbol).
fn enum_schema(values: &[Json], generalized: bool) -> Schema {
    let marker = if generalized { GENERALIZED_ENUM } else { JSON_ENUM };
    let mut schema = Schema::new(Type::String);
    schema.parameters.push((marker.to_owned(), String::new()));
    for (i, value) in values.iter().enumerate() {
        let symbol = match value {
            Json::Null => NULL_MARKER.to_owned(),
            Json::String(s) => s.clone(),
            other => String::from_utf8_lossy(
                &wasm_connect_transforms::data::schemaless::json::to_vec(other),
            )
            .into_owned(),
        };
        let value = if generalized { i.to_string() } else { symbol.clone() };
        let key = format!("{marker}.{symbol}");
        match schema.parameters.iter_mut().find(|(k, _)| *k == key) {
            Some(e) => e.1 = value,
            None => schema.parameters.push((key, value)),
        }
    }
    schema
}

/// The schema a local `$ref` points at (`#`, `#/definitions/X`, `#/$defs/X`, any JSON
/// pointer into the same document).
fn resolve<'j>(root: &'j Json, pointer: &str) -> Result<&'j Json, FormatError> {
    let Some(path) = pointer.strip_prefix('#') else {
        return unsupported(format!(
            "Unsupported $ref {pointer}: only references inside the schema are supported"
        ));
    };
    let mut node = root;
    if path.is_empty() {
        return Ok(node);
    }
    let Some(path) = path.strip_prefix('/') else {
        return unsupported(format!("Unsupported $ref {pointer}: not a JSON pointer"));
    };
    for token in path.split('/') {
        let token = percent_decoded(token).replace("~1", "/").replace("~0", "~");
        node = match node {
            Json::Object(_) => node.get(&token),
            Json::Array(items) => token.parse::<usize>().ok().and_then(|i| items.get(i)),
            _ => None,
        }
        .ok_or_else(|| FormatError::RegisteredSchema(format!("Unresolvable $ref {pointer}")))?;
    }
    Ok(node)
}

/// `%XX` escapes of a URI fragment, decoded (invalid ones kept as written).
fn percent_decoded(token: &str) -> String {
    let bytes = token.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok());
        match (bytes[i], hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn keys_of(node: &Json) -> String {
    match node {
        Json::Object(entries) => {
            entries.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>().join(", ")
        }
        other => other.node_type().to_owned(),
    }
}
