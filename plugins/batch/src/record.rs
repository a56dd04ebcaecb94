//! [`Record`] and [`Header`]: the one record shape of a batch, source or sink.
//!
//! This module owns the fields and their encoded size; writing and reading bytes belong
//! to `encode` and `decode`.

use crate::Kind;

/// One header of a record. A `None` value is a null header value.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Header {
    /// Header key.
    pub key: String,
    /// Header value, or `None` for null.
    pub value: Option<Vec<u8>>,
}

/// One record, source or sink.
///
/// Source records carry `source_partition` and `source_offset` (JSON objects) and no
/// `offset`; sink records carry the Kafka `offset` and no source fields.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Record {
    /// Topic the record was read from, or is to be written to.
    pub topic: String,
    /// Kafka partition; `None` on a source record lets the producer choose by key.
    pub partition: Option<i32>,
    /// Kafka offset of a sink record; `None` on source records.
    pub offset: Option<i64>,
    /// Milliseconds since the Unix epoch, if known.
    pub timestamp: Option<i64>,
    /// What the key's bytes hold.
    pub key_kind: Kind,
    /// Record key; `None` is a null key.
    pub key: Option<Vec<u8>>,
    /// What the value's bytes hold.
    pub value_kind: Kind,
    /// Record value; `None` is a null value (a tombstone).
    pub value: Option<Vec<u8>>,
    /// Record headers, in order. Keys may repeat.
    pub headers: Vec<Header>,
    /// Source partition as JSON text (source records only).
    pub source_partition: Option<Vec<u8>>,
    /// Source offset as JSON text (source records only).
    pub source_offset: Option<Vec<u8>>,
}

/// The fewest bytes a record takes: every field empty or null, no headers.
pub(crate) const MIN_RECORD_LEN: usize = 4 + 4 + 8 + 8 + 1 + 4 + 1 + 4 + 4 + 4 + 4;

impl Record {
    /// The number of bytes this record takes in a batch.
    pub fn encoded_len(&self) -> usize {
        fn opt(b: &Option<Vec<u8>>) -> usize {
            b.as_ref().map_or(0, Vec::len)
        }
        MIN_RECORD_LEN
            + self.topic.len()
            + opt(&self.key)
            + opt(&self.value)
            + self.headers.iter().map(|h| 4 + h.key.len() + 4 + opt(&h.value)).sum::<usize>()
            + opt(&self.source_partition)
            + opt(&self.source_offset)
    }
}
