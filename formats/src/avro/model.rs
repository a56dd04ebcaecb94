//! [`AvroSchema`]: an Avro schema as a tree of [`Node`]s over a table of named types
//! (records, enums, fixed), with every property kept in document order. It is read from
//! schema JSON (names resolved against namespaces as the Avro specification says) and
//! written back as the compact text Avro's Java `Schema.toString()` prints.
//!
//! This module owns the schema's shape and its JSON form; what the shapes mean to Kafka
//! Connect is `to_connect`'s and `from_connect`'s.

use std::collections::HashMap;

use super::json::{Json, write_json, write_str};

/// An Avro schema: the root node and the named types it defines.
#[derive(Clone, Debug, Default)]
pub struct AvroSchema {
    /// The root.
    pub root: Node,
    /// Named types, referenced by [`Kind::Named`] index.
    pub named: Vec<Named>,
}

/// One schema node: its kind and, for unnamed kinds, its properties.
#[derive(Clone, Debug, Default)]
pub struct Node {
    /// The kind.
    pub kind: Kind,
    /// Properties other than the kind's own attributes, in order (a named type's are on
    /// its [`Named`]).
    pub props: Vec<(String, Json)>,
}

/// A node's kind.
#[derive(Clone, Debug, Default)]
pub enum Kind {
    /// `null`.
    #[default]
    Null,
    /// `boolean`.
    Boolean,
    /// `int`.
    Int,
    /// `long`.
    Long,
    /// `float`.
    Float,
    /// `double`.
    Double,
    /// `bytes`.
    Bytes,
    /// `string`.
    String,
    /// `array` of items.
    Array(Box<Node>),
    /// `map` of values.
    Map(Box<Node>),
    /// A union of branches.
    Union(Vec<Node>),
    /// A record, enum or fixed: an index into [`AvroSchema::named`].
    Named(usize),
}

/// A named type.
#[derive(Clone, Debug)]
pub struct Named {
    /// The simple name.
    pub name: String,
    /// The namespace, if any.
    pub namespace: Option<String>,
    /// Documentation.
    pub doc: Option<String>,
    /// Properties, in order.
    pub props: Vec<(String, Json)>,
    /// What it is.
    pub body: Body,
}

impl Named {
    /// `namespace.name`, or the name alone.
    pub fn full_name(&self) -> String {
        match &self.namespace {
            Some(ns) => format!("{ns}.{}", self.name),
            None => self.name.clone(),
        }
    }
}

/// The body of a named type.
#[derive(Clone, Debug)]
pub enum Body {
    /// A record's fields.
    Record(Vec<FieldDef>),
    /// An enum's symbols and default symbol.
    Enum {
        /// Symbols, in order.
        symbols: Vec<String>,
        /// The default symbol.
        default: Option<String>,
    },
    /// A fixed's size in bytes.
    Fixed(usize),
}

/// One field of a record.
#[derive(Clone, Debug)]
pub struct FieldDef {
    /// Its name.
    pub name: String,
    /// Documentation.
    pub doc: Option<String>,
    /// Its default, as JSON.
    pub default: Option<Json>,
    /// Its schema.
    pub node: Node,
    /// Field properties, in order.
    pub props: Vec<(String, Json)>,
}

/// The property `key` in `props`.
pub fn prop<'a>(props: &'a [(String, Json)], key: &str) -> Option<&'a Json> {
    props.iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

/// Sets `key` to `value`, keeping its place if already there (Java's `addProp` on a
/// `LinkedHashMap`).
pub fn set_prop(props: &mut Vec<(String, Json)>, key: &str, value: Json) {
    match props.iter_mut().find(|(k, _)| k == key) {
        Some(slot) => slot.1 = value,
        None => props.push((key.to_owned(), value)),
    }
}

impl AvroSchema {
    /// The properties of `node` (a named node's are on its definition).
    pub fn props<'a>(&'a self, node: &'a Node) -> &'a [(String, Json)] {
        match node.kind {
            Kind::Named(i) => &self.named[i].props,
            _ => &node.props,
        }
    }

    /// Parses schema JSON text.
    pub fn parse(text: &str) -> Result<AvroSchema, String> {
        let json = Json::parse(text)?;
        let mut parser = Parser { schema: AvroSchema::default(), by_name: HashMap::new() };
        let root = parser.node(&json, None)?;
        parser.schema.root = root;
        Ok(parser.schema)
    }

    /// The schema as compact JSON text, in the layout of Java's `Schema.toString()`.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let mut written = vec![false; self.named.len()];
        self.write_node(&mut out, &self.root, None, &mut written);
        out
    }

    fn write_node(&self, out: &mut String, node: &Node, space: Option<&str>, done: &mut [bool]) {
        let simple = |out: &mut String, name: &str, props: &[(String, Json)]| {
            if props.is_empty() {
                write_str(out, name);
            } else {
                out.push_str("{\"type\":");
                write_str(out, name);
                write_props(out, props);
                out.push('}');
            }
        };
        match &node.kind {
            Kind::Null => simple(out, "null", &node.props),
            Kind::Boolean => simple(out, "boolean", &node.props),
            Kind::Int => simple(out, "int", &node.props),
            Kind::Long => simple(out, "long", &node.props),
            Kind::Float => simple(out, "float", &node.props),
            Kind::Double => simple(out, "double", &node.props),
            Kind::Bytes => simple(out, "bytes", &node.props),
            Kind::String => simple(out, "string", &node.props),
            Kind::Array(items) => {
                out.push_str("{\"type\":\"array\",\"items\":");
                self.write_node(out, items, space, done);
                write_props(out, &node.props);
                out.push('}');
            }
            Kind::Map(values) => {
                out.push_str("{\"type\":\"map\",\"values\":");
                self.write_node(out, values, space, done);
                write_props(out, &node.props);
                out.push('}');
            }
            Kind::Union(branches) => {
                out.push('[');
                for (i, b) in branches.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    self.write_node(out, b, space, done);
                }
                out.push(']');
            }
            Kind::Named(i) => self.write_named(out, *i, space, done),
        }
    }

    fn write_named(&self, out: &mut String, index: usize, space: Option<&str>, done: &mut [bool]) {
        let named = &self.named[index];
        if done[index] {
            let short = named.namespace.as_deref() == space;
            write_str(out, &if short { named.name.clone() } else { named.full_name() });
            return;
        }
        done[index] = true;
        let ty = match named.body {
            Body::Record(_) => "record",
            Body::Enum { .. } => "enum",
            Body::Fixed(_) => "fixed",
        };
        out.push_str("{\"type\":\"");
        out.push_str(ty);
        out.push_str("\",\"name\":");
        write_str(out, &named.name);
        match (&named.namespace, space) {
            (Some(ns), s) if Some(ns.as_str()) != s => {
                out.push_str(",\"namespace\":");
                write_str(out, ns);
            }
            (None, Some(_)) => out.push_str(",\"namespace\":\"\""),
            _ => {}
        }
        if let Some(doc) = &named.doc {
            out.push_str(",\"doc\":");
            write_str(out, doc);
        }
        match &named.body {
            Body::Record(fields) => {
                out.push_str(",\"fields\":[");
                for (i, f) in fields.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str("{\"name\":");
                    write_str(out, &f.name);
                    out.push_str(",\"type\":");
                    self.write_node(out, &f.node, named.namespace.as_deref(), done);
                    if let Some(doc) = &f.doc {
                        out.push_str(",\"doc\":");
                        write_str(out, doc);
                    }
                    if let Some(default) = &f.default {
                        out.push_str(",\"default\":");
                        write_json(out, default);
                    }
                    write_props(out, &f.props);
                    out.push('}');
                }
                out.push(']');
            }
            Body::Enum { symbols, default } => {
                out.push_str(",\"symbols\":[");
                for (i, s) in symbols.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_str(out, s);
                }
                out.push(']');
                if let Some(d) = default {
                    out.push_str(",\"default\":");
                    write_str(out, d);
                }
            }
            Body::Fixed(size) => {
                out.push_str(",\"size\":");
                out.push_str(&size.to_string());
            }
        }
        write_props(out, &named.props);
        out.push('}');
    }
}

fn write_props(out: &mut String, props: &[(String, Json)]) {
    for (k, v) in props {
        out.push(',');
        write_str(out, k);
        out.push(':');
        write_json(out, v);
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
