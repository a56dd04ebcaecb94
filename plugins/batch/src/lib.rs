//! The `record-batch` encoding of the wasm-connect contract (`wit/types.wit`), version 1.
//!
//! A batch of records crosses the sandbox boundary as one byte string instead of a WIT
//! `list<record>`: the canonical ABI would allocate once per string and list of every
//! record, which costs ~100x more than copying one buffer. This crate owns the encoding
//! for Rust on both sides, the host and the guest SDK; the Python and JavaScript SDKs
//! implement the same layout, documented in the WIT file.
//!
//! It has no dependencies and does no I/O. It must stay in lock-step with the WIT
//! documentation of `record-batch`: a change there is a new version byte here.
//!
//! Layout: [`Record`] is the one record type; [`encode`] / [`Encoder`] write a batch;
//! [`decode`] reads one, with [`DecodeError`] naming what was malformed and where.

use std::fmt;

/// The encoding version this crate writes and reads.
pub const VERSION: u8 = 1;

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
    /// Record key; `None` is a null key.
    pub key: Option<Vec<u8>>,
    /// Record value; `None` is a null value (a tombstone).
    pub value: Option<Vec<u8>>,
    /// Record headers, in order. Keys may repeat.
    pub headers: Vec<Header>,
    /// Source partition as JSON text (source records only).
    pub source_partition: Option<Vec<u8>>,
    /// Source offset as JSON text (source records only).
    pub source_offset: Option<Vec<u8>>,
}

impl Record {
    /// The number of bytes this record takes in a batch.
    pub fn encoded_len(&self) -> usize {
        fn opt(b: &Option<Vec<u8>>) -> usize {
            4 + b.as_ref().map_or(0, Vec::len)
        }
        4 + self.topic.len()
            + 4
            + 8
            + 8
            + opt(&self.key)
            + opt(&self.value)
            + 4
            + self.headers.iter().map(|h| 4 + h.key.len() + opt(&h.value)).sum::<usize>()
            + opt(&self.source_partition)
            + opt(&self.source_offset)
    }
}

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
            r.key.as_deref(),
            r.value.as_deref(),
            r.headers.iter().map(|h| (h.key.as_str(), h.value.as_deref())),
            r.source_partition.as_deref(),
            r.source_offset.as_deref(),
        );
    }

    /// Appends one record from borrowed parts, for callers that do not hold a [`Record`].
    #[allow(clippy::too_many_arguments)]
    pub fn push_parts<'a>(
        &mut self,
        topic: &str,
        partition: Option<i32>,
        offset: Option<i64>,
        timestamp: Option<i64>,
        key: Option<&[u8]>,
        value: Option<&[u8]>,
        headers: impl ExactSizeIterator<Item = (&'a str, Option<&'a [u8]>)>,
        source_partition: Option<&[u8]>,
        source_offset: Option<&[u8]>,
    ) {
        self.bytes(topic.as_bytes());
        self.buf.extend_from_slice(&partition.unwrap_or(-1).to_le_bytes());
        self.buf.extend_from_slice(&offset.unwrap_or(-1).to_le_bytes());
        self.buf.extend_from_slice(&timestamp.unwrap_or(-1).to_le_bytes());
        self.opt_bytes(key);
        self.opt_bytes(value);
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

/// Why a batch could not be decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DecodeError {
    /// The batch is empty: not even a version byte.
    Empty,
    /// The version byte is not one this crate reads.
    Version(u8),
    /// The batch ended inside a field.
    Truncated {
        /// Index of the record being read.
        record: usize,
        /// The field being read.
        field: &'static str,
    },
    /// A string field is not UTF-8.
    Utf8 {
        /// Index of the record being read.
        record: usize,
        /// The field being read.
        field: &'static str,
    },
    /// A length is negative other than -1, or larger than the batch.
    Length {
        /// Index of the record being read.
        record: usize,
        /// The field being read.
        field: &'static str,
    },
    /// Bytes remain after the last record.
    TrailingBytes(usize),
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Empty => write!(f, "empty record batch"),
            Self::Version(v) => {
                write!(f, "record batch version {v} is not supported (want {VERSION})")
            }
            Self::Truncated { record, field } => {
                write!(f, "record batch ends inside `{field}` of record {record}")
            }
            Self::Utf8 { record, field } => write!(f, "`{field}` of record {record} is not UTF-8"),
            Self::Length { record, field } => {
                write!(f, "`{field}` of record {record} has an invalid length")
            }
            Self::TrailingBytes(n) => write!(f, "{n} bytes after the last record of the batch"),
        }
    }
}

impl std::error::Error for DecodeError {}

/// Decodes a whole batch.
pub fn decode(batch: &[u8]) -> Result<Vec<Record>, DecodeError> {
    let (&version, rest) = batch.split_first().ok_or(DecodeError::Empty)?;
    if version != VERSION {
        return Err(DecodeError::Version(version));
    }
    let mut r = Reader { buf: rest, record: 0 };
    let count = r.u32("count")? as usize;
    // Every record takes at least 41 bytes, so a count larger than that allows is a lie
    // and must not drive an allocation.
    let mut out = Vec::with_capacity(count.min(r.buf.len() / 41 + 1));
    for i in 0..count {
        r.record = i;
        let topic = r.string("topic")?;
        let partition = Some(r.i32("partition")?).filter(|p| *p >= 0);
        let offset = Some(r.i64("offset")?).filter(|o| *o >= 0);
        let timestamp = Some(r.i64("timestamp")?).filter(|t| *t >= 0);
        let key = r.opt_bytes("key")?;
        let value = r.opt_bytes("value")?;
        let n = r.u32("header count")? as usize;
        let mut headers = Vec::with_capacity(n.min(r.buf.len() / 8 + 1));
        for _ in 0..n {
            let key = r.string("header key")?;
            let value = r.opt_bytes("header value")?;
            headers.push(Header { key, value });
        }
        let source_partition = r.opt_bytes("source partition")?;
        let source_offset = r.opt_bytes("source offset")?;
        out.push(Record {
            topic,
            partition,
            offset,
            timestamp,
            key,
            value,
            headers,
            source_partition,
            source_offset,
        });
    }
    if !r.buf.is_empty() {
        return Err(DecodeError::TrailingBytes(r.buf.len()));
    }
    Ok(out)
}

struct Reader<'a> {
    buf: &'a [u8],
    record: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, field: &'static str) -> Result<&'a [u8], DecodeError> {
        if self.buf.len() < n {
            return Err(DecodeError::Truncated { record: self.record, field });
        }
        let (head, tail) = self.buf.split_at(n);
        self.buf = tail;
        Ok(head)
    }

    fn array<const N: usize>(&mut self, field: &'static str) -> Result<[u8; N], DecodeError> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.take(N, field)?);
        Ok(a)
    }

    fn u32(&mut self, field: &'static str) -> Result<u32, DecodeError> {
        Ok(u32::from_le_bytes(self.array(field)?))
    }

    fn i32(&mut self, field: &'static str) -> Result<i32, DecodeError> {
        Ok(i32::from_le_bytes(self.array(field)?))
    }

    fn i64(&mut self, field: &'static str) -> Result<i64, DecodeError> {
        Ok(i64::from_le_bytes(self.array(field)?))
    }

    fn string(&mut self, field: &'static str) -> Result<String, DecodeError> {
        let n = self.u32(field)? as usize;
        let b = self.take(n, field)?;
        String::from_utf8(b.to_vec()).map_err(|_| DecodeError::Utf8 { record: self.record, field })
    }

    fn opt_bytes(&mut self, field: &'static str) -> Result<Option<Vec<u8>>, DecodeError> {
        match self.i32(field)? {
            -1 => Ok(None),
            n if n < 0 => Err(DecodeError::Length { record: self.record, field }),
            n => Ok(Some(self.take(n as usize, field)?.to_vec())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<Record> {
        vec![
            Record {
                topic: "t".into(),
                partition: Some(3),
                offset: Some(42),
                timestamp: Some(1_700_000_000_000),
                key: Some(b"k".to_vec()),
                value: Some(vec![7; 100]),
                headers: vec![
                    Header { key: "h1".into(), value: Some(b"v".to_vec()) },
                    Header { key: "h2".into(), value: None },
                ],
                source_partition: None,
                source_offset: None,
            },
            Record {
                topic: "other".into(),
                key: None,
                value: None,
                source_partition: Some(br#"{"file":"a"}"#.to_vec()),
                source_offset: Some(br#"{"position":9}"#.to_vec()),
                ..Record::default()
            },
        ]
    }

    #[test]
    fn round_trip_keeps_every_field() {
        let records = sample();
        let bytes = encode(&records);
        assert_eq!(bytes.len(), 5 + records.iter().map(Record::encoded_len).sum::<usize>());
        assert_eq!(decode(&bytes).unwrap(), records);
    }

    #[test]
    fn empty_batch_is_five_bytes() {
        let bytes = encode(&[]);
        assert_eq!(bytes, vec![1, 0, 0, 0, 0]);
        assert!(decode(&bytes).unwrap().is_empty());
    }

    #[test]
    fn every_truncation_is_an_error_not_a_panic() {
        let bytes = encode(&sample());
        for cut in 0..bytes.len() {
            assert!(decode(&bytes[..cut]).is_err(), "cut at {cut} decoded");
        }
    }

    #[test]
    fn rejects_wrong_version_trailing_bytes_and_lying_counts() {
        let mut bytes = encode(&sample());
        bytes[0] = 2;
        assert_eq!(decode(&bytes), Err(DecodeError::Version(2)));
        let mut bytes = encode(&sample());
        bytes.push(0);
        assert_eq!(decode(&bytes), Err(DecodeError::TrailingBytes(1)));
        let lying = [1u8, 0xff, 0xff, 0xff, 0xff];
        assert!(matches!(decode(&lying), Err(DecodeError::Truncated { record: 0, .. })));
    }

    #[test]
    fn negative_lengths_other_than_null_are_rejected() {
        let mut bytes = encode(&[Record { topic: "t".into(), ..Record::default() }]);
        // topic(4+1) partition(4) offset(8) timestamp(8), then the key length.
        let key_at = 5 + 5 + 4 + 8 + 8;
        bytes[key_at..key_at + 4].copy_from_slice(&(-5i32).to_le_bytes());
        assert!(matches!(decode(&bytes), Err(DecodeError::Length { field: "key", .. })));
    }
}
