//! Java's `new BigDecimal(String)` and what Kafka Connect's `Values.convertTo{Byte, ..,
//! Double}` do with a string: parse it as a `BigDecimal`, then narrow it as Java does
//! (`longValue()` truncates and keeps the low 64 bits; integer types wrap; `doubleValue()`
//! rounds). `MaskField` turns its `replacement` into a number of each type with these.
//!
//! This module owns that arithmetic (with no big-number crate: the digits are walked);
//! it must not know about fields or schemas.

/// A `java.math.BigDecimal`: `±digits × 10^-scale`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct BigDecimal {
    negative: bool,
    /// The unscaled magnitude's decimal digits (ASCII), at least one.
    digits: Vec<u8>,
    /// Java's `scale()`.
    pub(crate) scale: i32,
}

impl BigDecimal {
    /// `new BigDecimal(text)`; `None` where Java throws `NumberFormatException`.
    pub(crate) fn parse(text: &str) -> Option<BigDecimal> {
        let b = text.as_bytes();
        let mut i = 0;
        let negative = match b.first() {
            Some(b'-') => {
                i = 1;
                true
            }
            Some(b'+') => {
                i = 1;
                false
            }
            _ => false,
        };
        let mut digits = Vec::new();
        let mut fraction: i64 = 0;
        let mut dot = false;
        while i < b.len() {
            match b[i] {
                d @ b'0'..=b'9' => {
                    digits.push(d);
                    if dot {
                        fraction += 1;
                    }
                }
                b'.' if !dot => dot = true,
                _ => break,
            }
            i += 1;
        }
        if digits.is_empty() {
            return None;
        }
        let mut exponent: i64 = 0;
        if i < b.len() {
            if !matches!(b[i], b'e' | b'E') {
                return None;
            }
            let rest = &text[i + 1..];
            let unsigned = rest.strip_prefix(['+', '-']).unwrap_or(rest);
            if unsigned.is_empty() || !unsigned.bytes().all(|c| c.is_ascii_digit()) {
                return None;
            }
            exponent = rest.parse::<i32>().ok()?.into();
        }
        let scale = i32::try_from(fraction - exponent).ok()?;
        // A BigDecimal has no negative zero.
        let negative = negative && digits.iter().any(|&d| d != b'0');
        Some(BigDecimal { negative, digits, scale })
    }

    /// `BigDecimal.ZERO`.
    pub(crate) fn zero() -> BigDecimal {
        BigDecimal { negative: false, digits: vec![b'0'], scale: 0 }
    }

    /// `longValue()`: the integer part's low 64 bits, as two's complement.
    pub(crate) fn long_value(&self) -> i64 {
        let keep = if self.scale > 0 {
            self.digits.len().saturating_sub(self.scale as usize)
        } else {
            self.digits.len()
        };
        let mut acc: u64 = 0;
        for &d in &self.digits[..keep] {
            acc = acc.wrapping_mul(10).wrapping_add(u64::from(d - b'0'));
        }
        if self.scale < 0 {
            // 10^64 is a multiple of 2^64: more zeros change nothing.
            for _ in 0..self.scale.unsigned_abs().min(64) {
                acc = acc.wrapping_mul(10);
            }
        }
        let acc = if self.negative { acc.wrapping_neg() } else { acc };
        acc as i64
    }

    /// `doubleValue()`: the nearest double.
    pub(crate) fn double_value(&self) -> f64 {
        let sign = if self.negative { "-" } else { "" };
        let digits = std::str::from_utf8(&self.digits).expect("ASCII digits");
        let text = format!("{sign}{digits}e{}", -i64::from(self.scale));
        text.parse().expect("a decimal number parses as a double")
    }

    /// `unscaledValue().toByteArray()`: two's complement, big-endian, minimal.
    pub(crate) fn unscaled_bytes(&self) -> Vec<u8> {
        // The magnitude, base 256, with a leading zero byte for the sign.
        let mut mag: Vec<u8> = vec![0];
        for &d in &self.digits {
            let mut carry = u32::from(d - b'0');
            for byte in mag.iter_mut().rev() {
                let v = u32::from(*byte) * 10 + carry;
                *byte = v as u8;
                carry = v >> 8;
            }
            while carry > 0 {
                mag.insert(0, carry as u8);
                carry >>= 8;
            }
            if mag[0] & 0x80 != 0 {
                mag.insert(0, 0);
            }
        }
        let zero = mag.iter().all(|&b| b == 0);
        if self.negative && !zero {
            let mut carry = true;
            for byte in mag.iter_mut().rev() {
                let (v, c) = (!*byte).overflowing_add(u8::from(carry));
                *byte = v;
                carry = c;
            }
        }
        let filler = if self.negative && !zero { 0xFF } else { 0x00 };
        while mag.len() > 1 && mag[0] == filler && (mag[1] & 0x80 != 0) == (filler == 0xFF) {
            mag.remove(0);
        }
        mag
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dec(s: &str) -> BigDecimal {
        BigDecimal::parse(s).unwrap_or_else(|| panic!("{s} parses"))
    }

    #[test]
    fn parses_as_java_does() {
        assert_eq!(dec("123.0").scale, 1);
        assert_eq!(dec("1e3").scale, -3);
        assert_eq!(dec("-1.50E+2").scale, 0);
        assert_eq!(dec(".5").scale, 1);
        assert_eq!(dec("5.").scale, 0);
        for bad in
            ["", "foo", "1.2.3", "1e", "e5", "+", "1 ", " 1", "NaN", "Infinity", "0x10", "1e+-2"]
        {
            assert!(BigDecimal::parse(bad).is_none(), "{bad:?}");
        }
    }

    #[test]
    fn narrows_as_java_does() {
        assert_eq!(dec("123").long_value(), 123);
        assert_eq!(dec("-1.9").long_value(), -1);
        assert_eq!(dec("1e2").long_value(), 100);
        assert_eq!(dec("0.001").long_value(), 0);
        assert_eq!(dec("300").long_value() as i8, 44);
        assert_eq!(dec("18446744073709551617").long_value(), 1);
        assert_eq!(dec("9223372036854775808").long_value(), i64::MIN);
        assert_eq!(dec("1e100").long_value(), 0);
        assert_eq!(dec("123.5").double_value(), 123.5);
        assert_eq!(dec("-1e400").double_value(), f64::NEG_INFINITY);
        assert_eq!(dec("0.1").double_value() as f32, 0.1f32);
    }

    #[test]
    fn unscaled_bytes_are_big_integer_bytes() {
        assert_eq!(dec("0").unscaled_bytes(), [0]);
        assert_eq!(dec("-0").unscaled_bytes(), [0]);
        assert_eq!(dec("-0.0").double_value().to_bits(), 0f64.to_bits());
        assert_eq!(dec("1.27").unscaled_bytes(), [127]);
        assert_eq!(dec("128").unscaled_bytes(), [0, 128]);
        assert_eq!(dec("-128").unscaled_bytes(), [0x80]);
        assert_eq!(dec("-129").unscaled_bytes(), [0xFF, 0x7F]);
        assert_eq!(dec("-1").unscaled_bytes(), [0xFF]);
        assert_eq!(dec("65536").unscaled_bytes(), [1, 0, 0]);
        assert_eq!(dec("-65536").unscaled_bytes(), [0xFF, 0, 0]);
        assert_eq!(BigDecimal::zero().unscaled_bytes(), [0]);
    }
}
