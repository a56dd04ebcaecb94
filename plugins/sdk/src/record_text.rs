//! [`RecordText`]: a sink record's key or value as text, rendered as Kafka Connect prints
//! the data its converters produce.
//!
//! This module owns that rendering and the small JSON helpers it needs (reading the
//! envelope's payload, compacting JSON text without reordering it). It never fails: data
//! that is not what its kind claims is rendered as lossy UTF-8, as it came.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde_json::value::RawValue;

use crate::{Kind, SinkRecord, SinkRecordRef, SourceRecord};

/// The key or value of a record as text. Implemented for [`SinkRecord`],
/// [`SinkRecordRef`] and [`SourceRecord`]; bring the trait into scope to call it. [`text`]
/// renders data of a kind directly.
///
/// The text is what Kafka Connect's `FileStreamSink` prints for the converted data:
///
/// - [`Kind::String`] and [`Kind::Bytes`]: the bytes as UTF-8 (invalid sequences
///   replaced by U+FFFD).
/// - [`Kind::Json`]: a JSON string as the bare string, any other JSON as compact JSON
///   text; `null` is `None`.
/// - [`Kind::ConnectJson`]: the envelope's payload, rendered as for `Json`.
///
/// A null key or value is `None`.
pub trait RecordText {
    /// The key as text, or `None` for a null key.
    fn key_text(&self) -> Option<Cow<'_, str>>;
    /// The value as text, or `None` for a null value.
    fn value_text(&self) -> Option<Cow<'_, str>>;
}

impl RecordText for SinkRecord {
    fn key_text(&self) -> Option<Cow<'_, str>> {
        render(self.key_kind, self.key.as_deref()?)
    }

    fn value_text(&self) -> Option<Cow<'_, str>> {
        render(self.value_kind, self.value.as_deref()?)
    }
}

impl RecordText for SinkRecordRef<'_> {
    fn key_text(&self) -> Option<Cow<'_, str>> {
        render(self.key_kind, self.key?)
    }

    fn value_text(&self) -> Option<Cow<'_, str>> {
        render(self.value_kind, self.value?)
    }
}

impl RecordText for SourceRecord {
    fn key_text(&self) -> Option<Cow<'_, str>> {
        render(self.key_kind, self.key.as_deref()?)
    }

    fn value_text(&self) -> Option<Cow<'_, str>> {
        render(self.value_kind, self.value.as_deref()?)
    }
}

/// `data` of `kind` as text, rendered as [`RecordText`] says; `None` when the data is a
/// JSON null.
pub fn text(kind: Kind, data: &[u8]) -> Option<Cow<'_, str>> {
    render(kind, data)
}

fn render(kind: Kind, data: &[u8]) -> Option<Cow<'_, str>> {
    let text = String::from_utf8_lossy(data);
    let Cow::Borrowed(json) = text else { return Some(text) };
    match kind {
        Kind::Bytes | Kind::String => Some(Cow::Borrowed(json)),
        Kind::Json => json_text(json),
        Kind::ConnectJson => match payload(json) {
            Some(payload) => json_text(payload).map(|t| Cow::Owned(t.into_owned())),
            None => Some(Cow::Borrowed(json)),
        },
    }
}

/// The `payload` of a Kafka Connect envelope, as JSON text; `None` if `json` is not an
/// envelope.
fn payload(json: &str) -> Option<&str> {
    let fields: BTreeMap<String, &RawValue> = serde_json::from_str(json).ok()?;
    fields.get("payload").map(|p| p.get())
}

/// JSON text rendered: a string bare, `null` as `None`, anything else compact. Text that
/// is not JSON comes back as it is.
fn json_text(json: &str) -> Option<Cow<'_, str>> {
    if serde_json::from_str::<&RawValue>(json).is_err() {
        return Some(Cow::Borrowed(json));
    }
    let json = json.trim_matches(is_json_space);
    if json == "null" {
        return None;
    }
    if json.starts_with('"')
        && let Ok(s) = serde_json::from_str::<String>(json)
    {
        return Some(Cow::Owned(s));
    }
    Some(compact(json))
}

fn is_json_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r')
}

/// `json` without the whitespace between its tokens; keys keep their order and numbers
/// their spelling. Borrowed when there is nothing to remove.
fn compact(json: &str) -> Cow<'_, str> {
    if !json.contains(is_json_space) {
        return Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len());
    let (mut in_string, mut escaped) = (false, false);
    for c in json.chars() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
            out.push(c);
        } else if !is_json_space(c) {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(kind: Kind, data: &str) -> SinkRecord {
        SinkRecord { value_kind: kind, value: Some(data.into()), ..SinkRecord::default() }
    }

    fn text(kind: Kind, data: &str) -> Option<String> {
        value(kind, data).value_text().map(Cow::into_owned)
    }

    #[test]
    fn strings_and_bytes_are_their_utf8() {
        assert_eq!(text(Kind::String, "a line").as_deref(), Some("a line"));
        assert_eq!(text(Kind::Bytes, " raw ").as_deref(), Some(" raw "));
        let r = SinkRecord { value: Some(vec![b'a', 0xff]), ..SinkRecord::default() };
        assert_eq!(r.value_text().as_deref(), Some("a\u{fffd}"));
        assert_eq!(SinkRecord::default().value_text(), None);
    }

    #[test]
    fn json_renders_strings_bare_and_the_rest_compact() {
        assert_eq!(text(Kind::Json, r#" "say \"hi\"" "#).as_deref(), Some(r#"say "hi""#));
        assert_eq!(
            text(Kind::Json, "{ \"b\" : 1 ,\n \"a\" : \"x y\" }").as_deref(),
            Some(r#"{"b":1,"a":"x y"}"#)
        );
        assert_eq!(text(Kind::Json, "1.50").as_deref(), Some("1.50"));
        assert_eq!(text(Kind::Json, " null "), None);
        assert_eq!(text(Kind::Json, "not json").as_deref(), Some("not json"));
    }

    #[test]
    fn connect_json_renders_the_payload() {
        let string = r#"{"schema":{"type":"string","optional":false},"payload":"hello"}"#;
        assert_eq!(text(Kind::ConnectJson, string).as_deref(), Some("hello"));
        let object = r#"{"schema": {"type": "struct"}, "payload": {"z": [1, 2], "a": "\" }"}}"#;
        assert_eq!(text(Kind::ConnectJson, object).as_deref(), Some(r#"{"z":[1,2],"a":"\" }"}"#));
        assert_eq!(text(Kind::ConnectJson, r#"{"schema":null,"payload":null}"#), None);
        assert_eq!(text(Kind::ConnectJson, "[1]").as_deref(), Some("[1]"));
    }

    #[test]
    fn keys_render_like_values() {
        let r = SinkRecord {
            key_kind: Kind::Json,
            key: Some(br#""k""#.to_vec()),
            ..SinkRecord::default()
        };
        assert_eq!(r.key_text().as_deref(), Some("k"));
    }
}
