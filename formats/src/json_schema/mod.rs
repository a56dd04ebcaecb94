//! JSON Schema: Confluent's `JsonSchemaData` and `JsonSchemaConverter`, both ways.
//!
//! A [`JsonSchemaFormat`] turns a Connect schema into the JSON Schema text Confluent's
//! converter registers (`to_schema`) and values into the JSON text it writes (`encode`);
//! it turns any registered draft-07 schema into the Connect schema Confluent reads from
//! it (`from_schema`) and JSON payloads into Connect values of that schema (`decode`).
//! With `json.fail.invalid.schema=true` payloads are validated against the schema
//! (`validation`) on both sides.
//!
//! Writers and readers do every per-schema step (mapping, text, validator) when they are
//! made; `encode` and `decode` do only per-record work. This module must not do I/O or
//! know about registries, subjects or the wire framing.
//!
//! Layout: `options` (settings), `names` (the `connect.*` keywords), `to_schema`,
//! `from_schema`, `encode`, `decode`, `decimal` (Decimal bytes and text), `java_order`
//! (Java's hash-map order, which Confluent's texts follow), `validation`.

mod decimal;
mod decode;
mod encode;
mod from_schema;
mod java_order;
mod names;
mod options;
mod to_schema;
mod validation;

use std::sync::Arc;

use wasm_connect_transforms::data::schemaless::json::{self, Json};

use self::encode::Encoder;
use self::validation::Validation;
use crate::{
    Encoded, Format, FormatError, Reader, RegistrySchema, Schema, SchemaAndValue, SchemaType,
    Settings, Value, Writer,
};

pub use self::options::{KEYS, Options};

/// The JSON Schema format, configured.
pub struct JsonSchemaFormat {
    encoder: Encoder,
}

impl JsonSchemaFormat {
    /// The format with its settings.
    pub fn new(settings: &Settings<'_>) -> Result<Self, FormatError> {
        Ok(Self::with_options(Options::new(settings)?))
    }

    /// The format with parsed options.
    pub fn with_options(options: Options) -> Self {
        Self { encoder: Encoder::new(options) }
    }

    fn validation(
        &self,
        tree: &Json,
        error: fn(String) -> FormatError,
    ) -> Result<Option<Validation>, FormatError> {
        if !self.encoder.options().validate {
            return Ok(None);
        }
        Validation::compile(tree).map(Some).map_err(|e| error(format!("Invalid JSON Schema: {e}")))
    }
}

/// The registered text as a JSON tree.
fn parse_registered(registered: &RegistrySchema) -> Result<Json, FormatError> {
    if registered.schema_type != SchemaType::Json {
        return Err(FormatError::RegisteredSchema(format!(
            "Expected a JSON schema, got {}",
            registered.schema_type.name()
        )));
    }
    match json::parse(registered.text.as_bytes()) {
        Ok(Some(tree)) => Ok(tree),
        Ok(None) => Err(FormatError::RegisteredSchema("Empty JSON Schema".into())),
        Err(e) => Err(FormatError::RegisteredSchema(format!("Invalid JSON Schema: {e}"))),
    }
}

fn title_of(tree: &Json) -> Option<String> {
    match tree.get("title") {
        Some(Json::String(t)) => Some(t.clone()),
        _ => None,
    }
}

impl Format for JsonSchemaFormat {
    fn schema_type(&self) -> SchemaType {
        SchemaType::Json
    }

    fn writer(&self, schema: &Arc<Schema>) -> Result<Arc<dyn Writer>, FormatError> {
        let tree = to_schema::to_json_schema(schema, &self.encoder)?;
        let text = String::from_utf8(json::to_vec(&tree)).expect("JSON text is UTF-8");
        Ok(Arc::new(JsonSchemaWriter {
            registry_schema: RegistrySchema { schema_type: SchemaType::Json, text },
            record_name: title_of(&tree),
            validation: self.validation(&tree, FormatError::Schema)?,
            schema: schema.clone(),
            encoder: self.encoder.clone(),
        }))
    }

    fn writer_for(
        &self,
        registered: &RegistrySchema,
        schema: &Arc<Schema>,
    ) -> Result<Arc<dyn Writer>, FormatError> {
        let tree = parse_registered(registered)?;
        // The registered schema must be one this format reads.
        from_schema::to_connect_schema(&tree, self.encoder.options())?;
        Ok(Arc::new(JsonSchemaWriter {
            registry_schema: registered.clone(),
            record_name: title_of(&tree),
            validation: self.validation(&tree, FormatError::RegisteredSchema)?,
            schema: schema.clone(),
            encoder: self.encoder.clone(),
        }))
    }

    fn reader(&self, registered: &RegistrySchema) -> Result<Arc<dyn Reader>, FormatError> {
        let tree = parse_registered(registered)?;
        let schema = from_schema::to_connect_schema(&tree, self.encoder.options())?;
        Ok(Arc::new(JsonSchemaReader {
            schema: Arc::new(schema),
            validation: self.validation(&tree, FormatError::RegisteredSchema)?,
        }))
    }
}

/// Writes values of one Connect schema as JSON text.
struct JsonSchemaWriter {
    registry_schema: RegistrySchema,
    record_name: Option<String>,
    schema: Arc<Schema>,
    encoder: Encoder,
    validation: Option<Validation>,
}

impl Writer for JsonSchemaWriter {
    fn registry_schema(&self) -> &RegistrySchema {
        &self.registry_schema
    }

    fn record_name(&self) -> Option<&str> {
        self.record_name.as_deref()
    }

    fn encode(&self, value: &Value) -> Result<Encoded, FormatError> {
        let mut payload = Vec::with_capacity(128);
        if !self.encoder.encode(&self.schema, value, &mut payload)? {
            return Err(FormatError::Value(format!(
                "Invalid value: null used for required schema type: {}",
                self.schema.ty.upper()
            )));
        }
        if let Some(validation) = &self.validation {
            validation.check(&payload)?;
        }
        Ok(Encoded { message_indexes: Vec::new(), payload })
    }
}

/// Reads JSON payloads written with one registered schema.
struct JsonSchemaReader {
    schema: Arc<Schema>,
    validation: Option<Validation>,
}

impl Reader for JsonSchemaReader {
    fn connect_schema(&self) -> &Arc<Schema> {
        &self.schema
    }

    fn decode(
        &self,
        _message_indexes: &[i32],
        payload: &[u8],
    ) -> Result<SchemaAndValue, FormatError> {
        let tree = match json::parse(payload) {
            Ok(Some(tree)) => tree,
            Ok(None) => {
                return Err(FormatError::Decode("No content to map due to end-of-input".into()));
            }
            Err(e) => return Err(FormatError::Decode(format!("Invalid JSON: {e}"))),
        };
        if let Some(validation) = &self.validation {
            validation.check(payload)?;
        }
        let value = decode::decode(&self.schema, Some(&tree))?;
        Ok(SchemaAndValue::new(self.schema.clone(), value))
    }
}

#[cfg(test)]
mod tests;
