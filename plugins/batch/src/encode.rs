//! Writing a batch: [`encode`] for a slice of records, [`Encoder`] one record at a time.
//!
//! This module owns the byte layout on the writing side, always the current
//! [`VERSION`]. It never fails: every [`Record`] is encodable.

use crate::{Kind, Record, VERSION};

/// Encodes records into one batch.
pub fn encode(records: &[Record]) -> Vec<u8> {
    let mut enc = Encoder::with_capacity(records.iter().map(Record::encoded_len).sum());
    for r in records {
        enc.push(r);
    }
    enc.finish()
}

/// Builds a batch one record at a time, without holding the records.
#[derive(Debug)]
pub struct Encoder {
    buf: Vec<u8>,
    count: u32,
}

impl Default for Encoder {
    fn default() -> Self {
        Self::with_capacity(0)
    }
}

impl Encoder {
    /// A new, empty batch with room for `bytes` bytes of records.
    pub fn with_capacity(bytes: usize) -> Self {
        let mut buf = Vec::with_capacity(5 + bytes);
        buf.push(VERSION);
        buf.extend_from_slice(&0u32.to_le_bytes());
        Self { buf, count: 0 }
    }

    /// The number of records pushed so far.
    pub fn len(&self) -> usize {
        self.count as usize
    }

    /// Whether no record has been pushed.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The number of bytes of the batch so far.
    pub fn byte_len(&self) -> usize {
        self.buf.len()
    }

    /// Appends one record.
    pub fn push(&mut self, r: &Record) {
        self.push_parts(
            &r.topic,
            r.partition,
            r.offset,
            r.timestamp,
            (r.key_kind, r.key.as_deref()),
            (r.value_kind, r.value.as_deref()),
            r.headers.iter().map(|h| (h.key.as_str(), h.value.as_deref())),
            r.source_partition.as_deref(),
            r.source_offset.as_deref(),
        );
    }

    /// Appends one record from borrowed parts, for callers that do not hold a [`Record`].
    /// `key` and `value` are each a kind and the data (`None` for null).
    #[allow(clippy::too_many_arguments)]
    pub fn push_parts<'a>(
        &mut self,
        topic: &str,
        partition: Option<i32>,
        offset: Option<i64>,
        timestamp: Option<i64>,
        key: (Kind, Option<&[u8]>),
        value: (Kind, Option<&[u8]>),
        headers: impl ExactSizeIterator<Item = (&'a str, Option<&'a [u8]>)>,
        source_partition: Option<&[u8]>,
        source_offset: Option<&[u8]>,
    ) {
        self.bytes(topic.as_bytes());
        self.buf.extend_from_slice(&partition.unwrap_or(-1).to_le_bytes());
        self.buf.extend_from_slice(&offset.unwrap_or(-1).to_le_bytes());
        self.buf.extend_from_slice(&timestamp.unwrap_or(-1).to_le_bytes());
        for (kind, data) in [key, value] {
            self.buf.push(kind.tag());
            self.opt_bytes(data);
        }
        self.buf.extend_from_slice(&(headers.len() as u32).to_le_bytes());
        for (k, v) in headers {
            self.bytes(k.as_bytes());
            self.opt_bytes(v);
        }
        self.opt_bytes(source_partition);
        self.opt_bytes(source_offset);
        self.count += 1;
    }

    /// Finishes the batch and returns its bytes.
    pub fn finish(mut self) -> Vec<u8> {
        self.buf[1..5].copy_from_slice(&self.count.to_le_bytes());
        self.buf
    }

    fn bytes(&mut self, b: &[u8]) {
        self.buf.extend_from_slice(&(b.len() as u32).to_le_bytes());
        self.buf.extend_from_slice(b);
    }

    fn opt_bytes(&mut self, b: Option<&[u8]>) {
        match b {
            Some(b) => {
                self.buf.extend_from_slice(&(b.len() as i32).to_le_bytes());
                self.buf.extend_from_slice(b);
            }
            None => self.buf.extend_from_slice(&(-1i32).to_le_bytes()),
        }
    }
}
