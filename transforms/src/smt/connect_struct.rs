//! Kafka Connect's `Struct` and `SchemaBuilder` rules that the field transforms
//! (`InsertField`, `ReplaceField`, `MaskField`, `ValueToKey`, `ExtractField`) share:
//! reading a field with or without its default (`Struct.get` / `getWithoutDefault`), a
//! checked put (`Struct.put`, which runs `ConnectSchema.validateValue`), building a struct
//! schema with `SchemaBuilder.field`'s name checks, `SchemaUtil.copySchemaBasics`, a
//! schemaless map's `put`, and a small schema cache (Kafka Connect's `LRUCache(16)`).
//!
//! It owns those rules and their messages; it must not know about any one transform.

use std::sync::Arc;

use crate::data::{DATE, DECIMAL, TIME, TIMESTAMP, java_class};
use crate::{Field, Schema, Struct, TransformError, Type, Value};

/// `Struct.get(field)` (`with_default`) or `Struct.getWithoutDefault(field)`.
pub(crate) fn get(s: &Struct, field: &Field, with_default: bool) -> Value {
    let value = &s.values[field.index];
    match (&field.schema.default, value) {
        (Some(default), Value::Null) if with_default => default.clone(),
        _ => value.clone(),
    }
}

/// `Struct.get(name)` / `getWithoutDefault(name)`: fails on an unknown field with
/// `{name} is not a valid field name`.
pub(crate) fn get_named(
    s: &Struct,
    name: &str,
    with_default: bool,
) -> Result<Value, TransformError> {
    let field = s
        .schema
        .field(name)
        .ok_or_else(|| TransformError::new(format!("{name} is not a valid field name")))?;
    Ok(get(s, field, with_default))
}

/// `Struct.put(name, value)`: the value is checked against the field's schema first.
pub(crate) fn put(s: &mut Struct, name: &str, value: Value) -> Result<(), TransformError> {
    let field = s
        .schema
        .field(name)
        .ok_or_else(|| TransformError::new(format!("{name} is not a valid field name")))?;
    validate_value(&format!("field: \"{name}\""), &field.schema, &value)?;
    let index = field.index;
    s.values[index] = value;
    Ok(())
}

/// The Java class Kafka Connect's messages name for a value of `schema` (`class
/// java.util.Date` for the time logical types, `class java.math.BigDecimal` for `Decimal`).
pub(crate) fn class_of(schema: Option<&Schema>, value: &Value) -> String {
    let logical = schema.and_then(|s| s.name.as_deref());
    match (logical, value) {
        (Some(DATE | TIME), Value::Int32(_)) | (Some(TIMESTAMP), Value::Int64(_)) => {
            "class java.util.Date".to_owned()
        }
        (Some(DECIMAL), Value::Bytes(_)) => "class java.math.BigDecimal".to_owned(),
        _ => format!("class {}", java_class(value)),
    }
}

/// `ConnectSchema.validateValue(schema, value, location)`, with Kafka Connect's messages.
fn validate_value(location: &str, schema: &Schema, value: &Value) -> Result<(), TransformError> {
    if value.is_null() {
        if schema.optional {
            return Ok(());
        }
        return Err(TransformError::new(format!(
            "Invalid value: null used for required {location}, schema type: {}",
            schema.ty.upper()
        )));
    }
    if value.inferred_type() != Some(schema.ty) {
        let name = schema.name.as_deref().map(|n| format!(" \"{n}\"")).unwrap_or_default();
        return Err(TransformError::new(format!(
            "Invalid Java object for schema{name} with type {}: {} for {location}",
            schema.ty.upper(),
            class_of(None, value)
        )));
    }
    match value {
        Value::Struct(s) => {
            if *s.schema != *schema {
                return Err(TransformError::new("Struct schemas do not match."));
            }
            s.validate()
        }
        Value::Array(items) => {
            let inner = schema.value_schema.as_deref().expect("an ARRAY schema has items");
            let at = format!("element of array {location}");
            items.iter().try_for_each(|v| validate_value(&at, inner, v))
        }
        Value::Map(entries) => {
            let keys = schema.key_schema.as_deref().expect("a MAP schema has keys");
            let values = schema.value_schema.as_deref().expect("a MAP schema has values");
            let (key_at, value_at) =
                (format!("key of map {location}"), format!("value of map {location}"));
            entries.iter().try_for_each(|(k, v)| {
                validate_value(&key_at, keys, k)?;
                validate_value(&value_at, values, v)
            })
        }
        _ => Ok(()),
    }
}

/// `SchemaUtil.copySchemaBasics(schema, SchemaBuilder.struct())`: a required STRUCT with
/// `source`'s name, version, doc and parameters, and no fields yet.
pub(crate) fn copy_basics(source: &Schema) -> Schema {
    Schema {
        name: source.name.clone(),
        version: source.version,
        doc: source.doc.clone(),
        parameters: source.parameters.clone(),
        ..Schema::structure()
    }
}

/// `SchemaBuilder.field(name, schema)` on a struct builder, with its checks.
pub(crate) fn add_field(
    builder: &mut Schema,
    name: &str,
    schema: Arc<Schema>,
) -> Result<(), TransformError> {
    if name.is_empty() {
        return Err(TransformError::new("fieldName cannot be null."));
    }
    if builder.field(name).is_some() {
        return Err(TransformError::new(format!(
            "Cannot create field because of field name duplication {name}"
        )));
    }
    let index = builder.fields.len();
    builder.fields.push(Field { name: name.to_owned(), index, schema });
    Ok(())
}

/// `map.put(key, value)` on a schemaless map with string keys: replaces the entry in
/// place, or appends one.
pub(crate) fn map_put(entries: &mut Vec<(Value, Value)>, key: &str, value: Value) {
    match entries.iter_mut().find(|(k, _)| k.as_str() == Some(key)) {
        Some(entry) => entry.1 = value,
        None => entries.push((Value::String(key.to_owned()), value)),
    }
}

/// A schema of one of Kafka Connect's plain types, required or optional.
pub(crate) fn plain(ty: Type, optional: bool) -> Arc<Schema> {
    let schema = Schema::new(ty);
    Arc::new(if optional { schema.optional() } else { schema })
}

/// Kafka Connect's `NonEmptyListValidator` (`Empty list`), for a LIST key's text.
pub(crate) fn non_empty_list(text: &str) -> Result<(), String> {
    if text.trim().is_empty() { Err("Empty list".into()) } else { Ok(()) }
}

/// Kafka Connect's `LRUCache<Schema, Schema>(16)`: derived schemas by input schema.
#[derive(Default)]
pub(crate) struct SchemaCache {
    entries: Vec<(Arc<Schema>, Arc<Schema>)>,
}

impl SchemaCache {
    const CAPACITY: usize = 16;

    /// The schema derived from `input`, derived with `make` on a miss.
    pub(crate) fn get_or_try(
        &mut self,
        input: &Arc<Schema>,
        make: impl FnOnce(&Schema) -> Result<Schema, TransformError>,
    ) -> Result<Arc<Schema>, TransformError> {
        let hit = self.entries.iter().position(|(k, _)| Arc::ptr_eq(k, input) || **k == **input);
        if let Some(i) = hit {
            let entry = self.entries.remove(i);
            let out = entry.1.clone();
            self.entries.push(entry);
            return Ok(out);
        }
        let out = Arc::new(make(input)?);
        if self.entries.len() == Self::CAPACITY {
            self.entries.remove(0);
        }
        self.entries.push((input.clone(), out.clone()));
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn put_checks_the_field_schema_as_struct_put_does() {
        let schema = Arc::new(
            Schema::structure()
                .with_field("a", plain(Type::Int32, false))
                .with_field("b", plain(Type::String, true)),
        );
        let mut s = Struct::new(schema);
        assert_eq!(
            put(&mut s, "a", Value::Null).unwrap_err().message,
            "Invalid value: null used for required field: \"a\", schema type: INT32"
        );
        assert_eq!(
            put(&mut s, "a", Value::String("x".into())).unwrap_err().message,
            "Invalid Java object for schema with type INT32: class java.lang.String for field: \"a\""
        );
        assert_eq!(
            put(&mut s, "c", Value::Null).unwrap_err().message,
            "c is not a valid field name"
        );
        put(&mut s, "a", Value::Int32(1)).unwrap();
        put(&mut s, "b", Value::Null).unwrap();
        assert_eq!(s.values, [Value::Int32(1), Value::Null]);
    }

    #[test]
    fn builder_rejects_empty_and_duplicate_names() {
        let mut b = Schema::structure();
        add_field(&mut b, "a", plain(Type::Int8, false)).unwrap();
        assert_eq!(
            add_field(&mut b, "a", plain(Type::Int8, false)).unwrap_err().message,
            "Cannot create field because of field name duplication a"
        );
        assert_eq!(
            add_field(&mut b, "", plain(Type::Int8, false)).unwrap_err().message,
            "fieldName cannot be null."
        );
    }

    #[test]
    fn cache_derives_once_per_schema() {
        let mut cache = SchemaCache::default();
        let input = plain(Type::Int8, false);
        let mut calls = 0;
        for _ in 0..2 {
            cache
                .get_or_try(&input, |_| {
                    calls += 1;
                    Ok(Schema::structure())
                })
                .unwrap();
        }
        assert_eq!(calls, 1);
    }
}
