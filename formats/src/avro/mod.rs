//! Avro, as Confluent's `AvroConverter` maps it with `AvroData`: a Connect schema becomes
//! the Avro schema `AvroData.fromConnectSchema` writes (with its `connect.*` annotations),
//! any registered Avro schema reads as the Connect schema `AvroData.toConnectSchema` gives,
//! and values go straight between Connect [`Value`]s and Avro binary.
//!
//! Per-schema work (mapping, parsing, validating with `apache-avro`, compiling the value
//! plans) happens once in [`Format::writer`], [`Format::writer_for`] and [`Format::reader`];
//! `encode` and `decode` only walk the compiled plans. The wire framing is the caller's.
//!
//! Layout: `options` (settings), `json` (ordered JSON), `model` (the Avro schema tree),
//! `parse` and `text` (its JSON form), `names` (scrubbing, splitting), `from_connect`,
//! `to_connect` and `defaults` (schema mapping), `encode_plan`, `encode` and `decode` (value plans),
//! `binary` (Avro's binary primitives).

mod annotations;
mod binary;
mod decode;
mod defaults;
mod encode;
mod encode_plan;
mod from_connect;
mod json;
mod model;
mod names;
mod options;
mod parse;
mod text;
mod to_connect;

#[cfg(test)]
mod tests;

use std::sync::Arc;

use wasm_connect_transforms::data::{Schema, SchemaAndValue, Type, Value};

use crate::{Encoded, Format, FormatError, Reader, RegistrySchema, SchemaType, Settings, Writer};
pub use options::{KEYS, Options};

use model::{AvroSchema, Kind};

/// `AvroData.NAMESPACE`: the namespace of the names `AvroData` makes up.
pub const NAMESPACE: &str = "io.confluent.connect.avro";
/// The record of a map with non-string keys.
pub const MAP_ENTRY: &str = "MapEntry";
/// The Connect name of a general Avro union.
pub const AVRO_TYPE_UNION: &str = "io.confluent.connect.avro.Union";
/// The parameter naming an Avro enum (and, suffixed with `.symbol`, its symbols).
pub const AVRO_TYPE_ENUM: &str = "io.confluent.connect.avro.Enum";
const AVRO_RECORD_DOC: &str = "io.confluent.connect.avro.record.doc";
const AVRO_FIELD_DOC_PREFIX: &str = "io.confluent.connect.avro.field.doc.";
const AVRO_ENUM_DOC_PREFIX: &str = "io.confluent.connect.avro.enum.doc.";
const AVRO_ENUM_DEFAULT_PREFIX: &str = "io.confluent.connect.avro.enum.default.";
const AVRO_FIELD_DEFAULT_FLAG: &str = "io.confluent.connect.avro.field.default";
/// The parameter giving an Avro fixed's size.
pub const FIXED_SIZE: &str = "connect.fixed.size";
/// The parameter giving a Decimal's Avro precision.
pub const DECIMAL_PRECISION: &str = "connect.decimal.precision";
const DECIMAL_PRECISION_DEFAULT: i32 = 64;

/// Whether `schema` is the Connect form of a general Avro union.
fn is_union(schema: &Schema) -> bool {
    schema.ty == Type::Struct && schema.name.as_deref() == Some(AVRO_TYPE_UNION)
}

/// Whether `schema` is BYTES that maps to an Avro fixed.
fn is_fixed(schema: &Schema) -> bool {
    schema.ty == Type::Bytes && schema.name.is_some() && schema.parameter(FIXED_SIZE).is_some()
}

/// A two's-complement big-endian integer in its shortest form (Java's
/// `BigInteger.toByteArray`), or `None` for no bytes.
fn normalize_decimal(bytes: &[u8]) -> Option<Vec<u8>> {
    let first = *bytes.first()?;
    let fill = if first & 0x80 != 0 { 0xff } else { 0x00 };
    let mut start = 0;
    while start + 1 < bytes.len()
        && bytes[start] == fill
        && (bytes[start + 1] & 0x80) == (fill & 0x80)
    {
        start += 1;
    }
    Some(bytes[start..].to_vec())
}

/// The Avro format.
pub struct AvroFormat {
    options: Options,
}

impl AvroFormat {
    /// The format with its settings.
    pub fn new(settings: &Settings<'_>) -> Result<Self, FormatError> {
        Ok(Self { options: Options::parse(settings)? })
    }

    /// The format with `options`.
    pub fn with_options(options: Options) -> Self {
        Self { options }
    }

    /// A reader of payloads written with `registered`, whose Connect schema takes
    /// `version` (the registry's version of the schema under its subject) when the schema
    /// has no `connect.version`, as `AvroConverter` does.
    pub fn reader_at_version(
        &self,
        registered: &RegistrySchema,
        version: Option<i32>,
    ) -> Result<Arc<dyn Reader>, FormatError> {
        let avro = parse_registered(registered)?;
        let connect = to_connect::to_connect(&avro, &self.options, version)?;
        let plan = decode::compile(&avro, &connect)?;
        Ok(Arc::new(AvroReader { connect, plan }))
    }

    fn make_writer(
        &self,
        avro: &AvroSchema,
        text: String,
        schema: &Arc<Schema>,
    ) -> Result<Arc<dyn Writer>, FormatError> {
        let plan = encode_plan::compile(avro, schema, &self.options)?;
        Ok(Arc::new(AvroWriter {
            registry: RegistrySchema { schema_type: SchemaType::Avro, text },
            record_name: record_name(avro),
            plan,
            optional: schema.optional,
        }))
    }
}

fn parse_registered(registered: &RegistrySchema) -> Result<AvroSchema, FormatError> {
    if registered.schema_type != SchemaType::Avro {
        return Err(FormatError::RegisteredSchema(format!(
            "Expected an AVRO schema, got {}",
            registered.schema_type.name()
        )));
    }
    apache_avro::Schema::parse_str(&registered.text)
        .map_err(|e| FormatError::RegisteredSchema(format!("Invalid Avro schema: {e}")))?;
    AvroSchema::parse(&registered.text)
        .map_err(|e| FormatError::RegisteredSchema(format!("Invalid Avro schema: {e}")))
}

/// The full name of the root record (`AvroSchema.name()`: a record root only, so not an
/// optional struct's union).
fn record_name(avro: &AvroSchema) -> Option<String> {
    match avro.root.kind {
        Kind::Named(i) if matches!(avro.named[i].body, model::Body::Record(_)) => {
            Some(avro.named[i].full_name())
        }
        _ => None,
    }
}

impl Format for AvroFormat {
    fn schema_type(&self) -> SchemaType {
        SchemaType::Avro
    }

    fn writer(&self, schema: &Arc<Schema>) -> Result<Arc<dyn Writer>, FormatError> {
        let avro = from_connect::from_connect(schema, &self.options)?;
        let text = avro.to_text();
        apache_avro::Schema::parse_str(&text)
            .map_err(|e| FormatError::Schema(format!("Invalid Avro schema {text}: {e}")))?;
        self.make_writer(&avro, text, schema)
    }

    fn writer_for(
        &self,
        registered: &RegistrySchema,
        schema: &Arc<Schema>,
    ) -> Result<Arc<dyn Writer>, FormatError> {
        let avro = parse_registered(registered)?;
        self.make_writer(&avro, registered.text.clone(), schema)
    }

    fn reader(&self, registered: &RegistrySchema) -> Result<Arc<dyn Reader>, FormatError> {
        self.reader_at_version(registered, None)
    }
}

struct AvroWriter {
    registry: RegistrySchema,
    record_name: Option<String>,
    plan: encode::Plan,
    optional: bool,
}

impl Writer for AvroWriter {
    fn registry_schema(&self) -> &RegistrySchema {
        &self.registry
    }

    fn record_name(&self) -> Option<&str> {
        self.record_name.as_deref()
    }

    fn encode(&self, value: &Value) -> Result<Encoded, FormatError> {
        if value.is_null() && !self.optional {
            return Err(FormatError::Value("Found null value for non-optional schema".into()));
        }
        let mut payload = Vec::with_capacity(64);
        self.plan.write(value, &mut payload)?;
        Ok(Encoded { message_indexes: Vec::new(), payload })
    }
}

struct AvroReader {
    connect: Arc<Schema>,
    plan: decode::Plan,
}

impl Reader for AvroReader {
    fn connect_schema(&self) -> &Arc<Schema> {
        &self.connect
    }

    fn decode(&self, _indexes: &[i32], payload: &[u8]) -> Result<SchemaAndValue, FormatError> {
        let value = self.plan.read(payload)?;
        Ok(SchemaAndValue::new(self.connect.clone(), value))
    }
}
