use super::*;

#[test]
fn dates_count_days_from_the_unix_epoch() {
    assert_eq!(date_days("1970-01-01", false).unwrap(), 0);
    // 2024-02-29: 54 years incl. 13 leap days (1972..2020) = 19723 days, + 31 + 28.
    assert_eq!(date_days("2024-02-29", true).unwrap(), 54 * 365 + 13 + 31 + 28);
    assert_eq!(date_days("1969-12-31", false).unwrap(), -1);
    // 0001-01-01 BC is astronomical year 0: one leap year (366 days) before 0001-01-01.
    assert_eq!(
        date_days("0001-01-01 BC", false).unwrap(),
        date_days("0001-01-01", false).unwrap() - 366
    );
    // Streamed infinities: Debezium's LocalDates -5877611-06-21 and -22, i.e. just above
    // i32::MIN (what Debezium 3.6.1 wrote: -2147472692 and -2147472691).
    assert_eq!(date_days("infinity", false).unwrap(), -2_147_472_692);
    assert_eq!(date_days("-infinity", false).unwrap(), -2_147_472_691);
    assert_eq!(date_days("infinity", true).unwrap(), -622_191_234);
    assert_eq!(date_days("-infinity", true).unwrap(), -625_821_272);
}

#[test]
fn timestamps_and_infinity() {
    assert_eq!(timestamp_micros("1970-01-02 00:00:01.5").unwrap(), Ok(86_401_500_000));
    assert_eq!(timestamp_micros("1970-01-01 01:00:00+01").unwrap(), Ok(0));
    assert_eq!(timestamp_micros("infinity").unwrap(), Err(true));
    assert_eq!(timestamp_micros("-infinity").unwrap(), Err(false));
    assert!(timestamp_micros("yesterday").is_err());
}

#[test]
fn zoned_forms_are_utc_with_z() {
    assert_eq!(
        zoned_timestamp("2024-02-29 11:45:30.123456+00", 6).unwrap(),
        "2024-02-29T11:45:30.123456Z"
    );
    assert_eq!(
        zoned_timestamp("2000-01-01 00:00:00+00", 6).unwrap(),
        "2000-01-01T00:00:00.000000Z"
    );
    assert_eq!(zoned_timestamp("2000-01-01 02:00:00+02", 3).unwrap(), "2000-01-01T00:00:00.000Z");
    assert_eq!(zoned_timestamp("2000-01-01 00:00:00+00", 0).unwrap(), "2000-01-01T00:00:00Z");
    assert_eq!(zoned_timestamp("infinity", 6).unwrap(), "infinity");
    assert_eq!(zoned_time("11:45:30+00").unwrap(), "11:45:30Z");
    assert_eq!(zoned_time("13:45:30.25+02").unwrap(), "11:45:30.25Z");
    assert_eq!(zoned_time("23:00:00-05:30").unwrap(), "04:30:00Z");
}

#[test]
fn intervals_as_micro_durations_and_iso_text() {
    // The reference's 1 year 2 months 3 days 04:05:06.789: 14 months of 30.4375 days plus
    // 3 days = 429.125 days = 37076400 s, plus 14706.789 s.
    let text = "1 year 2 mons 3 days 04:05:06.789";
    assert_eq!(interval_micros(text).unwrap(), 37_091_106_789_000);
    assert_eq!(interval_iso(text).unwrap(), "P1Y2M3DT4H5M6.789S");
    assert_eq!(interval_micros("-1 days +02:00:00").unwrap(), -86_400_000_000 + 7_200_000_000);
    assert_eq!(interval_iso("00:00:00").unwrap(), "P0Y0M0DT0H0M0S");
    assert_eq!(interval_iso("-00:01:30").unwrap(), "P0Y0M0DT0H-1M-30S");
    assert_eq!(interval_micros("1 mon").unwrap(), 2_629_800_000_000);
    assert!(interval_parts("1 fortnight").is_err());
}
