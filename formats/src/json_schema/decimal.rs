//! Kafka Connect's `Decimal` values as this format writes and reads them: the unscaled
//! value as `BigInteger.toByteArray` gives it (big-endian two's complement, minimal), and
//! the text `BigDecimal.toString` prints for `decimal.format=NUMERIC`. It owns the
//! arithmetic only; where a decimal goes in the JSON is the encoder's and decoder's.

use wasm_connect_transforms::data::schemaless::json::Decimal;
use wasm_connect_transforms::data::unscaled::{unscaled_bytes, unscaled_digits};

/// The most digits a decimal read from JSON may grow to when brought to its schema's
/// scale: far beyond any database type, small enough that `1e999999999` cannot make us
/// allocate gigabytes.
const MAX_DIGITS: i64 = 10_000;

/// Two's complement bytes without redundant sign bytes (`[0]` for zero, as Java gives).
pub fn minimal(bytes: &[u8]) -> &[u8] {
    let redundant = bytes
        .windows(2)
        .take_while(|w| (w[0] == 0 && w[1] < 0x80) || (w[0] == 0xFF && w[1] >= 0x80))
        .count();
    let rest = &bytes[redundant..];
    if rest.is_empty() { &[0] } else { rest }
}

/// `BigDecimal.toString` of `unscaled` × 10^-`scale`: plain when the scale is not
/// negative and the adjusted exponent is at least -6, scientific (`1.5E-7`) otherwise.
pub fn to_text(unscaled: &[u8], scale: i32) -> String {
    let (negative, digits) = unscaled_digits(unscaled);
    let sign = if negative { "-" } else { "" };
    let scale = i64::from(scale);
    let adjusted = digits.len() as i64 - 1 - scale;
    if scale == 0 {
        return format!("{sign}{digits}");
    }
    if scale > 0 && adjusted >= -6 {
        let point = digits.len() as i64 - scale;
        return if point > 0 {
            let (int, frac) = digits.split_at(point as usize);
            format!("{sign}{int}.{frac}")
        } else {
            format!("{sign}0.{}{digits}", "0".repeat((-point) as usize))
        };
    }
    let (first, rest) = digits.split_at(1);
    let point = if rest.is_empty() { String::new() } else { format!(".{rest}") };
    let exp_sign = if adjusted >= 0 { "+" } else { "" };
    format!("{sign}{first}{point}E{exp_sign}{adjusted}")
}

/// The unscaled bytes of `decimal` at `scale`: exact, or an error when the value has
/// non-zero digits below the schema's scale (Kafka Connect would fail the same value
/// with a scale mismatch when writing it).
pub fn rescale(decimal: &Decimal, scale: i32) -> Result<Vec<u8>, String> {
    let shift = i64::from(scale).saturating_sub(decimal.scale);
    let mismatch = || {
        format!(
            "Decimal value has mismatching scale for given Decimal schema. Schema has scale \
             {scale}, value has scale {}.",
            decimal.scale
        )
    };
    let digits = if decimal.unscaled == "0" {
        "0".to_owned()
    } else if shift >= 0 {
        if (decimal.unscaled.len() as i64).saturating_add(shift) > MAX_DIGITS {
            return Err(mismatch());
        }
        format!("{}{}", decimal.unscaled, "0".repeat(shift as usize))
    } else {
        let drop = usize::try_from(-shift).unwrap_or(usize::MAX);
        let cut = decimal.unscaled.len().checked_sub(drop).ok_or_else(mismatch)?;
        if decimal.unscaled[cut..].bytes().any(|b| b != b'0') {
            return Err(mismatch());
        }
        let kept = &decimal.unscaled[..cut];
        if kept.is_empty() { "0".to_owned() } else { kept.to_owned() }
    };
    Ok(unscaled_bytes(decimal.negative, &digits))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dec(negative: bool, unscaled: &str, scale: i64) -> Decimal {
        Decimal { negative, unscaled: unscaled.into(), scale }
    }

    #[test]
    fn big_decimal_to_string_layouts() {
        // 156 at scale 2 is 1.56 (Confluent's testFromConnectNumericDecimal).
        assert_eq!(to_text(&[0x00, 0x9C], 2), "1.56");
        assert_eq!(to_text(&[0x3C, 0xF0], 4), "1.5600"); // 15600, trailing zeros kept
        assert_eq!(to_text(&[0xFF, 0x64], 2), "-1.56"); // -156
        assert_eq!(to_text(&[0x01], 7), "1E-7"); // adjusted exponent -7 < -6
        assert_eq!(to_text(&[0x01], 6), "0.000001");
        assert_eq!(to_text(&[0x7B], -2), "1.23E+4"); // 123 at scale -2
        assert_eq!(to_text(&[0x00], 3), "0.000");
        assert_eq!(to_text(&[], 0), "0");
    }

    #[test]
    fn decimals_rescale_exactly_or_fail() {
        assert_eq!(rescale(&dec(false, "156", 2), 2).unwrap(), [0x00, 0x9C]);
        assert_eq!(rescale(&dec(false, "156", 2), 4).unwrap(), [0x3C, 0xF0]);
        assert_eq!(rescale(&dec(false, "15600", 4), 2).unwrap(), [0x00, 0x9C]);
        assert_eq!(rescale(&dec(true, "156", 2), 2).unwrap(), [0xFF, 0x64]);
        // BigInteger(-128).toByteArray() is the single byte 0x80; -129 needs two.
        assert_eq!(rescale(&dec(true, "128", 0), 0).unwrap(), [0x80]);
        assert_eq!(rescale(&dec(true, "129", 0), 0).unwrap(), [0xFF, 0x7F]);
        assert_eq!(rescale(&dec(false, "0", 9), 2).unwrap(), [0x00]);
        assert!(rescale(&dec(false, "1561", 3), 2).unwrap_err().contains("mismatching scale"));
        assert!(rescale(&dec(false, "1", -999_999_999), 0).is_err());
        assert!(rescale(&dec(false, "1", i64::MIN + 1), 2).is_err());
        assert!(rescale(&dec(false, "1", i64::MAX), -2).is_err());
    }

    #[test]
    fn minimal_drops_redundant_sign_bytes() {
        assert_eq!(minimal(&[0x00, 0x00, 0x9C]), [0x00, 0x9C]);
        assert_eq!(minimal(&[0xFF, 0xFF, 0x64]), [0xFF, 0x64]);
        assert_eq!(minimal(&[0x00, 0x7F]), [0x7F]);
        assert_eq!(minimal(&[]), [0x00]);
    }
}
