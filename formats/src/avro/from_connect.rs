//! Connect schema → Avro schema, as `AvroData.fromConnectSchema` builds it: types,
//! logical types, optional unions, defaults, names (`ConnectDefault` numbering, `MapEntry`)
//! and the `connect.*` annotations. The result is an [`AvroSchema`] model; its text is
//! `model`'s to write. This module must not encode values.

use std::collections::{HashMap, HashSet};

use wasm_connect_transforms::data::{
    DATE, DECIMAL, DECIMAL_SCALE, Schema, TIME, TIMESTAMP, Type, Value,
};

use super::json::Json;
use super::model::{AvroSchema, Body, FieldDef, Kind, Named, Node, set_prop};
use super::names;
use super::options::Options;
use super::{
    AVRO_ENUM_DEFAULT_PREFIX, AVRO_ENUM_DOC_PREFIX, AVRO_FIELD_DEFAULT_FLAG, AVRO_FIELD_DOC_PREFIX,
    AVRO_RECORD_DOC, AVRO_TYPE_ENUM, DECIMAL_PRECISION, DECIMAL_PRECISION_DEFAULT, FIXED_SIZE,
    MAP_ENTRY, NAMESPACE, is_fixed, is_union,
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
        self.annotate(schema, &mut base, connect_type)?;
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
            Some(d) => Some(self.default_json(schema, d)?),
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

    /// The `connect.*` annotations, logical types and `avro*` parameters on `base`.
    fn annotate(
        &mut self,
        schema: &Schema,
        base: &mut Node,
        connect_type: Option<&str>,
    ) -> Result<(), FormatError> {
        if matches!(base.kind, Kind::Union(_)) {
            return Ok(());
        }
        let connect_default = match (&schema.default, self.options.connect_meta_data) {
            (Some(d), true) if schema.parameter(AVRO_FIELD_DEFAULT_FLAG).is_none() => {
                Some(self.default_json(schema, d)?)
            }
            _ => None,
        };
        let meta = self.options.connect_meta_data;
        let props = self.props_of(base);
        if meta {
            if let Some(doc) = &schema.doc {
                set_prop(props, "connect.doc", Json::Str(doc.clone()));
            }
            if let Some(v) = schema.version {
                set_prop(props, "connect.version", Json::Int(v.into()));
            }
            let params = connect_parameters(schema);
            if !params.is_empty() {
                set_prop(props, "connect.parameters", Json::Object(params));
            }
            if let Some(d) = connect_default {
                set_prop(props, "connect.default", d);
            }
            if let Some(name) = &schema.name {
                set_prop(props, "connect.name", Json::Str(name.clone()));
            }
            if let Some(t) = connect_type {
                set_prop(props, "connect.type", Json::Str(t.into()));
            }
        }
        let logical = match schema.name.as_deref() {
            Some(n) if n.eq_ignore_ascii_case(DECIMAL) => {
                let precision = decimal_precision(schema)?;
                let scale = decimal_scale(schema)?;
                set_prop(props, "logicalType", Json::Str("decimal".into()));
                if scale >= 0 && scale <= precision {
                    set_prop(props, "precision", Json::Int(precision.into()));
                    set_prop(props, "scale", Json::Int(scale.into()));
                }
                None
            }
            Some(n) if n.eq_ignore_ascii_case(TIME) => Some("time-millis"),
            Some(n) if n.eq_ignore_ascii_case(TIMESTAMP) => Some("timestamp-millis"),
            Some(n) if n.eq_ignore_ascii_case(DATE) => Some("date"),
            _ => None,
        };
        if let Some(l) = logical {
            set_prop(props, "logicalType", Json::Str(l.into()));
        }
        for (k, v) in &schema.parameters {
            if k.starts_with("avro") {
                set_prop(props, k, Json::Str(v.clone()));
            }
        }
        Ok(())
    }

    /// `AvroData.defaultValueFromConnect`: a Connect default as Avro default JSON.
    fn default_json(&self, schema: &Schema, value: &Value) -> Result<Json, FormatError> {
        let bad = || {
            err(format!(
                "Invalid type used for default value of {} field: {}",
                schema.ty.upper(),
                wasm_connect_transforms::data::java_class(value)
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
                        .map(|v| self.default_json(items_schema, v))
                        .collect::<Result<_, _>>()?,
                )
            }
            (Type::Map, Value::Map(entries)) => {
                let keys = schema.key_schema.as_deref().ok_or_else(bad)?;
                let values = schema.value_schema.as_deref().ok_or_else(bad)?;
                if keys.ty == Type::String
                    && (!keys.optional || self.options.allow_optional_map_keys)
                {
                    let mut members = Vec::new();
                    for (k, v) in entries {
                        let Value::String(k) = k else { return Err(bad()) };
                        members.push((k.clone(), self.default_json(values, v)?));
                    }
                    Json::Object(members)
                } else {
                    Json::Array(
                        entries
                            .iter()
                            .map(|(k, v)| {
                                Ok(Json::Array(vec![
                                    self.default_json(keys, k)?,
                                    self.default_json(values, v)?,
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
                    let json = self.default_json(&field.schema, v)?;
                    if is_union(schema) {
                        return Ok(json);
                    }
                    members.push((
                        names::maybe_scrub(&field.name, self.options.scrub_invalid_names),
                        json,
                    ));
                }
                Json::Object(members)
            }
            _ => return Err(bad()),
        })
    }
}

/// The `connect.parameters` object: every parameter but the field-default flag.
fn connect_parameters(schema: &Schema) -> Vec<(String, Json)> {
    schema
        .parameters
        .iter()
        .filter(|(k, _)| k != AVRO_FIELD_DEFAULT_FLAG)
        .map(|(k, v)| (k.clone(), Json::Str(v.clone())))
        .collect()
}

fn make_optional(schema: &Schema, base: Node) -> Node {
    if !schema.optional {
        return base;
    }
    let null = Node { kind: Kind::Null, props: Vec::new() };
    let branches = if schema.default.is_some() { vec![base, null] } else { vec![null, base] };
    Node { kind: Kind::Union(branches), props: Vec::new() }
}

fn decimal_scale(schema: &Schema) -> Result<i32, FormatError> {
    match schema.parameter(DECIMAL_SCALE) {
        None => Ok(0),
        Some(s) => s.parse().map_err(|_| err(format!("Invalid Decimal scale: {s}"))),
    }
}

fn decimal_precision(schema: &Schema) -> Result<i32, FormatError> {
    match schema.parameter(DECIMAL_PRECISION) {
        None => Ok(DECIMAL_PRECISION_DEFAULT),
        Some(s) => s.parse().map_err(|_| err(format!("Invalid {DECIMAL_PRECISION}: {s}"))),
    }
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

fn strip_java_properties(schema: &mut AvroSchema) {
    fn strip_json(json: &mut Json) {
        match json {
            Json::Object(members) => {
                members.retain(|(k, _)| k != "avro.java.string");
                members.iter_mut().for_each(|(_, v)| strip_json(v));
            }
            Json::Array(items) => items.iter_mut().for_each(strip_json),
            _ => {}
        }
    }
    fn strip_props(props: &mut Vec<(String, Json)>) {
        props.retain(|(k, _)| k != "avro.java.string");
        props.iter_mut().for_each(|(_, v)| strip_json(v));
    }
    fn strip_node(node: &mut Node) {
        strip_props(&mut node.props);
        match &mut node.kind {
            Kind::Array(n) | Kind::Map(n) => strip_node(n),
            Kind::Union(b) => b.iter_mut().for_each(strip_node),
            _ => {}
        }
    }
    strip_node(&mut schema.root);
    for named in &mut schema.named {
        strip_props(&mut named.props);
        if let Body::Record(fields) = &mut named.body {
            for f in fields {
                strip_props(&mut f.props);
                strip_node(&mut f.node);
                if let Some(d) = &mut f.default {
                    strip_json(d);
                }
            }
        }
    }
}
