//! Two's complement big-endian unscaled values (`BigInteger.toByteArray`, Decimal's BYTES)
//! to and from their decimal digits: [`unscaled_bytes`], [`unscaled_digits`], [`minimal`].
//! Pure arithmetic on byte strings of any length; where the scale goes is the callers'.

/// Decimal digits (no sign) as `BigInteger.toByteArray` gives them: big-endian two's
/// complement, as short as the sign allows.
pub fn unscaled_bytes(negative: bool, digits: &str) -> Vec<u8> {
    let mut magnitude: Vec<u8> = vec![0];
    for d in digits.bytes() {
        let mut carry = u32::from(d - b'0');
        for byte in magnitude.iter_mut().rev() {
            let x = u32::from(*byte) * 10 + carry;
            *byte = x as u8;
            carry = x >> 8;
        }
        while carry > 0 {
            magnitude.insert(0, carry as u8);
            carry >>= 8;
        }
    }
    magnitude.insert(0, 0);
    if negative {
        for byte in magnitude.iter_mut() {
            *byte = !*byte;
        }
        for byte in magnitude.iter_mut().rev() {
            let (sum, overflow) = byte.overflowing_add(1);
            *byte = sum;
            if !overflow {
                break;
            }
        }
    }
    minimal(magnitude)
}

/// Two's complement bytes without redundant sign bytes (empty is zero).
pub fn minimal(mut bytes: Vec<u8>) -> Vec<u8> {
    let redundant = bytes
        .windows(2)
        .take_while(|w| (w[0] == 0 && w[1] < 0x80) || (w[0] == 0xFF && w[1] >= 0x80))
        .count();
    bytes.drain(..redundant);
    if bytes.is_empty() {
        bytes.push(0);
    }
    bytes
}

/// The sign and decimal digits (no sign, at least `0`) of two's complement big-endian
/// bytes (empty is zero): the inverse of [`unscaled_bytes`].
pub fn unscaled_digits(bytes: &[u8]) -> (bool, String) {
    let negative = bytes.first().is_some_and(|b| b & 0x80 != 0);
    let mut magnitude: Vec<u8> = bytes.to_vec();
    if negative {
        for b in magnitude.iter_mut() {
            *b = !*b;
        }
        for b in magnitude.iter_mut().rev() {
            let (sum, overflow) = b.overflowing_add(1);
            *b = sum;
            if !overflow {
                break;
            }
        }
    }
    // Magnitude to decimal digits by repeated division.
    let mut digits = Vec::new();
    while magnitude.iter().any(|b| *b != 0) {
        let mut rem = 0u32;
        for b in magnitude.iter_mut() {
            let cur = (rem << 8) | u32::from(*b);
            *b = (cur / 10) as u8;
            rem = cur % 10;
        }
        digits.push(b'0' + rem as u8);
    }
    if digits.is_empty() {
        digits.push(b'0');
    }
    digits.reverse();
    (negative, String::from_utf8(digits).expect("ASCII digits"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_and_bytes_are_inverse() {
        for (negative, digits, bytes) in [
            (false, "0", &[0x00][..]),
            (false, "127", &[0x7F]),
            (false, "128", &[0x00, 0x80]),
            (true, "128", &[0x80]),
            (true, "1", &[0xFF]),
            (false, "15600", &[0x3C, 0xF0]),
        ] {
            assert_eq!(unscaled_bytes(negative, digits), bytes, "{negative} {digits}");
            assert_eq!(unscaled_digits(bytes), (negative, digits.to_owned()), "{bytes:?}");
        }
        assert_eq!(unscaled_digits(&[]), (false, "0".to_owned()));
        assert_eq!(minimal(vec![0x00, 0x00, 0x9C]), [0x00, 0x9C]);
        assert_eq!(minimal(vec![0xFF, 0xFF, 0x64]), [0xFF, 0x64]);
    }
}
