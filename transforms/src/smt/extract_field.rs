//! Kafka Connect's `ExtractField$Key` and `ExtractField$Value`: the key or value becomes
//! one of its fields (a struct's field with the field's schema, or a schemaless map's
//! entry), reached by a KIP-821 path (`field.syntax.version`). Nulls pass through.
//!
//! This module owns the transform; paths are `field_path`'s. It must not touch the other
//! side of the record.

use crate::config::{Default, Importance, KeyDef, KeyType, Parsed, Problem};
use crate::registry::{TransformDef, Transformation};
use crate::smt::field_path::{SYNTAX_VERSION, SYNTAX_VERSION_KEY, SingleFieldPath, SyntaxVersion};
use crate::smt::side::{Side, require_map, require_struct};
use crate::{Data, Record, SchemaAndValue, TransformError, Value};

const PURPOSE: &str = "field extraction";

const DOC: &str = "Extract the specified field from a Struct when schema present, or a Map in \
                   the case of schemaless data. Any null values are passed through unmodified.";

const KEYS: &[KeyDef] = &[
    KeyDef {
        name: "field",
        ty: KeyType::String,
        default: Default::Required,
        validator: None,
        importance: Importance::Medium,
        doc: "The name (or, with field.syntax.version V2, the path) of the field to extract.",
    },
    super::side::REPLACE_NULL_WITH_DEFAULT,
    SYNTAX_VERSION_KEY,
];

/// The classes of this module.
pub(crate) const DEFS: &[TransformDef] = &[
    TransformDef {
        class: "org.apache.kafka.connect.transforms.ExtractField$Key",
        doc: DOC,
        keys: KEYS,
        build: build_key,
    },
    TransformDef {
        class: "org.apache.kafka.connect.transforms.ExtractField$Value",
        doc: DOC,
        keys: KEYS,
        build: build_value,
    },
];

fn build_key(parsed: &Parsed) -> Result<Box<dyn Transformation>, Vec<Problem>> {
    ExtractField::build(parsed, Side::Key)
}

fn build_value(parsed: &Parsed) -> Result<Box<dyn Transformation>, Vec<Problem>> {
    ExtractField::build(parsed, Side::Value)
}

struct ExtractField {
    side: Side,
    original: String,
    path: SingleFieldPath,
    replace_null_with_default: bool,
}

impl ExtractField {
    fn build(parsed: &Parsed, side: Side) -> Result<Box<dyn Transformation>, Vec<Problem>> {
        let original = parsed.string("field").unwrap_or_default().to_owned();
        let version = SyntaxVersion::from_config(parsed.string(SYNTAX_VERSION).unwrap_or("V1"));
        let path = SingleFieldPath::parse(&original, version)
            .map_err(|message| vec![parsed.problem("field", message)])?;
        Ok(Box::new(Self {
            side,
            original,
            path,
            replace_null_with_default: parsed.boolean("replace.null.with.default"),
        }))
    }
}

impl Transformation for ExtractField {
    fn apply(&mut self, mut record: Record) -> Result<Option<Record>, TransformError> {
        let data = self.side.data(&mut record);
        let typed = data.typed()?;
        let extracted = match &typed.schema {
            None => {
                let value = if typed.value.is_null() {
                    Value::Null
                } else {
                    require_map(&mut typed.value, PURPOSE)?;
                    self.path.value_from_map(&typed.value)?
                };
                SchemaAndValue::schemaless(value)
            }
            Some(schema) => {
                if !typed.value.is_null() {
                    require_struct(&mut typed.value, PURPOSE)?;
                }
                let field = self.path.field_from(schema)?.ok_or_else(|| {
                    TransformError::new(format!("Unknown field: {}", self.original))
                })?;
                let field_schema = field.schema.clone();
                let value = match &typed.value {
                    Value::Struct(s) => {
                        self.path.value_from_struct(s, self.replace_null_with_default)?
                    }
                    _ => Value::Null,
                };
                SchemaAndValue::new(field_schema, value)
            }
        };
        *data = Data::Typed(extracted);
        Ok(Some(record))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::smt::test_support::{build, map, null, problems, record, typed};
    use crate::{Schema, Struct, Type};

    fn int32() -> Arc<Schema> {
        Arc::new(Schema::new(Type::Int32))
    }

    fn magic_struct(v: Value) -> SchemaAndValue {
        let schema = Arc::new(Schema::structure().with_field("magic", int32()));
        SchemaAndValue::new(schema.clone(), Value::Struct(Struct { schema, values: vec![v] }))
    }

    fn key_after(props: &[(&str, &str)], key: SchemaAndValue) -> Result<SchemaAndValue, String> {
        let mut t = build("ExtractField$Key", props).unwrap();
        let out = t.apply(record(key, null())).map_err(|e| e.message)?.unwrap();
        Ok(typed(out.key))
    }

    #[test]
    fn schemaless_takes_the_entry_or_null() {
        let key = SchemaAndValue::schemaless(map(&[("magic", Value::Int64(42))]));
        let out = key_after(&[("field", "magic")], key.clone()).unwrap();
        assert_eq!(out, SchemaAndValue::schemaless(Value::Int64(42)));
        let out = key_after(&[("field", "nonexistent")], key).unwrap();
        assert_eq!(out, null());
        assert_eq!(key_after(&[("field", "magic")], null()).unwrap(), null());
        let err = key_after(&[("field", "magic")], SchemaAndValue::schemaless(Value::Int64(1)));
        assert_eq!(
            err.unwrap_err(),
            "Only Map objects supported in absence of schema for [field extraction], found: \
             java.lang.Long"
        );
    }

    #[test]
    fn with_schema_takes_the_field_and_its_schema() {
        let out = key_after(&[("field", "magic")], magic_struct(Value::Int32(42))).unwrap();
        assert_eq!(out, SchemaAndValue::new(int32(), Value::Int32(42)));
        // A null struct keeps the field's schema.
        let schema = Arc::new(Schema::structure().with_field("magic", int32()).optional());
        let out = key_after(&[("field", "magic")], SchemaAndValue::new(schema, Value::Null));
        assert_eq!(out.unwrap(), SchemaAndValue::new(int32(), Value::Null));
        let err = key_after(&[("field", "nonexistent")], magic_struct(Value::Int32(42)));
        assert_eq!(err.unwrap_err(), "Unknown field: nonexistent");
        let err = key_after(
            &[("field", "magic")],
            SchemaAndValue::new(Schema::optional_string(), Value::String("x".into())),
        );
        assert_eq!(
            err.unwrap_err(),
            "Only Struct objects supported for [field extraction], found: java.lang.String"
        );
    }

    #[test]
    fn nested_paths_need_syntax_v2() {
        let foo = Arc::new(Schema::structure().with_field("foo", int32()));
        let schema = Arc::new(Schema::structure().with_field("magic", foo.clone()));
        let inner = Value::Struct(Struct { schema: foo, values: vec![Value::Int32(42)] });
        let key = SchemaAndValue::new(
            schema.clone(),
            Value::Struct(Struct { schema, values: vec![inner] }),
        );
        let v2 = [("field", "magic.foo"), ("field.syntax.version", "v2")];
        assert_eq!(
            key_after(&v2, key.clone()).unwrap(),
            SchemaAndValue::new(int32(), Value::Int32(42))
        );
        let err = key_after(
            &[("field", "magic.nonexistent"), ("field.syntax.version", "V2")],
            key.clone(),
        );
        assert_eq!(err.unwrap_err(), "Unknown field: magic.nonexistent");
        // V1 (the default) reads the dotted name as one field.
        assert_eq!(
            key_after(&[("field", "magic.foo")], key).unwrap_err(),
            "Unknown field: magic.foo"
        );

        let nested =
            SchemaAndValue::schemaless(map(&[("magic", map(&[("foo", Value::Int64(42))]))]));
        assert_eq!(key_after(&v2, nested.clone()).unwrap().value, Value::Int64(42));
        let missing = [("field", "magic.nonexistent"), ("field.syntax.version", "V2")];
        assert_eq!(key_after(&missing, nested).unwrap(), null());
    }

    #[test]
    fn replace_null_with_default_decides_what_a_null_field_gives() {
        let with_default = Arc::new(Schema {
            default: Some(Value::Int32(42)),
            ..Schema::new(Type::Int32).optional()
        });
        let schema =
            Arc::new(Schema::structure().with_field("optional_with_default", with_default));
        let value = SchemaAndValue::new(
            schema.clone(),
            Value::Struct(Struct { schema, values: vec![Value::Null] }),
        );
        for (setting, expected) in [("true", Value::Int32(42)), ("false", Value::Null)] {
            let mut t = build(
                "ExtractField$Value",
                &[("field", "optional_with_default"), ("replace.null.with.default", setting)],
            )
            .unwrap();
            let out = t.apply(record(null(), value.clone())).unwrap().unwrap();
            assert_eq!(typed(out.value).value, expected, "replace.null.with.default={setting}");
        }
    }

    #[test]
    fn config_problems() {
        assert_eq!(
            problems("ExtractField$Value", &[]),
            ["Missing required configuration \"transforms.t.field\" which has no default value."]
        );
        assert_eq!(
            problems("ExtractField$Value", &[("field", "a"), ("field.syntax.version", "V3")]),
            ["Invalid value V3 for configuration transforms.t.field.syntax.version: String must \
              be one of (case insensitive): V1, V2"]
        );
        assert_eq!(
            problems("ExtractField$Value", &[("field", "`a"), ("field.syntax.version", "V2")]),
            ["Incomplete backtick pair in path: [`a], consider adding a backslash before \
              backtick at position 0 to escape it"]
        );
    }
}
