//! Kafka Connect's `ValueToKey`: the key becomes a new struct (or schemaless map) of some
//! fields of the value; the value is left as it is.
//!
//! This module owns the transform; it must not change the value.

use crate::config::{Default, Importance, KeyDef, KeyType, Parsed, Problem};
use crate::registry::{TransformDef, Transformation};
use crate::smt::connect_struct::{self, SchemaCache};
use crate::smt::side::{require_map, require_struct};
use crate::{Data, Record, Schema, SchemaAndValue, Struct, TransformError, Value};

const PURPOSE: &str = "copying fields from value to key";

const KEYS: &[KeyDef] = &[
    KeyDef {
        name: "fields",
        ty: KeyType::List,
        default: Default::Required,
        validator: Some(crate::config::Validator::Custom(connect_struct::non_empty_list)),
        importance: Importance::High,
        doc: "Names of the value's fields to copy into the new key.",
    },
    super::side::REPLACE_NULL_WITH_DEFAULT,
];

/// The classes of this module.
pub(crate) const DEFS: &[TransformDef] = &[TransformDef {
    class: "org.apache.kafka.connect.transforms.ValueToKey",
    doc: "Replace the record key with a new key formed from a subset of fields in the record \
          value.",
    keys: KEYS,
    build,
}];

fn build(parsed: &Parsed) -> Result<Box<dyn Transformation>, Vec<Problem>> {
    Ok(Box::new(ValueToKey {
        fields: parsed.list("fields").to_vec(),
        replace_null_with_default: parsed.boolean("replace.null.with.default"),
        cache: SchemaCache::default(),
    }))
}

struct ValueToKey {
    fields: Vec<String>,
    replace_null_with_default: bool,
    cache: SchemaCache,
}

impl Transformation for ValueToKey {
    fn apply(&mut self, mut record: Record) -> Result<Option<Record>, TransformError> {
        let typed = record.value.typed()?;
        let key = match &typed.schema {
            None => {
                let entries = require_map(&mut typed.value, PURPOSE)?;
                let mut key = Vec::with_capacity(self.fields.len());
                for field in &self.fields {
                    let v = entries
                        .iter()
                        .find(|(k, _)| k.as_str() == Some(field))
                        .map_or(Value::Null, |(_, v)| v.clone());
                    connect_struct::map_put(&mut key, field, v);
                }
                SchemaAndValue::schemaless(Value::Map(key))
            }
            Some(_) => {
                let value = require_struct(&mut typed.value, PURPOSE)?;
                let fields = &self.fields;
                let key_schema = self.cache.get_or_try(&value.schema, |schema| {
                    let mut builder = Schema::structure();
                    for name in fields {
                        let field = schema.field(name).ok_or_else(|| {
                            TransformError::new(format!("Field does not exist: {name}"))
                        })?;
                        connect_struct::add_field(&mut builder, name, field.schema.clone())?;
                    }
                    Ok(builder)
                })?;
                let mut key = Struct::new(key_schema.clone());
                for name in fields {
                    let v = connect_struct::get_named(value, name, self.replace_null_with_default)?;
                    connect_struct::put(&mut key, name, v)?;
                }
                SchemaAndValue::new(key_schema, Value::Struct(key))
            }
        };
        record.key = Data::Typed(key);
        Ok(Some(record))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::Type;
    use crate::smt::test_support::{build, map, null, problems, record, typed};

    #[test]
    fn schemaless_copies_the_fields_as_a_map() {
        let value = SchemaAndValue::schemaless(map(&[
            ("a", Value::Int64(1)),
            ("b", Value::Int64(2)),
            ("c", Value::Int64(3)),
        ]));
        let mut t = build("ValueToKey", &[("fields", "a,b,missing")]).unwrap();
        let out = t.apply(record(null(), value.clone())).unwrap().unwrap();
        let expected =
            map(&[("a", Value::Int64(1)), ("b", Value::Int64(2)), ("missing", Value::Null)]);
        assert_eq!(typed(out.key), SchemaAndValue::schemaless(expected));
        assert_eq!(typed(out.value), value);
        // A tombstone has no fields to copy: Kafka Connect fails on it.
        let err = t.apply(record(null(), null())).unwrap_err();
        assert_eq!(
            err.message,
            "Only Map objects supported in absence of schema for [copying fields from value to \
             key], found: null"
        );
    }

    #[test]
    fn with_schema_builds_an_unnamed_key_struct() {
        let int32 = Arc::new(Schema::new(Type::Int32));
        let with_default = Arc::new(Schema {
            default: Some(Value::Int32(9)),
            ..Schema::new(Type::Int32).optional()
        });
        let schema = Arc::new(
            Schema::structure()
                .named("value")
                .with_field("a", int32.clone())
                .with_field("b", int32.clone())
                .with_field("c", with_default.clone()),
        );
        let value = Struct {
            schema: schema.clone(),
            values: vec![Value::Int32(1), Value::Int32(2), Value::Null],
        };
        let value = SchemaAndValue::new(schema, Value::Struct(value));
        let mut t = build("ValueToKey", &[("fields", "a,c")]).unwrap();
        let out = t.apply(record(null(), value.clone())).unwrap().unwrap();
        let key_schema =
            Arc::new(Schema::structure().with_field("a", int32).with_field("c", with_default));
        let key =
            Struct { schema: key_schema.clone(), values: vec![Value::Int32(1), Value::Int32(9)] };
        assert_eq!(typed(out.key), SchemaAndValue::new(key_schema, Value::Struct(key)));
        assert_eq!(typed(out.value), value);

        let mut t = build("ValueToKey", &[("fields", "c"), ("replace.null.with.default", "false")])
            .unwrap();
        let out = t.apply(record(null(), value.clone())).unwrap().unwrap();
        let Value::Struct(key) = typed(out.key).value else { panic!("a struct key") };
        assert_eq!(key.values, [Value::Null]);

        let mut t = build("ValueToKey", &[("fields", "a,nope")]).unwrap();
        assert_eq!(
            t.apply(record(null(), value.clone())).unwrap_err().message,
            "Field does not exist: nope"
        );
        let mut t = build("ValueToKey", &[("fields", "a,a")]).unwrap();
        assert_eq!(
            t.apply(record(null(), value)).unwrap_err().message,
            "Cannot create field because of field name duplication a"
        );
    }

    #[test]
    fn fields_must_name_something() {
        assert_eq!(
            problems("ValueToKey", &[("fields", "")]),
            ["Invalid value  for configuration transforms.t.fields: Empty list"]
        );
        assert_eq!(
            problems("ValueToKey", &[]),
            ["Missing required configuration \"transforms.t.fields\" which has no default value."]
        );
    }
}
