//! [`RegistryConverter`]: Confluent's Schema Registry converters
//! (`io.confluent.connect.avro.AvroConverter`, `io.confluent.connect.protobuf.ProtobufConverter`,
//! `io.confluent.connect.json.JsonSchemaConverter`): Connect data with a schema to and from
//! the Confluent wire format (`wire`), with the schema registered in, or read from, a
//! Schema Registry.
//!
//! Conversions never wait for the registry. A schema not yet registered under its subject,
//! or an id not yet read, makes a conversion return [`ConvertError::Unresolved`]; the task
//! loop awaits [`Converter::resolve`] (the only code of the convert module that does I/O,
//! `lookup`) and converts again. What was looked up stays cached, within
//! `schemas.cache.config` entries: a registry is asked once per new schema, not per record.
//! A converter runs one lookup at a time (its tasks share it), so the registry requests
//! counted around a lookup are that lookup's, which [`Lookup`] reports to the task; what
//! another task looked up while this one waited its turn is not asked again.
//!
//! The mapping between Connect data and each format is the `formats` crate's; the HTTP
//! client the `registry` crate's. This module owns the subjects, the caches and the
//! framing.
//!
//! Layout: `settings` (the keys), `subject` (subject name strategies), `cache` (a bounded
//! map), `lookup` (asking the registry).

mod cache;
mod lookup;
mod settings;
mod subject;

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, RwLock};

use serde_json::value::RawValue;
use wasm_connect_formats::{Format, Reader, SchemaType, Writer};
use wasm_connect_registry::RegistryClient;
use wasm_connect_transforms::data::{self, Schema, Value, envelope};

use self::cache::Bounded;
use self::settings::RegistrySettings;
use super::error::Unresolved;
use super::{ConvertError, Converter, Kind, Lookup, wire};

/// A Schema Registry converter of one format, for one side (key or value) of a connector's
/// records; shared by its tasks.
pub struct RegistryConverter {
    /// The simple class name, for messages (`AvroConverter`).
    class: &'static str,
    /// Whether it converts keys (subjects `<topic>-key`).
    key: bool,
    format: Arc<dyn Format>,
    client: RegistryClient,
    settings: RegistrySettings,
    /// Writers by the Connect schema's JSON text, as the plugin gave it.
    writers: Bounded<Box<str>, Arc<WriterEntry>>,
    /// Readers by schema id.
    readers: Bounded<u32, Arc<dyn Reader>>,
    /// The subjects used, for the dashboard.
    subjects: Bounded<String, ()>,
    /// Held through each lookup: one at a time, so its request count is its own.
    lookup_turn: tokio::sync::Mutex<()>,
}

/// What is known about one Connect schema: its parsed form, its writer, and the id (and
/// the writer that goes with it) under each topic's subject.
struct WriterEntry {
    schema: Arc<Schema>,
    writer: Arc<dyn Writer>,
    by_topic: RwLock<HashMap<String, Registered>>,
}

/// A schema's id under a subject, and the writer of the records that carry it (the
/// entry's own, or the subject's latest schema's with `use.latest.version`).
type Registered = (u32, Arc<dyn Writer>);

/// Plugin data as the converter reads it: the schema's JSON text (the cache key), and
/// either the envelope's payload text or the value itself.
struct Plugin<'a> {
    schema: &'a str,
    payload: Option<&'a [u8]>,
    value: Option<Value>,
}

/// A lookup in the registry, carried by [`Unresolved`].
enum Need {
    /// The id of `entry`'s schema under `topic`'s subject (registered if need be).
    Register { topic: String, entry: Arc<WriterEntry> },
    /// The schema of an id read from a topic.
    Schema(u32),
}

/// The envelope a plugin's `connect-json` data is, split without reading its payload.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Envelope<'a> {
    #[serde(borrow)]
    schema: &'a RawValue,
    #[serde(borrow)]
    payload: &'a RawValue,
}

impl RegistryConverter {
    /// A converter of `schema_type` with its `values` (prefix `prefix` stripped).
    pub fn new(
        schema_type: SchemaType,
        prefix: &str,
        values: &BTreeMap<&str, &str>,
    ) -> Result<Self, ConvertError> {
        let settings = settings::read(schema_type, prefix, values)?;
        let format_settings: BTreeMap<&str, &str> = values
            .iter()
            .filter(|(k, _)| wasm_connect_formats::keys(schema_type).contains(k))
            .map(|(k, v)| (*k, *v))
            .collect();
        let format = wasm_connect_formats::format(schema_type, prefix, &format_settings)
            .map_err(|e| invalid_setting(prefix, e))?;
        let client =
            RegistryClient::new(&settings.client).map_err(|e| ConvertError::InvalidSetting {
                key: format!("{prefix}.schema.registry.url"),
                value: "[hidden]".into(),
                expected: e.to_string(),
            })?;
        let bound = settings.cache_size;
        Ok(Self {
            class: match schema_type {
                SchemaType::Avro => "AvroConverter",
                SchemaType::Protobuf => "ProtobufConverter",
                SchemaType::Json => "JsonSchemaConverter",
            },
            key: prefix.starts_with("key."),
            format,
            client,
            settings,
            writers: Bounded::new(bound),
            readers: Bounded::new(bound),
            subjects: Bounded::new(bound),
            lookup_turn: tokio::sync::Mutex::new(()),
        })
    }

    /// The format's name in Confluent's messages.
    fn format_name(&self) -> &'static str {
        match self.format.schema_type() {
            SchemaType::Avro => "Avro",
            SchemaType::Protobuf => "Protobuf",
            SchemaType::Json => "JSON",
        }
    }

    /// Confluent's message for data that cannot be written to `topic`.
    fn write_error(&self, topic: &str, e: impl std::fmt::Display) -> ConvertError {
        ConvertError::data(format!(
            "Failed to serialize {} data from topic {topic} : {e}",
            self.format_name()
        ))
    }

    /// The schema and value of plugin data, with the schema's JSON text as cache key.
    fn typed<'a>(&self, kind: Kind, data: &'a [u8]) -> Result<Plugin<'a>, ConvertError> {
        match kind {
            Kind::ConnectJson => {
                let envelope: Envelope<'_> =
                    serde_json::from_slice(data).map_err(|_| ConvertError::NotEnvelope)?;
                if envelope.schema.get() == "null" {
                    return Err(self.schemaless());
                }
                let payload = Some(envelope.payload.get().as_bytes());
                Ok(Plugin { schema: envelope.schema.get(), payload, value: None })
            }
            Kind::String => {
                let text = std::str::from_utf8(data)
                    .map_err(|e| ConvertError::malformed(Kind::String, e))?;
                let value = Some(Value::String(text.to_owned()));
                Ok(Plugin { schema: STRING_SCHEMA, payload: None, value })
            }
            Kind::Bytes => {
                let value = Some(Value::Bytes(data.to_vec()));
                Ok(Plugin { schema: BYTES_SCHEMA, payload: None, value })
            }
            Kind::Json => Err(self.schemaless()),
        }
    }

    /// The refusal of data without a schema.
    fn schemaless(&self) -> ConvertError {
        ConvertError::data(format!(
            "{} cannot write data without a schema: the record's {} is schemaless (plain \
             JSON, as a schemaless source or JsonConverter with schemas.enable=false gives \
             it). Give the data a Connect schema, or use a converter that needs none",
            self.class,
            if self.key { "key" } else { "value" }
        ))
    }

    /// The writer entry of the schema with JSON text `text`, built and cached if new.
    fn entry(&self, text: &str) -> Result<Arc<WriterEntry>, ConvertError> {
        if let Some(entry) = self.writers.get(text) {
            return Ok(entry);
        }
        let schema = envelope::read_schema(text.as_bytes())
            .map_err(|e| ConvertError::data(e.to_string()))?
            .ok_or_else(|| self.schemaless())?;
        let schema = Arc::new(schema);
        let writer = self.format.writer(&schema).map_err(|e| ConvertError::data(e.to_string()))?;
        let entry = Arc::new(WriterEntry { schema, writer, by_topic: RwLock::new(HashMap::new()) });
        self.writers.insert(text.into(), entry.clone());
        Ok(entry)
    }

    fn unresolved(need: Need, what: String) -> ConvertError {
        ConvertError::Unresolved(Unresolved { need: Arc::new(need), what })
    }
}

/// The Connect schema of a plugin's `string` data, as the key of its writer.
const STRING_SCHEMA: &str = r#"{"type":"string","optional":false}"#;
/// The Connect schema of a plugin's `bytes` data.
const BYTES_SCHEMA: &str = r#"{"type":"bytes","optional":false}"#;

/// A format's setting error as the converter's.
fn invalid_setting(prefix: &str, e: wasm_connect_formats::FormatError) -> ConvertError {
    match e {
        wasm_connect_formats::FormatError::InvalidSetting { key, value, expected } => {
            ConvertError::InvalidSetting { key, value, expected }
        }
        other => ConvertError::InvalidSetting {
            key: prefix.to_owned(),
            value: String::new(),
            expected: other.to_string(),
        },
    }
}

#[async_trait::async_trait]
impl Converter for RegistryConverter {
    fn name(&self) -> &'static str {
        self.class
    }

    fn from_plugin(
        &self,
        topic: &str,
        kind: Kind,
        data: Option<&[u8]>,
    ) -> Result<Option<Vec<u8>>, ConvertError> {
        let Some(data) = data else { return Ok(None) };
        // A schemaless null is a null too (a tombstone), as Confluent's converters write it.
        if kind == Kind::Json && data.trim_ascii() == b"null" {
            return Ok(None);
        }
        let Plugin { schema, payload, value } = self.typed(kind, data)?;
        let entry = self.entry(schema)?;
        let value = match (value, payload) {
            (Some(value), _) => value,
            (None, Some(payload)) => envelope::payload_from_json(&entry.schema, payload)
                .map_err(|e| ConvertError::data(e.to_string()))?,
            (None, None) => unreachable!("typed gives a value or a payload"),
        };
        if value.is_null() {
            return Ok(None);
        }
        let found = entry.by_topic.read().expect("not poisoned").get(topic).cloned();
        let Some((id, writer)) = found else {
            let what = format!("the id of a schema for topic {topic}");
            return Err(Self::unresolved(Need::Register { topic: topic.to_owned(), entry }, what));
        };
        let encoded = writer.encode(&value).map_err(|e| self.write_error(topic, e))?;
        let mut out = Vec::with_capacity(encoded.payload.len() + 6);
        out.push(wire::MAGIC_BYTE);
        out.extend_from_slice(&id.to_be_bytes());
        if self.format.schema_type() == SchemaType::Protobuf {
            wire::write_message_indexes(&encoded.message_indexes, &mut out);
        }
        out.extend_from_slice(&encoded.payload);
        Ok(Some(out))
    }

    fn to_plugin(
        &self,
        topic: &str,
        data: Option<&[u8]>,
    ) -> Result<(Kind, Option<Vec<u8>>), ConvertError> {
        let Some(data) = data else { return Ok((Kind::Json, None)) };
        let (id, rest) = wire::unframe(data)?;
        let Some(reader) = self.readers.get(&id) else {
            return Err(Self::unresolved(Need::Schema(id), format!("the schema of id {id}")));
        };
        let (indexes, payload) = if self.format.schema_type() == SchemaType::Protobuf {
            wire::read_message_indexes(rest)?
        } else {
            (Vec::new(), rest)
        };
        let read = reader.decode(&indexes, payload).map_err(|e| {
            ConvertError::data(format!(
                "Failed to deserialize data for topic {topic} to {}: schema id {id}: {e}",
                self.format_name()
            ))
        })?;
        data::encode(&read).map_err(|e| ConvertError::data(e.to_string()))
    }

    async fn resolve(&self, unresolved: &Unresolved) -> Lookup {
        let Some(need) = unresolved.need.downcast_ref::<Need>() else {
            return Lookup { result: Ok(()), requests: 0 };
        };
        let _turn = self.lookup_turn.lock().await;
        if self.cached(need) {
            return Lookup { result: Ok(()), requests: 0 };
        }
        let before = self.client.requests();
        let result = match need {
            Need::Schema(id) => self.read_schema(*id).await,
            Need::Register { topic, entry } => self.register(topic, entry).await,
        };
        Lookup { result, requests: self.client.requests() - before }
    }

    fn subjects(&self) -> Vec<String> {
        self.subjects.keys()
    }
}

#[cfg(test)]
#[path = "converter_tests.rs"]
mod tests;
