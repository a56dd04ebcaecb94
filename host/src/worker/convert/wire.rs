//! The Confluent wire format, which Schema Registry converters (Avro, Protobuf, JSON
//! Schema) read and write: a magic byte 0, the schema id as 4 big-endian bytes, then the
//! payload. A Protobuf payload starts with the message indexes: where in its schema file
//! the message type is, as a count then each index, all zig-zag varints (Confluent's
//! `ByteUtils.writeVarint`), with `[0]` (the file's first message, by far the most common)
//! written as the single byte 0.
//!
//! Pure framing: it knows nothing of schemas, registries or payload encodings.

use super::ConvertError;

/// The first byte of every framed key or value.
pub const MAGIC_BYTE: u8 = 0;

/// `payload` framed with schema `id`.
#[cfg(test)]
pub fn frame(id: u32, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(5 + payload.len());
    out.push(MAGIC_BYTE);
    out.extend_from_slice(&id.to_be_bytes());
    out.extend_from_slice(payload);
    out
}

/// The schema id and payload of framed `bytes`.
pub fn unframe(bytes: &[u8]) -> Result<(u32, &[u8]), ConvertError> {
    match bytes {
        [MAGIC_BYTE, a, b, c, d, payload @ ..] => {
            Ok((u32::from_be_bytes([*a, *b, *c, *d]), payload))
        }
        [MAGIC_BYTE, ..] => Err(ConvertError::NotFramed(format!(
            "{} bytes are too few for the magic byte and a schema id",
            bytes.len()
        ))),
        [] => Err(ConvertError::NotFramed("no bytes".to_owned())),
        _ => Err(ConvertError::NotFramed("Unknown magic byte!".to_owned())),
    }
}

/// Protobuf message `indexes` as Confluent writes them before the payload.
pub fn write_message_indexes(indexes: &[i32], out: &mut Vec<u8>) {
    if indexes == [0] {
        out.push(0);
        return;
    }
    write_varint(indexes.len() as i32, out);
    for &index in indexes {
        write_varint(index, out);
    }
}

/// The Protobuf message indexes at the start of `bytes`, and the payload after them.
pub fn read_message_indexes(bytes: &[u8]) -> Result<(Vec<i32>, &[u8]), ConvertError> {
    let (count, mut rest) = read_varint(bytes)?;
    if count == 0 {
        return Ok((vec![0], rest));
    }
    if count < 0 || count as usize > rest.len() {
        return Err(ConvertError::NotFramed(format!("invalid message index count {count}")));
    }
    let mut indexes = Vec::with_capacity(count as usize);
    for _ in 0..count {
        let (index, after) = read_varint(rest)?;
        indexes.push(index);
        rest = after;
    }
    Ok((indexes, rest))
}

/// A zig-zag varint of a 32-bit value.
fn write_varint(value: i32, out: &mut Vec<u8>) {
    let mut v = ((value << 1) ^ (value >> 31)) as u32;
    while v >= 0x80 {
        out.push((v as u8 & 0x7f) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// A zig-zag varint of a 32-bit value at the start of `bytes`, and what follows it.
fn read_varint(bytes: &[u8]) -> Result<(i32, &[u8]), ConvertError> {
    let mut v: u32 = 0;
    for (i, &b) in bytes.iter().enumerate().take(5) {
        v |= u32::from(b & 0x7f) << (7 * i);
        if b & 0x80 == 0 {
            let value = ((v >> 1) as i32) ^ -((v & 1) as i32);
            return Ok((value, &bytes[i + 1..]));
        }
    }
    Err(ConvertError::NotFramed("a message index is not a valid varint".to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_is_the_magic_byte_the_big_endian_id_and_the_payload() {
        // Schema id 258 = 0x00000102.
        assert_eq!(frame(258, b"abc"), vec![0, 0, 0, 1, 2, b'a', b'b', b'c']);
        assert_eq!(unframe(&[0, 0, 0, 1, 2, b'a']).unwrap(), (258, &b"a"[..]));
        assert_eq!(unframe(&[0, 0xff, 0xff, 0xff, 0xff]).unwrap(), (u32::MAX, &b""[..]));
    }

    #[test]
    fn bytes_that_are_not_framed_are_refused() {
        let e = unframe(b"{\"a\":1}").unwrap_err();
        assert_eq!(
            e.to_string(),
            "The bytes are not in the schema registry's wire format: Unknown magic byte!"
        );
        assert!(unframe(&[0, 0, 1]).unwrap_err().to_string().contains("too few"));
        assert!(unframe(&[]).is_err());
    }

    #[test]
    fn message_indexes_are_zig_zag_varints_with_the_first_message_as_one_zero_byte() {
        let cases: &[(&[i32], &[u8])] = &[
            (&[0], &[0]),
            // Count 1, index 1: zig-zag 2 and 2.
            (&[1], &[2, 2]),
            (&[0, 1], &[4, 0, 2]),
            // Index 64: zig-zag 128, two varint bytes.
            (&[64], &[2, 0x80, 0x01]),
        ];
        for (indexes, bytes) in cases {
            let mut out = Vec::new();
            write_message_indexes(indexes, &mut out);
            assert_eq!(&out[..], *bytes, "{indexes:?}");
            let mut framed = bytes.to_vec();
            framed.extend_from_slice(b"payload");
            let (read, rest) = read_message_indexes(&framed).unwrap();
            assert_eq!(&read[..], *indexes);
            assert_eq!(rest, b"payload");
        }
    }

    #[test]
    fn broken_message_indexes_are_refused() {
        // A count larger than the bytes left, a negative count, a varint that never ends.
        assert!(read_message_indexes(&[10, 2]).is_err());
        assert!(read_message_indexes(&[1]).is_err());
        assert!(read_message_indexes(&[0x80, 0x80, 0x80, 0x80, 0x80, 0x01]).is_err());
    }
}
