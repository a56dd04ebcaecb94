//! Kafka Connect's `MaskField$Key` and `MaskField$Value`: replaces the named fields of a
//! struct or schemaless map with their type's "empty" value (`0`, `false`, `""`, an empty
//! list or map, the epoch for the time types) or with `replacement` converted to the
//! field's type (numbers and strings only).
//!
//! The value's Java class decides, as in Kafka Connect: with a schema the field's logical
//! type makes a `java.util.Date` or `BigDecimal`; without one the value's own kind. This
//! module owns the transform; number parsing is `java_number`'s. It must not touch the
//! other side of the record.

use crate::config::{Default, Importance, KeyDef, KeyType, Parsed, Problem, Validator};
use crate::data::{DATE, DECIMAL, DECIMAL_SCALE, TIME, TIMESTAMP};
use crate::registry::{TransformDef, Transformation};
use crate::smt::connect_struct::{self, class_of};
use crate::smt::java_number::BigDecimal;
use crate::smt::side::{Side, require_map, require_struct};
use crate::{Data, Kind, Record, Schema, SchemaAndValue, Struct, TransformError, Value};

const PURPOSE: &str = "mask fields";

const DOC: &str = "Mask specified fields with a valid null value for the field type (i.e. 0, \
                   false, empty string, and so on). For numeric and string fields, an optional \
                   replacement value can be specified that is converted to the correct type.";

const KEYS: &[KeyDef] = &[
    KeyDef {
        name: "fields",
        ty: KeyType::List,
        default: Default::Required,
        validator: Some(Validator::Custom(connect_struct::non_empty_list)),
        importance: Importance::High,
        doc: "Names of the fields to mask.",
    },
    KeyDef {
        name: "replacement",
        ty: KeyType::String,
        default: Default::Null,
        validator: Some(Validator::NonEmpty),
        importance: Importance::Low,
        doc: "A custom replacement for every masked value (numeric or non-empty string values \
              only), converted to the field's type.",
    },
    super::side::REPLACE_NULL_WITH_DEFAULT,
];

/// The classes of this module.
pub(crate) const DEFS: &[TransformDef] = &[
    TransformDef {
        class: "org.apache.kafka.connect.transforms.MaskField$Key",
        doc: DOC,
        keys: KEYS,
        build: build_key,
    },
    TransformDef {
        class: "org.apache.kafka.connect.transforms.MaskField$Value",
        doc: DOC,
        keys: KEYS,
        build: build_value,
    },
];

fn build_key(parsed: &Parsed) -> Result<Box<dyn Transformation>, Vec<Problem>> {
    Ok(Box::new(MaskField::from_parsed(parsed, Side::Key)))
}

fn build_value(parsed: &Parsed) -> Result<Box<dyn Transformation>, Vec<Problem>> {
    Ok(Box::new(MaskField::from_parsed(parsed, Side::Value)))
}

struct MaskField {
    side: Side,
    fields: Vec<String>,
    replacement: Option<String>,
    replace_null_with_default: bool,
}

impl MaskField {
    fn from_parsed(parsed: &Parsed, side: Side) -> Self {
        let mut fields: Vec<String> = Vec::new();
        for f in parsed.list("fields") {
            if !fields.contains(f) {
                fields.push(f.clone());
            }
        }
        Self {
            side,
            fields,
            replacement: parsed.string("replacement").map(str::to_owned),
            replace_null_with_default: parsed.boolean("replace.null.with.default"),
        }
    }

    /// `masked(value)`; `schema` is the field's, when the data has one.
    fn masked(&self, value: &Value, schema: Option<&Schema>) -> Result<Value, TransformError> {
        if value.is_null() {
            return Ok(Value::Null);
        }
        let logical = schema.and_then(|s| s.name.as_deref());
        let decimal = matches!((logical, value), (Some(DECIMAL), Value::Bytes(_)));
        let date = matches!(
            (logical, value),
            (Some(DATE | TIME), Value::Int32(_)) | (Some(TIMESTAMP), Value::Int64(_))
        );
        let class = || class_of(schema, value);
        let Some(replacement) = &self.replacement else {
            return Ok(match value {
                _ if decimal => decimal_value(schema, &BigDecimal::zero())?,
                Value::Int32(_) if date => Value::Int32(0),
                Value::Int64(_) if date => Value::Int64(0),
                Value::Boolean(_) => Value::Boolean(false),
                Value::Int8(_) => Value::Int8(0),
                Value::Int16(_) => Value::Int16(0),
                Value::Int32(_) => Value::Int32(0),
                Value::Int64(_) => Value::Int64(0),
                Value::Float32(_) => Value::Float32(0.0),
                Value::Float64(_) => Value::Float64(0.0),
                Value::String(_) => Value::String(String::new()),
                Value::Array(_) => Value::Array(Vec::new()),
                Value::Map(_) => Value::Map(Vec::new()),
                _ => {
                    return Err(TransformError::new(format!(
                        "Cannot mask value of type: {}",
                        class()
                    )));
                }
            });
        };
        if decimal {
            let parsed = BigDecimal::parse(replacement).ok_or_else(|| {
                TransformError::new(format!(
                    "Unable to convert {replacement} (class java.lang.String) to number"
                ))
            })?;
            return decimal_value(schema, &parsed);
        }
        let number = || {
            BigDecimal::parse(replacement).ok_or_else(|| {
                TransformError::new(format!(
                    "Unable to convert {replacement} (class java.lang.String) to a number"
                ))
            })
        };
        Ok(match value {
            _ if date => {
                return Err(TransformError::new(format!(
                    "Cannot mask value of type {} with custom replacement.",
                    class()
                )));
            }
            Value::Int8(_) => Value::Int8(number()?.long_value() as i8),
            Value::Int16(_) => Value::Int16(number()?.long_value() as i16),
            Value::Int32(_) => Value::Int32(number()?.long_value() as i32),
            Value::Int64(_) => Value::Int64(number()?.long_value()),
            Value::Float32(_) => Value::Float32(number()?.double_value() as f32),
            Value::Float64(_) => Value::Float64(number()?.double_value()),
            Value::String(_) => Value::String(replacement.clone()),
            _ => {
                return Err(TransformError::new(format!(
                    "Cannot mask value of type {} with custom replacement.",
                    class()
                )));
            }
        })
    }

    fn with_schema(&self, value: &Struct) -> Result<Value, TransformError> {
        let mut updated = Struct::new(value.schema.clone());
        for field in &value.schema.fields {
            let original = connect_struct::get(value, field, self.replace_null_with_default);
            let v = if self.fields.contains(&field.name) {
                self.masked(&original, Some(&field.schema))?
            } else {
                original
            };
            connect_struct::put(&mut updated, &field.name, v)?;
        }
        Ok(Value::Struct(updated))
    }

    fn schemaless(&self, entries: &[(Value, Value)]) -> Result<Value, TransformError> {
        let mut updated = entries.to_vec();
        for field in &self.fields {
            let original = entries
                .iter()
                .find(|(k, _)| k.as_str() == Some(field))
                .map_or(Value::Null, |(_, v)| v.clone());
            // A field the map lacks is added as null, as `HashMap.put` does.
            connect_struct::map_put(&mut updated, field, self.masked(&original, None)?);
        }
        Ok(Value::Map(updated))
    }
}

/// A `BigDecimal` as the data of a `Decimal` schema. Kafka Connect keeps the `BigDecimal`
/// in the struct and fails in the converter when its scale is not the schema's; here the
/// bytes are made at once, so that failure comes now, with the converter's message.
fn decimal_value(schema: Option<&Schema>, value: &BigDecimal) -> Result<Value, TransformError> {
    let scale = schema
        .and_then(|s| s.parameter(DECIMAL_SCALE))
        .and_then(|s| s.parse::<i32>().ok())
        .ok_or_else(|| TransformError::new("Invalid Decimal schema: scale parameter not found."))?;
    if value.scale != scale {
        return Err(TransformError::new(format!(
            "Decimal value has mismatching scale for given Decimal schema. Schema has scale \
             {scale}, value has scale {}.",
            value.scale
        )));
    }
    Ok(Value::Bytes(value.unscaled_bytes()))
}

impl Transformation for MaskField {
    fn apply(&mut self, mut record: Record) -> Result<Option<Record>, TransformError> {
        let mut data = std::mem::replace(self.side.data(&mut record), Data::raw(Kind::Bytes, None));
        let typed = data.typed()?;
        let updated = match &typed.schema {
            None => SchemaAndValue::schemaless(
                self.schemaless(require_map(&mut typed.value, PURPOSE)?)?,
            ),
            Some(schema) => SchemaAndValue::new(
                schema.clone(),
                self.with_schema(require_struct(&mut typed.value, PURPOSE)?)?,
            ),
        };
        data = Data::Typed(updated);
        *self.side.data(&mut record) = data;
        Ok(Some(record))
    }
}

#[cfg(test)]
#[path = "mask_field_tests.rs"]
mod tests;
