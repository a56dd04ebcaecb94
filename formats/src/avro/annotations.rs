//! Properties on written Avro types: the `connect.*` annotations (doc, version,
//! parameters, default, name, INT8/INT16 type), the Avro logical types, `avro*`
//! parameters copied as properties, and the removal of `avro.java.string`, as
//! `AvroData.fromConnectSchema` and the serializer's `avro.remove.java.properties` do.
//! This module owns property values only, not the shape of the schema.

use wasm_connect_transforms::data::{DATE, DECIMAL, DECIMAL_SCALE, Schema, TIME, TIMESTAMP};

use super::defaults::default_json;
use super::json::Json;
use super::model::{AvroSchema, Body, Kind, Node, set_prop};
use super::options::Options;
use super::{AVRO_FIELD_DEFAULT_FLAG, DECIMAL_PRECISION, DECIMAL_PRECISION_DEFAULT};
use crate::FormatError;

fn err(message: impl Into<String>) -> FormatError {
    FormatError::Schema(message.into())
}

/// The `connect.*` annotations, logical types and `avro*` parameters on a written type (`props`:
/// a union takes none).
pub fn annotate(
    options: &Options,
    schema: &Schema,
    props: &mut Vec<(String, Json)>,
    connect_type: Option<&str>,
) -> Result<(), FormatError> {
    let connect_default = match (&schema.default, options.connect_meta_data) {
        (Some(d), true) if schema.parameter(AVRO_FIELD_DEFAULT_FLAG).is_none() => {
            Some(default_json(options, schema, d)?)
        }
        _ => None,
    };
    let meta = options.connect_meta_data;
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

/// The `connect.parameters` object: every parameter but the field-default flag.
pub fn connect_parameters(schema: &Schema) -> Vec<(String, Json)> {
    schema
        .parameters
        .iter()
        .filter(|(k, _)| k != AVRO_FIELD_DEFAULT_FLAG)
        .map(|(k, v)| (k.clone(), Json::Str(v.clone())))
        .collect()
}

pub fn decimal_scale(schema: &Schema) -> Result<i32, FormatError> {
    match schema.parameter(DECIMAL_SCALE) {
        None => Ok(0),
        Some(s) => s.parse().map_err(|_| err(format!("Invalid Decimal scale: {s}"))),
    }
}

pub fn decimal_precision(schema: &Schema) -> Result<i32, FormatError> {
    match schema.parameter(DECIMAL_PRECISION) {
        None => Ok(DECIMAL_PRECISION_DEFAULT),
        Some(s) => s.parse().map_err(|_| err(format!("Invalid {DECIMAL_PRECISION}: {s}"))),
    }
}

/// Removes `avro.java.string` properties everywhere (`avro.remove.java.properties`).
pub fn strip_java_properties(schema: &mut AvroSchema) {
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
