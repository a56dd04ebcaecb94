//! [`AvroSchema`]: an Avro schema as a tree of [`Node`]s over a table of named types
//! (records, enums, fixed), with every property kept in document order. It is read from
//! schema JSON (names resolved against namespaces as the Avro specification says) and
//! written back as the compact text Avro's Java `Schema.toString()` prints.
//!
//! This module owns the schema's shape (reading text is `parse`'s, writing it `text`'s);
//! what the shapes mean to Kafka Connect is `to_connect`'s and `from_connect`'s.

use super::json::Json;
use super::{MAP_ENTRY, NAMESPACE};

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
}

/// The name `AvroData.unionMemberFieldName` gives a union branch.
pub fn union_field_name(schema: &AvroSchema, node: &Node, enhanced: bool) -> String {
    match &node.kind {
        Kind::Named(i) => {
            let named = &schema.named[*i];
            if enhanced { named.full_name() } else { named.name.clone() }
        }
        kind => kind_name(kind).to_owned(),
    }
}

/// The Avro type name of an unnamed kind.
pub fn kind_name(kind: &Kind) -> &'static str {
    match kind {
        Kind::Null => "null",
        Kind::Boolean => "boolean",
        Kind::Int => "int",
        Kind::Long => "long",
        Kind::Float => "float",
        Kind::Double => "double",
        Kind::Bytes => "bytes",
        Kind::String => "string",
        Kind::Array(_) => "array",
        Kind::Map(_) => "map",
        Kind::Union(_) => "union",
        Kind::Named(_) => "named",
    }
}

/// Whether `node` is an array item that encodes a Connect map entry.
pub fn is_map_entry(schema: &AvroSchema, node: &Node) -> bool {
    let Kind::Named(i) = node.kind else { return false };
    let named = &schema.named[i];
    matches!(named.body, Body::Record(_))
        && ((named.namespace.as_deref() == Some(NAMESPACE) && named.name == MAP_ENTRY)
            || prop(&named.props, "connect.internal.type").and_then(Json::as_str)
                == Some(MAP_ENTRY))
}
