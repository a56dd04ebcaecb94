//! Protobuf: Confluent's `ProtobufData` (not yet built).

use crate::{Format, FormatError, Reader, RegistrySchema, Schema, SchemaType, Settings, Writer};
use std::sync::Arc;

/// The converter keys this format reads.
pub const KEYS: &[&str] = &[];

/// The Protobuf format.
pub struct ProtobufFormat;

impl ProtobufFormat {
    /// The format with its settings.
    pub fn new(_settings: &Settings<'_>) -> Result<Self, FormatError> {
        Ok(Self)
    }
}

impl Format for ProtobufFormat {
    fn schema_type(&self) -> SchemaType {
        SchemaType::Protobuf
    }
    fn writer(&self, _schema: &Arc<Schema>) -> Result<Arc<dyn Writer>, FormatError> {
        Err(FormatError::Schema("not yet built".into()))
    }
    fn writer_for(
        &self,
        _registered: &RegistrySchema,
        _schema: &Arc<Schema>,
    ) -> Result<Arc<dyn Writer>, FormatError> {
        Err(FormatError::Schema("not yet built".into()))
    }
    fn reader(&self, _registered: &RegistrySchema) -> Result<Arc<dyn Reader>, FormatError> {
        Err(FormatError::RegisteredSchema("not yet built".into()))
    }
}
