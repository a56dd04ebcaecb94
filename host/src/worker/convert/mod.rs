//! Kafka Connect converters: between the typed data a plugin produces or consumes and
//! the bytes on a topic, one [`Converter`] per side (key, value) of a connector.
//!
//! Plugins tag each key and value with a [`Kind`] (`bytes`, `string`, `json`,
//! `connect-json`, see the `record-batch` docs in `wit/types.wit`); a converter maps
//! that data to topic bytes on the source side ([`Converter::from_plugin`]) and topic
//! bytes back to plugin data on the sink side ([`Converter::to_plugin`]), as Kafka
//! Connect's `StringConverter`, `JsonConverter` and `ByteArrayConverter` do.
//!
//! The Schema Registry converters (`registry/`: Avro, Protobuf, JSON Schema) also need
//! their registry: a conversion that needs an answer from it returns
//! [`ConvertError::Unresolved`], and the caller awaits [`Converter::resolve`] before
//! converting that data again; the [`Lookup`] it returns says how many registry requests
//! that took, for the task's metrics.
//!
//! This module owns converter selection ([`connector_own`], [`worker_default`]) and the
//! conversions. It must not do I/O, but for `registry/lookup.rs`, which asks a schema
//! registry, or know about tasks, topics' clients or error tolerance: the task loops call
//! converters and decide what a [`ConvertError`] costs.
//!
//! Layout: `select` (which converter a connector uses), `class` (names and settings),
//! `classes` (the class names),
//! `string`, `json`, `byte_array` (one converter each), `registry/` (the Schema Registry
//! converters), `json_text` (JSON text helpers), `schema` (envelope schema checks), `wire`
//! (the Confluent wire format the Schema Registry converters frame their payloads in),
//! `error`.

use std::borrow::Cow;

use bytes::Bytes;

mod byte_array;
mod class;
mod classes;
mod error;
mod json;
mod json_text;
mod registry;
mod schema;
mod select;
mod string;
mod wire;

pub use classes::CLASSES;
pub use error::{ConvertError, Unresolved};
pub use select::{Side, connector_own, worker_default};
pub use wasm_connect_batch::Kind;

/// Plugin data and its kind, borrowed from the topic bytes where it can be
/// ([`Converter::to_plugin_borrowed`]).
pub type PluginData<'a> = (Kind, Option<Cow<'a, [u8]>>);

/// What one [`Converter::resolve`] came to: its outcome, and the HTTP requests it sent to
/// the registry (every attempt counts, failed ones too).
#[derive(Debug)]
pub struct Lookup {
    /// Whether the lookup found what the conversion needs.
    pub result: Result<(), ConvertError>,
    /// Registry requests sent by this lookup.
    pub requests: u64,
}

/// Converts one side (key or value) of records between plugin data and topic bytes.
/// Converters are shared by a connector's tasks; only the registry converters keep state
/// (their caches).
#[async_trait::async_trait]
pub trait Converter: Send + Sync + 'static {
    /// The simple class name (`StringConverter`, `AvroConverter`), for metrics' labels.
    fn name(&self) -> &'static str;

    /// Source side: plugin data of `kind` to the bytes written to `topic`. `None` (a
    /// null) stays `None`; some data converts to `None` too (JSON `null`).
    // Named like Kafka's `Converter.fromConnectData`: from the plugin's side.
    #[allow(clippy::wrong_self_convention)]
    fn from_plugin(
        &self,
        topic: &str,
        kind: Kind,
        data: Option<&[u8]>,
    ) -> Result<Option<Vec<u8>>, ConvertError>;

    /// Whether [`from_plugin`](Self::from_plugin) writes data of `kind` unchanged (and
    /// never refuses it). The default: no kind does.
    fn passes_through(&self, kind: Kind) -> bool {
        let _ = kind;
        false
    }

    /// [`from_plugin`](Self::from_plugin) for data in a shared buffer: data of a kind that
    /// [`passes_through`](Self::passes_through) is returned as the same buffer (no copy).
    #[allow(clippy::wrong_self_convention)]
    fn from_plugin_shared(
        &self,
        topic: &str,
        kind: Kind,
        data: Option<&Bytes>,
    ) -> Result<Option<Bytes>, ConvertError> {
        if self.passes_through(kind) {
            return Ok(data.cloned());
        }
        Ok(self.from_plugin(topic, kind, data.map(|d| &d[..]))?.map(Bytes::from))
    }

    /// Sink side: bytes read from `topic` to plugin data and its kind. `None` (a null)
    /// stays `None`.
    fn to_plugin(
        &self,
        topic: &str,
        data: Option<&[u8]>,
    ) -> Result<(Kind, Option<Vec<u8>>), ConvertError>;

    /// [`to_plugin`](Self::to_plugin) that may borrow `data` instead of copying it, for the
    /// sink's put batch, which copies every byte once more anyway. The same result.
    fn to_plugin_borrowed<'a>(
        &self,
        topic: &str,
        data: Option<&'a [u8]>,
    ) -> Result<PluginData<'a>, ConvertError> {
        let (kind, data) = self.to_plugin(topic, data)?;
        Ok((kind, data.map(Cow::Owned)))
    }

    /// Asks the registry what a conversion returned as [`ConvertError::Unresolved`]
    /// needs, so that converting the same data again goes further. Converters without a
    /// registry never return `Unresolved`.
    async fn resolve(&self, unresolved: &Unresolved) -> Lookup {
        let _ = unresolved;
        Lookup { result: Ok(()), requests: 0 }
    }

    /// The registry subjects this converter has used (registry converters only).
    fn subjects(&self) -> Vec<String> {
        Vec::new()
    }
}

#[cfg(test)]
mod tests;
