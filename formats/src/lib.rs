//! The Schema Registry formats: Avro, Protobuf and JSON Schema to and from Kafka
//! Connect's data model ([`Schema`], [`Value`]), as Confluent's `AvroData`, `ProtobufData`
//! and `JsonSchemaData` map them, so that bytes written by either side read the same on
//! the other.
//!
//! A [`Format`] turns a Connect schema into the schema text to register and a [`Writer`]
//! that encodes values of it, and turns a registered schema text into a [`Reader`] that
//! decodes payloads back to Connect data. The Confluent wire framing (magic byte, schema
//! id, Protobuf message indexes) is the caller's: writers return the message indexes
//! beside the payload and readers take them.
//!
//! This crate must not do I/O or know about registries, subjects or caches: the host's
//! converters own those. Settings are parsed here, per format, from the converter's keys
//! with the prefix stripped.
//!
//! Layout: `avro/`, `protobuf/`, `json_schema/` (one format each), `settings` (parsing a
//! converter's keys), `error`.

pub mod avro;
mod error;
pub mod json_schema;
pub mod protobuf;
mod settings;

use std::collections::BTreeMap;
use std::sync::Arc;

pub use error::FormatError;
pub use settings::Settings;
pub use wasm_connect_transforms::data::{Schema, SchemaAndValue, Value};

/// A schema's type as the registry names it (`schemaType`; absent means AVRO).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SchemaType {
    /// Avro (the registry's default, sent without `schemaType`).
    Avro,
    /// Protobuf (`"schemaType": "PROTOBUF"`).
    Protobuf,
    /// JSON Schema (`"schemaType": "JSON"`).
    Json,
}

impl SchemaType {
    /// The registry's name: `AVRO`, `PROTOBUF` or `JSON`.
    pub fn name(self) -> &'static str {
        match self {
            SchemaType::Avro => "AVRO",
            SchemaType::Protobuf => "PROTOBUF",
            SchemaType::Json => "JSON",
        }
    }

    /// The type a registry's `schemaType` names; a missing one is AVRO.
    pub fn from_name(name: Option<&str>) -> Option<Self> {
        match name {
            None | Some("AVRO") => Some(SchemaType::Avro),
            Some("PROTOBUF") => Some(SchemaType::Protobuf),
            Some("JSON") => Some(SchemaType::Json),
            Some(_) => None,
        }
    }
}

/// A schema as the registry stores it: its type and its text (Avro JSON, `.proto` source,
/// or JSON Schema JSON).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RegistrySchema {
    /// The schema's type.
    pub schema_type: SchemaType,
    /// The schema text.
    pub text: String,
}

/// A payload encoded by a [`Writer`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Encoded {
    /// Protobuf's message indexes (the path to the message in its file); empty for the
    /// first top-level message and for the other formats.
    pub message_indexes: Vec<i32>,
    /// The payload after the framing: Avro binary, Protobuf message bytes, JSON text.
    pub payload: Vec<u8>,
}

/// Writes values of one Connect schema.
pub trait Writer: Send + Sync {
    /// The schema to register (or to look up) for this writer's values.
    fn registry_schema(&self) -> &RegistrySchema;

    /// The record's fully qualified name, for `RecordNameStrategy` and
    /// `TopicRecordNameStrategy` (Avro: the record's full name; Protobuf: the message's;
    /// JSON Schema: its `title`); `None` when the schema has none (a primitive).
    fn record_name(&self) -> Option<&str>;

    /// Encodes `value`, a value of the writer's Connect schema (`null` for an optional
    /// schema's null).
    fn encode(&self, value: &Value) -> Result<Encoded, FormatError>;
}

/// Reads payloads written with one registered schema.
pub trait Reader: Send + Sync {
    /// The Connect schema the payloads read as.
    fn connect_schema(&self) -> &Arc<Schema>;

    /// Decodes `payload` (framing removed); `message_indexes` as framed (Protobuf only).
    fn decode(
        &self,
        message_indexes: &[i32],
        payload: &[u8],
    ) -> Result<SchemaAndValue, FormatError>;
}

/// One format, configured.
pub trait Format: Send + Sync {
    /// The registry's type of this format's schemas.
    fn schema_type(&self) -> SchemaType;

    /// A writer for values of the Connect schema `schema`, with the schema text derived
    /// from it (`AvroData.fromConnectSchema` and its Protobuf and JSON Schema kin).
    fn writer(&self, schema: &Arc<Schema>) -> Result<Arc<dyn Writer>, FormatError>;

    /// A writer for values of `schema` that writes them with a schema already registered
    /// (`use.latest.version`): fails when the values cannot be written with it.
    fn writer_for(
        &self,
        registered: &RegistrySchema,
        schema: &Arc<Schema>,
    ) -> Result<Arc<dyn Writer>, FormatError>;

    /// A reader of payloads written with `registered`.
    fn reader(&self, registered: &RegistrySchema) -> Result<Arc<dyn Reader>, FormatError>;
}

/// The format of `schema_type` with a converter's `settings` (prefix stripped; keys of
/// the registry client are the caller's and are skipped here); `prefix` names keys in
/// errors.
pub fn format(
    schema_type: SchemaType,
    prefix: &str,
    settings: &BTreeMap<&str, &str>,
) -> Result<Arc<dyn Format>, FormatError> {
    let settings = Settings::new(prefix, settings);
    Ok(match schema_type {
        SchemaType::Avro => Arc::new(avro::AvroFormat::new(&settings)?),
        SchemaType::Protobuf => Arc::new(protobuf::ProtobufFormat::new(&settings)?),
        SchemaType::Json => Arc::new(json_schema::JsonSchemaFormat::new(&settings)?),
    })
}

/// The converter keys a format reads (without prefix), for validation: a key that neither
/// the format nor the registry client knows is an error.
pub fn keys(schema_type: SchemaType) -> &'static [&'static str] {
    match schema_type {
        SchemaType::Avro => avro::KEYS,
        SchemaType::Protobuf => protobuf::KEYS,
        SchemaType::Json => json_schema::KEYS,
    }
}
