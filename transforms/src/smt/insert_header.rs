//! Kafka Connect's `InsertHeader`: adds the header `header` to every record, its value
//! `value.literal` as Kafka Connect's `Values.parseString` types it (see `values`).
//!
//! This module owns the transform; the literal's parsing is the private `values` module's.
//! It must not write the header as bytes (the header converter does).
//!
//! Layout: this file (the transform), `values` (`Values.parseString`).

mod values;

use crate::config::{Default, Importance, KeyDef, KeyType, Parsed, Problem};
use crate::registry::{TransformDef, Transformation};
use crate::{Header, HeaderValue, Record, SchemaAndValue, TransformError, Value};

/// The classes of this module.
pub(crate) const DEFS: &[TransformDef] = &[TransformDef {
    class: "org.apache.kafka.connect.transforms.InsertHeader",
    doc: "Add a header to each record.",
    keys: KEYS,
    build,
}];

// Kafka Connect's `NonNullValidator` on both keys cannot fail on a given value.
const KEYS: &[KeyDef] = &[
    KeyDef {
        name: "header",
        ty: KeyType::String,
        default: Default::Required,
        validator: None,
        importance: Importance::High,
        doc: "The name of the header.",
    },
    KeyDef {
        name: "value.literal",
        ty: KeyType::String,
        default: Default::Required,
        validator: None,
        importance: Importance::High,
        doc: "The literal value that is to be set as the header value on all records.",
    },
];

fn build(parsed: &Parsed) -> Result<Box<dyn Transformation>, Vec<Problem>> {
    let header = parsed.string("header").unwrap_or_default().to_owned();
    let literal = parsed.string("value.literal").unwrap_or_default();
    let value = values::parse_string(literal).unwrap_or(SchemaAndValue::schemaless(Value::Null));
    Ok(Box::new(InsertHeader { header, value }))
}

struct InsertHeader {
    header: String,
    value: SchemaAndValue,
}

impl Transformation for InsertHeader {
    fn apply(&mut self, mut record: Record) -> Result<Option<Record>, TransformError> {
        record.headers.push(Header {
            key: self.header.clone(),
            value: HeaderValue::Typed(self.value.clone()),
        });
        Ok(Some(record))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::data::{DATE, DECIMAL, TIME, TIMESTAMP};
    use crate::header_converter::HeaderConverter;
    use crate::{Data, Kind, Schema, Type, config};

    fn insert(header: &str, literal: &str) -> Box<dyn Transformation> {
        let props =
            vec![("header".into(), header.into()), ("value.literal".into(), literal.into())];
        build(&config::parse(KEYS, &props, "transforms.i.").unwrap()).unwrap()
    }

    fn record(headers: Vec<Header>) -> Record {
        Record {
            offset: None,
            topic: "topic".into(),
            partition: Some(0),
            timestamp: None,
            key: Data::raw(Kind::String, Some(b"key".to_vec())),
            value: Data::raw(Kind::String, Some(b"value".to_vec())),
            headers,
        }
    }

    /// The typed header `literal` makes.
    fn typed(literal: &str) -> SchemaAndValue {
        let out = insert("h", literal).apply(record(Vec::new())).unwrap().unwrap();
        match &out.headers[0].value {
            HeaderValue::Typed(t) => t.clone(),
            other => panic!("{other:?}"),
        }
    }

    fn ty(literal: &str) -> (Option<Type>, Value) {
        let t = typed(literal);
        (t.schema.map(|s| s.ty), t.value)
    }

    fn s(v: &str) -> Value {
        Value::String(v.into())
    }

    #[test]
    fn appends_the_header_to_every_record() {
        // InsertHeaderTest.insertionWithExistingOtherHeader / WithExistingSameHeader
        let existing = Header {
            key: "inserted".into(),
            value: HeaderValue::Raw(Some(b"existing-value".to_vec())),
        };
        let mut t = insert("inserted", "inserted-value");
        let out = t.apply(record(vec![existing.clone()])).unwrap().unwrap();
        assert_eq!(out.headers.len(), 2);
        assert_eq!(out.headers[0], existing);
        assert_eq!(
            out.headers[1].value,
            HeaderValue::Typed(SchemaAndValue::new(
                Arc::new(Schema::new(Type::String)),
                s("inserted-value")
            ))
        );
        assert_eq!(out.key, Data::raw(Kind::String, Some(b"key".to_vec())));
    }

    #[test]
    fn literals_are_typed_as_values_parse_string_types_them() {
        assert_eq!(ty("true"), (Some(Type::Boolean), Value::Boolean(true)));
        assert_eq!(ty("false"), (Some(Type::Boolean), Value::Boolean(false)));
        assert_eq!(ty("12"), (Some(Type::Int8), Value::Int8(12)));
        assert_eq!(ty("-300"), (Some(Type::Int16), Value::Int16(-300)));
        assert_eq!(ty("100000"), (Some(Type::Int32), Value::Int32(100_000)));
        assert_eq!(ty("1e10"), (Some(Type::Int64), Value::Int64(10_000_000_000)));
        assert_eq!(
            ty("1.0"),
            (Some(Type::Int8), Value::Int8(1)),
            "an integral decimal is an integer"
        );
        assert_eq!(ty("1.5"), (Some(Type::Float32), Value::Float32(1.5)));
        assert_eq!(ty("1e39"), (Some(Type::Float64), Value::Float64(1e39)), "too big for FLOAT32");
        assert_eq!(ty("1.5e300"), (Some(Type::Float64), Value::Float64(1.5e300)));
        let big = typed("12345678901234567890");
        let schema = big.schema.unwrap();
        assert!(schema.is_logical(DECIMAL) && schema.parameter("scale") == Some("0"));
        assert_eq!(ty("hello world"), (Some(Type::String), s("hello world")));
        assert_eq!(ty(""), (Some(Type::String), s("")));
        assert_eq!(ty("null"), (None, Value::Null));
        assert_eq!(
            ty("true}"),
            (Some(Type::String), s("true}")),
            "a literal with more after it is a string"
        );
    }

    #[test]
    fn temporal_literals() {
        let d = typed("2023-01-02");
        assert!(d.schema.as_deref().unwrap().is_logical(DATE));
        assert_eq!(d.value, Value::Int32(19359));
        let t = typed("12:34:56.789Z");
        assert!(t.schema.as_deref().unwrap().is_logical(TIME));
        assert_eq!(t.value, Value::Int32(45_296_789));
        let ts = typed("2023-11-14T22:13:20.123Z");
        assert!(ts.schema.as_deref().unwrap().is_logical(TIMESTAMP));
        assert_eq!(ts.value, Value::Int64(1_700_000_000_123));
        // Kafka Connect reads a leading number up to the first delimiter.
        assert_eq!(ty("12:30"), (Some(Type::Int8), Value::Int8(12)));
    }

    #[test]
    fn arrays_and_maps_take_a_common_schema() {
        let a = typed("[1, 2, 3]");
        let schema = a.schema.unwrap();
        assert_eq!(
            (schema.ty, schema.value_schema.as_ref().unwrap().ty),
            (Type::Array, Type::Int8)
        );
        assert_eq!(a.value, Value::Array(vec![Value::Int8(1), Value::Int8(2), Value::Int8(3)]));
        let a = typed("[1, 2.5, 300]");
        assert_eq!(a.schema.unwrap().value_schema.as_ref().unwrap().ty, Type::Float32);
        assert_eq!(
            a.value,
            Value::Array(vec![Value::Float32(1.0), Value::Float32(2.5), Value::Float32(300.0)])
        );
        let a = typed(r#"["a", "b"]"#);
        assert_eq!(a.value, Value::Array(vec![s("a"), s("b")]));
        let m = typed(r#"{"k": 1, "j": 1000}"#);
        let schema = m.schema.unwrap();
        assert_eq!(
            (schema.key_schema.as_ref().unwrap().ty, schema.value_schema.as_ref().unwrap().ty),
            (Type::String, Type::Int16)
        );
        assert_eq!(
            m.value,
            Value::Map(vec![(s("k"), Value::Int16(1)), (s("j"), Value::Int16(1000))])
        );
        // No common schema: schemaless here (Kafka Connect's arrayOfNull).
        let mixed = typed(r#"[1, "a", true]"#);
        assert_eq!(mixed.schema, None);
        assert_eq!(mixed.value, Value::Array(vec![Value::Int8(1), s("a"), Value::Boolean(true)]));
        // An element that cannot be parsed, or a null among required elements, makes the
        // whole literal a string.
        assert_eq!(ty("[a, b]"), (Some(Type::String), s("[a, b]")));
        assert_eq!(ty("[1, null]"), (Some(Type::String), s("[1, null]")));
        assert_eq!(ty("[1, 2"), (Some(Type::String), s("[1, 2")));
        assert_eq!(ty("{1}"), (Some(Type::String), s("{1}")));
    }

    #[test]
    fn the_header_writes_back_as_the_literal_with_simple_header_converter() {
        for literal in ["inserted-value", "12", "true", "[1,2,3]", "{\"k\":1}", "1.5", "2023-01-02"]
        {
            let t = typed(literal);
            let bytes = HeaderConverter::Simple.write("h", &t).unwrap().unwrap();
            assert_eq!(String::from_utf8(bytes).unwrap(), literal);
        }
    }

    #[test]
    fn config_problems() {
        let p = config::parse(KEYS, &[("header".into(), "h".into())], "transforms.i.").unwrap_err();
        assert_eq!(
            p[0].message,
            "Missing required configuration \"transforms.i.value.literal\" which has no default value."
        );
    }
}
