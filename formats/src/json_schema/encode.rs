//! Connect value → JSON text, as Confluent's `JsonSchemaData.fromConnectData` builds the
//! tree and Jackson writes it: integers as numbers, floats as Java prints them, BYTES as
//! base64 strings, Decimal as base64 of its unscaled bytes or (with `NUMERIC`) as a plain
//! number, Date/Time/Timestamp as their integer days or milliseconds, STRUCTs as objects
//! with their fields in order, maps with STRING keys as objects and others as arrays of
//! `{"key", "value"}` objects. A null takes its schema's default, else is written as
//! `null` for an optional schema and left out (a field) for a required one.
//!
//! This module owns the value side of writing; it writes straight into the output buffer
//! (no intermediate tree) because it runs once per record. It must not look at schema
//! texts: the schema arrives as Connect's.

use std::fmt::Write as _;

use wasm_connect_transforms::data::schemaless::json::{self, Json};
use wasm_connect_transforms::data::{
    DATE, DECIMAL, DECIMAL_SCALE, Schema, TIME, TIMESTAMP, Type, Value, java_class,
};

use super::decimal;
use super::options::Options;
use super::to_schema::{is_union, printed_default};
use crate::FormatError;

/// Writes values with the format's options.
#[derive(Clone, Debug)]
pub struct Encoder {
    options: Options,
}

fn invalid<T>(message: String) -> Result<T, FormatError> {
    Err(FormatError::Value(message))
}

/// A Decimal schema's scale.
pub fn decimal_scale(schema: &Schema) -> Result<i32, String> {
    let text = schema
        .parameter(DECIMAL_SCALE)
        .ok_or_else(|| "Invalid Decimal schema: scale parameter not found.".to_owned())?;
    text.parse().map_err(|_| format!("Invalid scale parameter found in Decimal schema: {text}"))
}

impl Encoder {
    /// An encoder with `options`.
    pub fn new(options: Options) -> Self {
        Self { options }
    }

    /// The options.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Appends the JSON of `value` (of `schema`) to `out`; `false` when the value is a
    /// null that Confluent leaves out (required, no default) and nothing was written.
    pub fn encode(
        &self,
        schema: &Schema,
        value: &Value,
        out: &mut Vec<u8>,
    ) -> Result<bool, FormatError> {
        if value.is_null() {
            if let Some(default) = &schema.default
                && !self.options.ignore_default_for_nullables
                && !default.is_null()
            {
                return self.encode(schema, default, out);
            }
            if schema.optional {
                out.extend_from_slice(b"null");
                return Ok(true);
            }
            return Ok(false);
        }
        match schema.name.as_deref() {
            Some(DECIMAL) => return self.decimal(schema, value, out).map(|()| true),
            Some(DATE) | Some(TIME) => {
                let Value::Int32(n) = value else {
                    let which = if schema.is_logical(DATE) { "Date" } else { "Time" };
                    return invalid(format!(
                        "Invalid type for {which}, expected Date but was class {}",
                        java_class(value)
                    ));
                };
                write!(Out(out), "{n}").expect("writing to memory");
                return Ok(true);
            }
            Some(TIMESTAMP) => {
                let Value::Int64(n) = value else {
                    return invalid(format!(
                        "Invalid type for Timestamp, expected Date but was class {}",
                        java_class(value)
                    ));
                };
                write!(Out(out), "{n}").expect("writing to memory");
                return Ok(true);
            }
            _ => {}
        }
        match (schema.ty, value) {
            (Type::Int8, Value::Int8(n)) => write!(Out(out), "{n}"),
            (Type::Int16, Value::Int16(n)) => write!(Out(out), "{n}"),
            (Type::Int32, Value::Int32(n)) => write!(Out(out), "{n}"),
            (Type::Int64, Value::Int64(n)) => write!(Out(out), "{n}"),
            (Type::Float32, Value::Float32(f)) => {
                write_json(&Json::float(*f), out);
                Ok(())
            }
            (Type::Float64, Value::Float64(d)) => {
                write_json(&Json::double(*d), out);
                Ok(())
            }
            (Type::Boolean, Value::Boolean(b)) => {
                out.extend_from_slice(if *b { b"true" } else { b"false" });
                Ok(())
            }
            (Type::String, Value::String(s)) => {
                json::write_string(s, out);
                Ok(())
            }
            (Type::Bytes, Value::Bytes(b)) => {
                json::write_string(&json::base64_encode(b), out);
                Ok(())
            }
            (Type::Array, Value::Array(items)) => {
                let items_schema = inner(&schema.value_schema)?;
                out.push(b'[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    self.encode_or_null(items_schema, item, out)?;
                }
                out.push(b']');
                Ok(())
            }
            (Type::Map, Value::Map(entries)) => {
                return self.map(schema, entries, out).map(|()| true);
            }
            (Type::Struct, Value::Struct(st)) => {
                if !std::ptr::eq(st.schema.as_ref(), schema) && *st.schema != *schema {
                    return invalid("Mismatching schema.".into());
                }
                return self.structure(schema, &st.values, out);
            }
            _ => {
                return invalid(format!(
                    "Invalid type for {}: class {}",
                    schema.ty.upper(),
                    java_class(value)
                ));
            }
        }
        .expect("writing to memory");
        Ok(true)
    }

    /// As [`Encoder::encode`], writing `null` where Jackson's containers store a Java null.
    fn encode_or_null(
        &self,
        schema: &Schema,
        value: &Value,
        out: &mut Vec<u8>,
    ) -> Result<(), FormatError> {
        if !self.encode(schema, value, out)? {
            out.extend_from_slice(b"null");
        }
        Ok(())
    }

    fn decimal(
        &self,
        schema: &Schema,
        value: &Value,
        out: &mut Vec<u8>,
    ) -> Result<(), FormatError> {
        let Value::Bytes(unscaled) = value else {
            return invalid(format!(
                "Invalid type for Decimal, expected BigDecimal but was class {}",
                java_class(value)
            ));
        };
        let unscaled = decimal::minimal(unscaled);
        if self.options.decimal_numeric {
            let scale = decimal_scale(schema).map_err(FormatError::Value)?;
            out.extend_from_slice(decimal::to_text(unscaled, scale).as_bytes());
        } else {
            json::write_string(&json::base64_encode(unscaled), out);
        }
        Ok(())
    }

    fn map(
        &self,
        schema: &Schema,
        entries: &[(Value, Value)],
        out: &mut Vec<u8>,
    ) -> Result<(), FormatError> {
        let keys = inner(&schema.key_schema)?;
        let values = inner(&schema.value_schema)?;
        if keys.ty == Type::String && !keys.optional {
            out.push(b'{');
            for (i, (k, v)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                match k {
                    Value::String(s) => json::write_string(s, out),
                    other => {
                        return invalid(format!(
                            "Invalid type for STRING: class {}",
                            java_class(other)
                        ));
                    }
                }
                out.push(b':');
                self.encode_or_null(values, v, out)?;
            }
            out.push(b'}');
        } else {
            out.push(b'[');
            for (i, (k, v)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                out.extend_from_slice(b"{\"key\":");
                self.encode_or_null(keys, k, out)?;
                out.extend_from_slice(b",\"value\":");
                self.encode_or_null(values, v, out)?;
                out.push(b'}');
            }
            out.push(b']');
        }
        Ok(())
    }

    /// A field's value as `Struct.get` gives it: its default when null, unless
    /// `ignore.default.for.nullables` asks for the raw value.
    fn field_value<'v>(&self, schema: &'v Schema, value: &'v Value) -> &'v Value {
        match &schema.default {
            Some(d) if value.is_null() && !self.options.ignore_default_for_nullables => d,
            _ => value,
        }
    }

    fn structure(
        &self,
        schema: &Schema,
        values: &[Value],
        out: &mut Vec<u8>,
    ) -> Result<bool, FormatError> {
        if is_union(schema) {
            for (field, v) in schema.fields.iter().zip(values) {
                let v = self.field_value(&field.schema, v);
                if !v.is_null() {
                    return self.encode(&field.schema, v, out);
                }
            }
            return self.encode(schema, &Value::Null, out);
        }
        out.push(b'{');
        let mut first = true;
        for (field, v) in schema.fields.iter().zip(values) {
            let v = self.field_value(&field.schema, v);
            let mark = out.len();
            if !first {
                out.push(b',');
            }
            json::write_string(&field.name, out);
            out.push(b':');
            if self.encode(&field.schema, v, out)? {
                first = false;
            } else {
                out.truncate(mark);
            }
        }
        out.push(b'}');
        Ok(true)
    }

    /// A default value as the JSON Schema's `default` keyword holds it; `None` when the
    /// default writes as nothing.
    pub fn default_json(
        &self,
        schema: &Schema,
        default: &Value,
    ) -> Result<Option<Json>, FormatError> {
        let mut out = Vec::new();
        if !self.encode(schema, default, &mut out)? {
            return Ok(None);
        }
        match json::parse(&out) {
            Ok(Some(tree)) => Ok(Some(printed_default(tree))),
            _ => {
                Err(FormatError::Schema(format!("Invalid default value for {}", schema.ty.upper())))
            }
        }
    }
}

fn inner(schema: &Option<std::sync::Arc<Schema>>) -> Result<&Schema, FormatError> {
    schema
        .as_deref()
        .ok_or_else(|| FormatError::Value("container schema without its inner schema".into()))
}

fn write_json(tree: &Json, out: &mut Vec<u8>) {
    json::write(tree, out)
}

/// `fmt::Write` into a byte buffer, for integers.
struct Out<'a>(&'a mut Vec<u8>);

impl std::fmt::Write for Out<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.0.extend_from_slice(s.as_bytes());
        Ok(())
    }
}
