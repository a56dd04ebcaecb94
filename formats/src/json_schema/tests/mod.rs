//! Tests of the JSON Schema format through its public face (`Format`, `Writer`,
//! `Reader`): `schema` checks schema texts both ways, `values` payloads both ways,
//! `reading` schemas other producers write, `errors` settings and bad input.

mod errors;
mod reading;
mod schema;
mod values;

use std::collections::BTreeMap;
use std::sync::Arc;

use super::JsonSchemaFormat;
use crate::{Format, Reader, RegistrySchema, Schema, SchemaType, Settings, Value, Writer};
use wasm_connect_transforms::data::{DATE, DECIMAL, Struct, TIME, TIMESTAMP, Type};

/// The format with `settings`.
fn format_with(settings: &[(&str, &str)]) -> JsonSchemaFormat {
    let map: BTreeMap<&str, &str> = settings.iter().copied().collect();
    JsonSchemaFormat::new(&Settings::new("value.converter", &map)).expect("valid settings")
}

fn format() -> JsonSchemaFormat {
    format_with(&[])
}

fn writer(f: &JsonSchemaFormat, schema: &Arc<Schema>) -> Arc<dyn Writer> {
    f.writer(schema).expect("a schema the format expresses")
}

/// The schema text the default format registers for `schema`.
fn text_of(schema: Schema) -> String {
    writer(&format(), &Arc::new(schema)).registry_schema().text.clone()
}

fn registered(text: &str) -> RegistrySchema {
    RegistrySchema { schema_type: SchemaType::Json, text: text.to_owned() }
}

fn reader(f: &JsonSchemaFormat, text: &str) -> Arc<dyn Reader> {
    f.reader(&registered(text)).expect("a readable schema")
}

fn encode(f: &JsonSchemaFormat, schema: &Arc<Schema>, value: &Value) -> String {
    String::from_utf8(writer(f, schema).encode(value).expect("encodes").payload).unwrap()
}

fn prim(ty: Type) -> Arc<Schema> {
    Arc::new(Schema::new(ty))
}

fn opt(ty: Type) -> Arc<Schema> {
    Arc::new(Schema::new(ty).optional())
}

fn s(text: &str) -> Value {
    Value::String(text.to_owned())
}

/// Kafka Connect's logical schemas (`Decimal.schema(scale)`, `Date.SCHEMA`, ...).
fn decimal(scale: u32) -> Schema {
    let mut schema = Schema::new(Type::Bytes).named(DECIMAL);
    schema.version = Some(1);
    schema.parameters.push(("scale".into(), scale.to_string()));
    schema
}

fn logical(ty: Type, name: &str) -> Schema {
    let mut schema = Schema::new(ty).named(name);
    schema.version = Some(1);
    schema
}

fn date() -> Schema {
    logical(Type::Int32, DATE)
}

fn time() -> Schema {
    logical(Type::Int32, TIME)
}

fn timestamp() -> Schema {
    logical(Type::Int64, TIMESTAMP)
}

fn structure(schema: &Arc<Schema>, values: Vec<Value>) -> Value {
    Value::Struct(Struct { schema: schema.clone(), values })
}

/// Writes `value` of `schema`, reads it back with the registered text, and checks that
/// the schema and the value come back equal; returns the payload.
fn round_trip(f: &JsonSchemaFormat, schema: &Arc<Schema>, value: &Value) -> String {
    let w = writer(f, schema);
    let payload = w.encode(value).expect("encodes").payload;
    let r = reader(f, &w.registry_schema().text);
    assert_eq!(
        **r.connect_schema(),
        **schema,
        "schema read back from {}",
        w.registry_schema().text
    );
    let read = r.decode(&[], &payload).expect("decodes");
    assert_eq!(read.value, *value, "value read back from {}", String::from_utf8_lossy(&payload));
    String::from_utf8(payload).unwrap()
}
