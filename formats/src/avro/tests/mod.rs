//! Unit tests of the Avro format: schema text written (`schema_text`), schemas read
//! (`schema_read`), values both ways with byte vectors from the Avro specification
//! (`values`), bad payloads (`garbage`), a cross-check with Apicurio's converter
//! (`apicurio`), and a timing against `apache-avro` (`timing`).

mod apicurio;
mod garbage;
mod schema_read;
mod schema_text;
mod timing;
mod values;

use std::collections::BTreeMap;
use std::sync::Arc;

use wasm_connect_transforms::data::{Schema, Struct, Type, Value};

use super::AvroFormat;
use crate::{Format, FormatError, Reader, RegistrySchema, SchemaType, Settings, Writer};

/// The format with `settings` (prefix `value.converter`).
fn format_with(settings: &[(&str, &str)]) -> AvroFormat {
    let map: BTreeMap<&str, &str> = settings.iter().copied().collect();
    AvroFormat::new(&Settings::new("value.converter", &map)).expect("valid settings")
}

fn format() -> AvroFormat {
    format_with(&[])
}

fn a(schema: Schema) -> Arc<Schema> {
    Arc::new(schema)
}

fn prim(ty: Type) -> Arc<Schema> {
    a(Schema::new(ty))
}

fn opt(ty: Type) -> Arc<Schema> {
    a(Schema::new(ty).optional())
}

fn writer(schema: &Arc<Schema>) -> Arc<dyn Writer> {
    format().writer(schema).expect("writer")
}

fn text(schema: Schema) -> String {
    writer(&a(schema)).registry_schema().text.clone()
}

fn avro(text: &str) -> RegistrySchema {
    RegistrySchema { schema_type: SchemaType::Avro, text: text.to_owned() }
}

fn reader(text: &str) -> Arc<dyn Reader> {
    format().reader(&avro(text)).expect("reader")
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).expect("hex"))
        .collect()
}

fn encode(w: &Arc<dyn Writer>, v: &Value) -> String {
    hex(&w.encode(v).expect("encode").payload)
}

fn structure(schema: &Arc<Schema>, values: Vec<Value>) -> Value {
    Value::Struct(Struct { schema: schema.clone(), values })
}

fn s(text: &str) -> Value {
    Value::String(text.to_owned())
}

/// The Connect schema a writer's text reads back as.
fn read_back(schema: &Arc<Schema>) -> Arc<Schema> {
    let w = writer(schema);
    reader(&w.registry_schema().text).connect_schema().clone()
}

fn is_value_error(e: &FormatError) -> bool {
    matches!(e, FormatError::Value(_))
}
