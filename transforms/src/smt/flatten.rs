//! Kafka Connect's `Flatten` (`$Key`, `$Value`): nested structs (with a schema) or nested
//! maps (schemaless) become one level, each field named by the path to it joined with
//! `delimiter`. Arrays, and what they hold, are left as they are.
//!
//! This module owns the flattened schema (optionality and defaults inherited from the
//! ancestors, as Kafka Connect's `buildUpdatedSchema` gives them) and the flattened value;
//! it must not touch anything but the side it was built for.

use std::sync::Arc;

use super::side::{Side, require_map, require_struct};
use crate::config::{Default, Importance, KeyDef, KeyType, Parsed, Problem};
use crate::data::java_class;
use crate::registry::{TransformDef, Transformation};
use crate::{Record, Schema, Struct, TransformError, Type, Value};

const DOC: &str = "Flatten a nested data structure, naming each field by joining the field \
                   names at each level with a configurable delimiter. Applies to Struct when \
                   schema present, or a Map in the case of schemaless data. Array fields and \
                   their contents are not modified. The default delimiter is '.'.";

const KEYS: &[KeyDef] = &[KeyDef {
    name: "delimiter",
    ty: KeyType::String,
    default: Default::Value("."),
    validator: None,
    importance: Importance::Medium,
    doc: "Delimiter inserted between the input's field names when naming the output's fields",
}];

const PURPOSE: &str = "flattening";

/// The classes of this module.
pub(crate) const DEFS: &[TransformDef] = &[
    TransformDef {
        class: "org.apache.kafka.connect.transforms.Flatten$Key",
        doc: DOC,
        keys: KEYS,
        build: |p| build(p, Side::Key),
    },
    TransformDef {
        class: "org.apache.kafka.connect.transforms.Flatten$Value",
        doc: DOC,
        keys: KEYS,
        build: |p| build(p, Side::Value),
    },
];

fn build(parsed: &Parsed, side: Side) -> Result<Box<dyn Transformation>, Vec<Problem>> {
    let delimiter = parsed.string("delimiter").unwrap_or_default().to_owned();
    Ok(Box::new(Flatten { side, delimiter, cache: None }))
}

struct Flatten {
    side: Side,
    delimiter: String,
    /// The last schema flattened and its flattened schema.
    cache: Option<(Arc<Schema>, Arc<Schema>)>,
}

impl Flatten {
    fn name(&self, prefix: &str, name: &str) -> String {
        if prefix.is_empty() {
            name.to_owned()
        } else {
            format!("{prefix}{}{name}", self.delimiter)
        }
    }

    fn flatten_map(
        &self,
        entries: Vec<(Value, Value)>,
        prefix: &str,
        out: &mut Vec<(Value, Value)>,
    ) -> Result<(), TransformError> {
        for (key, value) in entries {
            let Value::String(key) = key else {
                return Err(TransformError::new(format!(
                    "class {} cannot be cast to class java.lang.String",
                    java_class(&key)
                )));
            };
            let name = self.name(prefix, &key);
            match value {
                Value::Map(inner) => self.flatten_map(inner, &name, out)?,
                Value::Struct(_) => {
                    return Err(TransformError::new(format!(
                        "Flatten transformation does not support class {} for record without \
                         schemas (for field {name}).",
                        java_class(&value)
                    )));
                }
                other => put(out, name, other),
            }
        }
        Ok(())
    }

    fn flatten_schema(&mut self, schema: &Arc<Schema>) -> Result<Arc<Schema>, TransformError> {
        if let Some((from, to)) = &self.cache
            && (Arc::ptr_eq(from, schema) || **from == **schema)
        {
            return Ok(to.clone());
        }
        let mut out = Schema { fields: Vec::new(), ..basics(schema, Type::Struct) };
        let default = match &schema.default {
            Some(Value::Struct(s)) => Some(s),
            _ => None,
        };
        self.build_schema(schema, "", &mut out, schema.optional, default)?;
        let out = Arc::new(out);
        self.cache = Some((schema.clone(), out.clone()));
        Ok(out)
    }

    fn build_schema(
        &self,
        schema: &Schema,
        prefix: &str,
        out: &mut Schema,
        optional: bool,
        parent_default: Option<&Struct>,
    ) -> Result<(), TransformError> {
        for field in &schema.fields {
            let name = self.name(prefix, &field.name);
            let optional = optional || field.schema.optional;
            let default = match (&field.schema.default, parent_default) {
                (Some(d), _) => Some(d.clone()),
                (None, Some(p)) => Some(p.values[field.index].clone()).filter(|v| !v.is_null()),
                (None, None) => None,
            };
            match field.schema.ty {
                Type::Struct => {
                    let default = match &default {
                        Some(Value::Struct(s)) => Some(s),
                        _ => None,
                    };
                    self.build_schema(&field.schema, &name, out, optional, default)?;
                }
                Type::Map => return Err(unsupported(Type::Map, &name)),
                ty => {
                    let mut flat = basics(&field.schema, ty);
                    flat.optional = optional;
                    flat.default = default;
                    push_field(out, name, Arc::new(flat))?;
                }
            }
        }
        Ok(())
    }

    fn flatten_struct(&self, value: &Struct, prefix: &str, out: &mut Struct) {
        for (field, v) in value.schema.fields.iter().zip(&value.values) {
            let name = self.name(prefix, &field.name);
            // `Struct.get` gives a null field its schema's default.
            let v = match (v, &field.schema.default) {
                (Value::Null, Some(d)) => d,
                (v, _) => v,
            };
            match v {
                Value::Struct(inner) if field.schema.ty == Type::Struct => {
                    self.flatten_struct(inner, &name, out)
                }
                _ if field.schema.ty == Type::Struct => {}
                v => {
                    let index = out.schema.field(&name).expect("built from this schema").index;
                    out.values[index] = v.clone();
                }
            }
        }
    }
}

/// `SchemaUtil.copySchemaBasics`: type (with an array's items), name, version, doc and
/// parameters; required, no default.
fn basics(schema: &Schema, ty: Type) -> Schema {
    let mut out = Schema::new(ty);
    out.name = schema.name.clone();
    out.version = schema.version;
    out.doc = schema.doc.clone();
    out.parameters = schema.parameters.clone();
    if ty == Type::Array {
        out.value_schema = schema.value_schema.clone();
    }
    out
}

fn push_field(out: &mut Schema, name: String, schema: Arc<Schema>) -> Result<(), TransformError> {
    if out.field(&name).is_some() {
        return Err(TransformError::new(format!(
            "Cannot create field because of field name duplication {name}"
        )));
    }
    let index = out.fields.len();
    out.fields.push(crate::Field { name, index, schema });
    Ok(())
}

fn unsupported(ty: Type, name: &str) -> TransformError {
    TransformError::new(format!(
        "Flatten transformation does not support {} for record with schemas (for field {name}).",
        ty.upper()
    ))
}

/// `HashMap.put`: a later key replaces an earlier one in place.
fn put(out: &mut Vec<(Value, Value)>, name: String, value: Value) {
    match out.iter_mut().find(|(k, _)| k.as_str() == Some(&name)) {
        Some(entry) => entry.1 = value,
        None => out.push((Value::String(name), value)),
    }
}

impl Transformation for Flatten {
    fn apply(&mut self, mut record: Record) -> Result<Option<Record>, TransformError> {
        if self.side.data(&mut record).is_null() {
            return Ok(Some(record));
        }
        let data = self.side.data(&mut record).typed()?;
        if data.value.is_null() {
            return Ok(Some(record));
        }
        match data.schema.clone() {
            None => {
                let entries = std::mem::take(require_map(&mut data.value, PURPOSE)?);
                let mut out = Vec::new();
                self.flatten_map(entries, "", &mut out)?;
                data.value = Value::Map(out);
            }
            Some(schema) => {
                let value = require_struct(&mut data.value, PURPOSE)?;
                let flat_schema = self.flatten_schema(&schema)?;
                let mut out = Struct::new(flat_schema.clone());
                self.flatten_struct(value, "", &mut out);
                data.schema = Some(flat_schema);
                data.value = Value::Struct(out);
            }
        }
        Ok(Some(record))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::smt::test_support::build as build_class;
    use crate::{Data, SchemaAndValue};

    fn make(class: &str, props: &[(&str, &str)]) -> Box<dyn Transformation> {
        build_class(class, props).unwrap()
    }

    fn run(
        t: &mut Box<dyn Transformation>,
        value: SchemaAndValue,
    ) -> Result<SchemaAndValue, TransformError> {
        let r = Record {
            topic: "t".into(),
            partition: None,
            offset: None,
            timestamp: None,
            key: Data::Typed(value.clone()),
            value: Data::Typed(value),
            headers: Vec::new(),
        };
        let mut out = t.apply(r)?.unwrap();
        Ok(out.value.typed()?.clone())
    }

    fn s(x: &str) -> Value {
        Value::String(x.into())
    }

    fn schema(ty: Type) -> Arc<Schema> {
        Arc::new(Schema::new(ty))
    }

    #[test]
    fn schemaless_nested_maps_are_joined_and_arrays_kept() {
        // The documentation's example: {"content": {"id": 42, "name": {"first": "David",
        // "middle": null, "last": "Wong"}}} flattened with delimiter "_".
        let mut t = make("Flatten$Value", &[("delimiter", "_")]);
        let name = Value::Map(vec![
            (s("first"), s("David")),
            (s("middle"), Value::Null),
            (s("last"), s("Wong")),
        ]);
        let content = Value::Map(vec![(s("id"), Value::Int64(42)), (s("name"), name)]);
        let arr = Value::Array(vec![Value::Map(vec![(s("x"), Value::Int64(1))])]);
        let value = Value::Map(vec![(s("content"), content), (s("list"), arr.clone())]);
        let out = run(&mut t, SchemaAndValue::schemaless(value)).unwrap();
        assert_eq!(out.schema, None);
        assert_eq!(
            out.value,
            Value::Map(vec![
                (s("content_id"), Value::Int64(42)),
                (s("content_name_first"), s("David")),
                (s("content_name_middle"), Value::Null),
                (s("content_name_last"), s("Wong")),
                (s("list"), arr),
            ])
        );
    }

    #[test]
    fn schemaless_needs_a_map_and_rejects_structs_inside() {
        let mut t = make("Flatten$Value", &[]);
        let err = run(&mut t, SchemaAndValue::schemaless(Value::Int64(1))).unwrap_err();
        assert_eq!(
            err.message,
            "Only Map objects supported in absence of schema for [flattening], found: java.lang.Long"
        );
        let st = Value::Struct(Struct::new(Arc::new(Schema::structure())));
        let inner = Value::Map(vec![(s("b"), st)]);
        let err =
            run(&mut t, SchemaAndValue::schemaless(Value::Map(vec![(s("a"), inner)]))).unwrap_err();
        assert_eq!(
            err.message,
            "Flatten transformation does not support class org.apache.kafka.connect.data.Struct \
             for record without schemas (for field a.b)."
        );
    }

    #[test]
    fn nested_structs_are_flattened_with_inherited_optionality_and_defaults() {
        let mut t = make("Flatten$Value", &[]);
        let mut inner_default = Struct::new(Arc::new(
            Schema::structure()
                .with_field("x", schema(Type::Int32))
                .with_field("y", schema(Type::String)),
        ));
        inner_default.values = vec![Value::Int32(5), s("dflt")];
        let mut inner = Schema::clone(&inner_default.schema).optional();
        inner.default = Some(Value::Struct(inner_default.clone()));
        let inner = Arc::new(inner);
        let mut items = Schema::array(schema(Type::Int8));
        items.doc = Some("kept".into());
        let mut top = Schema::structure()
            .named("top")
            .with_field("a", schema(Type::Int64))
            .with_field("inner", inner.clone())
            .with_field("items", Arc::new(items));
        top.version = Some(2);
        let top = Arc::new(top.optional());
        let mut in_v = Struct::new(inner);
        in_v.values = vec![Value::Int32(1), s("one")];
        let mut v = Struct::new(top.clone());
        v.values = vec![Value::Int64(9), Value::Struct(in_v), Value::Array(vec![Value::Int8(3)])];
        let out = run(&mut t, SchemaAndValue::new(top, Value::Struct(v))).unwrap();
        let fs = out.schema.unwrap();
        // Kafka Connect copies name, version and doc, but not the optionality, of the top
        // schema; its optionality passes to every field.
        assert_eq!((fs.name.as_deref(), fs.version, fs.optional), (Some("top"), Some(2), false));
        let names: Vec<&str> = fs.fields.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["a", "inner.x", "inner.y", "items"]);
        assert!(fs.fields.iter().all(|f| f.schema.optional));
        assert_eq!(fs.field("inner.x").unwrap().schema.default, Some(Value::Int32(5)));
        assert_eq!(fs.field("inner.y").unwrap().schema.default, Some(s("dflt")));
        assert_eq!(fs.field("a").unwrap().schema.default, None);
        let items = &fs.field("items").unwrap().schema;
        assert_eq!((items.ty, items.doc.as_deref()), (Type::Array, Some("kept")));
        assert_eq!(*items.value_schema.clone().unwrap(), Schema::new(Type::Int8));
        let Value::Struct(o) = out.value else { panic!() };
        assert!(Arc::ptr_eq(&o.schema, &fs));
        assert_eq!(
            o.values,
            [Value::Int64(9), Value::Int32(1), s("one"), Value::Array(vec![Value::Int8(3)])]
        );
    }

    #[test]
    fn a_null_nested_struct_takes_its_default_or_leaves_nulls() {
        let mut t = make("Flatten$Value", &[]);
        let leaf = Arc::new(Schema::structure().with_field("x", schema(Type::Int32)));
        let mut dflt = Struct::new(leaf.clone());
        dflt.values = vec![Value::Int32(4)];
        let mut with_default = Schema::clone(&leaf).optional();
        with_default.default = Some(Value::Struct(dflt));
        let top = Arc::new(
            Schema::structure()
                .with_field("d", Arc::new(with_default))
                .with_field("n", Arc::new(Schema::clone(&leaf).optional())),
        );
        let out =
            run(&mut t, SchemaAndValue::new(top.clone(), Value::Struct(Struct::new(top)))).unwrap();
        let Value::Struct(o) = out.value else { panic!() };
        assert_eq!(o.values, [Value::Int32(4), Value::Null]);
        assert!(o.schema.field("n.x").unwrap().schema.optional);
        // "d.x" is required in its struct, but its parent is optional.
        assert!(o.schema.field("d.x").unwrap().schema.optional);
    }

    #[test]
    fn maps_with_a_schema_are_refused_and_nulls_pass() {
        let mut t = make("Flatten$Value", &[]);
        let top = Arc::new(
            Schema::structure()
                .with_field("m", Arc::new(Schema::map(schema(Type::String), schema(Type::String)))),
        );
        let err =
            run(&mut t, SchemaAndValue::new(top.clone(), Value::Struct(Struct::new(top.clone()))))
                .unwrap_err();
        assert_eq!(
            err.message,
            "Flatten transformation does not support MAP for record with schemas (for field m)."
        );
        let out = run(&mut t, SchemaAndValue::new(top.clone(), Value::Null)).unwrap();
        assert_eq!((out.schema, out.value), (Some(top), Value::Null));
        let err =
            run(&mut t, SchemaAndValue::new(schema(Type::Int32), Value::Int32(1))).unwrap_err();
        assert_eq!(
            err.message,
            "Only Struct objects supported for [flattening], found: java.lang.Integer"
        );
    }

    #[test]
    fn the_key_variant_flattens_the_key_only() {
        let mut t = make("Flatten$Key", &[]);
        let nested = Value::Map(vec![(s("a"), Value::Map(vec![(s("b"), Value::Int64(1))]))]);
        let r = Record {
            topic: "t".into(),
            partition: None,
            offset: None,
            timestamp: None,
            key: Data::Typed(SchemaAndValue::schemaless(nested.clone())),
            value: Data::Typed(SchemaAndValue::schemaless(nested.clone())),
            headers: Vec::new(),
        };
        let mut out = t.apply(r).unwrap().unwrap();
        assert_eq!(out.key.typed().unwrap().value, Value::Map(vec![(s("a.b"), Value::Int64(1))]));
        assert_eq!(out.value.typed().unwrap().value, nested);
    }

    #[test]
    fn the_flattened_schema_is_cached() {
        let mut t = make("Flatten$Value", &[]);
        let top = Arc::new(Schema::structure().with_field("a", schema(Type::Int32)));
        let mut v = Struct::new(top.clone());
        v.values = vec![Value::Int32(1)];
        let a = run(&mut t, SchemaAndValue::new(top.clone(), Value::Struct(v.clone()))).unwrap();
        let b = run(&mut t, SchemaAndValue::new(top, Value::Struct(v))).unwrap();
        assert!(Arc::ptr_eq(&a.schema.unwrap(), &b.schema.unwrap()));
    }
}
