//! Dates and times between Kafka Connect's numbers (days and milliseconds since the Unix
//! epoch) and PostgreSQL's text forms (`DateStyle=ISO`, `TimeZone=UTC`, which the client
//! sets at startup). Proleptic Gregorian calendar, as both sides use.

const MICROS_PER_DAY: i64 = 86_400_000_000;

/// Days since 1970-01-01 of a calendar date (Howard Hinnant's `days_from_civil`).
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(m);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The calendar date of a day number (the inverse of [`days_from_civil`]).
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { yoe + era * 400 + 1 } else { yoe + era * 400 }, m, d)
}

/// `YYYY-MM-DD` of a day number.
pub fn format_date(days: i64) -> String {
    let (y, m, d) = civil_from_days(days);
    format!("{y:04}-{m:02}-{d:02}")
}

/// `HH:MM:SS.mmm` of milliseconds since midnight.
pub fn format_time_millis(ms: i64) -> String {
    let ms = ms.rem_euclid(86_400_000);
    let (h, m, s, f) = (ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000);
    format!("{h:02}:{m:02}:{s:02}.{f:03}")
}

/// `YYYY-MM-DD HH:MM:SS.ffffff+00` of microseconds since the epoch (UTC). A column
/// without time zone ignores the `+00`.
pub fn format_timestamp_micros(us: i64) -> String {
    let days = us.div_euclid(MICROS_PER_DAY);
    let rest = us.rem_euclid(MICROS_PER_DAY);
    let (h, m, s, f) =
        (rest / 3_600_000_000, rest / 60_000_000 % 60, rest / 1_000_000 % 60, rest % 1_000_000);
    format!("{} {h:02}:{m:02}:{s:02}.{f:06}+00", format_date(days))
}

/// The day number of `YYYY-MM-DD`.
pub fn parse_date(text: &str) -> Result<i64, String> {
    let bad = || format!("unsupported date {text:?}");
    let mut parts = text.splitn(3, '-');
    let y: i64 = parts.next().and_then(|p| p.parse().ok()).ok_or_else(bad)?;
    let m: u32 = parts.next().and_then(|p| p.parse().ok()).ok_or_else(bad)?;
    let d: u32 = parts.next().and_then(|p| p.parse().ok()).ok_or_else(bad)?;
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return Err(bad());
    }
    Ok(days_from_civil(y, m, d))
}

/// Microseconds since midnight of `HH:MM:SS[.ffffff]`.
pub fn parse_time_micros(text: &str) -> Result<i64, String> {
    let bad = || format!("unsupported time {text:?}");
    let (hms, frac) = text.split_once('.').unwrap_or((text, ""));
    let mut parts = hms.splitn(3, ':');
    let mut next =
        || -> Result<i64, String> { parts.next().and_then(|p| p.parse().ok()).ok_or_else(bad) };
    let (h, m, s) = (next()?, next()?, next()?);
    if frac.len() > 6 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let f: i64 = format!("{frac:0<6}").parse().map_err(|_| bad())?;
    Ok(((h * 60 + m) * 60 + s) * 1_000_000 + f)
}

/// Microseconds since the epoch of `YYYY-MM-DD HH:MM:SS[.ffffff][+HH[:MM]]`, the text of
/// `timestamp` and `timestamptz` columns; no offset means UTC.
pub fn parse_timestamp_micros(text: &str) -> Result<i64, String> {
    let bad = || format!("unsupported timestamp {text:?}");
    let (date, time) = text.split_once(' ').ok_or_else(bad)?;
    let (time, offset) = match time.find(['+', '-']) {
        Some(i) => (&time[..i], Some(&time[i..])),
        None => (time, None),
    };
    let offset_us = match offset {
        None => 0,
        Some(o) => {
            let sign = if o.starts_with('-') { -1 } else { 1 };
            let mut parts = o[1..].split(':');
            let mut next = || parts.next().map_or(Ok(0), |p| p.parse::<i64>().map_err(|_| bad()));
            let (h, m, s) = (next()?, next()?, next()?);
            sign * ((h * 60 + m) * 60 + s) * 1_000_000
        }
    };
    Ok(parse_date(date)? * MICROS_PER_DAY + parse_time_micros(time)? - offset_us)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_and_timestamps_round_trip() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(format_date(19_723), "2024-01-01");
        assert_eq!(parse_date("2024-02-29").unwrap(), 19_782);
        assert_eq!(format_date(-1), "1969-12-31");
        let us = 1_704_164_645_123_456;
        assert_eq!(format_timestamp_micros(us), "2024-01-02 03:04:05.123456+00");
        assert_eq!(parse_timestamp_micros("2024-01-02 03:04:05.123456+00").unwrap(), us);
        assert_eq!(parse_timestamp_micros("2024-01-02 05:04:05.123456+02").unwrap(), us);
        assert_eq!(parse_timestamp_micros("2024-01-02 03:04:05").unwrap(), us - 123_456);
        assert_eq!(format_time_millis(3_723_004), "01:02:03.004");
        assert_eq!(parse_time_micros("01:02:03.5").unwrap(), 3_723_500_000);
        assert!(parse_timestamp_micros("infinity").is_err());
    }
}
