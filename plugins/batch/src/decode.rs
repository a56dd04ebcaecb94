//! Reading a batch: [`decode`], with [`DecodeError`] naming what was malformed and where.
//!
//! This module owns the errors of the reading side and the owned form of a batch; the
//! byte layout is read by `view`, without copying. It never panics and never allocates
//! more than the batch can hold, whatever the input.

use std::fmt;

use crate::{Record, VERSION};

/// The oldest encoding version [`decode`] reads. Version 1 has no kind bytes: every key
/// and value is [`Kind::Bytes`](crate::Kind::Bytes).
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
    /// A kind byte is not a known [`Kind`](crate::Kind) tag.
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

/// Decodes a whole batch of any version from [`MIN_VERSION`] to [`VERSION`] into owned
/// records. [`records`](crate::records) reads one without copying it.
pub fn decode(batch: &[u8]) -> Result<Vec<Record>, DecodeError> {
    let records = crate::records(batch)?;
    let mut out = Vec::with_capacity(records.capacity_hint());
    for r in records {
        out.push(r?.to_record());
    }
    Ok(out)
}
