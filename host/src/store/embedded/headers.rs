//! The encoding of a record's headers in the `records.headers` column: `NULL` for none,
//! else a little-endian `u32` count, then per header a `u32` key length and the key's UTF-8
//! bytes, and an `i32` value length (`-1` for a null value) and the value's bytes.
//!
//! Pure functions over bytes; it must not touch the database.

use wasm_connect_batch::Header;

/// Why stored headers could not be decoded (a damaged or foreign file).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(super) enum HeadersError {
    /// The bytes end before the announced content.
    #[error("the headers end early (byte {at} of {len})")]
    Truncated {
        /// Where the missing bytes should start.
        at: usize,
        /// The encoded length.
        len: usize,
    },
    /// A key is not UTF-8.
    #[error("header key {index} is not UTF-8")]
    Key {
        /// Position of the header.
        index: usize,
    },
    /// Bytes follow the last header.
    #[error("{extra} bytes follow the last header")]
    Trailing {
        /// How many.
        extra: usize,
    },
}

/// `headers` encoded for the column; `None` (SQL `NULL`) when there are none.
pub(super) fn encode(headers: &[Header]) -> Option<Vec<u8>> {
    if headers.is_empty() {
        return None;
    }
    let size = 4 + headers
        .iter()
        .map(|h| 8 + h.key.len() + h.value.as_ref().map_or(0, Vec::len))
        .sum::<usize>();
    let mut out = Vec::with_capacity(size);
    out.extend_from_slice(&(headers.len() as u32).to_le_bytes());
    for header in headers {
        out.extend_from_slice(&(header.key.len() as u32).to_le_bytes());
        out.extend_from_slice(header.key.as_bytes());
        match &header.value {
            Some(value) => {
                out.extend_from_slice(&(value.len() as i32).to_le_bytes());
                out.extend_from_slice(value);
            }
            None => out.extend_from_slice(&(-1i32).to_le_bytes()),
        }
    }
    Some(out)
}

/// The headers encoded by [`encode`]; `None` decodes to no headers.
pub(super) fn decode(bytes: Option<&[u8]>) -> Result<Vec<Header>, HeadersError> {
    let Some(bytes) = bytes else { return Ok(Vec::new()) };
    let mut cursor = Cursor { bytes, at: 0 };
    let count = cursor.u32()? as usize;
    // Each header takes at least 8 bytes: never reserve more than the input can hold.
    let mut headers = Vec::with_capacity(count.min(bytes.len() / 8));
    for index in 0..count {
        let key_len = cursor.u32()? as usize;
        let key = String::from_utf8(cursor.take(key_len)?.to_vec())
            .map_err(|_| HeadersError::Key { index })?;
        let value_len = i32::from_le_bytes(cursor.array()?);
        let value = match usize::try_from(value_len) {
            Ok(len) => Some(cursor.take(len)?.to_vec()),
            Err(_) => None,
        };
        headers.push(Header { key, value });
    }
    match bytes.len() - cursor.at {
        0 => Ok(headers),
        extra => Err(HeadersError::Trailing { extra }),
    }
}

/// A read position in encoded headers.
struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, len: usize) -> Result<&'a [u8], HeadersError> {
        let truncated = HeadersError::Truncated { at: self.at, len: self.bytes.len() };
        let end = self.at.checked_add(len).ok_or(truncated.clone())?;
        let taken = self.bytes.get(self.at..end).ok_or(truncated)?;
        self.at = end;
        Ok(taken)
    }

    fn array(&mut self) -> Result<[u8; 4], HeadersError> {
        let bytes = self.take(4)?;
        Ok([bytes[0], bytes[1], bytes[2], bytes[3]])
    }

    fn u32(&mut self) -> Result<u32, HeadersError> {
        Ok(u32::from_le_bytes(self.array()?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(key: &str, value: Option<&str>) -> Header {
        Header { key: key.into(), value: value.map(|v| v.as_bytes().to_vec()) }
    }

    #[test]
    fn headers_round_trip_with_null_and_empty_values() {
        let headers = vec![
            header("a", Some("1")),
            header("", None),
            header("é", Some("")),
            header("a", None),
        ];
        let encoded = encode(&headers).unwrap();
        assert_eq!(decode(Some(&encoded)).unwrap(), headers);
    }

    #[test]
    fn no_headers_are_null() {
        assert_eq!(encode(&[]), None);
        assert_eq!(decode(None).unwrap(), []);
    }

    #[test]
    fn damaged_headers_are_errors_not_panics() {
        let encoded = encode(&[header("key", Some("value"))]).unwrap();
        for cut in 0..encoded.len() {
            assert!(decode(Some(&encoded[..cut])).is_err(), "cut at {cut}");
        }
        let mut longer = encoded.clone();
        longer.push(0);
        assert_eq!(decode(Some(&longer)), Err(HeadersError::Trailing { extra: 1 }));
        let huge = [0xff, 0xff, 0xff, 0xff];
        assert!(matches!(decode(Some(&huge)), Err(HeadersError::Truncated { .. })));
    }
}
