//! Avro schema → Connect schema, as `AvroData.toConnectSchema` reads any Avro schema:
//! records, enums, unions (optional or `io.confluent.connect.avro.Union`), fixed, logical
//! types, defaults, and the `connect.*` annotations back to names, versions, docs,
//! parameters, INT8 and INT16. Recursive schemas are refused (a Connect schema is a tree).
//! This module must not decode values.

use std::sync::Arc;

use wasm_connect_transforms::data::{DATE, DECIMAL, DECIMAL_SCALE, Schema, TIME, TIMESTAMP, Type};

use super::defaults::default_value;
use super::json::Json;
use super::model::{AvroSchema, Body, Kind, Node, is_map_entry, prop, union_field_name};
use super::options::Options;
use super::{
    AVRO_ENUM_DEFAULT_PREFIX, AVRO_ENUM_DOC_PREFIX, AVRO_FIELD_DEFAULT_FLAG, AVRO_FIELD_DOC_PREFIX,
    AVRO_RECORD_DOC, AVRO_TYPE_ENUM, AVRO_TYPE_UNION, DECIMAL_PRECISION, DECIMAL_PRECISION_DEFAULT,
    FIXED_SIZE, NAMESPACE,
};
use crate::FormatError;

/// The Connect schema `AvroData` reads `schema` as; `version` is the registry's version of
/// the schema, used when the schema carries no `connect.version`.
pub fn to_connect(
    schema: &AvroSchema,
    options: &Options,
    version: Option<i32>,
) -> Result<Arc<Schema>, FormatError> {
    let mut ctx = Ctx { schema, options, stack: Vec::new() };
    ctx.convert(&schema.root, false, None, version).map(Arc::new)
}

fn err(message: impl Into<String>) -> FormatError {
    FormatError::RegisteredSchema(message.into())
}

struct Ctx<'a> {
    schema: &'a AvroSchema,
    options: &'a Options,
    /// Named types being converted, to refuse recursion.
    stack: Vec<usize>,
}

fn logical(schema: Schema, name: &str) -> Schema {
    Schema { name: Some(name.to_owned()), version: Some(1), ..schema }
}

impl Ctx<'_> {
    fn convert(
        &mut self,
        node: &Node,
        force_optional: bool,
        field_default: Option<&Json>,
        version: Option<i32>,
    ) -> Result<Schema, FormatError> {
        let avro = self.schema;
        let props = avro.props(node);
        let connect_type = prop(props, "connect.type").and_then(Json::as_str);
        let logical_type = prop(props, "logicalType").and_then(Json::as_str);
        let is = |l: &str| logical_type.is_some_and(|t| t.eq_ignore_ascii_case(l));
        let meta = self.options.connect_meta_data;
        let mut named_name = None;
        let mut s = match &node.kind {
            Kind::Boolean => Schema::new(Type::Boolean),
            Kind::Int => match (connect_type, logical_type) {
                (None, None) => Schema::new(Type::Int32),
                (_, Some(_)) if is("date") => logical(Schema::new(Type::Int32), DATE),
                (_, Some(_)) if is("time-millis") => logical(Schema::new(Type::Int32), TIME),
                (_, Some(_)) => Schema::new(Type::Int32),
                (Some("int8"), None) => Schema::new(Type::Int8),
                (Some("int16"), None) => Schema::new(Type::Int16),
                (Some(_), None) => {
                    return Err(err("Connect type annotation for Avro int field is null"));
                }
            },
            Kind::Long if is("timestamp-millis") => logical(Schema::new(Type::Int64), TIMESTAMP),
            Kind::Long => Schema::new(Type::Int64),
            Kind::Float => Schema::new(Type::Float32),
            Kind::Double => Schema::new(Type::Float64),
            Kind::String => Schema::new(Type::String),
            Kind::Bytes => self.bytes(props, is("decimal"), None)?,
            Kind::Array(items) if is_map_entry(avro, items) => {
                let Kind::Named(i) = items.kind else { unreachable!("a map entry is a record") };
                let Body::Record(fields) = &avro.named[i].body else { unreachable!("checked") };
                let key = fields.iter().find(|f| f.name == "key");
                let value = fields.iter().find(|f| f.name == "value");
                let (Some(key), Some(value), 2) = (key, value, fields.len()) else {
                    return Err(err(
                        "Found map encoded as array of key-value pairs, but array elements do not match the expected format.",
                    ));
                };
                self.enter(i)?;
                let k = self.convert(&key.node, false, None, None)?;
                let v = self.convert(&value.node, false, None, None)?;
                self.stack.pop();
                Schema::map(Arc::new(k), Arc::new(v))
            }
            Kind::Array(items) => Schema::array(Arc::new(self.convert(items, false, None, None)?)),
            Kind::Map(values) => Schema::map(
                Arc::new(Schema::new(Type::String)),
                Arc::new(self.convert(values, false, None, None)?),
            ),
            Kind::Union(branches) => {
                let non_null: Vec<&Node> =
                    branches.iter().filter(|b| !matches!(b.kind, Kind::Null)).collect();
                if branches.len() == 1 && self.options.flatten_singleton_unions {
                    return self.convert(&branches[0], false, None, None);
                }
                if branches.len() == 2 && non_null.len() == 1 {
                    return self.convert(non_null[0], true, None, None);
                }
                let mut s = Schema::structure().named(AVRO_TYPE_UNION);
                for b in branches {
                    if matches!(b.kind, Kind::Null) {
                        s.optional = true;
                        continue;
                    }
                    let name = union_field_name(avro, b, self.options.enhanced);
                    if s.field(&name).is_some() {
                        return Err(err(
                            "Multiple union schemas map to the Connect union field name",
                        ));
                    }
                    let field = self.convert(b, true, None, None)?;
                    s = s.with_field(name, Arc::new(field));
                }
                s
            }
            Kind::Null => {
                return Err(err("Standalone null schemas are not supported by this converter"));
            }
            Kind::Named(i) => {
                let named = &avro.named[*i];
                match &named.body {
                    Body::Fixed(size) => {
                        let s = self.bytes(props, is("decimal"), Some(*size))?;
                        if !s.is_logical(DECIMAL) {
                            named_name = Some(named.full_name());
                        }
                        s
                    }
                    Body::Enum { symbols, default } => {
                        named_name = Some(named.full_name());
                        let mut s = Schema::new(Type::String);
                        if meta {
                            if let Some(doc) = &named.doc {
                                s.parameters.push((
                                    format!("{AVRO_ENUM_DOC_PREFIX}{}", named.name),
                                    doc.clone(),
                                ));
                            }
                            if let Some(d) = default {
                                s.parameters.push((
                                    format!("{AVRO_ENUM_DEFAULT_PREFIX}{}", named.name),
                                    d.clone(),
                                ));
                            }
                        }
                        s.parameters.push((AVRO_TYPE_ENUM.to_owned(), named.full_name()));
                        for sym in symbols {
                            put(&mut s.parameters, &format!("{AVRO_TYPE_ENUM}.{sym}"), sym);
                        }
                        s
                    }
                    Body::Record(fields) => {
                        named_name = Some(named.full_name());
                        self.enter(*i)?;
                        let mut s = Schema::structure();
                        if meta && let Some(doc) = &named.doc {
                            s.parameters.push((AVRO_RECORD_DOC.to_owned(), doc.clone()));
                        }
                        for f in fields {
                            if meta && let Some(doc) = &f.doc {
                                put(
                                    &mut s.parameters,
                                    &format!("{AVRO_FIELD_DOC_PREFIX}{}", f.name),
                                    doc,
                                );
                            }
                            let mut field =
                                self.convert(&f.node, false, f.default.as_ref(), None)?;
                            if meta
                                && let Some(Json::Object(over)) =
                                    prop(&f.props, "connect.parameters")
                            {
                                apply_field_parameters(&mut field, over);
                            }
                            if s.field(&f.name).is_some() {
                                return Err(err(format!("Duplicate field {}", f.name)));
                            }
                            s = s.with_field(f.name.clone(), Arc::new(field));
                        }
                        self.stack.pop();
                        s
                    }
                }
            }
        };

        if meta && let Some(doc) = prop(props, "connect.doc").and_then(Json::as_str) {
            s.doc = Some(doc.to_owned());
        }
        let declared = match prop(props, "connect.version") {
            Some(Json::Int(v)) => Some(*v as i32),
            Some(Json::Float(v)) => Some(*v as i32),
            Some(other) => return Err(err(format!("Invalid Connect version found: {other}"))),
            None => version,
        };
        if let Some(v) = declared.filter(|v| *v >= 0) {
            match s.version {
                Some(existing) if existing != v => {
                    return Err(err(format!(
                        "Mismatched versions: version already added to SchemaBuilder ({existing}) differs from version in source schema ({v})"
                    )));
                }
                _ => s.version = Some(v),
            }
        }
        if meta {
            match prop(props, "connect.parameters") {
                None => {}
                Some(Json::Object(params)) => {
                    // The annotated parameters come first, in their order, so that a schema
                    // this format wrote reads back equal (Connect compares parameters as
                    // maps; this crate compares them in order).
                    let mut ordered = Vec::with_capacity(params.len() + s.parameters.len());
                    for (k, v) in params {
                        let Json::Str(v) = v else {
                            return Err(err(format!(
                                "Expected schema parameter values to be strings but found: {v}"
                            )));
                        };
                        put(&mut ordered, k, v);
                    }
                    for (k, v) in std::mem::take(&mut s.parameters) {
                        if !ordered.iter().any(|(o, _)| *o == k) {
                            ordered.push((k, v));
                        }
                    }
                    s.parameters = ordered;
                }
                Some(other) => {
                    return Err(err(format!(
                        "Expected JSON object for schema parameters but found: {other}"
                    )));
                }
            }
        }
        for (k, v) in props {
            if k.starts_with("avro") {
                put(&mut s.parameters, k, &v.to_plain_string());
            }
        }
        let connect_default = prop(props, "connect.default");
        let default = match field_default {
            None => connect_default,
            Some(d) => {
                if meta && connect_default.is_none() {
                    put(&mut s.parameters, AVRO_FIELD_DEFAULT_FLAG, "true");
                }
                Some(d)
            }
        };
        let name = match prop(props, "connect.name") {
            Some(Json::Str(n)) => Some(n.clone()),
            Some(other) => return Err(err(format!("Invalid schema name: {other}"))),
            None => named_name,
        };
        if let Some(name) = name.filter(|n| !n.starts_with(&format!("{NAMESPACE}.ConnectDefault")))
        {
            match &s.name {
                Some(existing) if *existing != name => {
                    return Err(err(format!(
                        "Mismatched names: name already added to SchemaBuilder ({existing}) differs from name in source schema ({name})"
                    )));
                }
                _ => s.name = Some(name),
            }
        }
        if let Some(d) = default {
            // An invalid default is ignored, as AvroData logs and ignores it.
            if let Some(value) = default_value(avro, &s, node, d)
                && !value.is_null()
            {
                s.default = Some(value);
            }
        }
        if force_optional {
            s.optional = true;
        }
        Ok(s)
    }

    fn enter(&mut self, index: usize) -> Result<(), FormatError> {
        if self.stack.contains(&index) {
            return Err(err(format!(
                "Recursive Avro schemas are not supported: {}",
                self.schema.named[index].full_name()
            )));
        }
        self.stack.push(index);
        Ok(())
    }

    fn bytes(
        &self,
        props: &[(String, Json)],
        decimal: bool,
        fixed: Option<usize>,
    ) -> Result<Schema, FormatError> {
        let mut s = Schema::new(Type::Bytes);
        if decimal {
            let scale = match prop(props, "scale") {
                Some(n @ (Json::Int(_) | Json::Float(_))) => n.as_i64().unwrap_or(0),
                _ => 0,
            };
            s = logical(s, DECIMAL);
            s.parameters.push((DECIMAL_SCALE.to_owned(), scale.to_string()));
            match prop(props, "precision") {
                None => {}
                Some(n @ (Json::Int(_) | Json::Float(_))) => {
                    let precision = n.as_i64().unwrap_or(0);
                    if precision != i64::from(DECIMAL_PRECISION_DEFAULT) {
                        s.parameters.push((DECIMAL_PRECISION.to_owned(), precision.to_string()));
                    }
                }
                Some(_) => {
                    return Err(err(
                        "precision property must be a JSON Integer. https://avro.apache.org/docs/1.9.1/spec.html#Decimal",
                    ));
                }
            }
        }
        if let Some(size) = fixed {
            s.parameters.push((FIXED_SIZE.to_owned(), size.to_string()));
        }
        Ok(s)
    }
}

/// `AvroData.applyFieldLevelParams`: a field's own `connect.parameters` (written for a
/// named type seen before) override its type's.
fn apply_field_parameters(field: &mut Schema, over: &[(String, Json)]) {
    for (k, v) in over {
        put(&mut field.parameters, k, &v.to_plain_string());
    }
}

/// Sets parameter `key` (a `LinkedHashMap.put`: an existing key keeps its place).
fn put(params: &mut Vec<(String, String)>, key: &str, value: &str) {
    match params.iter_mut().find(|(k, _)| k == key) {
        Some(slot) => slot.1 = value.to_owned(),
        None => params.push((key.to_owned(), value.to_owned())),
    }
}

/// The Connect schema of one node of `avro` (not the root), as a field of that type reads.
pub fn node_schema(
    avro: &AvroSchema,
    node: &Node,
    options: &Options,
) -> Result<Schema, FormatError> {
    Ctx { schema: avro, options, stack: Vec::new() }.convert(node, false, None, None)
}
