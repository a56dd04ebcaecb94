//! Connect schema → Avro schema, as `AvroData.fromConnectSchema` builds it: types,
//! logical types, optional unions, defaults, names (`ConnectDefault` numbering, `MapEntry`)
//! and docs; the annotations on each type are `annotations`'. The result is an
//! [`AvroSchema`] model; its text is `text`'s to write. This module must not encode values.

use std::collections::{HashMap, HashSet};

use wasm_connect_transforms::data::{DECIMAL, Schema, Type};

use super::annotations::{
    annotate, connect_parameters, decimal_precision, decimal_scale, strip_java_properties,
};
use super::defaults::{default_json, valid_default};
use super::json::Json;
use super::model::{AvroSchema, Body, FieldDef, Kind, Named, Node, set_prop};
use super::names;
use super::options::Options;
use super::{
    AVRO_ENUM_DEFAULT_PREFIX, AVRO_ENUM_DOC_PREFIX, AVRO_FIELD_DOC_PREFIX, AVRO_RECORD_DOC,
    AVRO_TYPE_ENUM, FIXED_SIZE, MAP_ENTRY, NAMESPACE, is_fixed, is_union,
};
use crate::FormatError;

/// The Avro schema `AvroData` writes for `schema`.
pub fn from_connect(schema: &Schema, options: &Options) -> Result<AvroSchema, FormatError> {
    let mut ctx = Ctx {
        options,
        out: AvroSchema::default(),
        cache: Vec::new(),
        by_connect_name: HashMap::new(),
        name_index: 0,
        seen_named: HashSet::new(),
    };
    let root = ctx.convert(schema, false)?;
    ctx.out.root = root;
    if options.remove_java_properties {
        strip_java_properties(&mut ctx.out);
    }
    Ok(ctx.out)
}

struct Ctx<'a> {
    options: &'a Options,
    out: AvroSchema,
    /// Non-optional Connect schemas already converted (`schemaMap`), for named types.
    cache: Vec<(Schema, Node)>,
    /// Records by Connect name (`cycleReferences`).
    by_connect_name: HashMap<String, usize>,
    name_index: u32,
    /// Full names of field schemas seen so far (`seenNamedTypes`).
    seen_named: HashSet<String>,
}

fn err(message: impl Into<String>) -> FormatError {
    FormatError::Schema(message.into())
}

fn non_optional(schema: &Schema) -> Schema {
    Schema { optional: false, ..schema.clone() }
}

impl Ctx<'_> {
    fn props_of<'b>(&'b mut self, node: &'b mut Node) -> &'b mut Vec<(String, Json)> {
        match node.kind {
            Kind::Named(i) => &mut self.out.named[i].props,
            _ => &mut node.props,
        }
    }

    /// Namespace and name for a named type: the Connect name split, or the next
    /// `ConnectDefault` name.
    fn name_or_default(&mut self, name: Option<&str>) -> (Option<String>, String) {
        match name {
            Some(n) => names::split(n, self.options.scrub_invalid_names),
            None => {
                self.name_index += 1;
                let suffix =
                    if self.name_index > 1 { self.name_index.to_string() } else { String::new() };
                (Some(NAMESPACE.to_owned()), format!("ConnectDefault{suffix}"))
            }
        }
    }

    fn define(
        &mut self,
        namespace: Option<String>,
        name: String,
        doc: Option<String>,
        body: Body,
    ) -> Result<Node, FormatError> {
        // An empty namespace is none, as Avro's `createRecord` takes it.
        let namespace = namespace.filter(|ns| !ns.is_empty());
        if !names::is_valid(&name) {
            return Err(err(format!("Illegal character in: {name}")));
        }
        if let Some(ns) = &namespace
            && let Some(bad) = ns.split('.').find(|p| !names::is_valid(p))
        {
            return Err(err(format!("Illegal character in: {bad}")));
        }
        let index = self.out.named.len();
        self.out.named.push(Named { name, namespace, doc, props: Vec::new(), body });
        Ok(Node { kind: Kind::Named(index), props: Vec::new() })
    }

    /// Whether `node` is a named type, or a union with one (`AvroData.isNamedAvroType`).
    fn is_named(&self, node: &Node) -> bool {
        match &node.kind {
            Kind::Named(_) => true,
            Kind::Union(b) => b.iter().any(|b| matches!(b.kind, Kind::Named(_))),
            _ => false,
        }
    }

    fn with_cycle(&mut self, schema: &Schema, ignore_optional: bool) -> Result<Node, FormatError> {
        if let Some(&index) = schema.name.as_ref().and_then(|n| self.by_connect_name.get(n)) {
            let node = Node { kind: Kind::Named(index), props: Vec::new() };
            return Ok(if ignore_optional { node } else { make_optional(schema, node) });
        }
        self.convert(schema, ignore_optional)
    }

    fn convert(&mut self, schema: &Schema, ignore_optional: bool) -> Result<Node, FormatError> {
        let union = is_union(schema);
        if !union
            && !schema.optional
            && let Some((_, node)) = self.cache.iter().find(|(s, _)| s == schema)
        {
            return Ok(node.clone());
        }
        let mut connect_type = None;
        let plain = |kind| Node { kind, props: Vec::new() };
        let mut base = match schema.ty {
            Type::Int8 => {
                connect_type = Some("int8");
                plain(Kind::Int)
            }
            Type::Int16 => {
                connect_type = Some("int16");
                plain(Kind::Int)
            }
            Type::Int32 => plain(Kind::Int),
            Type::Int64 => plain(Kind::Long),
            Type::Float32 => plain(Kind::Float),
            Type::Float64 => plain(Kind::Double),
            Type::Boolean => plain(Kind::Boolean),
            Type::String if self.options.enhanced && schema.parameter(AVRO_TYPE_ENUM).is_some() => {
                self.enumeration(schema)?
            }
            Type::String => plain(Kind::String),
            Type::Bytes => {
                let mut node = if is_fixed(schema) {
                    let (ns, name) = self.name_or_default(schema.name.as_deref());
                    let size = schema
                        .parameter(FIXED_SIZE)
                        .and_then(|s| s.parse::<usize>().ok())
                        .ok_or_else(|| err(format!("Invalid {FIXED_SIZE} parameter")))?;
                    self.define(ns, name, None, Body::Fixed(size))?
                } else {
                    plain(Kind::Bytes)
                };
                if schema.is_logical(DECIMAL) {
                    let scale = decimal_scale(schema)?;
                    let precision = decimal_precision(schema)?;
                    let props = self.props_of(&mut node);
                    set_prop(props, "scale", Json::Int(scale.into()));
                    set_prop(props, "precision", Json::Int(precision.into()));
                }
                node
            }
            Type::Array => {
                let items =
                    schema.value_schema.as_deref().ok_or_else(|| err("ARRAY without items"))?;
                Node {
                    kind: Kind::Array(Box::new(self.with_cycle(items, false)?)),
                    props: Vec::new(),
                }
            }
            Type::Map => self.map(schema)?,
            Type::Struct if union => {
                let mut branches = Vec::new();
                if schema.optional {
                    branches.push(plain(Kind::Null));
                }
                for field in &schema.fields {
                    branches.push(self.with_cycle(&non_optional(&field.schema), true)?);
                }
                return Ok(plain(Kind::Union(branches)));
            }
            Type::Struct if schema.optional => {
                let inner = self.with_cycle(&non_optional(schema), false)?;
                return Ok(plain(Kind::Union(vec![plain(Kind::Null), inner])));
            }
            Type::Struct => self.record(schema)?,
        };
        let optional_schema = schema;
        if !matches!(base.kind, Kind::Union(_)) {
            annotate(self.options, schema, self.props_of(&mut base), connect_type)?;
        }
        let result = if ignore_optional { base } else { make_optional(optional_schema, base) };
        if !schema.optional && matches!(result.kind, Kind::Named(_) | Kind::Array(_)) {
            self.cache.push((schema.clone(), result.clone()));
        }
        Ok(result)
    }

    fn enumeration(&mut self, schema: &Schema) -> Result<Node, FormatError> {
        let prefix = format!("{AVRO_TYPE_ENUM}.");
        let symbols: Vec<String> = schema
            .parameters
            .iter()
            .filter_map(|(k, _)| k.strip_prefix(&prefix).map(str::to_owned))
            .collect();
        let (_, name) = self.name_or_default(schema.name.as_deref());
        let enum_name = schema.parameter(AVRO_TYPE_ENUM).unwrap_or_default();
        let doc = schema.parameter(&format!("{AVRO_ENUM_DOC_PREFIX}{name}")).map(str::to_owned);
        let default =
            schema.parameter(&format!("{AVRO_ENUM_DEFAULT_PREFIX}{name}")).map(str::to_owned);
        if let Some(bad) = symbols.iter().find(|s| !names::is_valid(s)) {
            return Err(err(format!("Illegal character in: {bad}")));
        }
        let (ns, simple) = names::split(enum_name, false);
        self.define(ns, simple, doc, Body::Enum { symbols, default })
    }

    fn map(&mut self, schema: &Schema) -> Result<Node, FormatError> {
        let keys = schema.key_schema.as_deref().ok_or_else(|| err("MAP without keys"))?;
        let values = schema.value_schema.as_deref().ok_or_else(|| err("MAP without values"))?;
        if keys.ty == Type::String && (!keys.optional || self.options.allow_optional_map_keys) {
            let values = self.with_cycle(values, false)?;
            return Ok(Node { kind: Kind::Map(Box::new(values)), props: Vec::new() });
        }
        let entry = match &schema.name {
            None => self.define(
                Some(NAMESPACE.into()),
                MAP_ENTRY.into(),
                None,
                Body::Record(Vec::new()),
            )?,
            Some(name) => {
                let (ns, name) = self.name_or_default(Some(name));
                let mut node = self.define(ns, name, None, Body::Record(Vec::new()))?;
                set_prop(
                    self.props_of(&mut node),
                    "connect.internal.type",
                    Json::Str(MAP_ENTRY.into()),
                );
                node
            }
        };
        let mut fields = Vec::new();
        self.add_field(&mut fields, "key".into(), keys, None)?;
        self.add_field(&mut fields, "value".into(), values, None)?;
        if let Kind::Named(i) = entry.kind {
            self.out.named[i].body = Body::Record(fields);
        }
        Ok(Node { kind: Kind::Array(Box::new(entry)), props: Vec::new() })
    }

    fn record(&mut self, schema: &Schema) -> Result<Node, FormatError> {
        let (ns, name) = self.name_or_default(schema.name.as_deref());
        let doc = schema.parameter(AVRO_RECORD_DOC).map(str::to_owned);
        let node = self.define(ns, name, doc, Body::Record(Vec::new()))?;
        let Kind::Named(index) = node.kind else { unreachable!("define gives a named node") };
        if let Some(n) = &schema.name {
            self.by_connect_name.insert(n.clone(), index);
        }
        let mut fields = Vec::with_capacity(schema.fields.len());
        for field in &schema.fields {
            let name = names::maybe_scrub(&field.name, self.options.scrub_invalid_names);
            if !names::is_valid(&name) {
                return Err(err(format!("Illegal character in: {name}")));
            }
            let doc = schema.parameter(&format!("{AVRO_FIELD_DOC_PREFIX}{}", field.name));
            self.add_field(&mut fields, name, &field.schema, doc.map(str::to_owned))?;
        }
        self.out.named[index].body = Body::Record(fields);
        Ok(node)
    }

    fn add_field(
        &mut self,
        fields: &mut Vec<FieldDef>,
        name: String,
        schema: &Schema,
        doc: Option<String>,
    ) -> Result<(), FormatError> {
        let default = match &schema.default {
            Some(d) => Some(default_json(self.options, schema, d)?),
            None if schema.optional => Some(Json::Null),
            None => None,
        };
        let seen_before = schema.name.as_ref().is_some_and(|n| {
            !self.seen_named.insert(names::scrub_full(n, self.options.scrub_invalid_names))
        });
        let node = self.convert(schema, false)?;
        let mut props = Vec::new();
        if self.options.connect_meta_data && seen_before && self.is_named(&node) {
            let params = connect_parameters(schema);
            if !params.is_empty() {
                props.push(("connect.parameters".to_owned(), Json::Object(params)));
            }
        }
        // Avro refuses a default that does not match the field's schema; AvroData then
        // writes the field without one.
        let default = default.filter(|d| valid_default(&self.out, &node, d));
        if fields.iter().any(|f| f.name == name) {
            return Err(err(format!("Duplicate field {name}")));
        }
        fields.push(FieldDef { name, doc, default, node, props });
        Ok(())
    }
}

fn make_optional(schema: &Schema, base: Node) -> Node {
    if !schema.optional {
        return base;
    }
    let null = Node { kind: Kind::Null, props: Vec::new() };
    let branches = if schema.default.is_some() { vec![base, null] } else { vec![null, base] };
    Node { kind: Kind::Union(branches), props: Vec::new() }
}
