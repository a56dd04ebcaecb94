//! Reading a batch: [`decode`], with [`DecodeError`] naming what was malformed and where.
//!
//! This module owns the byte layout on the reading side, for every version this crate
//! reads (1 and 2). It never panics and never allocates more than the batch can hold,
//! whatever the input.

use std::fmt;

use crate::record::MIN_RECORD_LEN;
use crate::{Header, Kind, Record, VERSION};

/// The oldest encoding version [`decode`] reads. Version 1 has no kind bytes: every key
/// and value is [`Kind::Bytes`].
pub const MIN_VERSION: u8 = 1;

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
    /// A kind byte is not a known [`Kind`] tag.
    Kind {
        /// Index of the record being read.
        record: usize,
        /// The field being read (`key kind` or `value kind`).
        field: &'static str,
        /// The unknown tag.
        tag: u8,
    },
    /// Bytes remain after the last record.
    TrailingBytes(usize),
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Empty => write!(f, "empty record batch"),
            Self::Version(v) => write!(
                f,
                "record batch version {v} is not supported (want {MIN_VERSION} to {VERSION})"
            ),
            Self::Truncated { record, field } => {
                write!(f, "record batch ends inside `{field}` of record {record}")
            }
            Self::Utf8 { record, field } => write!(f, "`{field}` of record {record} is not UTF-8"),
            Self::Length { record, field } => {
                write!(f, "`{field}` of record {record} has an invalid length")
            }
            Self::Kind { record, field, tag } => {
                write!(f, "`{field}` of record {record} is the unknown kind tag {tag}")
            }
            Self::TrailingBytes(n) => write!(f, "{n} bytes after the last record of the batch"),
        }
    }
}

impl std::error::Error for DecodeError {}

/// Decodes a whole batch of any version from [`MIN_VERSION`] to [`VERSION`].
pub fn decode(batch: &[u8]) -> Result<Vec<Record>, DecodeError> {
    let (&version, rest) = batch.split_first().ok_or(DecodeError::Empty)?;
    if !(MIN_VERSION..=VERSION).contains(&version) {
        return Err(DecodeError::Version(version));
    }
    let kinds = version >= 2;
    let mut r = Reader { buf: rest, record: 0 };
    let count = r.u32("count")? as usize;
    // A count larger than the bytes left can hold is a lie and must not drive an
    // allocation (version 1 records are 2 bytes shorter than the minimum).
    let mut out = Vec::with_capacity(count.min(r.buf.len() / (MIN_RECORD_LEN - 2) + 1));
    for i in 0..count {
        r.record = i;
        let topic = r.string("topic")?;
        let partition = Some(r.i32("partition")?).filter(|p| *p >= 0);
        let offset = Some(r.i64("offset")?).filter(|o| *o >= 0);
        let timestamp = Some(r.i64("timestamp")?).filter(|t| *t >= 0);
        let key_kind = if kinds { r.kind("key kind")? } else { Kind::Bytes };
        let key = r.opt_bytes("key")?;
        let value_kind = if kinds { r.kind("value kind")? } else { Kind::Bytes };
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
            key_kind,
            key,
            value_kind,
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

    fn kind(&mut self, field: &'static str) -> Result<Kind, DecodeError> {
        let [tag] = self.array(field)?;
        Kind::from_tag(tag).ok_or(DecodeError::Kind { record: self.record, field, tag })
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
