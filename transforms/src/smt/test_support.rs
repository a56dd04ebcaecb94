//! Helpers for the transforms' unit tests: build a class from its keys as the registry's
//! caller does, records with typed keys and values, and small value builders.

use crate::config::{Problem, parse};
use crate::{Data, Record, SchemaAndValue, Transformation, Value};

/// Builds `class` (a simple name) from `props` as the registry's caller does.
pub(crate) fn build(
    class: &str,
    props: &[(&str, &str)],
) -> Result<Box<dyn Transformation>, Vec<Problem>> {
    let def = crate::registry::transform(class).expect("a known class");
    let props: Vec<(String, String)> =
        props.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let parsed = parse(def.keys, &props, "transforms.t.")?;
    (def.build)(&parsed)
}

/// The messages of a build that must fail.
pub(crate) fn problems(class: &str, props: &[(&str, &str)]) -> Vec<String> {
    match build(class, props) {
        Ok(_) => panic!("{class} built from {props:?}"),
        Err(p) => p.into_iter().map(|p| p.message).collect(),
    }
}

/// A record on `test`, partition 0, timestamp 789, with typed key and value.
pub(crate) fn record(key: SchemaAndValue, value: SchemaAndValue) -> Record {
    Record {
        topic: "test".into(),
        partition: Some(0),
        offset: None,
        timestamp: Some(789),
        key: Data::Typed(key),
        value: Data::Typed(value),
        headers: Vec::new(),
    }
}

/// Schemaless null.
pub(crate) fn null() -> SchemaAndValue {
    SchemaAndValue::schemaless(Value::Null)
}

/// A schemaless map with string keys.
pub(crate) fn map(entries: &[(&str, Value)]) -> Value {
    Value::Map(entries.iter().map(|(k, v)| (Value::String(k.to_string()), v.clone())).collect())
}

/// The typed data of one side after a transform.
pub(crate) fn typed(data: Data) -> SchemaAndValue {
    match data {
        Data::Typed(t) => t,
        Data::Raw { .. } => panic!("not decoded"),
    }
}
