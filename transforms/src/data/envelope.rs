//! Kafka Connect's JSON envelope, `{"schema": {...}, "payload": ...}`, to and from typed
//! data, as `JsonConverter` with `schemas.enable=true` reads (`asConnectSchema`,
//! `convertToConnect`) and writes (`asJsonSchema`, `convertToJson`) it.
//!
//! This module owns the envelope's JSON form of schemas and payloads and their messages;
//! it must not decide when to use it (that is `data`'s).

use super::{Schema, SchemaAndValue, Value};
use crate::TransformError;

/// Reads an envelope. A `null` schema gives schemaless data (the payload read as
/// `schemaless` reads JSON).
pub fn from_json(_bytes: &[u8]) -> Result<SchemaAndValue, TransformError> {
    unimplemented!("the envelope reader")
}

/// Writes `value` of `schema` as an envelope, after checking it against the schema.
pub fn to_json(_schema: &Schema, _value: &Value) -> Result<Vec<u8>, TransformError> {
    unimplemented!("the envelope writer")
}
