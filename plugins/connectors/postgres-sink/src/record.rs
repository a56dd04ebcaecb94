//! From a [`SinkRecord`] to columns: each key or value field as a column name, the
//! PostgreSQL type the JDBC sink gives its Connect schema (for `auto.create` and
//! `auto.evolve`), and its value as PostgreSQL text input.
//!
//! Data with a schema (JsonConverter `schemas.enable=true`) is a struct of primitive and
//! logical fields; schemaless data is a JSON object whose columns must already exist.
//! This module is pure: no SQL and no I/O.

use std::collections::HashMap;
use std::rc::Rc;

use wasm_connect_sdk::serde_json::value::RawValue;
use wasm_connect_sdk::serde_json::{self, Map, Value};
use wasm_connect_sdk::{Kind, SinkRecord};

use postgres_wire::{format_date, format_time_millis, format_timestamp_micros};

/// One column of a row.
#[derive(Clone, Debug, PartialEq)]
pub struct Column {
    /// The column name.
    pub name: String,
    /// The SQL type from the Connect schema; `None` for schemaless data.
    pub sql_type: Option<String>,
    /// Whether the schema allows null.
    pub optional: bool,
    /// The value as PostgreSQL text input; `None` is NULL.
    pub value: Option<String>,
}

/// The key or value of a record: a struct (its fields), a primitive, or null.
#[derive(Clone, Debug, PartialEq)]
pub enum Data {
    Null,
    Struct(Vec<Column>),
    Primitive(Column),
}

/// A field of a Connect schema, with its column type.
#[derive(Clone, Debug)]
struct FieldDef {
    name: String,
    ty: String,
    logical: String,
    scale: u32,
    optional: bool,
    sql_type: &'static str,
}

/// A key's or value's Connect schema: a struct's fields, or one primitive.
#[derive(Debug)]
enum Shape {
    Struct(Vec<FieldDef>),
    Primitive(FieldDef),
}

/// Schemas already read, by their JSON text: every record of a topic carries the same
/// envelope schema, so each is parsed once.
#[derive(Default)]
pub struct Schemas {
    known: HashMap<String, Rc<Shape>>,
}

impl Schemas {
    fn shape(&mut self, text: &str) -> Result<Rc<Shape>, String> {
        if let Some(shape) = self.known.get(text) {
            return Ok(shape.clone());
        }
        let schema: Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
        let shape = if schema["type"] == "struct" {
            let fields = schema["fields"].as_array().ok_or("a struct without fields")?;
            let defs = fields
                .iter()
                .map(|f| {
                    let name = f["field"].as_str().ok_or("a field without a name")?;
                    field_def(name, f).map_err(|e| format!("{name}: {e}"))
                })
                .collect::<Result<_, String>>()?;
            Shape::Struct(defs)
        } else {
            Shape::Primitive(field_def("", &schema)?)
        };
        if self.known.len() >= 64 {
            self.known.clear();
        }
        let shape = Rc::new(shape);
        self.known.insert(text.to_owned(), shape.clone());
        Ok(shape)
    }
}

/// Reads the key (`key = true`) or value of a record.
pub fn data(record: &SinkRecord, key: bool, schemas: &mut Schemas) -> Result<Data, String> {
    let (kind, bytes) =
        if key { (record.key_kind, &record.key) } else { (record.value_kind, &record.value) };
    let what = if key { "key" } else { "value" };
    let Some(bytes) = bytes else { return Ok(Data::Null) };
    match kind {
        Kind::ConnectJson => {
            let envelope: HashMap<&str, &RawValue> =
                serde_json::from_slice(bytes).map_err(|e| format!("{what}: {e}"))?;
            let raw = |k| envelope.get(k).map_or("null", |r: &&RawValue| r.get());
            let payload: Value =
                serde_json::from_str(raw("payload")).map_err(|e| format!("{what}: {e}"))?;
            if payload.is_null() {
                return Ok(Data::Null);
            }
            if raw("schema") == "null" {
                return schemaless(&payload, what);
            }
            let shape = schemas.shape(raw("schema")).map_err(|e| format!("{what}: {e}"))?;
            match &*shape {
                Shape::Struct(defs) => defs
                    .iter()
                    .map(|d| {
                        column(d, &payload[&d.name]).map_err(|e| format!("{what}.{}: {e}", d.name))
                    })
                    .collect::<Result<_, _>>()
                    .map(Data::Struct),
                Shape::Primitive(d) => {
                    column(d, &payload).map(Data::Primitive).map_err(|e| format!("{what}: {e}"))
                }
            }
        }
        Kind::Json => {
            let v: Value = serde_json::from_slice(bytes).map_err(|e| format!("{what}: {e}"))?;
            schemaless(&v, what)
        }
        Kind::String => Ok(Data::Primitive(Column {
            name: String::new(),
            sql_type: Some("TEXT".into()),
            optional: false,
            value: Some(String::from_utf8_lossy(bytes).into_owned()),
        })),
        _ => Err(format!(
            "{what}: raw bytes cannot be written as a row; use a converter with a schema"
        )),
    }
}

fn schemaless(v: &Value, what: &str) -> Result<Data, String> {
    match v {
        Value::Null => Ok(Data::Null),
        Value::Object(map) => Ok(Data::Struct(map_columns(map))),
        other => Ok(Data::Primitive(Column {
            name: String::new(),
            sql_type: None,
            optional: true,
            value: text(other),
        }))
        .map_err(|e: String| format!("{what}: {e}")),
    }
}

fn map_columns(map: &Map<String, Value>) -> Vec<Column> {
    map.iter()
        .map(|(k, v)| Column { name: k.clone(), sql_type: None, optional: true, value: text(v) })
        .collect()
}

/// Schemaless JSON as text input: strings bare, nested data as JSON text.
fn text(v: &Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

/// The definition of a field with Connect schema `schema`.
fn field_def(name: &str, schema: &Value) -> Result<FieldDef, String> {
    let ty = schema["type"].as_str().unwrap_or("");
    let logical = schema["name"].as_str().unwrap_or("");
    let sql_type = match (logical, ty) {
        ("org.apache.kafka.connect.data.Decimal", _) => "DECIMAL",
        ("org.apache.kafka.connect.data.Date", _) => "DATE",
        ("org.apache.kafka.connect.data.Time", _) => "TIME",
        ("org.apache.kafka.connect.data.Timestamp", _) => "TIMESTAMP",
        (_, "int8" | "int16") => "SMALLINT",
        (_, "int32") => "INT",
        (_, "int64") => "BIGINT",
        // JsonConverter's names, `float` and `double`.
        (_, "float" | "float32") => "REAL",
        (_, "double" | "float64") => "DOUBLE PRECISION",
        (_, "boolean") => "BOOLEAN",
        (_, "string") => "TEXT",
        (_, "bytes") => "BYTEA",
        (_, other) => return Err(format!("type {other:?} has no column type")),
    };
    let scale = &schema["parameters"]["scale"];
    Ok(FieldDef {
        name: name.to_owned(),
        ty: ty.to_owned(),
        logical: logical.to_owned(),
        scale: scale
            .as_str()
            .and_then(|s| s.parse().ok())
            .or_else(|| scale.as_u64().map(|s| s as u32))
            .unwrap_or(0),
        optional: schema["optional"].as_bool().unwrap_or(false),
        sql_type,
    })
}

/// The column of field `d` with JSON payload `v`.
fn column(d: &FieldDef, v: &Value) -> Result<Column, String> {
    let value = if v.is_null() {
        None
    } else {
        Some(match (d.logical.as_str(), v) {
            ("org.apache.kafka.connect.data.Decimal", Value::String(b64)) => {
                decimal(&base64(b64)?, d.scale)?
            }
            ("org.apache.kafka.connect.data.Date", Value::Number(n)) => {
                format_date(n.as_i64().ok_or("a date is not an integer")?)
            }
            ("org.apache.kafka.connect.data.Time", Value::Number(n)) => {
                format_time_millis(n.as_i64().ok_or("a time is not an integer")?)
            }
            ("org.apache.kafka.connect.data.Timestamp", Value::Number(n)) => {
                format_timestamp_micros(n.as_i64().ok_or("a timestamp is not an integer")? * 1000)
            }
            (_, Value::String(s)) if d.ty == "bytes" => format!("\\x{}", hex(&base64(s)?)),
            (_, Value::String(s)) => s.clone(),
            (_, Value::Number(n)) => n.to_string(),
            (_, Value::Bool(b)) => b.to_string(),
            (_, other) => return Err(format!("{other} does not fit type {}", d.ty)),
        })
    };
    Ok(Column {
        name: d.name.clone(),
        sql_type: Some(d.sql_type.into()),
        optional: d.optional,
        value,
    })
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Standard base64 (with or without padding), as JsonConverter writes bytes.
fn base64(text: &str) -> Result<Vec<u8>, String> {
    use base64::Engine as _;
    use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
    const STANDARD_ANY_PADDING: GeneralPurpose = GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
    );
    STANDARD_ANY_PADDING.decode(text).map_err(|e| format!("invalid base64: {e}"))
}

/// A Connect Decimal (big-endian two's complement unscaled value) as decimal text.
fn decimal(bytes: &[u8], scale: u32) -> Result<String, String> {
    if bytes.len() > 16 {
        return Err("a decimal wider than 128 bits".into());
    }
    let negative = bytes.first().is_some_and(|b| b & 0x80 != 0);
    let mut n: i128 = if negative { -1 } else { 0 };
    for b in bytes {
        n = (n << 8) | i128::from(*b);
    }
    let digits = n.unsigned_abs().to_string();
    let scale = scale as usize;
    let padded = format!("{digits:0>width$}", width = scale + 1);
    let (int, frac) = padded.split_at(padded.len() - scale);
    let sign = if n < 0 { "-" } else { "" };
    Ok(if scale == 0 { format!("{sign}{int}") } else { format!("{sign}{int}.{frac}") })
}

#[cfg(test)]
mod tests {
    use wasm_connect_sdk::serde_json::json;

    use super::*;

    fn connect(schema: Value, payload: Value) -> SinkRecord {
        let v = json!({"schema": schema, "payload": payload});
        SinkRecord {
            value_kind: Kind::ConnectJson,
            value: Some(v.to_string().into()),
            ..SinkRecord::default()
        }
    }

    #[test]
    fn struct_fields_map_to_jdbc_types_and_text() {
        let schema = json!({"type": "struct", "fields": [
            {"field": "id", "type": "int64", "optional": false},
            {"field": "name", "type": "string", "optional": true},
            {"field": "raw", "type": "bytes", "optional": true},
            {"field": "at", "type": "int64", "name": "org.apache.kafka.connect.data.Timestamp"},
            {"field": "price", "type": "bytes", "name": "org.apache.kafka.connect.data.Decimal",
             "parameters": {"scale": "2"}},
        ]});
        let r = connect(
            schema,
            json!({"id": 7, "name": null, "raw": "AQL/", "at": 1000, "price": "/zg="}),
        );
        let Data::Struct(cols) = data(&r, false, &mut Schemas::default()).unwrap() else {
            panic!()
        };
        let got: Vec<_> =
            cols.iter().map(|c| (c.sql_type.as_deref().unwrap(), c.value.as_deref())).collect();
        assert_eq!(
            got,
            [
                ("BIGINT", Some("7")),
                ("TEXT", None),
                ("BYTEA", Some("\\x0102ff")),
                ("TIMESTAMP", Some("1970-01-01 00:00:01.000000+00")),
                ("DECIMAL", Some("-2.00")),
            ]
        );
        assert!(!cols[0].optional && cols[1].optional);
    }

    #[test]
    fn schemaless_maps_and_tombstones() {
        let r = SinkRecord {
            value_kind: Kind::Json,
            value: Some(br#"{"a":1,"b":"x"}"#.to_vec()),
            ..SinkRecord::default()
        };
        let Data::Struct(cols) = data(&r, false, &mut Schemas::default()).unwrap() else {
            panic!()
        };
        assert_eq!((cols[0].value.as_deref(), cols[1].value.as_deref()), (Some("1"), Some("x")));
        assert_eq!(
            data(&SinkRecord::default(), false, &mut Schemas::default()).unwrap(),
            Data::Null
        );
        assert_eq!(decimal(&[0x30, 0x39], 3).unwrap(), "12.345");
        assert_eq!(decimal(&[0x05], 2).unwrap(), "0.05");
    }
}
