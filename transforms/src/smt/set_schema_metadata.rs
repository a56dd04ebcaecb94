//! Kafka Connect's `SetSchemaMetadata` (`$Key`, `$Value`): sets the name, the version or
//! both on the key's or value's schema, and points a struct value at the new schema.
//!
//! This module owns that schema copy and the struct's re-pointing (top level only, as in
//! Kafka Connect); it must not change the schema's type, fields or optionality.

use std::sync::Arc;

use super::side::{Side, require_schema};
use crate::config::{Default, Importance, KeyDef, KeyType, Parsed, Problem};
use crate::registry::{TransformDef, Transformation};
use crate::{Record, Schema, Struct, TransformError, Value};

const DOC: &str = "Set the schema name, version or both on the record's key or value schema.";

const KEYS: &[KeyDef] = &[
    KeyDef {
        name: "schema.name",
        ty: KeyType::String,
        default: Default::Null,
        validator: None,
        importance: Importance::High,
        doc: "Schema name to set.",
    },
    KeyDef {
        name: "schema.version",
        ty: KeyType::Int,
        default: Default::Null,
        validator: None,
        importance: Importance::High,
        doc: "Schema version to set.",
    },
    super::side::REPLACE_NULL_WITH_DEFAULT,
];

/// The classes of this module.
pub(crate) const DEFS: &[TransformDef] = &[
    TransformDef {
        class: "org.apache.kafka.connect.transforms.SetSchemaMetadata$Key",
        doc: DOC,
        keys: KEYS,
        build: |p| build(p, Side::Key),
    },
    TransformDef {
        class: "org.apache.kafka.connect.transforms.SetSchemaMetadata$Value",
        doc: DOC,
        keys: KEYS,
        build: |p| build(p, Side::Value),
    },
];

fn build(parsed: &Parsed, side: Side) -> Result<Box<dyn Transformation>, Vec<Problem>> {
    let name = parsed.string("schema.name").map(str::to_owned);
    let version = parsed.integer("schema.version").map(|v| v as i32);
    if name.is_none() && version.is_none() {
        // Kafka Connect's ConfigException names no key; the first one stands for both.
        return Err(vec![
            parsed.problem("schema.name", "Neither schema name nor version configured"),
        ]);
    }
    let replace_null_with_default = parsed.boolean("replace.null.with.default");
    Ok(Box::new(SetSchemaMetadata { side, name, version, replace_null_with_default }))
}

struct SetSchemaMetadata {
    side: Side,
    name: Option<String>,
    version: Option<i32>,
    replace_null_with_default: bool,
}

impl Transformation for SetSchemaMetadata {
    fn apply(&mut self, mut record: Record) -> Result<Option<Record>, TransformError> {
        let data = self.side.data(&mut record).typed()?;
        if data.schema.is_none() && data.value.is_null() {
            return Ok(Some(record));
        }
        let schema = require_schema(&data.schema, "updating schema metadata")?;
        let mut updated = Schema::clone(schema);
        if let Some(name) = &self.name {
            updated.name = Some(name.clone());
        }
        if let Some(version) = self.version {
            updated.version = Some(version);
        }
        let updated = Arc::new(updated);
        if let Value::Struct(old) = &mut data.value {
            let values = updated
                .fields
                .iter()
                .zip(std::mem::take(&mut old.values))
                .map(|(field, v)| match (v, &field.schema.default) {
                    (Value::Null, Some(d)) if self.replace_null_with_default => d.clone(),
                    (v, _) => v,
                })
                .collect();
            *old = Struct { schema: updated.clone(), values };
        }
        data.schema = Some(updated);
        Ok(Some(record))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::smt::test_support::{build as make, record};
    use crate::{Data, SchemaAndValue, Type};

    fn typed(d: &mut Data) -> SchemaAndValue {
        d.typed().unwrap().clone()
    }

    fn person() -> Arc<Schema> {
        let mut with_default = Schema::new(Type::Int32).optional();
        with_default.default = Some(Value::Int32(7));
        let mut s = Schema::structure()
            .named("old")
            .with_field("name", Arc::new(Schema::new(Type::String)))
            .with_field("n", Arc::new(with_default));
        s.version = Some(1);
        s.doc = Some("a person".into());
        Arc::new(s)
    }

    #[test]
    fn sets_name_and_version_and_repoints_the_struct() {
        let mut t =
            make("SetSchemaMetadata$Value", &[("schema.name", "foo"), ("schema.version", "42")])
                .unwrap();
        let schema = person();
        let mut s = Struct::new(schema.clone());
        s.put("name", Value::String("ann".into())).unwrap();
        let r = record(
            SchemaAndValue::schemaless(Value::Null),
            SchemaAndValue::new(schema, Value::Struct(s)),
        );
        let mut out = t.apply(r).unwrap().unwrap();
        let v = typed(&mut out.value);
        let schema = v.schema.unwrap();
        assert_eq!(schema.name.as_deref(), Some("foo"));
        assert_eq!(schema.version, Some(42));
        assert_eq!(schema.doc.as_deref(), Some("a person"));
        assert_eq!(schema.fields.len(), 2);
        let Value::Struct(s) = v.value else { panic!() };
        assert!(Arc::ptr_eq(&s.schema, &schema));
        assert_eq!(s.get("name").unwrap(), &Value::String("ann".into()));
        // replace.null.with.default=true (the default): the null field takes its default.
        assert_eq!(s.get("n").unwrap(), &Value::Int32(7));
        s.validate().unwrap();
    }

    #[test]
    fn only_the_version_keeps_the_name_and_null_can_stay_null() {
        let mut t = make(
            "SetSchemaMetadata$Key",
            &[("schema.version", "3"), ("replace.null.with.default", "false")],
        )
        .unwrap();
        let schema = person();
        let r = record(
            SchemaAndValue::new(schema.clone(), Value::Struct(Struct::new(schema))),
            SchemaAndValue::schemaless(Value::Null),
        );
        let mut out = t.apply(r).unwrap().unwrap();
        let k = typed(&mut out.key);
        let schema = k.schema.unwrap();
        assert_eq!((schema.name.as_deref(), schema.version), (Some("old"), Some(3)));
        let Value::Struct(s) = k.value else { panic!() };
        assert_eq!(s.get("n").unwrap(), &Value::Null);
    }

    #[test]
    fn primitive_schemas_and_null_values_with_a_schema_are_renamed() {
        let mut t = make("SetSchemaMetadata$Value", &[("schema.name", "x")]).unwrap();
        let r = record(
            SchemaAndValue::schemaless(Value::Null),
            SchemaAndValue::new(Schema::optional_string(), Value::Null),
        );
        let mut out = t.apply(r).unwrap().unwrap();
        let v = typed(&mut out.value);
        assert_eq!(v.value, Value::Null);
        let schema = v.schema.unwrap();
        assert_eq!(
            (schema.ty, schema.optional, schema.name.as_deref()),
            (Type::String, true, Some("x"))
        );
    }

    #[test]
    fn schemaless_data_needs_a_schema_but_a_schemaless_null_passes() {
        let mut t = make("SetSchemaMetadata$Value", &[("schema.name", "x")]).unwrap();
        let tombstone = record(
            SchemaAndValue::schemaless(Value::Null),
            SchemaAndValue::schemaless(Value::Null),
        );
        assert_eq!(t.apply(tombstone.clone()).unwrap(), Some(tombstone));
        let map = record(
            SchemaAndValue::schemaless(Value::Null),
            SchemaAndValue::schemaless(Value::Map(vec![])),
        );
        assert_eq!(
            t.apply(map).unwrap_err().message,
            "Schema required for [updating schema metadata]"
        );
    }

    #[test]
    fn config_needs_a_name_or_a_version() {
        let problems = make("SetSchemaMetadata$Value", &[]).err().unwrap();
        assert_eq!(problems[0].message, "Neither schema name nor version configured");
        let problems = make("SetSchemaMetadata$Value", &[("schema.version", "v1")]).err().unwrap();
        assert_eq!(
            problems[0].message,
            "Invalid value v1 for configuration transforms.t.schema.version: Not a number of type INT"
        );
    }
}
