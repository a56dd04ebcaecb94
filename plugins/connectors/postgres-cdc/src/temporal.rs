//! PostgreSQL's text output of date/time types (DateStyle ISO, TimeZone UTC, IntervalStyle
//! postgres) read as numbers, and the text forms Debezium writes (`ZonedTimestamp`,
//! `ZonedTime`, ISO 8601 `Interval`), including `infinity` as Debezium encodes it.
//!
//! This module owns calendar arithmetic on text; which schema a column gets, and so which of
//! these a value goes through, is `schema`'s and `value`'s business.

use postgres_wire::{
    civil_from_days, days_from_civil, parse_date, parse_time_micros, parse_timestamp_micros,
};

const DAY_US: i64 = 86_400_000_000;
/// The JDBC driver's `DATE_POSITIVE_INFINITY` (milliseconds), which Debezium also writes
/// as micro and nano timestamps of `infinity`.
pub const POSITIVE_INFINITY: i64 = 9_223_372_036_825_200_000;
/// The JDBC driver's `DATE_NEGATIVE_INFINITY`.
pub const NEGATIVE_INFINITY: i64 = -9_223_372_036_832_400_000;

/// Splits a trailing ` BC` off, turning the year astronomical (1 BC is year 0).
fn era(text: &str) -> (&str, bool) {
    match text.strip_suffix(" BC") {
        Some(t) => (t, true),
        None => (text, false),
    }
}

fn bc_shift(days: i64, text: &str) -> Result<i64, String> {
    // Move year Y to year 1 - Y, keeping month and day.
    let (y, m, d) = civil_from_days(days);
    let _ = text;
    Ok(days_from_civil(1 - y, m, d))
}

/// The days Debezium's snapshot (through JDBC, whose `infinity` dates overflow) writes for
/// `date` `infinity` and `-infinity`, as Debezium 3.6.1 was observed to write them.
pub const SNAPSHOT_DATE_INFINITY: (i64, i64) = (-622_191_234, -625_821_272);

/// A `date` as days since 1970-01-01. Streamed `infinity` and `-infinity` become the days
/// of Debezium's `POSITIVE_INFINITY_LOCAL_DATE` (-5877611-06-21) and
/// `NEGATIVE_INFINITY_LOCAL_DATE` (-5877611-06-22); read by a snapshot, the JDBC values
/// of [`SNAPSHOT_DATE_INFINITY`].
pub fn date_days(text: &str, snapshot: bool) -> Result<i64, String> {
    match (text, snapshot) {
        ("infinity", false) => return Ok(days_from_civil(-5_877_611, 6, 21)),
        ("-infinity", false) => return Ok(days_from_civil(-5_877_611, 6, 22)),
        ("infinity", true) => return Ok(SNAPSHOT_DATE_INFINITY.0),
        ("-infinity", true) => return Ok(SNAPSHOT_DATE_INFINITY.1),
        _ => {}
    }
    let (t, bc) = era(text);
    let days = parse_date(t)?;
    if bc { bc_shift(days, text) } else { Ok(days) }
}

/// A `time` as microseconds since midnight (`24:00:00` is a whole day).
pub fn time_micros(text: &str) -> Result<i64, String> {
    parse_time_micros(text)
}

/// A `timestamp` or `timestamptz` as microseconds since the Unix epoch, or `None` for
/// `infinity` (`Some(true)`) / `-infinity` (`Some(false)`) in the error-free second slot.
pub fn timestamp_micros(text: &str) -> Result<Result<i64, bool>, String> {
    match text {
        "infinity" => return Ok(Err(true)),
        "-infinity" => return Ok(Err(false)),
        _ => {}
    }
    let (t, bc) = era(text);
    let us = parse_timestamp_micros(t)?;
    if !bc {
        return Ok(Ok(us));
    }
    let days = us.div_euclid(DAY_US);
    Ok(Ok(bc_shift(days, text)? * DAY_US + us.rem_euclid(DAY_US)))
}

/// `fraction` of a second (micros) as at most `digits` digits, none when `digits` is 0.
fn fraction(micros: i64, digits: u32) -> String {
    if digits == 0 {
        return String::new();
    }
    let text = format!("{micros:06}");
    format!(".{}", &text[..digits.min(6) as usize])
}

/// Debezium's `ZonedTimestamp` text of a `timestamptz`: UTC, `Z`, the column's precision
/// of fractional digits (6 unless declared). `infinity` stays `infinity`.
pub fn zoned_timestamp(text: &str, precision: u32) -> Result<String, String> {
    let us = match timestamp_micros(text)? {
        Ok(us) => us,
        Err(true) => return Ok("infinity".into()),
        Err(false) => return Ok("-infinity".into()),
    };
    let (days, rest) = (us.div_euclid(DAY_US), us.rem_euclid(DAY_US));
    let (y, m, d) = civil_from_days(days);
    let secs = rest / 1_000_000;
    let year = if (0..=9999).contains(&y) { format!("{y:04}") } else { format!("{y:+05}") };
    Ok(format!(
        "{year}-{m:02}-{d:02}T{:02}:{:02}:{:02}{}Z",
        secs / 3600,
        secs / 60 % 60,
        secs % 60,
        fraction(rest % 1_000_000, precision)
    ))
}

/// Debezium's `ZonedTime` text of a `timetz`: moved to UTC, `Z`, and the fraction only
/// when not zero, with as few digits as it needs (Java's `ISO_OFFSET_TIME`).
pub fn zoned_time(text: &str) -> Result<String, String> {
    let bad = || format!("unsupported time with time zone {text:?}");
    let i = text.rfind(['+', '-']).ok_or_else(bad)?;
    let (time, offset) = text.split_at(i);
    let sign = if offset.starts_with('-') { -1 } else { 1 };
    let mut parts = offset[1..].split(':');
    let mut next = || parts.next().map_or(Ok(0), |p| p.parse::<i64>().map_err(|_| bad()));
    let (h, m, s) = (next()?, next()?, next()?);
    let local = parse_time_micros(time)?;
    let utc = (local - sign * ((h * 60 + m) * 60 + s) * 1_000_000).rem_euclid(DAY_US);
    let secs = utc / 1_000_000;
    let frac = utc % 1_000_000;
    let frac = if frac == 0 {
        String::new()
    } else {
        format!(".{}", format!("{frac:06}").trim_end_matches('0'))
    };
    Ok(format!("{:02}:{:02}:{:02}{frac}Z", secs / 3600, secs / 60 % 60, secs % 60))
}

/// An `interval` (IntervalStyle postgres: `1 year 2 mons 3 days 04:05:06.789`, `-1 days
/// +02:00:00`, `00:00:01`) as years, months, days and signed microseconds of time.
pub fn interval_parts(text: &str) -> Result<(i64, i64, i64, i64), String> {
    let bad = || format!("unsupported interval {text:?}");
    let (mut years, mut months, mut days, mut micros) = (0, 0, 0, 0);
    let mut words = text.split_whitespace().peekable();
    while let Some(word) = words.next() {
        if word.contains(':') {
            let (neg, t) = match word.strip_prefix('-') {
                Some(t) => (true, t),
                None => (false, word.trim_start_matches('+')),
            };
            let v = parse_time_micros(t).map_err(|_| bad())?;
            micros += if neg { -v } else { v };
            continue;
        }
        let n: i64 = word.parse().map_err(|_| bad())?;
        match words.next().ok_or_else(bad)?.trim_end_matches('s') {
            "year" => years += n,
            "mon" => months += n,
            "day" => days += n,
            _ => return Err(bad()),
        }
    }
    Ok((years, months, days, micros))
}

/// Debezium's `MicroDuration` of an interval: a month is 365.25 / 12 days.
pub fn interval_micros(text: &str) -> Result<i64, String> {
    let (y, mo, d, us) = interval_parts(text)?;
    let days = (y * 12 + mo) as f64 * (365.25 / 12.0) + d as f64;
    Ok((days * DAY_US as f64).round() as i64 + us)
}

/// Debezium's ISO 8601 `Interval` text: `P<y>Y<m>M<d>DT<h>H<m>M<s>S`, every part present,
/// seconds without trailing zeros.
pub fn interval_iso(text: &str) -> Result<String, String> {
    let (y, mo, d, us) = interval_parts(text)?;
    let (neg, abs) = (us < 0, us.unsigned_abs() as i64);
    let sign = if neg { -1 } else { 1 };
    let (h, m) = (sign * (abs / 3_600_000_000), sign * (abs / 60_000_000 % 60));
    let (s, f) = (abs / 1_000_000 % 60, abs % 1_000_000);
    let mut secs = if f == 0 {
        s.to_string()
    } else {
        format!("{s}.{}", format!("{f:06}").trim_end_matches('0'))
    };
    if neg && abs % 60_000_000 != 0 {
        secs.insert(0, '-');
    }
    Ok(format!("P{y}Y{mo}M{d}DT{h}H{m}M{secs}S"))
}

#[cfg(test)]
#[path = "temporal_tests.rs"]
mod tests;
