//! Kafka Connect's `HoistField` (`$Key`, `$Value`): wraps the whole key or value in a
//! one-field struct (with a schema) or a one-entry map (schemaless).
//!
//! This module owns that wrapping and the schema it builds (a required struct with one
//! field of the original schema); it must not look inside the value it wraps.

use std::sync::Arc;

use super::side::Side;
use crate::config::{Default, Importance, KeyDef, KeyType, Parsed, Problem};
use crate::registry::{TransformDef, Transformation};
use crate::{Data, Record, Schema, SchemaAndValue, Struct, TransformError, Value};

const DOC: &str = "Wrap data using the specified field name in a Struct when schema present, or \
                   a Map in the case of schemaless data.";

const KEYS: &[KeyDef] = &[KeyDef {
    name: "field",
    ty: KeyType::String,
    default: Default::Required,
    validator: None,
    importance: Importance::Medium,
    doc: "Name of the single field created in the resulting Struct or Map.",
}];

/// The classes of this module.
pub(crate) const DEFS: &[TransformDef] = &[
    TransformDef {
        class: "org.apache.kafka.connect.transforms.HoistField$Key",
        doc: DOC,
        keys: KEYS,
        build: |p| build(p, Side::Key),
    },
    TransformDef {
        class: "org.apache.kafka.connect.transforms.HoistField$Value",
        doc: DOC,
        keys: KEYS,
        build: |p| build(p, Side::Value),
    },
];

fn build(parsed: &Parsed, side: Side) -> Result<Box<dyn Transformation>, Vec<Problem>> {
    let field = parsed.string("field").unwrap_or_default().to_owned();
    Ok(Box::new(HoistField { side, field, cache: None }))
}

struct HoistField {
    side: Side,
    field: String,
    /// The last schema wrapped and the struct schema built for it.
    cache: Option<(Arc<Schema>, Arc<Schema>)>,
}

impl HoistField {
    fn wrapped_schema(&mut self, schema: &Arc<Schema>) -> Arc<Schema> {
        if let Some((from, to)) = &self.cache
            && (Arc::ptr_eq(from, schema) || **from == **schema)
        {
            return to.clone();
        }
        let built = Arc::new(Schema::structure().with_field(self.field.clone(), schema.clone()));
        self.cache = Some((schema.clone(), built.clone()));
        built
    }
}

impl Transformation for HoistField {
    fn apply(&mut self, mut record: Record) -> Result<Option<Record>, TransformError> {
        let data = self.side.data(&mut record).typed()?;
        let value = std::mem::replace(&mut data.value, Value::Null);
        let hoisted = match data.schema.clone() {
            None => SchemaAndValue::schemaless(Value::Map(vec![(
                Value::String(self.field.clone()),
                value,
            )])),
            Some(schema) => {
                let wrapped = self.wrapped_schema(&schema);
                let mut s = Struct::new(wrapped.clone());
                s.values[0] = value;
                SchemaAndValue::new(wrapped, Value::Struct(s))
            }
        };
        *self.side.data(&mut record) = Data::Typed(hoisted);
        Ok(Some(record))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Type;
    use crate::smt::test_support::{build as make, record};

    fn typed(d: &mut Data) -> SchemaAndValue {
        d.typed().unwrap().clone()
    }

    #[test]
    fn schemaless_key_becomes_a_one_entry_map() {
        let mut t = make("HoistField$Key", &[("field", "magic")]).unwrap();
        let r = record(
            SchemaAndValue::schemaless(Value::Int32(42)),
            SchemaAndValue::schemaless(Value::Null),
        );
        let mut out = t.apply(r).unwrap().unwrap();
        let key = typed(&mut out.key);
        assert_eq!(key.schema, None);
        assert_eq!(key.value, Value::Map(vec![(Value::String("magic".into()), Value::Int32(42))]));
        // The value side is untouched.
        assert_eq!(typed(&mut out.value).value, Value::Null);
    }

    #[test]
    fn value_with_schema_becomes_a_required_one_field_struct() {
        let mut t = make("HoistField$Value", &[("field", "magic")]).unwrap();
        let int32 = Arc::new(Schema::new(Type::Int32));
        let r = record(
            SchemaAndValue::schemaless(Value::Null),
            SchemaAndValue::new(int32.clone(), Value::Int32(42)),
        );
        let mut out = t.apply(r).unwrap().unwrap();
        let v = typed(&mut out.value);
        let schema = v.schema.unwrap();
        assert_eq!(schema.ty, Type::Struct);
        assert!(!schema.optional);
        assert_eq!(schema.name, None);
        assert_eq!(schema.fields.len(), 1);
        assert_eq!(*schema.field("magic").unwrap().schema, *int32);
        let Value::Struct(s) = v.value else { panic!("not a struct") };
        assert_eq!(s.get("magic").unwrap(), &Value::Int32(42));
        assert!(Arc::ptr_eq(&s.schema, &schema));
    }

    #[test]
    fn null_values_are_wrapped_too() {
        // Kafka Connect hoists a tombstone rather than passing it through.
        let mut t = make("HoistField$Value", &[("field", "f")]).unwrap();
        let r = record(
            SchemaAndValue::schemaless(Value::Null),
            SchemaAndValue::new(Schema::optional_string(), Value::Null),
        );
        let mut out = t.apply(r).unwrap().unwrap();
        let Value::Struct(s) = typed(&mut out.value).value else { panic!() };
        assert_eq!(s.get("f").unwrap(), &Value::Null);
        assert!(s.schema.field("f").unwrap().schema.optional);
    }

    #[test]
    fn the_built_schema_is_reused_for_equal_schemas() {
        let mut t = make("HoistField$Key", &[("field", "k")]).unwrap();
        let mut schemas = Vec::new();
        for _ in 0..2 {
            let r = record(
                SchemaAndValue::new(Schema::optional_string(), Value::String("x".into())),
                SchemaAndValue::schemaless(Value::Null),
            );
            let mut out = t.apply(r).unwrap().unwrap();
            schemas.push(typed(&mut out.key).schema.unwrap());
        }
        assert!(Arc::ptr_eq(&schemas[0], &schemas[1]));
    }

    #[test]
    fn field_is_required() {
        let problems = make("HoistField$Value", &[]).err().unwrap();
        assert_eq!(
            problems[0].message,
            "Missing required configuration \"transforms.t.field\" which has no default value."
        );
    }
}
