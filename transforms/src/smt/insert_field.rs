//! Kafka Connect's `InsertField$Key` and `InsertField$Value`: adds fields holding the
//! record's topic, partition, offset (sink records only), timestamp, or a static string
//! to a struct (rebuilding its schema) or a schemaless map. A null key or value is left
//! as it is.
//!
//! A field spec ending in `!` makes the added field required, `?` (or nothing) optional.
//! This module owns the transform; it must not touch the other side of the record.

use std::sync::Arc;

use crate::config::{Default, Importance, KeyDef, KeyType, Parsed, Problem};
use crate::data::TIMESTAMP;
use crate::registry::{TransformDef, Transformation};
use crate::smt::connect_struct::{self, SchemaCache, plain};
use crate::smt::side::{Side, require_map, require_struct};
use crate::{Data, Kind, Record, Schema, SchemaAndValue, Struct, TransformError, Type, Value};

const PURPOSE: &str = "field insertion";

const DOC: &str = "Insert field(s) using attributes from the record metadata or a configured \
                   static value.";

const fn spec_key(name: &'static str, doc: &'static str) -> KeyDef {
    KeyDef {
        name,
        ty: KeyType::String,
        default: Default::Null,
        validator: None,
        importance: Importance::Medium,
        doc,
    }
}

const KEYS: &[KeyDef] = &[
    spec_key(
        "topic.field",
        "Field name for the Kafka topic. End with `!` for a required field, `?` (the default) for an optional one.",
    ),
    spec_key(
        "partition.field",
        "Field name for the Kafka partition. End with `!` for a required field, `?` (the default) for an optional one.",
    ),
    spec_key(
        "offset.field",
        "Field name for the Kafka offset, for sink connectors only. End with `!` for a required field, `?` (the default) for an optional one.",
    ),
    spec_key(
        "timestamp.field",
        "Field name for the record timestamp. End with `!` for a required field, `?` (the default) for an optional one.",
    ),
    spec_key(
        "static.field",
        "Field name for the static data field. End with `!` for a required field, `?` (the default) for an optional one.",
    ),
    spec_key("static.value", "The static field's value, when static.field is set."),
    super::side::REPLACE_NULL_WITH_DEFAULT,
];

/// The classes of this module.
pub(crate) const DEFS: &[TransformDef] = &[
    TransformDef {
        class: "org.apache.kafka.connect.transforms.InsertField$Key",
        doc: DOC,
        keys: KEYS,
        build: build_key,
    },
    TransformDef {
        class: "org.apache.kafka.connect.transforms.InsertField$Value",
        doc: DOC,
        keys: KEYS,
        build: build_value,
    },
];

fn build_key(parsed: &Parsed) -> Result<Box<dyn Transformation>, Vec<Problem>> {
    InsertField::build(parsed, Side::Key)
}

fn build_value(parsed: &Parsed) -> Result<Box<dyn Transformation>, Vec<Problem>> {
    InsertField::build(parsed, Side::Value)
}

/// `InsertionSpec`: a field name and whether the added field is optional.
#[derive(Clone, Debug)]
struct Spec {
    name: String,
    optional: bool,
}

impl Spec {
    fn parse(spec: Option<&str>) -> Option<Spec> {
        let spec = spec?;
        Some(if let Some(name) = spec.strip_suffix('?') {
            Spec { name: name.to_owned(), optional: true }
        } else if let Some(name) = spec.strip_suffix('!') {
            Spec { name: name.to_owned(), optional: false }
        } else {
            Spec { name: spec.to_owned(), optional: true }
        })
    }
}

/// The Kafka offset of a record, for `offset.field`: `None` on a source record.
fn kafka_offset(record: &Record) -> Option<i64> {
    record.offset
}

struct InsertField {
    side: Side,
    topic: Option<Spec>,
    partition: Option<Spec>,
    offset: Option<Spec>,
    timestamp: Option<Spec>,
    static_field: Option<Spec>,
    static_value: Option<String>,
    replace_null_with_default: bool,
    cache: SchemaCache,
}

impl InsertField {
    fn build(parsed: &Parsed, side: Side) -> Result<Box<dyn Transformation>, Vec<Problem>> {
        let t = Self {
            side,
            topic: Spec::parse(parsed.string("topic.field")),
            partition: Spec::parse(parsed.string("partition.field")),
            offset: Spec::parse(parsed.string("offset.field")),
            timestamp: Spec::parse(parsed.string("timestamp.field")),
            static_field: Spec::parse(parsed.string("static.field")),
            static_value: parsed.string("static.value").map(str::to_owned),
            replace_null_with_default: parsed.boolean("replace.null.with.default"),
            cache: SchemaCache::default(),
        };
        if t.topic.is_none()
            && t.partition.is_none()
            && t.offset.is_none()
            && t.timestamp.is_none()
            && t.static_field.is_none()
        {
            // A `ConfigException` that names no key: the problem names the transform.
            let key = parsed.prefix().trim_end_matches('.').to_owned();
            return Err(vec![Problem { key, message: "No field insertion configured".into() }]);
        }
        if let (Some(field), None) = (&t.static_field, &t.static_value) {
            // Kafka Connect prints the spec object itself (`InsertField$InsertionSpec@1b6d3586`);
            // we print its field name.
            return Err(vec![parsed.invalid(
                "static.value",
                "null",
                format!("No value specified for static field: {}", field.name),
            )]);
        }
        Ok(Box::new(t))
    }

    /// The values to insert, in Kafka Connect's order; `None` values are not inserted.
    fn insertions(&self, record: &Record) -> Result<Vec<(&str, Value)>, TransformError> {
        let mut out = Vec::new();
        if let Some(spec) = &self.topic {
            out.push((spec.name.as_str(), Value::String(record.topic.clone())));
        }
        if let (Some(spec), Some(p)) = (&self.partition, record.partition) {
            out.push((spec.name.as_str(), Value::Int32(p)));
        }
        if let Some(spec) = &self.offset {
            let offset = kafka_offset(record).ok_or_else(|| {
                TransformError::new(format!(
                    "Only SinkRecord supported for [{PURPOSE}], found: \
                     org.apache.kafka.connect.source.SourceRecord"
                ))
            })?;
            out.push((spec.name.as_str(), Value::Int64(offset)));
        }
        if let (Some(spec), Some(ts)) = (&self.timestamp, record.timestamp) {
            // A java.util.Date with a schema, a Long without: millis either way.
            out.push((spec.name.as_str(), Value::Int64(ts)));
        }
        if let (Some(spec), Some(v)) = (&self.static_field, &self.static_value) {
            out.push((spec.name.as_str(), Value::String(v.clone())));
        }
        Ok(out)
    }

    fn updated_schema(&self, schema: &Schema) -> Result<Schema, TransformError> {
        let mut builder = connect_struct::copy_basics(schema);
        for field in &schema.fields {
            connect_struct::add_field(&mut builder, &field.name, field.schema.clone())?;
        }
        let added = [
            (&self.topic, plain(Type::String, true), plain(Type::String, false)),
            (&self.partition, plain(Type::Int32, true), plain(Type::Int32, false)),
            (&self.offset, plain(Type::Int64, true), plain(Type::Int64, false)),
            (&self.timestamp, timestamp_schema(true), timestamp_schema(false)),
            (&self.static_field, plain(Type::String, true), plain(Type::String, false)),
        ];
        for (spec, optional, required) in added {
            if let Some(spec) = spec {
                let schema = if spec.optional { optional } else { required };
                connect_struct::add_field(&mut builder, &spec.name, schema)?;
            }
        }
        Ok(builder)
    }
}

/// Kafka Connect's `Timestamp.SCHEMA` (or its optional builder).
fn timestamp_schema(optional: bool) -> Arc<Schema> {
    let schema = Schema { version: Some(1), ..Schema::new(Type::Int64).named(TIMESTAMP) };
    Arc::new(if optional { schema.optional() } else { schema })
}

impl Transformation for InsertField {
    fn apply(&mut self, mut record: Record) -> Result<Option<Record>, TransformError> {
        if self.side.data(&mut record).is_null() {
            return Ok(Some(record));
        }
        let mut data = std::mem::replace(self.side.data(&mut record), Data::raw(Kind::Bytes, None));
        let typed = data.typed()?;
        let updated = match &typed.schema {
            _ if typed.value.is_null() => None,
            None => {
                let entries = require_map(&mut typed.value, PURPOSE)?;
                for (name, value) in self.insertions(&record)? {
                    connect_struct::map_put(entries, name, value);
                }
                None
            }
            Some(_) => {
                let value = require_struct(&mut typed.value, PURPOSE)?;
                let mut cache = std::mem::take(&mut self.cache);
                let schema = cache.get_or_try(&value.schema, |s| self.updated_schema(s));
                self.cache = cache;
                let schema = schema?;
                let mut updated = Struct::new(schema.clone());
                for field in &value.schema.fields {
                    let v = connect_struct::get(value, field, self.replace_null_with_default);
                    connect_struct::put(&mut updated, &field.name, v)?;
                }
                for (name, v) in self.insertions(&record)? {
                    connect_struct::put(&mut updated, name, v)?;
                }
                Some(SchemaAndValue::new(schema, Value::Struct(updated)))
            }
        };
        if let Some(updated) = updated {
            data = Data::Typed(updated);
        }
        *self.side.data(&mut record) = data;
        Ok(Some(record))
    }
}

#[cfg(test)]
#[path = "insert_field_tests.rs"]
mod tests;
