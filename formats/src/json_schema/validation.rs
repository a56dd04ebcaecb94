//! `json.fail.invalid.schema`: a payload checked against its JSON Schema with the
//! `jsonschema` crate, compiled once per schema. It owns the validator and the wording of
//! a violation; which side validates when is the writers' and readers'.

use jsonschema::Validator;
use wasm_connect_transforms::data::schemaless::json::{self, Json};

use crate::FormatError;

/// A compiled JSON Schema.
pub struct Validation {
    validator: Validator,
}

impl Validation {
    /// Compiles `schema` (draft 7 unless its `$schema` names another draft). References
    /// are resolved inside the document only.
    pub fn compile(schema: &Json) -> Result<Self, String> {
        let value: serde_json::Value =
            serde_json::from_slice(&json::to_vec(schema)).map_err(|e| e.to_string())?;
        let validator = if schema.get("$schema").is_some() {
            jsonschema::validator_for(&value)
        } else {
            jsonschema::draft7::new(&value)
        }
        .map_err(|e| e.to_string())?;
        Ok(Self { validator })
    }

    /// Checks the JSON text `payload`; a violation is a `Value` error naming where and
    /// what.
    pub fn check(&self, payload: &[u8]) -> Result<(), FormatError> {
        let value: serde_json::Value = serde_json::from_slice(payload)
            .map_err(|e| FormatError::Decode(format!("Invalid JSON: {e}")))?;
        self.validator.validate(&value).map_err(|e| {
            FormatError::Value(format!(
                "Validation error in JSON {}, Error report: #{}: {e}",
                String::from_utf8_lossy(payload),
                e.instance_path()
            ))
        })
    }
}
