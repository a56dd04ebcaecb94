//! [`LineBuffer`]: bytes read from the file, cut into complete lines with their offsets.
//!
//! This module owns line splitting exactly as Kafka Connect's `FileStreamSourceTask`
//! does it (`\n`, `\r\n` or a lone `\r` ends a line; a `\r` at the end of the buffer waits
//! for the next byte) and the byte position that follows each line. It does no I/O and
//! keeps a partial trailing line until it is completed.

/// Unconsumed bytes of the file and the file position of the first one.
#[derive(Debug, Default)]
pub struct LineBuffer {
    buf: Vec<u8>,
    /// Index in `buf` of the first unconsumed byte; consumed bytes are dropped lazily.
    start: usize,
    /// File position of `buf[start]`.
    position: u64,
}

impl LineBuffer {
    /// An empty buffer whose next byte is at file position `position`.
    pub fn at(position: u64) -> Self {
        Self { buf: Vec::new(), start: 0, position }
    }

    /// The file position of the first byte not yet returned in a line.
    #[cfg(test)]
    pub fn position(&self) -> u64 {
        self.position
    }

    /// The file position right after the last byte buffered: where the next read starts.
    pub fn read_position(&self) -> u64 {
        self.position + (self.buf.len() - self.start) as u64
    }

    /// Space to read up to `n` more bytes into; call [`LineBuffer::filled`] after.
    pub fn spare(&mut self, n: usize) -> &mut [u8] {
        if self.start > 0 && self.start * 2 >= self.buf.len() {
            self.buf.drain(..self.start);
            self.start = 0;
        }
        let len = self.buf.len();
        self.buf.resize(len + n, 0);
        &mut self.buf[len..]
    }

    /// Keeps `used` of the bytes last handed out by [`LineBuffer::spare`].
    pub fn filled(&mut self, spare: usize, used: usize) {
        let len = self.buf.len();
        self.buf.truncate(len - spare + used);
    }

    /// The next complete line (without its terminator) and the file position after it.
    pub fn next_line(&mut self) -> Option<(&[u8], u64)> {
        let pending = &self.buf[self.start..];
        let i = memchr::memchr2(b'\n', b'\r', pending)?;
        let next = match pending[i] {
            b'\n' => i + 1,
            _ if i + 1 >= pending.len() => return None,
            _ if pending[i + 1] == b'\n' => i + 2,
            _ => i + 1,
        };
        let line = self.start..self.start + i;
        self.start += next;
        self.position += next as u64;
        Some((&self.buf[line], self.position))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed(b: &mut LineBuffer, bytes: &[u8]) {
        let spare = b.spare(bytes.len() + 3);
        spare[..bytes.len()].copy_from_slice(bytes);
        b.filled(bytes.len() + 3, bytes.len());
    }

    fn drain(b: &mut LineBuffer) -> Vec<(String, u64)> {
        std::iter::from_fn(|| {
            b.next_line().map(|(l, p)| (String::from_utf8(l.to_vec()).unwrap(), p))
        })
        .collect()
    }

    #[test]
    fn splits_every_terminator_and_counts_bytes() {
        let mut b = LineBuffer::at(100);
        feed(&mut b, "a\nbé\r\nc\rd".as_bytes());
        assert_eq!(drain(&mut b), [("a".into(), 102), ("bé".into(), 107), ("c".into(), 109)]);
        assert_eq!(b.position(), 109);
        assert_eq!(b.read_position(), 110);
    }

    #[test]
    fn keeps_a_partial_line_and_a_trailing_cr_until_completed() {
        let mut b = LineBuffer::at(0);
        feed(&mut b, b"abc");
        assert!(drain(&mut b).is_empty());
        feed(&mut b, b"def\r");
        assert!(drain(&mut b).is_empty(), "a final \\r may be half of \\r\\n");
        feed(&mut b, b"\nx\n");
        assert_eq!(drain(&mut b), [("abcdef".into(), 8), ("x".into(), 10)]);
        for _ in 0..10 {
            feed(&mut b, b"long line\n");
            assert_eq!(drain(&mut b).len(), 1);
        }
        assert_eq!(b.position(), b.read_position());
    }

    #[test]
    fn empty_lines_are_records_too() {
        let mut b = LineBuffer::at(0);
        feed(&mut b, b"\n\n");
        assert_eq!(drain(&mut b), [(String::new(), 1), (String::new(), 2)]);
    }
}
