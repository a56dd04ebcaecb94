//! The metadata every JSON Schema object may carry, read into a Connect schema as
//! Confluent's `JsonSchemaData` does (title, description, `connect.version`,
//! `connect.parameters`, default, forced optionality), and the Connect STRING it makes of
//! an `enum`. It owns these keywords only.

use std::sync::Arc;

use wasm_connect_transforms::data::schemaless::json::{self, Json};
use wasm_connect_transforms::data::{Schema, Type};

use super::{Reading, get, unsupported};
use crate::FormatError;
use crate::json_schema::decode::decode;
use crate::json_schema::java_order;
use crate::json_schema::names::*;

impl Reading<'_> {
    /// The metadata every schema object may carry: `title` (unless the schema has a name
    /// already), `connect.version`, `description`, `connect.parameters`, `default`; then
    /// optional when forced.
    pub(super) fn finish(
        &mut self,
        schema: &mut Schema,
        node: &Json,
        force_optional: bool,
    ) -> Result<(), FormatError> {
        if let Some(Json::String(title)) = get(node, "title")
            && schema.name.is_none()
        {
            schema.name = Some(title.clone());
        }
        match get(node, CONNECT_VERSION) {
            Some(Json::Number(n)) if n.is_int() => schema.version = Some(n.int_value()),
            Some(_) => return unsupported("connect.version must be an integer"),
            None => {}
        }
        if let Some(Json::String(doc)) = get(node, "description") {
            schema.doc = Some(doc.clone());
        }
        match get(node, CONNECT_PARAMETERS) {
            Some(Json::Object(entries)) => {
                let mut parameters = Vec::with_capacity(entries.len());
                for (k, v) in entries {
                    let Json::String(v) = v else {
                        return unsupported(format!(
                            "connect.parameters value of {k} must be a string"
                        ));
                    };
                    parameters.push((k.clone(), v.clone()));
                }
                for (k, v) in java_order::hash_map(parameters) {
                    match schema.parameters.iter_mut().find(|(existing, _)| *existing == k) {
                        Some(e) => e.1 = v,
                        None => schema.parameters.push((k, v)),
                    }
                }
            }
            Some(_) => return unsupported("connect.parameters must be an object"),
            None => {}
        }
        if let Some(default) = get(node, "default") {
            let value = decode(&Arc::new(schema.clone()), Some(default))
                .map_err(|e| FormatError::RegisteredSchema(format!("Invalid default: {e}")))?;
            schema.default = Some(value).filter(|v| !v.is_null());
        }
        if force_optional {
            schema.optional = true;
        }
        Ok(())
    }
}

/// Confluent's STRING for `enum` values (`<NULL>` names a null symbol).
pub(super) fn enum_schema(values: &[Json], generalized: bool) -> Schema {
    let marker = if generalized { GENERALIZED_ENUM } else { JSON_ENUM };
    let mut schema = Schema::new(Type::String);
    schema.parameters.push((marker.to_owned(), String::new()));
    for (i, value) in values.iter().enumerate() {
        let symbol = match value {
            Json::Null => NULL_MARKER.to_owned(),
            Json::String(s) => s.clone(),
            other => String::from_utf8_lossy(&json::to_vec(other)).into_owned(),
        };
        let value = if generalized { i.to_string() } else { symbol.clone() };
        let key = format!("{marker}.{symbol}");
        match schema.parameters.iter_mut().find(|(k, _)| *k == key) {
            Some(e) => e.1 = value,
            None => schema.parameters.push((key, value)),
        }
    }
    schema
}
