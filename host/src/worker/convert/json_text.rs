//! JSON text as converters need it: Kafka Connect's envelope read without building a
//! tree, compaction that keeps key order and number spelling, strings escaped and
//! unescaped, and a value rendered as text.
//!
//! This module owns only text handling; it knows nothing of schemas (`schema`) or of
//! which converter asks.

use std::collections::BTreeMap;

use serde_json::error::Category;
use serde_json::value::RawValue;

/// The two fields of a Kafka Connect envelope, `{"schema": ..., "payload": ...}`, as
/// borrowed JSON text.
#[derive(Clone, Copy, Debug)]
pub struct Envelope<'a> {
    /// The schema: `null` or a JSON object.
    pub schema: &'a RawValue,
    /// The payload.
    pub payload: &'a RawValue,
}

/// Why bytes are not an envelope.
#[derive(Debug)]
pub enum NotEnvelope {
    /// They are not JSON at all.
    NotJson(serde_json::Error),
    /// They are JSON, but not an object with exactly `schema` and `payload`.
    Shape,
}

impl<'a> Envelope<'a> {
    /// Reads `json` as an envelope. A key given twice counts once, its last value
    /// winning (as Jackson reads objects).
    pub fn parse(json: &'a [u8]) -> Result<Self, NotEnvelope> {
        match serde_json::from_slice::<BTreeMap<String, &RawValue>>(json) {
            Ok(fields) if fields.len() == 2 => {
                match (fields.get("schema"), fields.get("payload")) {
                    (Some(schema), Some(payload)) => {
                        Ok(Self { schema: *schema, payload: *payload })
                    }
                    _ => Err(NotEnvelope::Shape),
                }
            }
            Ok(_) => Err(NotEnvelope::Shape),
            // Not an object: JSON of another type, or not JSON.
            Err(e) if e.classify() == Category::Data => match validate(json) {
                Ok(()) => Err(NotEnvelope::Shape),
                Err(e) => Err(NotEnvelope::NotJson(e)),
            },
            Err(e) => Err(NotEnvelope::NotJson(e)),
        }
    }
}

/// Checks that `json` is one JSON value (whitespace around it allowed).
pub fn validate(json: &[u8]) -> Result<(), serde_json::Error> {
    serde_json::from_slice::<&RawValue>(json).map(|_| ())
}

/// Whether `json` is the JSON text `null`, whitespace around it allowed.
pub fn is_null(json: &[u8]) -> bool {
    json.trim_ascii() == b"null"
}

/// Whether `json` is only JSON whitespace (Jackson reads it as no value at all).
pub fn is_blank(json: &[u8]) -> bool {
    json.iter().all(|b| is_space(*b))
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// Valid JSON text without the whitespace between its tokens. Keys keep their order and
/// numbers their spelling, which a round trip through `serde_json::Value` would not.
pub fn compact(json: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(json.len());
    let (mut in_string, mut escaped) = (false, false);
    for &b in json {
        if in_string {
            out.push(b);
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
        } else if b == b'"' {
            in_string = true;
            out.push(b);
        } else if !is_space(b) {
            out.push(b);
        }
    }
    out
}

/// `text` as a JSON string literal.
pub fn quote(text: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len() + 2);
    // Writing a `str` into a `Vec` cannot fail.
    let _ = serde_json::to_writer(&mut out, text);
    out
}

/// The text of a JSON string literal; `None` if `json` is not one.
pub fn unquote(json: &str) -> Option<String> {
    json.starts_with('"').then(|| serde_json::from_str::<String>(json).ok()).flatten()
}

/// A JSON value as Kafka Connect prints the data it stands for: a string bare, anything
/// else compact; `None` for `null`.
pub fn render(value: &RawValue) -> Option<Vec<u8>> {
    let json = value.get();
    if json == "null" {
        return None;
    }
    Some(match unquote(json) {
        Some(text) => text.into_bytes(),
        None => compact(json.as_bytes()),
    })
}

/// The JSON type of a value, as error messages name it.
pub fn type_name(value: &RawValue) -> &'static str {
    match value.get().as_bytes().first() {
        Some(b'{') => "an object",
        Some(b'[') => "an array",
        Some(b'"') => "a string",
        Some(b't' | b'f') => "a boolean",
        Some(b'n') => "null",
        _ => "a number",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envelopes_need_exactly_schema_and_payload() {
        let e = Envelope::parse(br#" {"schema": null, "payload": {"a": 1}} "#).unwrap();
        assert_eq!((e.schema.get(), e.payload.get()), ("null", r#"{"a": 1}"#));
        let e = Envelope::parse(br#"{"payload":1,"schema":{"type":"int8"}}"#).unwrap();
        assert_eq!(e.schema.get(), r#"{"type":"int8"}"#);
        let e = Envelope::parse(br#"{"schema":1,"schema":null,"payload":2}"#).unwrap();
        assert_eq!(e.schema.get(), "null");
        for shape in [
            &br#"{"schema":null}"#[..],
            br#"{"schema":null,"payload":1,"extra":2}"#,
            br#"{"schema":null,"other":1}"#,
            b"[1, 2]",
            b"\"text\"",
            b"null",
        ] {
            assert!(matches!(Envelope::parse(shape), Err(NotEnvelope::Shape)), "{shape:?}");
        }
        for broken in [&b"{"[..], b"[1, }", b"", b"nope", br#"{"schema":null,"payload":}"#] {
            assert!(matches!(Envelope::parse(broken), Err(NotEnvelope::NotJson(_))), "{broken:?}");
        }
    }

    #[test]
    fn compact_keeps_strings_order_and_numbers() {
        let json = b"{ \"b\" : [1.50, 2e3] ,\n\t\"a\" : \"x \\\" y\" }";
        assert_eq!(compact(json), br#"{"b":[1.50,2e3],"a":"x \" y"}"#);
        assert_eq!(compact(b" 7 "), b"7");
    }

    #[test]
    fn strings_round_trip_and_render_bare() {
        let text = "line \"one\"\n\u{e9}";
        let quoted = quote(text);
        assert_eq!(quoted, r#""line \"one\"\né""#.as_bytes());
        assert_eq!(unquote(std::str::from_utf8(&quoted).unwrap()).as_deref(), Some(text));
        assert_eq!(unquote("12"), None);
        let raw = |s: &str| serde_json::from_str::<Box<RawValue>>(s).unwrap();
        assert_eq!(render(&raw(r#""a b""#)), Some(b"a b".to_vec()));
        assert_eq!(render(&raw(r#"{ "a" : [ 1 ] }"#)), Some(br#"{"a":[1]}"#.to_vec()));
        assert_eq!(render(&raw("null")), None);
        assert_eq!(type_name(&raw("[]")), "an array");
        assert_eq!(type_name(&raw("-1")), "a number");
    }

    #[test]
    fn blanks_and_nulls() {
        assert!(is_blank(b"") && is_blank(b" \n") && !is_blank(b" 1"));
        assert!(is_null(b" null\n") && !is_null(b"\"null\""));
        assert!(validate(b" [1] ").is_ok() && validate(b"[1] 2").is_err());
    }
}
