//! [`Record`]: what a transform sees of a source or sink record (Kafka Connect's
//! `ConnectRecord`), with its [`Header`]s.
//!
//! The worker keeps what transforms must not touch (source partitions and offsets, a sink
//! record's consumed position) beside the record; this type holds only what Kafka
//! Connect's `newRecord` lets a transform change.

use crate::{Data, SchemaAndValue};

/// One header. Headers arrive as bytes; a header a transform made is typed until the
/// header converter (`header_converter`) writes it.
#[derive(Clone, Debug, PartialEq)]
pub struct Header {
    /// The header key.
    pub key: String,
    /// The value.
    pub value: HeaderValue,
}

/// A header's value.
#[derive(Clone, Debug, PartialEq)]
pub enum HeaderValue {
    /// Bytes as they arrived; `None` is a null value.
    Raw(Option<Vec<u8>>),
    /// Made by a transform (`HeaderFrom`, `InsertHeader`).
    Typed(SchemaAndValue),
}

/// A record in a transform chain.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    /// The topic: where a source record goes, where a sink record came from.
    pub topic: String,
    /// The partition; `None` lets the producer pick one by key (source records).
    pub partition: Option<i32>,
    /// The Kafka offset of a sink record (Kafka Connect's `SinkRecord.kafkaOffset`);
    /// `None` on source records.
    pub offset: Option<i64>,
    /// Milliseconds since the epoch; `None` when the record has none.
    pub timestamp: Option<i64>,
    /// The key.
    pub key: Data,
    /// The value.
    pub value: Data,
    /// The headers, in order; keys may repeat.
    pub headers: Vec<Header>,
}

impl Record {
    /// Whether a header with `key` exists.
    pub fn has_header(&self, key: &str) -> bool {
        self.headers.iter().any(|h| h.key == key)
    }
}
