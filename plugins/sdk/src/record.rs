//! The records a plugin moves: [`SourceRecord`] (built by a source task) and
//! [`SinkRecord`] (handed to a sink task, or borrowed as a [`SinkRecordRef`]), and the
//! [`Kind`] of their keys and values.
//!
//! This module owns the plugin-facing record shapes and the builders that set a key's or
//! value's kind. It does not encode them: the `record-batch` byte layout belongs to
//! `wasm-connect-batch`, used by `glue`. Reading a sink record's data as text lives in
//! `record_text`.

use serde_json::Value;

pub use wasm_connect_batch::{Header, Kind};

/// A record delivered to a sink task: topic, Kafka partition and offset, timestamp, key,
/// value and headers. Its `source_partition` and `source_offset` are always `None`.
///
/// `key_kind` and `value_kind` say what the worker's converter read from the topic (see
/// [`Kind`]); [`RecordText`](crate::RecordText) renders either as text.
pub type SinkRecord = wasm_connect_batch::Record;

/// A [`SinkRecord`] borrowed from the batch the worker sent: the same fields, with the
/// topic, key, value and headers as slices of the batch instead of copies. A sink task gets
/// these in [`SinkTask::put_refs`](crate::SinkTask::put_refs);
/// [`to_record`](wasm_connect_batch::RecordRef::to_record) makes an owned copy.
pub type SinkRecordRef<'a> = wasm_connect_batch::RecordRef<'a>;

/// A record produced by a source task.
///
/// Every source record names where it came from: `source_partition` (which stream, e.g.
/// `{"filename": "/data/in.txt"}`) and `source_offset` (how far into it, e.g.
/// `{"position": 1024}`), both JSON objects as Kafka Connect stores them. After a restart
/// the task reads the last committed offset of each partition with
/// [`offsets`](crate::offsets).
///
/// The key and value each carry a [`Kind`], which tells the worker's converters
/// (`key.converter`, `value.converter`) what the bytes hold. Set both together with the
/// builders: [`value`](Self::value) (raw bytes), [`string_value`](Self::string_value)
/// (text), [`json_value`](Self::json_value) (schemaless JSON) or
/// [`connect_json_value`](Self::connect_json_value) (data with a Kafka Connect schema),
/// and the same for keys.
#[derive(Clone, Debug, PartialEq)]
pub struct SourceRecord {
    /// The topic to write to.
    pub topic: String,
    /// The Kafka partition; `None` lets the producer choose by key.
    pub partition: Option<i32>,
    /// What the key's bytes hold.
    pub key_kind: Kind,
    /// The key; `None` is a null key.
    pub key: Option<Vec<u8>>,
    /// What the value's bytes hold.
    pub value_kind: Kind,
    /// The value; `None` is a null value.
    pub value: Option<Vec<u8>>,
    /// Headers, in order. Keys may repeat.
    pub headers: Vec<Header>,
    /// Milliseconds since the Unix epoch; `None` lets the worker stamp it.
    pub timestamp: Option<i64>,
    /// The source partition: a JSON object.
    pub source_partition: Value,
    /// The source offset within the partition: a JSON object.
    pub source_offset: Value,
}

/// The JSON text of Kafka Connect's envelope around `payload`, schema first as
/// `JsonConverter` writes it.
fn envelope(schema: &Value, payload: &Value) -> Vec<u8> {
    format!(r#"{{"schema":{schema},"payload":{payload}}}"#).into_bytes()
}

impl SourceRecord {
    /// A record for `topic` with a null key and value, no headers and no timestamp.
    /// `source_partition` and `source_offset` must be JSON objects.
    pub fn new(topic: impl Into<String>, source_partition: Value, source_offset: Value) -> Self {
        Self {
            topic: topic.into(),
            partition: None,
            key_kind: Kind::Bytes,
            key: None,
            value_kind: Kind::Bytes,
            value: None,
            headers: Vec::new(),
            timestamp: None,
            source_partition,
            source_offset,
        }
    }

    /// Sets the Kafka partition.
    pub fn partition(mut self, partition: i32) -> Self {
        self.partition = Some(partition);
        self
    }

    /// Sets the key to raw bytes ([`Kind::Bytes`], Kafka Connect's BYTES).
    pub fn key(mut self, key: impl Into<Vec<u8>>) -> Self {
        self.key_kind = Kind::Bytes;
        self.key = Some(key.into());
        self
    }

    /// Sets the key to text ([`Kind::String`], Kafka Connect's STRING).
    pub fn string_key(mut self, key: impl Into<String>) -> Self {
        self.key_kind = Kind::String;
        self.key = Some(key.into().into_bytes());
        self
    }

    /// Sets the key to schemaless JSON data ([`Kind::Json`]); `Value::Null` is a null key.
    pub fn json_key(mut self, key: &Value) -> Self {
        self.key_kind = Kind::Json;
        self.key = Some(key.to_string().into_bytes());
        self
    }

    /// Sets the key to data with a Kafka Connect schema ([`Kind::ConnectJson`]): `schema`
    /// as `JsonConverter` writes schemas (e.g. `{"type": "int64", "optional": false}`) and
    /// `payload` the data in its JSON form.
    pub fn connect_json_key(mut self, schema: &Value, payload: &Value) -> Self {
        self.key_kind = Kind::ConnectJson;
        self.key = Some(envelope(schema, payload));
        self
    }

    /// Sets the value to raw bytes ([`Kind::Bytes`], Kafka Connect's BYTES).
    pub fn value(mut self, value: impl Into<Vec<u8>>) -> Self {
        self.value_kind = Kind::Bytes;
        self.value = Some(value.into());
        self
    }

    /// Sets the value to text ([`Kind::String`], Kafka Connect's STRING).
    pub fn string_value(mut self, value: impl Into<String>) -> Self {
        self.value_kind = Kind::String;
        self.value = Some(value.into().into_bytes());
        self
    }

    /// Sets the value to schemaless JSON data ([`Kind::Json`]); `Value::Null` is a null
    /// value.
    pub fn json_value(mut self, value: &Value) -> Self {
        self.value_kind = Kind::Json;
        self.value = Some(value.to_string().into_bytes());
        self
    }

    /// Sets the value to data with a Kafka Connect schema ([`Kind::ConnectJson`]):
    /// `schema` as `JsonConverter` writes schemas (e.g.
    /// `{"type": "struct", "fields": [...], "optional": false}`) and `payload` the data in
    /// its JSON form.
    pub fn connect_json_value(mut self, schema: &Value, payload: &Value) -> Self {
        self.value_kind = Kind::ConnectJson;
        self.value = Some(envelope(schema, payload));
        self
    }

    /// Appends a header.
    pub fn header(mut self, key: impl Into<String>, value: impl Into<Vec<u8>>) -> Self {
        self.headers.push(Header { key: key.into(), value: Some(value.into()) });
        self
    }

    /// Appends a header with a null value.
    pub fn null_header(mut self, key: impl Into<String>) -> Self {
        self.headers.push(Header { key: key.into(), value: None });
        self
    }

    /// Sets the timestamp, in milliseconds since the Unix epoch.
    pub fn timestamp(mut self, millis: i64) -> Self {
        self.timestamp = Some(millis);
        self
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn builders_set_data_and_kind_together() {
        let r = SourceRecord::new("t", json!({}), json!({}));
        assert_eq!((r.key_kind, r.value_kind), (Kind::Bytes, Kind::Bytes));
        let r = r.string_key("k").json_value(&json!({"a": [1, "x"]}));
        assert_eq!((r.key_kind, r.key.as_deref()), (Kind::String, Some(&b"k"[..])));
        assert_eq!(r.value_kind, Kind::Json);
        assert_eq!(r.value.as_deref(), Some(&br#"{"a":[1,"x"]}"#[..]));
        let r = r.json_key(&json!(7)).value(vec![1, 2]);
        assert_eq!((r.key_kind, r.key.as_deref()), (Kind::Json, Some(&b"7"[..])));
        assert_eq!((r.value_kind, r.value.as_deref()), (Kind::Bytes, Some(&[1u8, 2][..])));
        let r = r.key("raw").string_value("line");
        assert_eq!((r.key_kind, r.value_kind), (Kind::Bytes, Kind::String));
    }

    #[test]
    fn connect_json_builders_write_the_envelope_schema_first() {
        let schema = json!({"type": "int64", "optional": false});
        let r = SourceRecord::new("t", json!({}), json!({}))
            .connect_json_key(&schema, &json!(5))
            .connect_json_value(&json!(null), &json!("s"));
        assert_eq!(r.key_kind, Kind::ConnectJson);
        assert_eq!(
            r.key.as_deref(),
            Some(&br#"{"schema":{"optional":false,"type":"int64"},"payload":5}"#[..])
        );
        assert_eq!(r.value.as_deref(), Some(&br#"{"schema":null,"payload":"s"}"#[..]));
    }
}
