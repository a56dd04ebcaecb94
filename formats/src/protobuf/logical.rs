//! The arithmetic behind the logical types: days since the epoch ↔ a civil date
//! (`google.type.Date`), milliseconds of the day ↔ `google.type.TimeOfDay`, milliseconds
//! since the epoch ↔ `google.protobuf.Timestamp`, and Decimal's unscaled two's-complement
//! bytes (minimal form, precision). Pure functions; no descriptors here.

/// Milliseconds in a day.
pub const MILLIS_PER_DAY: i64 = 86_400_000;

/// The proleptic Gregorian (year, month 1-12, day 1-31) of `days` since 1970-01-01.
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    // Howard Hinnant's days_from_civil inverse.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// Days since 1970-01-01 of the proleptic Gregorian `year`-`month`-`day`.
pub fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let m = i64::from(month);
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Whether `day` exists in `month` of `year` (a lenient-free calendar, as Java's).
pub fn valid_date(year: i64, month: i32, day: i32) -> bool {
    if !(1..=12).contains(&month) || day < 1 {
        return false;
    }
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let days = match month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    };
    day <= days
}

/// The minimal big-endian two's-complement form of `bytes` (Java's
/// `BigInteger.toByteArray`): redundant sign bytes dropped, zero as `[0]`.
pub fn minimal_twos_complement(bytes: &[u8]) -> Vec<u8> {
    if bytes.is_empty() {
        return vec![0];
    }
    let negative = bytes[0] & 0x80 != 0;
    let fill = if negative { 0xff } else { 0x00 };
    let mut start = 0;
    while start + 1 < bytes.len()
        && bytes[start] == fill
        && (bytes[start + 1] & 0x80 != 0) == negative
    {
        start += 1;
    }
    bytes[start..].to_vec()
}

/// The number of decimal digits of the two's-complement integer `bytes` (Java's
/// `BigDecimal.precision`: 1 for zero).
pub fn decimal_digits(bytes: &[u8]) -> u32 {
    let negative = bytes.first().is_some_and(|b| b & 0x80 != 0);
    // The magnitude, big-endian.
    let mut magnitude: Vec<u8> = if negative {
        let mut inverted: Vec<u8> = bytes.iter().map(|b| !b).collect();
        for byte in inverted.iter_mut().rev() {
            let (sum, carry) = byte.overflowing_add(1);
            *byte = sum;
            if !carry {
                break;
            }
        }
        inverted
    } else {
        bytes.to_vec()
    };
    let mut digits = 0;
    loop {
        // Divide the magnitude by 10 in place.
        let mut remainder = 0u32;
        let mut nonzero = false;
        for byte in magnitude.iter_mut() {
            let current = (remainder << 8) | u32::from(*byte);
            *byte = (current / 10) as u8;
            remainder = current % 10;
            nonzero |= *byte != 0;
        }
        digits += 1;
        if !nonzero {
            return digits;
        }
    }
}
