//! `numeric` and `money` text as Kafka Connect decimals: the unscaled value's big-endian
//! two's complement bytes (Java's `BigInteger.toByteArray`, so the shortest form that keeps
//! the sign) and a scale.
//!
//! This module owns decimal arithmetic on digit strings of any length; choosing between
//! Decimal, VariableScaleDecimal, double and string is `value`'s job.

/// A parsed decimal: sign, all digits (no point), and how many of them are fractional.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decimal {
    pub negative: bool,
    pub digits: String,
    pub scale: u32,
}

impl Decimal {
    /// Parses `-123.4500`, `+1`, `.5`; `None` for `NaN`, infinities and anything else.
    pub fn parse(text: &str) -> Option<Decimal> {
        let t = text.trim();
        let (negative, t) = match t.strip_prefix('-') {
            Some(r) => (true, r),
            None => (false, t.strip_prefix('+').unwrap_or(t)),
        };
        let (int, frac) = t.split_once('.').unwrap_or((t, ""));
        if int.is_empty() && frac.is_empty()
            || !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit())
        {
            return None;
        }
        Some(Decimal { negative, digits: format!("{int}{frac}"), scale: frac.len() as u32 })
    }

    /// PostgreSQL `money` text (`$1,234.56`, `-$0.50`, `($0.50)`) at scale 2.
    pub fn parse_money(text: &str) -> Option<Decimal> {
        let t = text.trim();
        let (neg, t) = match t.strip_prefix('(').and_then(|r| r.strip_suffix(')')) {
            Some(r) => (true, r),
            None => (false, t),
        };
        let cleaned: String =
            t.chars().filter(|c| c.is_ascii_digit() || matches!(c, '.' | '-')).collect();
        let mut d = Decimal::parse(&cleaned)?.rescale(2);
        d.negative ^= neg;
        Some(d)
    }

    /// Whether the value is zero.
    pub fn is_zero(&self) -> bool {
        self.digits.bytes().all(|b| b == b'0')
    }

    /// The same value at `scale` (digits dropped when lowering it, as `RoundingMode.DOWN`
    /// would; PostgreSQL already wrote the column's scale, so this only pads in practice).
    pub fn rescale(mut self, scale: u32) -> Decimal {
        if scale >= self.scale {
            self.digits.extend(std::iter::repeat_n('0', (scale - self.scale) as usize));
        } else {
            let keep = self.digits.len().saturating_sub((self.scale - scale) as usize);
            self.digits.truncate(keep);
        }
        self.scale = scale;
        self
    }

    /// The same value without the fractional part's trailing zeros (Java's
    /// `stripTrailingZeros`, with a negative scale set back to 0).
    pub fn strip_fraction_zeros(mut self) -> Decimal {
        while self.scale > 0 && self.digits.ends_with('0') {
            self.digits.pop();
            self.scale -= 1;
        }
        self
    }

    /// The unscaled value as two's complement big-endian bytes, as short as possible.
    pub fn unscaled_bytes(&self) -> Vec<u8> {
        // Magnitude in base 256, little-endian while building.
        let mut mag: Vec<u8> = Vec::new();
        for d in self.digits.bytes() {
            let mut carry = u32::from(d - b'0');
            for byte in mag.iter_mut() {
                let v = u32::from(*byte) * 10 + carry;
                *byte = v as u8;
                carry = v >> 8;
            }
            if carry > 0 {
                mag.push(carry as u8);
            }
        }
        while mag.last() == Some(&0) {
            mag.pop();
        }
        if !self.negative || mag.is_empty() {
            if mag.last().is_none_or(|b| b & 0x80 != 0) {
                mag.push(0);
            }
            mag.reverse();
            return mag;
        }
        // Negate: invert and add one.
        let mut carry = true;
        for byte in mag.iter_mut() {
            let (v, c) = (!*byte).overflowing_add(u8::from(carry));
            *byte = v;
            carry = c;
        }
        if mag.last().is_some_and(|b| b & 0x80 == 0) {
            mag.push(0xff);
        }
        // Drop redundant leading 0xff bytes (kept when the next byte's sign bit is clear).
        while mag.len() > 1 && mag[mag.len() - 1] == 0xff && mag[mag.len() - 2] & 0x80 != 0 {
            mag.pop();
        }
        mag.reverse();
        mag
    }

    /// The value as an `f64`.
    pub fn to_f64(&self) -> f64 {
        let text = format!(
            "{}{}e-{}",
            if self.negative { "-" } else { "" },
            if self.digits.is_empty() { "0" } else { &self.digits },
            self.scale
        );
        text.parse().unwrap_or(f64::NAN)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(text: &str) -> Vec<u8> {
        Decimal::parse(text).unwrap().unscaled_bytes()
    }

    #[test]
    fn two_complement_bytes_by_hand() {
        assert_eq!(bytes("0"), [0x00]);
        assert_eq!(bytes("127"), [0x7f]);
        assert_eq!(bytes("128"), [0x00, 0x80], "a sign byte keeps 128 positive");
        assert_eq!(bytes("-1"), [0xff]);
        assert_eq!(bytes("-128"), [0x80]);
        assert_eq!(bytes("-129"), [0xff, 0x7f]);
        assert_eq!(bytes("-256"), [0xff, 0x00]);
        // 123.45 -> unscaled 12345 = 0x3039.
        assert_eq!(bytes("123.45"), [0x30, 0x39]);
        assert_eq!(bytes("-123.45"), [0xcf, 0xc7]);
        // 2^64 = 18446744073709551616 -> 01 00*8, with no sign byte needed.
        assert_eq!(bytes("18446744073709551616"), [1, 0, 0, 0, 0, 0, 0, 0, 0]);
    }

    #[test]
    fn parsing_scales_and_money() {
        let d = Decimal::parse("-0012.300").unwrap();
        assert_eq!((d.negative, d.digits.as_str(), d.scale), (true, "0012300", 3));
        assert_eq!(d.clone().rescale(1).digits, "00123");
        assert!(Decimal::parse("NaN").is_none() && Decimal::parse("Infinity").is_none());
        assert!(Decimal::parse("0.000").unwrap().is_zero());
        let d = Decimal::parse("100.500").unwrap().strip_fraction_zeros();
        assert_eq!((d.digits.as_str(), d.scale), ("1005", 1));
        let d = Decimal::parse("100").unwrap().strip_fraction_zeros();
        assert_eq!((d.digits.as_str(), d.scale), ("100", 0), "integer zeros stay");
        let m = Decimal::parse_money("-$1,234.5").unwrap();
        assert_eq!((m.negative, m.scale, m.unscaled_bytes()), (true, 2, bytes("-1234.50")));
        assert_eq!(Decimal::parse("1.25").unwrap().to_f64(), 1.25);
    }
}
