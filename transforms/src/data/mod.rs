//! Kafka Connect's data model, and one side (key or value) of a record as transforms see
//! it: [`Data`], decoded from the record-batch kinds only when a transform looks inside.
//!
//! A record's key and value arrive as a [`Kind`] and bytes (what a source plugin polled,
//! or what the sink's converter read). A transform that only routes or filters never
//! decodes them; one that reads fields calls [`Data::typed`], which decodes once:
//!
//! | kind | schema | value |
//! |---|---|---|
//! | `bytes` | `OPTIONAL_BYTES_SCHEMA` | BYTES |
//! | `string` | `OPTIONAL_STRING_SCHEMA` | STRING |
//! | `json` | none (schemaless) | as `JsonConverter` with `schemas.enable=false` reads it |
//! | `connect-json` | the envelope's | as `JsonConverter` with `schemas.enable=true` reads it |
//!
//! and [`Data::into_raw`] encodes back: schemaless data as `json`, plain optional STRING
//! and BYTES data as `string` and `bytes`, anything else with a schema as `connect-json`.
//!
//! This module owns those conversions; it must not know about converters or topics.
//!
//! Layout: `schema` ([`Schema`], [`Field`], [`Type`], logical type names), `value`
//! ([`Value`], [`Struct`], [`validate`]), `envelope` (`{"schema", "payload"}` JSON ↔
//! typed data), `schemaless` (plain JSON ↔ schemaless data), `unscaled` (Decimal's
//! two's complement bytes ↔ decimal digits).

pub mod envelope;
mod schema;
pub mod schemaless;
pub mod unscaled;
mod value;

use std::sync::Arc;

pub use schema::{DATE, DECIMAL, DECIMAL_SCALE, Field, Schema, TIME, TIMESTAMP, Type};
pub use value::{Struct, Value, java_class, validate};

use crate::{Kind, TransformError};

/// Data and its schema: Kafka Connect's `SchemaAndValue`. `schema` is `None` for
/// schemaless data.
#[derive(Clone, Debug, PartialEq)]
pub struct SchemaAndValue {
    /// The schema, or `None` for schemaless data.
    pub schema: Option<Arc<Schema>>,
    /// The value.
    pub value: Value,
}

impl SchemaAndValue {
    /// Schemaless `value`.
    pub fn schemaless(value: Value) -> Self {
        Self { schema: None, value }
    }

    /// `value` of `schema`.
    pub fn new(schema: Arc<Schema>, value: Value) -> Self {
        Self { schema: Some(schema), value }
    }
}

/// A record's key or value: still the bytes a plugin or converter gave, or decoded.
#[derive(Clone, Debug, PartialEq)]
pub enum Data {
    /// As it arrived: a kind and bytes (`None` is null).
    Raw {
        /// What the bytes hold.
        kind: Kind,
        /// The bytes; `None` for null.
        bytes: Option<Vec<u8>>,
    },
    /// Decoded, or made by a transform.
    Typed(SchemaAndValue),
}

impl Data {
    /// Data as it arrived.
    pub fn raw(kind: Kind, bytes: Option<Vec<u8>>) -> Self {
        Data::Raw { kind, bytes }
    }

    /// Decodes in place (once) and gives the schema and value. Fails when the bytes are
    /// not what their kind says (text that is not UTF-8, JSON that does not parse, an
    /// envelope whose payload does not match its schema).
    pub fn typed(&mut self) -> Result<&mut SchemaAndValue, TransformError> {
        if let Data::Raw { kind, bytes } = self {
            let decoded = decode(*kind, bytes.as_deref())?;
            *self = Data::Typed(decoded);
        }
        match self {
            Data::Typed(typed) => Ok(typed),
            Data::Raw { .. } => unreachable!("decoded just above"),
        }
    }

    /// Whether the data is null (a tombstone, for a value), without decoding anything
    /// but a `json` text that might spell `null` or a `connect-json` envelope whose
    /// payload might be null.
    pub fn is_null(&self) -> bool {
        match self {
            Data::Raw { bytes: None, .. } => true,
            Data::Raw { kind: Kind::Json, bytes: Some(b) } => b.trim_ascii() == b"null",
            Data::Raw { kind: Kind::ConnectJson, bytes: Some(b) } => {
                envelope::from_json(b).is_ok_and(|d| d.value.is_null())
            }
            Data::Raw { .. } => false,
            Data::Typed(t) => t.value.is_null(),
        }
    }

    /// The kind and bytes to hand on: the original ones if nothing decoded them, else the
    /// encoding described in the module docs.
    pub fn into_raw(self) -> Result<(Kind, Option<Vec<u8>>), TransformError> {
        match self {
            Data::Raw { kind, bytes } => Ok((kind, bytes)),
            Data::Typed(typed) => encode(&typed),
        }
    }
}

/// Decodes bytes of `kind` (see the module docs).
pub fn decode(kind: Kind, bytes: Option<&[u8]>) -> Result<SchemaAndValue, TransformError> {
    match kind {
        Kind::Bytes => Ok(SchemaAndValue::new(
            Schema::optional_bytes(),
            bytes.map_or(Value::Null, |b| Value::Bytes(b.to_vec())),
        )),
        Kind::String => {
            let value =
                match bytes {
                    None => Value::Null,
                    Some(b) => Value::String(String::from_utf8(b.to_vec()).map_err(|e| {
                        TransformError::new(format!("string data is not UTF-8: {e}"))
                    })?),
                };
            Ok(SchemaAndValue::new(Schema::optional_string(), value))
        }
        Kind::Json => match bytes {
            None => Ok(SchemaAndValue::schemaless(Value::Null)),
            Some(b) => schemaless::from_json(b).map(SchemaAndValue::schemaless),
        },
        Kind::ConnectJson => match bytes {
            None => Ok(SchemaAndValue::schemaless(Value::Null)),
            Some(b) => envelope::from_json(b),
        },
    }
}

/// Encodes typed data (see the module docs).
pub fn encode(data: &SchemaAndValue) -> Result<(Kind, Option<Vec<u8>>), TransformError> {
    match &data.schema {
        None if data.value.is_null() => Ok((Kind::Json, None)),
        None => schemaless::to_json(&data.value).map(|b| (Kind::Json, Some(b))),
        Some(schema) if schema.is_plain_optional() => {
            let kind = if schema.ty == Type::String { Kind::String } else { Kind::Bytes };
            match &data.value {
                Value::Null => Ok((kind, None)),
                Value::String(s) if kind == Kind::String => {
                    Ok((kind, Some(s.clone().into_bytes())))
                }
                Value::Bytes(b) if kind == Kind::Bytes => Ok((kind, Some(b.clone()))),
                other => Err(TransformError::new(format!(
                    "Invalid Java object for schema with type {}: {}",
                    schema.ty.upper(),
                    java_class(other)
                ))),
            }
        }
        Some(schema) => {
            envelope::to_json(schema, &data.value).map(|b| (Kind::ConnectJson, Some(b)))
        }
    }
}
