//! Reading a batch without copying it: [`records`] walks a batch and yields each record
//! as a [`RecordRef`] whose strings and bytes borrow the batch.
//!
//! This module owns the byte layout on the reading side, for every version this crate
//! reads (1 and 2); [`decode`](crate::decode) builds owned [`Record`]s on top of it. It
//! never panics and never allocates, whatever the input: a record is checked whole
//! (lengths, UTF-8, kind tags, its headers) before it is yielded.

use crate::record::MIN_RECORD_LEN;
use crate::{DecodeError, Header, Kind, MIN_VERSION, Record, VERSION};

/// One record of a batch, borrowed from it. The fields mean what [`Record`]'s do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecordRef<'a> {
    /// Topic the record was read from, or is to be written to.
    pub topic: &'a str,
    /// Kafka partition, if set.
    pub partition: Option<i32>,
    /// Kafka offset of a sink record.
    pub offset: Option<i64>,
    /// Milliseconds since the Unix epoch, if known.
    pub timestamp: Option<i64>,
    /// What the key's bytes hold.
    pub key_kind: Kind,
    /// Record key; `None` is a null key.
    pub key: Option<&'a [u8]>,
    /// What the value's bytes hold.
    pub value_kind: Kind,
    /// Record value; `None` is a null value.
    pub value: Option<&'a [u8]>,
    /// Record headers, in order (already checked).
    pub headers: Headers<'a>,
    /// Source partition as JSON text (source records only).
    pub source_partition: Option<&'a [u8]>,
    /// Source offset as JSON text (source records only).
    pub source_offset: Option<&'a [u8]>,
}

impl RecordRef<'_> {
    /// The record with owned fields.
    pub fn to_record(&self) -> Record {
        Record {
            topic: self.topic.to_owned(),
            partition: self.partition,
            offset: self.offset,
            timestamp: self.timestamp,
            key_kind: self.key_kind,
            key: self.key.map(<[u8]>::to_vec),
            value_kind: self.value_kind,
            value: self.value.map(<[u8]>::to_vec),
            headers: self
                .headers
                .map(|(key, value)| Header {
                    key: key.to_owned(),
                    value: value.map(<[u8]>::to_vec),
                })
                .collect(),
            source_partition: self.source_partition.map(<[u8]>::to_vec),
            source_offset: self.source_offset.map(<[u8]>::to_vec),
        }
    }
}

/// The headers of a [`RecordRef`]: an iterator of `(key, value)`, a `None` value being a
/// null header value. Copying it restarts nothing: each copy iterates on its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Headers<'a> {
    /// The header bytes not yet iterated, checked when the record was read.
    raw: &'a [u8],
    left: u32,
}

impl<'a> Headers<'a> {
    /// The number of headers left.
    pub fn len(&self) -> usize {
        self.left as usize
    }

    /// Whether no header is left.
    pub fn is_empty(&self) -> bool {
        self.left == 0
    }
}

impl<'a> Iterator for Headers<'a> {
    type Item = (&'a str, Option<&'a [u8]>);

    fn next(&mut self) -> Option<Self::Item> {
        if self.left == 0 {
            return None;
        }
        let mut r = Reader { buf: self.raw, record: 0 };
        // Checked when the record was read: these cannot fail, and stop quietly if they did.
        let key = r.string("header key").ok()?;
        let value = r.opt_bytes("header value").ok()?;
        self.raw = r.buf;
        self.left -= 1;
        Some((key, value))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.len(), Some(self.len()))
    }
}

impl ExactSizeIterator for Headers<'_> {}

/// Reads the header of a batch of any version from [`MIN_VERSION`] to [`VERSION`] and
/// returns its records, each checked as it is reached. After the last record, bytes left
/// over are one last [`DecodeError::TrailingBytes`]; after an error, nothing more.
pub fn records(batch: &[u8]) -> Result<Records<'_>, DecodeError> {
    let (&version, rest) = batch.split_first().ok_or(DecodeError::Empty)?;
    if !(MIN_VERSION..=VERSION).contains(&version) {
        return Err(DecodeError::Version(version));
    }
    let mut reader = Reader { buf: rest, record: 0 };
    let count = reader.u32("count")? as usize;
    Ok(Records { reader, kinds: version >= 2, count, done: false })
}

/// The records of a batch, from [`records`].
#[derive(Clone, Debug)]
pub struct Records<'a> {
    reader: Reader<'a>,
    kinds: bool,
    /// Records not yet read.
    count: usize,
    done: bool,
}

impl Records<'_> {
    /// The number of records the batch says it holds, bounded by what its bytes can hold
    /// (so a lying count cannot drive an allocation).
    pub fn capacity_hint(&self) -> usize {
        // Version 1 records are 2 bytes shorter than the minimum.
        self.count.min(self.reader.buf.len() / (MIN_RECORD_LEN - 2) + 1)
    }
}

impl<'a> Iterator for Records<'a> {
    type Item = Result<RecordRef<'a>, DecodeError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        if self.count == 0 {
            self.done = true;
            let left = self.reader.buf.len();
            return (left > 0).then_some(Err(DecodeError::TrailingBytes(left)));
        }
        self.count -= 1;
        let record = self.reader.record(self.kinds);
        self.reader.record += 1;
        self.done = record.is_err();
        Some(record)
    }
}

#[derive(Clone, Debug)]
pub(crate) struct Reader<'a> {
    buf: &'a [u8],
    record: usize,
}

impl<'a> Reader<'a> {
    fn record(&mut self, kinds: bool) -> Result<RecordRef<'a>, DecodeError> {
        let topic = self.string("topic")?;
        let partition = Some(self.i32("partition")?).filter(|p| *p >= 0);
        let offset = Some(self.i64("offset")?).filter(|o| *o >= 0);
        let timestamp = Some(self.i64("timestamp")?).filter(|t| *t >= 0);
        let key_kind = if kinds { self.kind("key kind")? } else { Kind::Bytes };
        let key = self.opt_bytes("key")?;
        let value_kind = if kinds { self.kind("value kind")? } else { Kind::Bytes };
        let value = self.opt_bytes("value")?;
        let left = self.u32("header count")?;
        let start = self.buf;
        for _ in 0..left {
            self.string("header key")?;
            self.opt_bytes("header value")?;
        }
        let raw = &start[..start.len() - self.buf.len()];
        let headers = Headers { raw, left };
        let source_partition = self.opt_bytes("source partition")?;
        let source_offset = self.opt_bytes("source offset")?;
        Ok(RecordRef {
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
        })
    }

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

    fn string(&mut self, field: &'static str) -> Result<&'a str, DecodeError> {
        let n = self.u32(field)? as usize;
        let b = self.take(n, field)?;
        std::str::from_utf8(b).map_err(|_| DecodeError::Utf8 { record: self.record, field })
    }

    fn opt_bytes(&mut self, field: &'static str) -> Result<Option<&'a [u8]>, DecodeError> {
        match self.i32(field)? {
            -1 => Ok(None),
            n if n < 0 => Err(DecodeError::Length { record: self.record, field }),
            n => Ok(Some(self.take(n as usize, field)?)),
        }
    }
}
