//! [`Schema`]: what a converter needs to know of a Kafka Connect schema in an envelope,
//! after checking it as Kafka's `JsonConverter.asConnectSchema` does.
//!
//! The check and its messages (`Schema must contain 'type' field`, `Unknown schema type:
//! ...`) are `wasm-connect-transforms`' reading of envelope schemas
//! ([`envelope::read_schema`]), the one both crates use. This module owns what converters
//! keep of a schema and a per-thread memo of the schemas it checked last, by text. It does
//! not check a payload against its schema beyond a top-level null: the plugin (or the next
//! converter) gets the data as it is.

use serde_json::Value;
use serde_json::value::RawValue;
use wasm_connect_transforms::data::envelope;

use super::{ConvertError, Kind};

/// How many checked schemas a thread keeps, by text.
const SCHEMAS_KEPT: usize = 8;

thread_local! {
    /// The schemas read last on this thread, newest first. Only schemas that passed the
    /// check are kept, so a bad one is refused every time.
    static READ: std::cell::RefCell<Vec<(String, Schema)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// A checked envelope schema.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Schema {
    /// `null`: schemaless data.
    Null,
    /// Any other schema.
    Typed {
        /// The schema type, as written (`string`, `struct`, ...).
        ty: String,
        /// `Some(Kind::String | Kind::Bytes)` when the schema is exactly Kafka Connect's
        /// plain STRING or BYTES schema (only `type` and `optional`): the data then
        /// converts to that kind without losing anything.
        plain: Option<Kind>,
        /// `"optional": true`.
        optional: bool,
        /// Whether the schema has a (non-null) `default`.
        has_default: bool,
    },
}

impl Schema {
    /// Reads and checks a schema. The schemas a thread read last are kept by their text:
    /// a task's records repeat a handful of schemas, and each is parsed once.
    pub fn parse(schema: &RawValue) -> Result<Self, ConvertError> {
        if schema.get() == "null" {
            return Ok(Self::Null);
        }
        let text = schema.get();
        if let Some(hit) =
            READ.with_borrow(|cache| cache.iter().find(|(t, _)| t == text).map(|(_, s)| s.clone()))
        {
            return Ok(hit);
        }
        let parsed = Self::parse_uncached(text)?;
        READ.with_borrow_mut(|cache| {
            cache.insert(0, (text.to_owned(), parsed.clone()));
            cache.truncate(SCHEMAS_KEPT);
        });
        Ok(parsed)
    }

    fn parse_uncached(schema: &str) -> Result<Self, ConvertError> {
        let value: Value = serde_json::from_str(schema)
            .map_err(|e| ConvertError::data(format!("Invalid schema: {e}")))?;
        envelope::read_schema(schema.as_bytes()).map_err(|e| ConvertError::data(e.message))?;
        let ty = value["type"].as_str().unwrap_or_default().to_owned();
        let only_type_and_optional =
            value.as_object().is_some_and(|o| o.keys().all(|k| k == "type" || k == "optional"));
        let plain = match ty.as_str() {
            "string" if only_type_and_optional => Some(Kind::String),
            "bytes" if only_type_and_optional => Some(Kind::Bytes),
            _ => None,
        };
        Ok(Self::Typed {
            optional: value["optional"] == Value::Bool(true),
            has_default: !value["default"].is_null(),
            plain,
            ty,
        })
    }

    /// Checks a top-level payload against the schema's nullability, as Kafka Connect does
    /// when it reads (`to_plugin`) or writes (`from_plugin`) the data: a null payload
    /// needs an optional schema or a default.
    pub fn check_null(&self, payload: &RawValue, reading: bool) -> Result<(), ConvertError> {
        match self {
            Self::Typed { ty, optional: false, has_default: false, .. }
                if payload.get() == "null" =>
            {
                Err(ConvertError::data(if reading {
                    format!("Invalid null value for required {} field", ty.to_uppercase())
                } else {
                    "Conversion error: null value for field that is required and has no default \
                     value"
                        .to_owned()
                }))
            }
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(json: &str) -> Result<Schema, ConvertError> {
        Schema::parse(&serde_json::from_str::<Box<RawValue>>(json).unwrap())
    }

    fn message(json: &str) -> String {
        parse(json).unwrap_err().to_string()
    }

    #[test]
    fn plain_string_and_bytes_schemas_map_to_kinds() {
        let typed = |ty: &str, plain, optional| Schema::Typed {
            ty: ty.into(),
            plain,
            optional,
            has_default: false,
        };
        assert_eq!(parse("null").unwrap(), Schema::Null);
        assert_eq!(
            parse(r#"{"type":"string","optional":false}"#).unwrap(),
            typed("string", Some(Kind::String), false)
        );
        assert_eq!(
            parse(r#"{"type":"bytes","optional":true}"#).unwrap(),
            typed("bytes", Some(Kind::Bytes), true)
        );
        assert_eq!(parse(r#"{"type":"string","doc":"d"}"#).unwrap(), typed("string", None, false));
        let decimal = r#"{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal"}"#;
        assert_eq!(parse(decimal).unwrap(), typed("bytes", None, false));
        assert_eq!(parse(r#"{"type":"int64"}"#).unwrap(), typed("int64", None, false));
        let with_default = parse(r#"{"type":"int32","default":3}"#).unwrap();
        assert!(matches!(with_default, Schema::Typed { has_default: true, .. }));
    }

    #[test]
    fn bad_schemas_fail_with_kafkas_messages() {
        assert_eq!(message("{}"), "Schema must contain 'type' field");
        assert_eq!(message("3"), "Schema must contain 'type' field");
        assert_eq!(message(r#"{"type":"text"}"#), "Unknown schema type: text");
        assert_eq!(message(r#"{"type":"array"}"#), "Array schema did not specify the element type");
        assert_eq!(
            message(r#"{"type":"map","keys":{"type":"string"}}"#),
            "Map schema did not specify the value type"
        );
        assert_eq!(
            message(r#"{"type":"struct","fields":{}}"#),
            "Struct schema's \"fields\" argument is not an array."
        );
        assert_eq!(
            message(r#"{"type":"struct","fields":[{"type":"int8"}]}"#),
            "Struct schema's field name not specified properly"
        );
        assert_eq!(
            message(r#"{"type":"struct","fields":[{"field":"f","type":"nope"}]}"#),
            "Unknown schema type: nope"
        );
        assert_eq!(
            message(r#"{"type":"int8","parameters":{"a":1}}"#),
            "Schema parameters must have string values."
        );
        let nested = r#"{"type":"array","items":{"type":"map","keys":{"type":"string"},
            "values":{"type":"struct","fields":[{"field":"x","type":"int8"}]}}}"#;
        assert!(parse(nested).is_ok());
    }

    #[test]
    fn null_payloads_need_an_optional_schema_or_a_default() {
        let null = serde_json::from_str::<Box<RawValue>>("null").unwrap();
        let one = serde_json::from_str::<Box<RawValue>>("1").unwrap();
        let required = parse(r#"{"type":"string"}"#).unwrap();
        assert_eq!(
            required.check_null(&null, true).unwrap_err().to_string(),
            "Invalid null value for required STRING field"
        );
        assert_eq!(
            required.check_null(&null, false).unwrap_err().to_string(),
            "Conversion error: null value for field that is required and has no default value"
        );
        assert!(required.check_null(&one, true).is_ok());
        assert!(
            parse(r#"{"type":"string","optional":true}"#).unwrap().check_null(&null, true).is_ok()
        );
        assert!(parse(r#"{"type":"int8","default":1}"#).unwrap().check_null(&null, true).is_ok());
        assert!(Schema::Null.check_null(&null, true).is_ok());
    }
}
