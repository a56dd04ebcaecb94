//! Avro's binary encoding of primitives (specification, "Binary Encoding"): zig-zag
//! varints for `int` and `long`, little-endian IEEE 754 floats, length-prefixed bytes and
//! strings. [`Cursor`] reads them from untrusted bytes and never panics: every failure is
//! a [`FormatError::Decode`]. This module knows no schemas.

use crate::FormatError;

/// Appends `v` as a zig-zag varint.
#[inline]
pub fn write_long(out: &mut Vec<u8>, v: i64) {
    let mut n = ((v << 1) ^ (v >> 63)) as u64;
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

/// Appends `bytes` with their length.
#[inline]
pub fn write_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    write_long(out, bytes.len() as i64);
    out.extend_from_slice(bytes);
}

/// Reads Avro binary from a slice.
pub struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

fn eof() -> FormatError {
    FormatError::Decode("Unexpected end of Avro data".into())
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `bytes`.
    pub fn new(bytes: &'a [u8]) -> Self {
        Self { bytes, pos: 0 }
    }

    /// Bytes left.
    pub fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }

    /// A zig-zag varint `long`.
    #[inline]
    pub fn long(&mut self) -> Result<i64, FormatError> {
        let mut n: u64 = 0;
        let mut shift = 0;
        loop {
            let b = *self.bytes.get(self.pos).ok_or_else(eof)?;
            self.pos += 1;
            if shift == 63 && b > 1 {
                return Err(FormatError::Decode("Invalid long encoding".into()));
            }
            n |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                break;
            }
            shift += 7;
        }
        Ok(((n >> 1) as i64) ^ -((n & 1) as i64))
    }

    /// A zig-zag varint `int`.
    #[inline]
    pub fn int(&mut self) -> Result<i32, FormatError> {
        let v = self.long()?;
        i32::try_from(v).map_err(|_| FormatError::Decode("Invalid int encoding".into()))
    }

    /// `n` raw bytes.
    #[inline]
    pub fn take(&mut self, n: usize) -> Result<&'a [u8], FormatError> {
        if n > self.remaining() {
            return Err(eof());
        }
        let slice = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(slice)
    }

    /// A length-prefixed byte string.
    #[inline]
    pub fn bytes(&mut self) -> Result<&'a [u8], FormatError> {
        let len = self.long()?;
        let len = usize::try_from(len).map_err(|_| {
            FormatError::Decode(format!("Malformed data. Length is negative: {len}"))
        })?;
        self.take(len)
    }

    /// A string; invalid UTF-8 is replaced, as Java's `new String(bytes, UTF_8)` does.
    #[inline]
    pub fn string(&mut self) -> Result<String, FormatError> {
        let b = self.bytes()?;
        Ok(match std::str::from_utf8(b) {
            Ok(s) => s.to_owned(),
            Err(_) => String::from_utf8_lossy(b).into_owned(),
        })
    }

    /// A boolean: one byte, true when it is 1 (as Java's `BinaryDecoder` reads it).
    #[inline]
    pub fn boolean(&mut self) -> Result<bool, FormatError> {
        Ok(self.take(1)?[0] == 1)
    }

    /// A little-endian `float`.
    #[inline]
    pub fn float(&mut self) -> Result<f32, FormatError> {
        let b = self.take(4)?;
        Ok(f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// A little-endian `double`.
    #[inline]
    pub fn double(&mut self) -> Result<f64, FormatError> {
        let b = self.take(8)?;
        Ok(f64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]))
    }

    /// The item count of the next array or map block (a negative count is followed by the
    /// block's size in bytes, which is skipped); `min_item_size` bounds the count by the
    /// bytes left.
    pub fn block_count(&mut self, min_item_size: usize) -> Result<usize, FormatError> {
        let mut count = self.long()?;
        if count < 0 {
            count = count
                .checked_neg()
                .ok_or_else(|| FormatError::Decode("Invalid block count".into()))?;
            self.long()?;
        }
        let count = count as u64;
        let limit = self.remaining().checked_div(min_item_size).map_or(1 << 20, |n| n as u64);
        if count > limit {
            return Err(FormatError::Decode(format!("Block count {count} exceeds the data left")));
        }
        Ok(count as usize)
    }
}
