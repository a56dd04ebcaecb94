//! The records a plugin moves: [`SourceRecord`] (built by a source task) and
//! [`SinkRecord`] (handed to a sink task).
//!
//! This module owns the plugin-facing record shapes. It does not encode them: the
//! `record-batch` byte layout belongs to `wasm-connect-batch`, used by `glue`.

use serde_json::Value;

pub use wasm_connect_batch::Header;

/// A record delivered to a sink task: topic, Kafka partition and offset, timestamp, key,
/// value and headers. Its `source_partition` and `source_offset` are always `None`.
pub type SinkRecord = wasm_connect_batch::Record;

/// A record produced by a source task.
///
/// Every source record names where it came from: `source_partition` (which stream, e.g.
/// `{"filename": "/data/in.txt"}`) and `source_offset` (how far into it, e.g.
/// `{"position": 1024}`), both JSON objects as Kafka Connect stores them. After a restart
/// the task reads the last committed offset of each partition with
/// [`offsets`](crate::offsets).
#[derive(Clone, Debug, PartialEq)]
pub struct SourceRecord {
    /// The topic to write to.
    pub topic: String,
    /// The Kafka partition; `None` lets the producer choose by key.
    pub partition: Option<i32>,
    /// The key; `None` is a null key.
    pub key: Option<Vec<u8>>,
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

impl SourceRecord {
    /// A record for `topic` with a null key and value, no headers and no timestamp.
    /// `source_partition` and `source_offset` must be JSON objects.
    pub fn new(topic: impl Into<String>, source_partition: Value, source_offset: Value) -> Self {
        Self {
            topic: topic.into(),
            partition: None,
            key: None,
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

    /// Sets the key.
    pub fn key(mut self, key: impl Into<Vec<u8>>) -> Self {
        self.key = Some(key.into());
        self
    }

    /// Sets the value.
    pub fn value(mut self, value: impl Into<Vec<u8>>) -> Self {
        self.value = Some(value.into());
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
