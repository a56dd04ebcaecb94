//! Reading Avro schema JSON into the [`AvroSchema`] model: primitives, named types
//! defined before use and resolved against the enclosing namespace, and every property in
//! document order. Checking the schema against the specification is `apache-avro`'s (the
//! caller parses the text with it first); this module only builds the tree.

use std::collections::HashMap;

use super::json::Json;
use super::model::{AvroSchema, Body, FieldDef, Kind, Named, Node};

impl AvroSchema {
    /// Parses schema JSON text.
    pub fn parse(text: &str) -> Result<AvroSchema, String> {
        let json = Json::parse(text)?;
        let mut parser = Parser { schema: AvroSchema::default(), by_name: HashMap::new() };
        let root = parser.node(&json, None)?;
        parser.schema.root = root;
        Ok(parser.schema)
    }
}

/// Keys that are a schema's own attributes, not properties (Java's `SCHEMA_RESERVED`).
const SCHEMA_RESERVED: &[&str] = &[
    "doc",
    "fields",
    "items",
    "name",
    "namespace",
    "size",
    "symbols",
    "values",
    "type",
    "aliases",
    "default",
];
/// Keys that are a field's own attributes (Java's `FIELD_RESERVED`).
const FIELD_RESERVED: &[&str] = &["default", "doc", "name", "order", "type", "aliases"];

struct Parser {
    schema: AvroSchema,
    by_name: HashMap<String, usize>,
}

fn props_except(json: &Json, reserved: &[&str]) -> Vec<(String, Json)> {
    match json {
        Json::Object(members) => {
            members.iter().filter(|(k, _)| !reserved.contains(&k.as_str())).cloned().collect()
        }
        _ => Vec::new(),
    }
}

impl Parser {
    fn node(&mut self, json: &Json, space: Option<&str>) -> Result<Node, String> {
        match json {
            Json::Str(name) => self.named_or_primitive(name, space, Vec::new()),
            Json::Array(branches) => {
                let branches =
                    branches.iter().map(|b| self.node(b, space)).collect::<Result<_, _>>()?;
                Ok(Node { kind: Kind::Union(branches), props: Vec::new() })
            }
            Json::Object(_) => {
                let props = props_except(json, SCHEMA_RESERVED);
                match json.get("type") {
                    Some(Json::Str(ty)) => match ty.as_str() {
                        "record" | "error" | "enum" | "fixed" => self.define(json, ty, space),
                        "array" => {
                            let items = json.get("items").ok_or("array has no items")?;
                            let items = self.node(items, space)?;
                            Ok(Node { kind: Kind::Array(Box::new(items)), props })
                        }
                        "map" => {
                            let values = json.get("values").ok_or("map has no values")?;
                            let values = self.node(values, space)?;
                            Ok(Node { kind: Kind::Map(Box::new(values)), props })
                        }
                        name => self.named_or_primitive(name, space, props),
                    },
                    Some(nested @ (Json::Object(_) | Json::Array(_))) => self.node(nested, space),
                    _ => Err(format!("No type: {json}")),
                }
            }
            other => Err(format!("Schema not yet supported: {other}")),
        }
    }

    fn named_or_primitive(
        &mut self,
        name: &str,
        space: Option<&str>,
        props: Vec<(String, Json)>,
    ) -> Result<Node, String> {
        let kind = match name {
            "null" => Kind::Null,
            "boolean" => Kind::Boolean,
            "int" => Kind::Int,
            "long" => Kind::Long,
            "float" => Kind::Float,
            "double" => Kind::Double,
            "bytes" => Kind::Bytes,
            "string" => Kind::String,
            _ => {
                let qualified = match space {
                    Some(ns) if !name.contains('.') => format!("{ns}.{name}"),
                    _ => name.to_owned(),
                };
                let index = self
                    .by_name
                    .get(&qualified)
                    .or_else(|| self.by_name.get(name))
                    .ok_or_else(|| format!("Undefined name: \"{name}\""))?;
                return Ok(Node { kind: Kind::Named(*index), props: Vec::new() });
            }
        };
        Ok(Node { kind, props })
    }

    fn define(&mut self, json: &Json, ty: &str, space: Option<&str>) -> Result<Node, String> {
        let full = json.get("name").and_then(Json::as_str).ok_or("No name in schema")?;
        let (namespace, name) = match full.rfind('.') {
            Some(dot) => (Some(full[..dot].to_owned()), full[dot + 1..].to_owned()),
            None => {
                let ns = match json.get("namespace") {
                    Some(Json::Str(ns)) => Some(ns.clone()).filter(|s| !s.is_empty()),
                    _ => space.map(str::to_owned),
                };
                (ns, full.to_owned())
            }
        };
        let named = Named {
            name,
            namespace,
            doc: json.get("doc").and_then(Json::as_str).map(str::to_owned),
            props: props_except(json, SCHEMA_RESERVED),
            body: Body::Fixed(0),
        };
        let full_name = named.full_name();
        if self.by_name.contains_key(&full_name) {
            return Err(format!("Can't redefine: {full_name}"));
        }
        let index = self.schema.named.len();
        let inner_space = named.namespace.clone();
        self.schema.named.push(named);
        self.by_name.insert(full_name, index);
        let body = match ty {
            "enum" => Body::Enum {
                symbols: match json.get("symbols") {
                    Some(Json::Array(s)) => {
                        s.iter().map(|s| s.as_str().map(str::to_owned)).collect::<Option<_>>()
                    }
                    _ => None,
                }
                .ok_or("Enum symbols must be an array of strings")?,
                default: json.get("default").and_then(Json::as_str).map(str::to_owned),
            },
            "fixed" => Body::Fixed(
                json.get("size")
                    .and_then(Json::as_i64)
                    .and_then(|s| usize::try_from(s).ok())
                    .ok_or("Invalid or no size: fixed")?,
            ),
            _ => {
                let Some(Json::Array(fields)) = json.get("fields") else {
                    return Err("Record has no fields".into());
                };
                let mut defs = Vec::with_capacity(fields.len());
                for f in fields {
                    let name = f.get("name").and_then(Json::as_str).ok_or("No field name")?;
                    let ty = f.get("type").ok_or_else(|| format!("No field type: {name}"))?;
                    defs.push(FieldDef {
                        name: name.to_owned(),
                        doc: f.get("doc").and_then(Json::as_str).map(str::to_owned),
                        default: f.get("default").cloned(),
                        node: self.node(ty, inner_space.as_deref())?,
                        props: props_except(f, FIELD_RESERVED),
                    });
                }
                Body::Record(defs)
            }
        };
        self.schema.named[index].body = body;
        Ok(Node { kind: Kind::Named(index), props: Vec::new() })
    }
}
