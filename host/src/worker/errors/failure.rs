//! A failed record, as a task loop hands it to the reporter: the stage, the record (as the
//! plugin produced it, or as it was consumed) and the error, with the words traces and
//! log lines describe it in. It must not decide what a failure does.

use std::borrow::Cow;
use std::fmt::Write as _;

use super::stage::Stage;
use crate::runtime::PolledRecord;
use crate::worker::topics::{Header, InRecord};

/// The record a failure is about.
#[derive(Clone, Copy, Debug)]
pub enum FailedRecord<'a> {
    /// A record a source plugin returned from `poll`.
    Source(&'a PolledRecord),
    /// A record a sink task consumed, with its bytes as consumed.
    Sink(&'a InRecord),
    /// No record: the operation failed before there were any (a `poll` that ran out of
    /// retries).
    NoRecord,
}

/// One failed record, or one failed operation without records.
#[derive(Clone, Debug)]
pub struct Failure<'a> {
    /// Where it failed.
    pub stage: Stage,
    /// What failed.
    pub record: FailedRecord<'a>,
    /// Why, as text (a converter's error, the plugin's reason, an error's trace).
    pub error: String,
    /// A short name for the kind of error, e.g. `record-failed`, `retriable`,
    /// `json-converter`: the `__connect.errors.exception.class.name` header.
    pub error_kind: &'a str,
    /// The class that failed when it is not the plugin, e.g. the transform of a
    /// TRANSFORMATION failure: the `__connect.errors.class.name` header.
    pub class: Option<&'a str>,
}

impl Failure<'_> {
    /// The trace a task fails with when this failure is not tolerated.
    pub fn trace(&self, plugin: &str) -> String {
        format!(
            "Tolerance exceeded in error handler: stage {} failed for {} ({} '{}', error \
             kind '{}'): {}",
            self.stage,
            self.record.describe(),
            if self.class.is_some() { "class" } else { "plugin" },
            self.class.unwrap_or(plugin),
            self.error_kind,
            self.error
        )
    }

    /// The `__connect.errors.exception.stacktrace` value: there is no Java stack, so the
    /// line Java prints first, `<kind>: <message>`.
    pub fn stacktrace(&self) -> String {
        format!("{}: {}", self.error_kind, self.error)
    }
}

impl FailedRecord<'_> {
    /// Where the record is, e.g. `topic 'orders', partition 3, offset 42`. Holds no keys,
    /// values or headers.
    pub fn describe(&self) -> String {
        match self {
            Self::Sink(r) => {
                format!("topic '{}', partition {}, offset {}", r.topic, r.partition, r.offset)
            }
            Self::Source(r) => {
                let mut s = format!("source record for topic '{}'", r.topic);
                if let Some(p) = r.partition {
                    let _ = write!(s, ", partition {p}");
                }
                if let Some(p) = &r.source_partition {
                    let _ = write!(s, ", source partition {}", String::from_utf8_lossy(p));
                }
                if let Some(o) = &r.source_offset {
                    let _ = write!(s, ", source offset {}", String::from_utf8_lossy(o));
                }
                s
            }
            Self::NoRecord => "no record".into(),
        }
    }

    /// The record's key, value and headers, if there is a record.
    pub fn contents(&self) -> Option<Contents<'_>> {
        match self {
            Self::Sink(r) => Some(Contents {
                key: r.key.as_deref(),
                value: r.value.as_deref(),
                headers: &r.headers,
            }),
            Self::Source(r) => Some(Contents {
                key: r.key.as_deref(),
                value: r.value.as_deref(),
                headers: &r.headers,
            }),
            Self::NoRecord => None,
        }
    }
}

/// What a record holds, as bytes.
#[derive(Clone, Copy, Debug)]
pub struct Contents<'a> {
    /// Key; `None` is null.
    pub key: Option<&'a [u8]>,
    /// Value; `None` is null.
    pub value: Option<&'a [u8]>,
    /// Headers, in order.
    pub headers: &'a [Header],
}

/// Bytes for a log line: UTF-8 text, or `null`.
pub(super) fn text(bytes: Option<&[u8]>) -> Cow<'_, str> {
    bytes.map_or(Cow::Borrowed("null"), String::from_utf8_lossy)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_are_described_without_contents() {
        let sink = InRecord {
            topic: "orders".into(),
            partition: 3,
            offset: 42,
            key: Some(b"secret".to_vec().into()),
            ..InRecord::default()
        };
        assert_eq!(FailedRecord::Sink(&sink).describe(), "topic 'orders', partition 3, offset 42");
        let source = PolledRecord {
            topic: "out".into(),
            partition: Some(1),
            source_partition: Some(br#"{"file":"a"}"#[..].into()),
            source_offset: Some(br#"{"line":7}"#[..].into()),
            ..PolledRecord::default()
        };
        assert_eq!(
            FailedRecord::Source(&source).describe(),
            r#"source record for topic 'out', partition 1, source partition {"file":"a"}, source offset {"line":7}"#
        );
        assert_eq!(FailedRecord::NoRecord.describe(), "no record");
        assert!(FailedRecord::NoRecord.contents().is_none());
    }

    #[test]
    fn the_trace_names_stage_position_and_error() {
        let sink = InRecord { topic: "t".into(), partition: 0, offset: 5, ..InRecord::default() };
        let f = Failure {
            stage: Stage::ValueConverter,
            record: FailedRecord::Sink(&sink),
            error: "not JSON".into(),
            error_kind: "json-converter",
            class: None,
        };
        assert_eq!(
            f.trace("file-sink"),
            "Tolerance exceeded in error handler: stage VALUE_CONVERTER failed for topic 't', \
             partition 0, offset 5 (plugin 'file-sink', error kind 'json-converter'): not JSON"
        );
        assert_eq!(f.stacktrace(), "json-converter: not JSON");
        assert_eq!(text(None), "null");
        assert_eq!(text(Some(b"v")), "v");
    }
}
