//! Kafka Connect's `TimestampRouter`: the topic becomes `topic.format` with `${topic}`
//! replaced by the topic and `${timestamp}` by the record's timestamp written with
//! `timestamp.format` (a Java `SimpleDateFormat` pattern, in UTC).
//!
//! This module owns the topic rewrite (the pattern is `date_format`'s, shared with
//! `TimestampConverter`); it must not touch a record's key, value or headers. Week-based
//! pattern letters (`Y`, `w`, `W`) are refused when the transform is built.

use super::date_format::DateFormat;
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
    // refuses fails every record rather than the configuration; a week-based letter, which
    // Java knows and this worker does not, is refused up front.
    let pattern = match DateFormat::new(format) {
        Ok(p) => Ok(p),
        Err(e) if e.contains("week-based") => {
            return Err(vec![parsed.invalid("timestamp.format", format, e)]);
        }
        Err(e) => Err(e),
    };
    let topic_format = parsed.string("topic.format").unwrap_or_default().to_owned();
    Ok(Box::new(TimestampRouter { topic_format, pattern }))
}

struct TimestampRouter {
    topic_format: String,
    pattern: Result<DateFormat, String>,
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
        let formatted = pattern.format(timestamp);
        let topic = self.topic_format.replace("${topic}", &record.topic);
        record.topic = topic.replace("${timestamp}", &formatted);
        Ok(Some(record))
    }
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
