//! Plain JSON to and from schemaless data, as `JsonConverter` with `schemas.enable=false`
//! reads and writes it: objects are maps with string keys (in their order), integers are
//! INT64, other numbers FLOAT64, arrays are arrays; BYTES are written as base64 strings.
//!
//! This module owns that mapping; it must not know about schemas beyond rejecting data
//! that cannot be written without one (a STRUCT).

use super::Value;
use crate::TransformError;

/// Reads JSON text as schemaless data.
pub fn from_json(_bytes: &[u8]) -> Result<Value, TransformError> {
    unimplemented!("the schemaless reader")
}

/// Writes schemaless data as JSON text.
pub fn to_json(_value: &Value) -> Result<Vec<u8>, TransformError> {
    unimplemented!("the schemaless writer")
}
