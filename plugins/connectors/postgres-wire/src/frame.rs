//! Framing of backend messages: splitting one whole message (tag, length, body) off the
//! read buffer, so the client can hand a message `postgres-protocol` does not know (the
//! `W` CopyBothResponse of replication) to its caller instead of failing on it.
//!
//! It reads no socket and decodes no body.

use bytes::BytesMut;

use crate::PgError;

/// The largest message accepted (1 GiB, PostgreSQL's own limit on a field); a longer
/// length means the stream is out of step.
const MAX_LEN: usize = 1 << 30;

/// Splits the first whole message (tag byte included) off `buf`; `None` when `buf` holds
/// only part of one (it is left as it is, with room reserved for the rest).
pub(crate) fn split(buf: &mut BytesMut) -> Result<Option<BytesMut>, PgError> {
    if buf.len() < 5 {
        return Ok(None);
    }
    let len = u32::from_be_bytes([buf[1], buf[2], buf[3], buf[4]]) as usize;
    if !(4..=MAX_LEN).contains(&len) {
        return Err(PgError::Protocol(format!("invalid message length {len}")));
    }
    let total = len + 1;
    if buf.len() < total {
        buf.reserve(total - buf.len());
        return Ok(None);
    }
    Ok(Some(buf.split_to(total)))
}

/// Appends a frontend message `tag` with `body` to `out`.
pub(crate) fn encode(tag: u8, body: &[u8], out: &mut BytesMut) {
    out.extend_from_slice(&[tag]);
    out.extend_from_slice(&((body.len() + 4) as u32).to_be_bytes());
    out.extend_from_slice(body);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_messages_are_split_and_parts_wait() {
        // CopyBothResponse: 'W', length 7 (itself + format byte + column count 0), format 0.
        let w = [b'W', 0, 0, 0, 7, 0, 0, 0];
        let mut buf = BytesMut::from(&w[..5]);
        assert_eq!(split(&mut buf).unwrap(), None);
        assert_eq!(buf.len(), 5, "a partial message stays in the buffer");
        buf.extend_from_slice(&w[5..]);
        buf.extend_from_slice(b"d\0\0\0\x05x");
        let first = split(&mut buf).unwrap().unwrap();
        assert_eq!(&first[..], &w[..]);
        let second = split(&mut buf).unwrap().unwrap();
        assert_eq!(&second[..], b"d\0\0\0\x05x");
        assert!(buf.is_empty());
        assert!(split(&mut BytesMut::from(&b"d\0\0\0\x03"[..])).is_err());
    }

    #[test]
    fn encode_counts_the_length_field_in_the_length() {
        let mut out = BytesMut::new();
        encode(b'd', b"abc", &mut out);
        assert_eq!(&out[..], b"d\0\0\0\x07abc");
    }
}
