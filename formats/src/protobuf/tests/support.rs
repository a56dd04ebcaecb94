//! Builders shared by the tests.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::protobuf::{Options, ProtobufFormat};
use crate::{Format, RegistrySchema, Schema, SchemaType, Settings};
use wasm_connect_transforms::data::{Struct, Type, Value};

/// The format with default settings.
pub fn format() -> ProtobufFormat {
    let values = BTreeMap::new();
    ProtobufFormat::new(&Settings::new("value.converter", &values)).unwrap()
}

/// The format with `options`.
pub fn format_with(options: Options) -> ProtobufFormat {
    ProtobufFormat::with_options(options)
}

/// A registered Protobuf schema of `text`.
pub fn proto(text: &str) -> RegistrySchema {
    RegistrySchema { schema_type: SchemaType::Protobuf, text: text.to_owned() }
}

/// A plain schema of `ty`.
pub fn plain(ty: Type) -> Arc<Schema> {
    Arc::new(Schema::new(ty))
}

/// A struct of `schema` with `values` in field order.
pub fn record(schema: &Arc<Schema>, values: Vec<Value>) -> Value {
    Value::Struct(Struct { schema: schema.clone(), values })
}

/// Hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Writes `value` of `schema` and reads it back with the generated schema.
pub fn round_trip(
    format: &dyn Format,
    schema: &Arc<Schema>,
    value: &Value,
) -> (Vec<u8>, crate::SchemaAndValue) {
    let writer = format.writer(schema).unwrap();
    let encoded = writer.encode(value).unwrap();
    let reader = format.reader(writer.registry_schema()).unwrap();
    let read = reader.decode(&encoded.message_indexes, &encoded.payload).unwrap();
    (encoded.payload, read)
}
