//! Kafka Connect's `TimestampRouter`: the topic becomes `topic.format` with `${topic}`
//! replaced by the topic and `${timestamp}` by the record's timestamp written with
//! `timestamp.format` (a Java `SimpleDateFormat` pattern, in UTC).
//!
//! This module owns the topic rewrite and a private `SimpleDateFormat` writer for it; it
//! must not touch a record's key, value or headers. Week-based pattern letters (`Y`, `w`,
//! `W`) are not written here and are refused when the transform is built.

use crate::config::{Default, Importance, KeyDef, KeyType, Parsed, Problem};
use crate::registry::{TransformDef, Transformation};
use crate::{Record, TransformError};

/// The classes of this module.
pub(crate) const DEFS: &[TransformDef] = &[TransformDef {
    class: "org.apache.kafka.connect.transforms.TimestampRouter",
    doc: "Update the record's topic field as a function of the original topic value and the \
          record timestamp. This is mainly useful for sink connectors, since the topic field is \
          often used to determine the equivalent entity name in the destination system (e.g. \
          database table or search index name).",
    keys: KEYS,
    build,
}];

const KEYS: &[KeyDef] = &[
    KeyDef {
        name: "topic.format",
        ty: KeyType::String,
        default: Default::Value("${topic}-${timestamp}"),
        validator: None,
        importance: Importance::High,
        doc: "Format string which can contain ${topic} and ${timestamp} as placeholders for \
              the topic and timestamp, respectively.",
    },
    KeyDef {
        name: "timestamp.format",
        ty: KeyType::String,
        default: Default::Value("yyyyMMdd"),
        validator: None,
        importance: Importance::High,
        doc: "Format string for the timestamp that is compatible with java.text.SimpleDateFormat.",
    },
];

fn build(parsed: &Parsed) -> Result<Box<dyn Transformation>, Vec<Problem>> {
    let format = parsed.string("timestamp.format").unwrap_or_default();
    // Kafka Connect builds its `SimpleDateFormat` on the first record, so a pattern Java
    // refuses fails every record rather than the configuration.
    let pattern = match compile(format) {
        Ok(p) => Ok(p),
        Err(PatternError::Java(e)) => Err(e),
        Err(PatternError::Unsupported(c)) => {
            return Err(vec![parsed.invalid(
                "timestamp.format",
                format,
                format!("pattern letter '{c}' (week-based fields) is not supported"),
            )]);
        }
    };
    let topic_format = parsed.string("topic.format").unwrap_or_default().to_owned();
    Ok(Box::new(TimestampRouter { topic_format, pattern }))
}

struct TimestampRouter {
    topic_format: String,
    pattern: Result<Vec<Token>, String>,
}

impl Transformation for TimestampRouter {
    fn apply(&mut self, mut record: Record) -> Result<Option<Record>, TransformError> {
        let Some(timestamp) = record.timestamp else {
            return Err(TransformError::new(format!(
                "Timestamp missing on record: ConnectRecord{{topic='{}', kafkaPartition={}, \
                 timestamp=null}}",
                record.topic,
                record.partition.map_or("null".to_owned(), |p| p.to_string())
            )));
        };
        let pattern = self.pattern.as_ref().map_err(|e| TransformError::new(e.clone()))?;
        let formatted = format(pattern, timestamp);
        let topic = self.topic_format.replace("${topic}", &record.topic);
        record.topic = topic.replace("${timestamp}", &formatted);
        Ok(Some(record))
    }
}

/// One element of a `SimpleDateFormat` pattern.
#[derive(Debug, PartialEq)]
enum Token {
    Literal(String),
    Field(char, usize),
}

enum PatternError {
    /// Java's `IllegalArgumentException` message.
    Java(String),
    /// A letter Java knows that this writer does not.
    Unsupported(char),
}

/// `SimpleDateFormat.compile`: letters repeat into fields, `'...'` quotes text, `''` is a
/// quote.
fn compile(pattern: &str) -> Result<Vec<Token>, PatternError> {
    let mut tokens = Vec::new();
    let mut literal = String::new();
    let mut chars = pattern.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\'' {
            if chars.peek() == Some(&'\'') {
                chars.next();
                literal.push('\'');
                continue;
            }
            loop {
                match chars.next() {
                    None => return Err(PatternError::Java("Unterminated quote".into())),
                    Some('\'') if chars.peek() == Some(&'\'') => {
                        chars.next();
                        literal.push('\'');
                    }
                    Some('\'') => break,
                    Some(q) => literal.push(q),
                }
            }
        } else if c.is_ascii_alphabetic() {
            if !"GyMdkHmsSEDFwWahKzZYuXL".contains(c) {
                return Err(PatternError::Java(format!("Illegal pattern character '{c}'")));
            }
            if "YwW".contains(c) {
                return Err(PatternError::Unsupported(c));
            }
            let mut count = 1;
            while chars.peek() == Some(&c) {
                chars.next();
                count += 1;
            }
            if !literal.is_empty() {
                tokens.push(Token::Literal(std::mem::take(&mut literal)));
            }
            tokens.push(Token::Field(c, count));
        } else {
            literal.push(c);
        }
    }
    if !literal.is_empty() {
        tokens.push(Token::Literal(literal));
    }
    Ok(tokens)
}

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
const DAYS: [&str; 7] =
    ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];

/// `SimpleDateFormat.format` in UTC (proleptic Gregorian calendar).
fn format(tokens: &[Token], ms: i64) -> String {
    const DAY: i64 = 86_400_000;
    let days = ms.div_euclid(DAY);
    let in_day = ms.rem_euclid(DAY);
    let (year, month, day, day_of_year) = civil(days);
    let weekday = (days + 3).rem_euclid(7) as usize; // 1970-01-01 was a Thursday
    let hour = in_day / 3_600_000;
    let pad = |n: i64, width: usize| format!("{n:0width$}");
    let text = |full: &str, count: usize| {
        if count >= 4 { full.to_owned() } else { full[..3].to_owned() }
    };
    let mut out = String::new();
    for token in tokens {
        match *token {
            Token::Literal(ref s) => out.push_str(s),
            Token::Field(c, n) => out.push_str(&match c {
                'G' => if year > 0 { "AD" } else { "BC" }.to_owned(),
                'y' if n == 2 => pad(year.rem_euclid(100), 2),
                'y' => pad(if year > 0 { year } else { 1 - year }, n),
                'M' | 'L' if n >= 3 => text(MONTHS[month as usize - 1], n),
                'M' | 'L' => pad(month, n),
                'd' => pad(day, n),
                'D' => pad(day_of_year, n),
                'F' => pad((day - 1) / 7 + 1, n),
                'E' => text(DAYS[weekday], n),
                'u' => pad(weekday as i64 + 1, n),
                'a' => if hour < 12 { "AM" } else { "PM" }.to_owned(),
                'H' => pad(hour, n),
                'k' => pad(if hour == 0 { 24 } else { hour }, n),
                'K' => pad(hour % 12, n),
                'h' => pad(if hour % 12 == 0 { 12 } else { hour % 12 }, n),
                'm' => pad(in_day / 60_000 % 60, n),
                's' => pad(in_day / 1000 % 60, n),
                'S' => pad(in_day % 1000, n),
                'z' if n >= 4 => "Coordinated Universal Time".to_owned(),
                'z' => "UTC".to_owned(),
                'Z' => "+0000".to_owned(),
                'X' => "Z".to_owned(),
                _ => unreachable!("compile admits only these letters"),
            }),
        }
    }
    out
}

/// Year, month, day and day of year of days since the epoch (Howard Hinnant's algorithm).
fn civil(days: i64) -> (i64, i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    const BEFORE: [i64; 12] = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334];
    let day_of_year = BEFORE[month as usize - 1] + day + i64::from(leap && month > 2);
    (year, month, day, day_of_year)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Data, Kind, config};

    fn router(props: &[(&str, &str)]) -> Result<Box<dyn Transformation>, Vec<Problem>> {
        let props: Vec<(String, String)> =
            props.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        build(&config::parse(KEYS, &props, "transforms.t.")?)
    }

    fn record(topic: &str, timestamp: Option<i64>) -> Record {
        Record {
            offset: None,
            topic: topic.into(),
            partition: Some(3),
            timestamp,
            key: Data::raw(Kind::String, Some(b"k".to_vec())),
            value: Data::raw(Kind::Json, Some(b"1".to_vec())),
            headers: Vec::new(),
        }
    }

    fn route(props: &[(&str, &str)], ts: i64) -> String {
        router(props).unwrap().apply(record("test", Some(ts))).unwrap().unwrap().topic
    }

    #[test]
    fn defaults_give_topic_dash_yyyymmdd() {
        // TimestampRouterTest.defaultConfiguration: 2017-02-15T00:00Z.
        assert_eq!(route(&[], 1_487_116_800_000), "test-20170215");
        let mut t = router(&[]).unwrap();
        let r = t.apply(record("test", Some(0))).unwrap().unwrap();
        assert_eq!(
            (r.topic.as_str(), r.partition, r.timestamp),
            ("test-19700101", Some(3), Some(0))
        );
    }

    #[test]
    fn formats_follow_simple_date_format_in_utc() {
        let ts = 1_700_000_000_123; // Tue 2023-11-14T22:13:20.123Z
        let f = |p: &str| route(&[("topic.format", "${timestamp}"), ("timestamp.format", p)], ts);
        assert_eq!(f("yyyy-MM-dd HH:mm:ss.SSS"), "2023-11-14 22:13:20.123");
        assert_eq!(f("yy.M.d"), "23.11.14");
        assert_eq!(f("MMM MMMM EEE EEEE"), "Nov November Tue Tuesday");
        assert_eq!(f("h a, D 'day''s' ''"), "10 PM, 318 day's '");
        assert_eq!(f("'T'HHmm z Z X"), "T2213 UTC +0000 Z");
        assert_eq!(route(&[("timestamp.format", "y-M-d")], 951_782_400_000), "test-2000-2-29");
        assert_eq!(route(&[("timestamp.format", "D")], 978_220_800_000), "test-366", "2000-12-31");
    }

    #[test]
    fn topic_format_placeholders_repeat_or_go_missing() {
        let p = [("topic.format", "${topic}_${topic}/x"), ("timestamp.format", "yyyy")];
        assert_eq!(route(&p, 0), "test_test/x");
        let p = [("topic.format", "${timestamp}-${timestamp}"), ("timestamp.format", "yyyy")];
        assert_eq!(route(&p, 0), "1970-1970");
    }

    #[test]
    fn a_record_without_timestamp_fails() {
        let e = router(&[]).unwrap().apply(record("test", None)).unwrap_err();
        assert!(e.message.starts_with("Timestamp missing on record: "), "{e}");
    }

    #[test]
    fn bad_patterns_fail_records_as_kafka_connect_does_and_week_letters_are_refused() {
        let mut t = router(&[("timestamp.format", "yyyyqq")]).unwrap();
        assert_eq!(
            t.apply(record("a", Some(0))).unwrap_err().message,
            "Illegal pattern character 'q'"
        );
        let mut t = router(&[("timestamp.format", "'open")]).unwrap();
        assert_eq!(t.apply(record("a", Some(0))).unwrap_err().message, "Unterminated quote");
        let p = router(&[("timestamp.format", "YYYY-ww")]).err().unwrap();
        assert_eq!(p[0].key, "transforms.t.timestamp.format");
    }
}
