//! [`Pattern`]: the deterministic key and value text of a record, derived from its
//! sequence number alone, so that any run (and any consumer) can recompute them.
//!
//! Key: the sequence as zero-padded decimal, `key.size` characters (the low digits if it does
//! not fit). Value: `value.size` characters of the alphabet `a-z0-9`, starting at the letter
//! `sequence % 36`. Both are one copy from a precomputed buffer; nothing else here.

const ALPHABET: &[u8; 36] = b"abcdefghijklmnopqrstuvwxyz0123456789";

/// Makes keys and values of fixed sizes.
#[derive(Clone, Debug)]
pub struct Pattern {
    key_size: usize,
    value_size: usize,
    /// The alphabet repeated over `value_size + 36` bytes.
    values: String,
}

impl Pattern {
    /// A pattern for keys of `key_size` and values of `value_size` bytes.
    pub fn new(key_size: usize, value_size: usize) -> Self {
        let values = ALPHABET
            .iter()
            .map(|&b| char::from(b))
            .cycle()
            .take(value_size + ALPHABET.len())
            .collect();
        Self { key_size, value_size, values }
    }

    /// The key of record `sequence`, or `None` (a null key) when keys are 0 bytes.
    pub fn key(&self, sequence: u64) -> Option<String> {
        if self.key_size == 0 {
            return None;
        }
        // Padded by hand: `format!`'s width stops at 65535.
        let digits = sequence.to_string();
        let mut key = String::with_capacity(self.key_size);
        key.extend(std::iter::repeat_n('0', self.key_size.saturating_sub(digits.len())));
        key.push_str(&digits[digits.len().saturating_sub(self.key_size)..]);
        Some(key)
    }

    /// The value of record `sequence`.
    pub fn value(&self, sequence: u64) -> String {
        let start = (sequence % ALPHABET.len() as u64) as usize;
        self.values[start..start + self.value_size].to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_padded_decimal_and_values_rotate() {
        let p = Pattern::new(4, 5);
        assert_eq!(p.key(42).unwrap(), "0042");
        assert_eq!(p.key(123_456).unwrap(), "3456");
        assert_eq!(p.value(0), "abcde");
        assert_eq!(p.value(37), "bcdef");
        assert_eq!(p.value(35), "9abcd");
        assert_eq!(Pattern::new(0, 0).key(1), None);
        assert!(Pattern::new(0, 0).value(7).is_empty());
        let wide = Pattern::new(70_000, 0).key(7).unwrap();
        assert_eq!((wide.len(), wide.ends_with("07"), wide.starts_with('0')), (70_000, true, true));
    }
}
