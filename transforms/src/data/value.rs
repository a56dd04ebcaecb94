//! [`Value`] and [`Struct`]: Kafka Connect's data, as the Java runtime holds it (`Integer`,
//! `String`, `byte[]`, `List`, `Map`, `Struct`, ...).
//!
//! Maps keep their entries in order (Kafka Connect's schemaless maps are `HashMap`s, whose
//! order is unspecified: keeping the input order is one of the orders it may show). This
//! module owns the values and Kafka Connect's check of a value against a schema
//! ([`validate`]); JSON is `envelope`'s and `schemaless`'s.

use std::sync::Arc;

use super::{Schema, Type};
use crate::TransformError;

/// A Kafka Connect value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// `null`.
    Null,
    /// BOOLEAN.
    Boolean(bool),
    /// INT8.
    Int8(i8),
    /// INT16.
    Int16(i16),
    /// INT32 (also `Date` and `Time`).
    Int32(i32),
    /// INT64 (also `Timestamp`).
    Int64(i64),
    /// FLOAT32.
    Float32(f32),
    /// FLOAT64.
    Float64(f64),
    /// STRING.
    String(String),
    /// BYTES (also `Decimal`'s unscaled value).
    Bytes(Vec<u8>),
    /// ARRAY.
    Array(Vec<Value>),
    /// MAP, entries in order.
    Map(Vec<(Value, Value)>),
    /// STRUCT.
    Struct(Struct),
}

impl Value {
    /// The type a value of this variant has when it carries no schema, as Kafka Connect's
    /// `ConnectSchema.schemaType(Class)` infers it; `None` for null.
    pub fn inferred_type(&self) -> Option<Type> {
        Some(match self {
            Value::Null => return None,
            Value::Boolean(_) => Type::Boolean,
            Value::Int8(_) => Type::Int8,
            Value::Int16(_) => Type::Int16,
            Value::Int32(_) => Type::Int32,
            Value::Int64(_) => Type::Int64,
            Value::Float32(_) => Type::Float32,
            Value::Float64(_) => Type::Float64,
            Value::String(_) => Type::String,
            Value::Bytes(_) => Type::Bytes,
            Value::Array(_) => Type::Array,
            Value::Map(_) => Type::Map,
            Value::Struct(_) => Type::Struct,
        })
    }

    /// Whether this is `null`.
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// The entry of a map under the string key `key`.
    pub fn map_get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Map(entries) => entries
                .iter()
                .find(|(k, _)| matches!(k, Value::String(s) if s == key))
                .map(|(_, v)| v),
            _ => None,
        }
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }
}

/// A STRUCT value: its schema and one value per field, in field order.
#[derive(Clone, Debug, PartialEq)]
pub struct Struct {
    /// The struct's schema (type STRUCT).
    pub schema: Arc<Schema>,
    /// One value per field of `schema`, in order.
    pub values: Vec<Value>,
}

impl Struct {
    /// A struct of `schema` with every field null.
    pub fn new(schema: Arc<Schema>) -> Self {
        let values = vec![Value::Null; schema.fields.len()];
        Self { schema, values }
    }

    /// The value of field `name`; Kafka Connect's `Struct.get(String)` fails on an unknown
    /// field with `{name} is not a valid field name`.
    pub fn get(&self, name: &str) -> Result<&Value, TransformError> {
        let field = self
            .schema
            .field(name)
            .ok_or_else(|| TransformError::new(format!("{name} is not a valid field name")))?;
        Ok(&self.values[field.index])
    }

    /// Sets field `name` to `value` (unchecked against the field's schema; see
    /// [`Struct::validate`]).
    pub fn put(&mut self, name: &str, value: Value) -> Result<(), TransformError> {
        let field = self
            .schema
            .field(name)
            .ok_or_else(|| TransformError::new(format!("{name} is not a valid field name")))?;
        self.values[field.index] = value;
        Ok(())
    }

    /// Kafka Connect's `Struct.validate`: every field's value matches its schema.
    pub fn validate(&self) -> Result<(), TransformError> {
        for (field, value) in self.schema.fields.iter().zip(&self.values) {
            validate_field(&field.name, &field.schema, value)?;
        }
        Ok(())
    }
}

/// Kafka Connect's `ConnectSchema.validateValue(schema, value)`: whether `value` may be
/// data of `schema`, with Kafka Connect's messages.
pub fn validate(schema: &Schema, value: &Value) -> Result<(), TransformError> {
    validate_field("", schema, value)
}

fn validate_field(field: &str, schema: &Schema, value: &Value) -> Result<(), TransformError> {
    // Kafka Connect 4.x's words; a top-level value has no field name (Java prints null).
    let name = if field.is_empty() { "null" } else { field };
    // A default stands in for a null when the value is written (`convertToJson`).
    if value.is_null() {
        return if schema.optional || schema.default.is_some() {
            Ok(())
        } else {
            Err(TransformError::new(format!(
                "Invalid value: null used for required field: \"{name}\", schema type: {}",
                schema.ty.upper()
            )))
        };
    }
    if value.inferred_type() != Some(schema.ty) {
        let named = schema.name.as_ref().map(|n| format!(" \"{n}\"")).unwrap_or_default();
        let for_field =
            if field.is_empty() { String::new() } else { format!(" for field: \"{field}\"") };
        return Err(TransformError::new(format!(
            "Invalid Java object for schema{named} with type {}: class {}{for_field}",
            schema.ty.upper(),
            java_class(value)
        )));
    }
    match (value, schema.ty) {
        (Value::Struct(s), _) => {
            if *s.schema != *schema {
                return Err(TransformError::new("Struct schemas do not match."));
            }
            s.validate()
        }
        (Value::Array(items), _) => {
            let items_schema = schema.value_schema.as_deref().expect("an ARRAY schema has items");
            items.iter().try_for_each(|v| validate_field("", items_schema, v))
        }
        (Value::Map(entries), _) => {
            let keys = schema.key_schema.as_deref().expect("a MAP schema has keys");
            let values = schema.value_schema.as_deref().expect("a MAP schema has values");
            entries.iter().try_for_each(|(k, v)| {
                validate_field("", keys, k)?;
                validate_field("", values, v)
            })
        }
        _ => Ok(()),
    }
}

/// The Java class Kafka Connect would name for a value in its messages.
pub fn java_class(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Boolean(_) => "java.lang.Boolean",
        Value::Int8(_) => "java.lang.Byte",
        Value::Int16(_) => "java.lang.Short",
        Value::Int32(_) => "java.lang.Integer",
        Value::Int64(_) => "java.lang.Long",
        Value::Float32(_) => "java.lang.Float",
        Value::Float64(_) => "java.lang.Double",
        Value::String(_) => "java.lang.String",
        Value::Bytes(_) => "[B",
        Value::Array(_) => "java.util.ArrayList",
        Value::Map(_) => "java.util.HashMap",
        Value::Struct(_) => "org.apache.kafka.connect.data.Struct",
    }
}
