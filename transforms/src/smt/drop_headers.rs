//! Kafka Connect's `DropHeaders`: removes every header whose key is in `headers`.
//!
//! This module owns that removal; it must not touch the key, value or other headers
//! (which keep their order).

use crate::config::{Default, Importance, KeyDef, KeyType, Parsed, Problem};
use crate::registry::{TransformDef, Transformation};
use crate::{Record, TransformError};

/// The classes of this module.
pub(crate) const DEFS: &[TransformDef] = &[TransformDef {
    class: "org.apache.kafka.connect.transforms.DropHeaders",
    doc: "Removes one or more headers from each record.",
    keys: KEYS,
    build,
}];

// Kafka Connect checks `headers` with its `NonEmptyListValidator`; `build` gives that
// check's message, naming the value as Kafka Connect prints an empty list (`[]`).
const KEYS: &[KeyDef] = &[KeyDef {
    name: "headers",
    ty: KeyType::List,
    default: Default::Required,
    validator: None,
    importance: Importance::High,
    doc: "The name of the headers to be removed.",
}];

fn build(parsed: &Parsed) -> Result<Box<dyn Transformation>, Vec<Problem>> {
    let headers = parsed.list("headers");
    if headers.is_empty() {
        return Err(vec![parsed.invalid("headers", "[]", "Empty list")]);
    }
    Ok(Box::new(DropHeaders { headers: headers.to_vec() }))
}

struct DropHeaders {
    headers: Vec<String>,
}

impl Transformation for DropHeaders {
    fn apply(&mut self, mut record: Record) -> Result<Option<Record>, TransformError> {
        record.headers.retain(|h| !self.headers.contains(&h.key));
        Ok(Some(record))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Data, Header, HeaderValue, Kind, SchemaAndValue, Value, config};

    fn drop_headers(list: &str) -> Result<Box<dyn Transformation>, Vec<Problem>> {
        let parsed = config::parse(KEYS, &[("headers".into(), list.into())], "transforms.d.")?;
        build(&parsed)
    }

    fn header(key: &str, v: &str) -> Header {
        Header { key: key.into(), value: HeaderValue::Raw(Some(v.as_bytes().to_vec())) }
    }

    #[test]
    fn removes_every_header_named_and_keeps_the_rest_in_order() {
        // DropHeadersTest: dropping "dropped" and "also-dropped".
        let mut t = drop_headers("dropped, also-dropped").unwrap();
        let typed = Header {
            key: "typed".into(),
            value: HeaderValue::Typed(SchemaAndValue::schemaless(Value::Int64(1))),
        };
        let record = Record {
            offset: None,
            topic: "t".into(),
            partition: None,
            timestamp: None,
            key: Data::raw(Kind::String, Some(b"k".to_vec())),
            value: Data::raw(Kind::Json, Some(b"{\"a\":1}".to_vec())),
            headers: vec![
                header("dropped", "1"),
                header("kept", "2"),
                header("also-dropped", "3"),
                typed.clone(),
                header("dropped", "4"),
                header("kept", "5"),
            ],
        };
        let out = t.apply(record.clone()).unwrap().unwrap();
        assert_eq!(out.headers, vec![header("kept", "2"), typed, header("kept", "5")]);
        assert_eq!((&out.key, &out.value), (&record.key, &record.value));
        let mut none = drop_headers("absent").unwrap();
        let r = Record { headers: vec![header("a", "1")], ..out };
        assert_eq!(none.apply(r.clone()).unwrap().unwrap(), r);
    }

    #[test]
    fn headers_must_be_given_and_not_empty() {
        let p = drop_headers("").err().unwrap();
        assert_eq!(
            p[0].message,
            "Invalid value [] for configuration transforms.d.headers: Empty list"
        );
        let p = config::parse(KEYS, &[], "transforms.d.").unwrap_err();
        assert_eq!(
            p[0].message,
            "Missing required configuration \"transforms.d.headers\" which has no default value."
        );
    }
}
