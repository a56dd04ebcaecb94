//! Kafka Connect's `TimestampConverter` (`$Key`, `$Value`): converts a timestamp, the whole
//! key or value or one top-level field, between strings (a `SimpleDateFormat` pattern, in
//! UTC), Unix time (`unix.precision`) and the `Date`, `Time` and `Timestamp` logical types.
//!
//! Every conversion goes through epoch milliseconds, as Kafka Connect's goes through a
//! `java.util.Date`. This module owns the translators, the schemas that result and their
//! messages; the pattern language is `date_format`'s.

use std::sync::Arc;

use super::date_format::DateFormat;
use super::side::{Side, require_map, require_struct};
use crate::config::{Default, Importance, KeyDef, KeyType, Parsed, Problem, Validator};
use crate::data::{DATE, TIME, TIMESTAMP, java_class};
use crate::registry::{TransformDef, Transformation};
use crate::{Record, Schema, Struct, TransformError, Type, Value};

const DOC: &str = "Convert timestamps between different formats such as Unix epoch, strings, and \
                   Connect Date/Timestamp types. Applies to individual fields or to the entire \
                   value.";

const KEYS: &[KeyDef] = &[
    KeyDef {
        name: "field",
        ty: KeyType::String,
        default: Default::Value(""),
        validator: None,
        importance: Importance::High,
        doc: "The field holding the timestamp, or empty if the entire value is a timestamp",
    },
    KeyDef {
        name: "target.type",
        ty: KeyType::String,
        default: Default::Required,
        validator: Some(Validator::OneOf(&["string", "unix", "Date", "Time", "Timestamp"])),
        importance: Importance::High,
        doc: "The timestamp representation wanted: string, unix, Date, Time, or Timestamp",
    },
    KeyDef {
        name: "format",
        ty: KeyType::String,
        default: Default::Value(""),
        validator: None,
        importance: Importance::Medium,
        doc: "A SimpleDateFormat-compatible pattern, used to write the output when \
              target.type=string and to read the input when it is a string.",
    },
    KeyDef {
        name: "unix.precision",
        ty: KeyType::String,
        default: Default::Value("milliseconds"),
        validator: Some(Validator::OneOf(&[
            "nanoseconds",
            "microseconds",
            "milliseconds",
            "seconds",
        ])),
        importance: Importance::Low,
        doc: "The precision of Unix timestamps: seconds, milliseconds, microseconds, or \
              nanoseconds; used to write the output when target.type=unix and to read a Long \
              input. Sub-millisecond parts are lost in either direction.",
    },
    super::side::REPLACE_NULL_WITH_DEFAULT,
];

const PURPOSE: &str = "converting timestamp formats";
const MILLIS_PER_DAY: i64 = 86_400_000;

/// The classes of this module.
pub(crate) const DEFS: &[TransformDef] = &[
    TransformDef {
        class: "org.apache.kafka.connect.transforms.TimestampConverter$Key",
        doc: DOC,
        keys: KEYS,
        build: |p| build(p, Side::Key),
    },
    TransformDef {
        class: "org.apache.kafka.connect.transforms.TimestampConverter$Value",
        doc: DOC,
        keys: KEYS,
        build: |p| build(p, Side::Value),
    },
];

/// A timestamp representation (Kafka Connect's translators).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    String,
    Unix,
    Date,
    Time,
    Timestamp,
}

impl Kind {
    /// `TimestampTranslator.typeSchema`.
    fn schema(self, optional: bool) -> Arc<Schema> {
        let (ty, name) = match self {
            Kind::String => (Type::String, None),
            Kind::Unix => (Type::Int64, None),
            Kind::Date => (Type::Int32, Some(DATE)),
            Kind::Time => (Type::Int32, Some(TIME)),
            Kind::Timestamp => (Type::Int64, Some(TIMESTAMP)),
        };
        let mut s = Schema::new(ty);
        s.optional = optional;
        if let Some(name) = name {
            s.name = Some(name.into());
            s.version = Some(1);
        }
        Arc::new(s)
    }

    /// `timestampTypeFromSchema`.
    fn of_schema(schema: &Schema) -> Result<Kind, TransformError> {
        Ok(match (schema.name.as_deref(), schema.ty) {
            (Some(TIMESTAMP), _) => Kind::Timestamp,
            (Some(DATE), _) => Kind::Date,
            (Some(TIME), _) => Kind::Time,
            (_, Type::String) => Kind::String,
            (_, Type::Int64) => Kind::Unix,
            (name, ty) => {
                let shown = name.map_or(ty.upper().to_owned(), |n| format!("{n}:{}", ty.upper()));
                return Err(TransformError::new(format!(
                    "Schema Schema{{{shown}}} does not correspond to a known timestamp type format"
                )));
            }
        })
    }
}

fn build(parsed: &Parsed, side: Side) -> Result<Box<dyn Transformation>, Vec<Problem>> {
    let target = match parsed.string("target.type").unwrap_or_default() {
        "string" => Kind::String,
        "unix" => Kind::Unix,
        "Date" => Kind::Date,
        "Time" => Kind::Time,
        _ => Kind::Timestamp,
    };
    let pattern = parsed.string("format").unwrap_or_default();
    if target == Kind::String && pattern.is_empty() {
        return Err(vec![parsed.problem(
            "format",
            "TimestampConverter requires format option to be specified when using string timestamps",
        )]);
    }
    let format = if pattern.is_empty() {
        None
    } else {
        Some(DateFormat::new(pattern).map_err(|_| {
            vec![parsed.problem(
                "format",
                format!(
                    "TimestampConverter requires a SimpleDateFormat-compatible pattern for \
                     string timestamps: {pattern}"
                ),
            )]
        })?)
    };
    Ok(Box::new(TimestampConverter {
        side,
        field: parsed.string("field").unwrap_or_default().to_owned(),
        target,
        format,
        precision: parsed.string("unix.precision").unwrap_or("milliseconds").to_owned(),
        replace_null_with_default: parsed.boolean("replace.null.with.default"),
        cache: None,
    }))
}

struct TimestampConverter {
    side: Side,
    field: String,
    target: Kind,
    format: Option<DateFormat>,
    precision: String,
    replace_null_with_default: bool,
    /// The last struct schema converted and the schema built for it.
    cache: Option<(Arc<Schema>, Arc<Schema>)>,
}

impl TimestampConverter {
    /// `TimestampTranslator.toRaw`: epoch milliseconds.
    fn to_raw(&self, kind: Kind, value: &Value) -> Result<i64, TransformError> {
        let found = |what: &str| {
            TransformError::new(format!("Expected {what}, but found class {}", java_class(value)))
        };
        match (kind, value) {
            (Kind::String, Value::String(s)) => {
                let format = self.format.as_ref().ok_or_else(|| {
                    TransformError::new("TimestampConverter requires format option to be specified when using string timestamps")
                })?;
                format.parse(s).ok_or_else(|| {
                    TransformError::new(format!(
                        "Could not parse timestamp: value ({s}) does not match pattern ({})",
                        format.pattern()
                    ))
                })
            }
            (Kind::String, _) => Err(found("string timestamp to be a String")),
            (Kind::Unix, Value::Int64(t)) => Ok(match self.precision.as_str() {
                "seconds" => t.saturating_mul(1000),
                "microseconds" => t / 1000,
                "nanoseconds" => t / 1_000_000,
                _ => *t,
            }),
            (Kind::Unix, _) => Err(found("Unix timestamp to be a Long")),
            (Kind::Date, Value::Int32(days)) => Ok(i64::from(*days) * MILLIS_PER_DAY),
            (Kind::Time, Value::Int32(ms)) => Ok(i64::from(*ms)),
            (Kind::Timestamp, Value::Int64(ms)) => Ok(*ms),
            (Kind::Date, _) => Err(found("Date to be a java.util.Date")),
            (Kind::Time, _) => Err(found("Time to be a java.util.Date")),
            (Kind::Timestamp, _) => Err(found("Timestamp to be a java.util.Date")),
        }
    }

    /// `TimestampTranslator.toType`. With a schema, `Date` and `Time` are the INT32 Kafka
    /// Connect writes for them; without one, epoch milliseconds as an INT64.
    fn to_type(&self, ms: i64, with_schema: bool) -> Value {
        match self.target {
            Kind::String => {
                Value::String(self.format.as_ref().expect("checked when built").format(ms))
            }
            Kind::Unix => Value::Int64(match self.precision.as_str() {
                "seconds" => ms / 1000,
                "microseconds" => ms.saturating_mul(1000),
                "nanoseconds" => ms.saturating_mul(1_000_000),
                _ => ms,
            }),
            Kind::Timestamp => Value::Int64(ms),
            Kind::Date if with_schema => Value::Int32(ms.div_euclid(MILLIS_PER_DAY) as i32),
            Kind::Date => Value::Int64(ms.div_euclid(MILLIS_PER_DAY) * MILLIS_PER_DAY),
            Kind::Time if with_schema => Value::Int32(ms.rem_euclid(MILLIS_PER_DAY) as i32),
            Kind::Time => Value::Int64(ms.rem_euclid(MILLIS_PER_DAY)),
        }
    }

    /// `convertTimestamp`: `kind` from the schema, or (schemaless) inferred from the value.
    fn convert(&self, value: Value, kind: Option<Kind>) -> Result<Value, TransformError> {
        let with_schema = kind.is_some();
        if value.is_null() {
            return Ok(Value::Null);
        }
        let kind = match (kind, &value) {
            (Some(k), _) => k,
            (None, Value::Int64(_)) => Kind::Unix,
            (None, Value::String(_)) => Kind::String,
            (None, other) => {
                return Err(TransformError::new(format!(
                    "TimestampConverter does not support class {} objects as timestamps",
                    java_class(other)
                )));
            }
        };
        let ms = self.to_raw(kind, &value)?;
        Ok(self.to_type(ms, with_schema))
    }

    fn convert_struct(
        &self,
        value: &Struct,
        schema: &Arc<Schema>,
    ) -> Result<Struct, TransformError> {
        let mut out = Struct::new(schema.clone());
        for (field, v) in value.schema.fields.iter().zip(&value.values) {
            let v = match (v, &field.schema.default) {
                (Value::Null, Some(d)) if self.replace_null_with_default => d.clone(),
                (v, _) => v.clone(),
            };
            let v = if field.name == self.field {
                self.convert(v, Some(Kind::of_schema(&field.schema)?))?
            } else {
                v
            };
            out.put(&field.name, v)?;
        }
        Ok(out)
    }

    fn struct_schema(&mut self, schema: &Arc<Schema>) -> Result<Arc<Schema>, TransformError> {
        if let Some((from, to)) = &self.cache
            && (Arc::ptr_eq(from, schema) || **from == **schema)
        {
            return Ok(to.clone());
        }
        let mut out = Schema::structure();
        out.name = schema.name.clone();
        out.version = schema.version;
        out.doc = schema.doc.clone();
        out.parameters = schema.parameters.clone();
        for field in &schema.fields {
            let s = if field.name == self.field {
                self.target.schema(field.schema.optional)
            } else {
                field.schema.clone()
            };
            out = out.with_field(field.name.clone(), s);
        }
        out.optional = schema.optional;
        if let Some(Value::Struct(d)) = &schema.default {
            let shape = Arc::new(out.clone());
            out.default = Some(Value::Struct(self.convert_struct(d, &shape)?));
        }
        // The default struct's schema is the new schema without its default (a schema
        // cannot hold itself).
        let out = Arc::new(out);
        self.cache = Some((schema.clone(), out.clone()));
        Ok(out)
    }
}

impl Transformation for TimestampConverter {
    fn apply(&mut self, mut record: Record) -> Result<Option<Record>, TransformError> {
        let data = self.side.data(&mut record).typed()?;
        let value = std::mem::replace(&mut data.value, Value::Null);
        match data.schema.clone() {
            None => {
                data.value = if value.is_null() || self.field.is_empty() {
                    self.convert(value, None)?
                } else {
                    let mut value = value;
                    let entries = require_map(&mut value, PURPOSE)?;
                    match entries.iter_mut().find(|(k, _)| k.as_str() == Some(self.field.as_str()))
                    {
                        Some((_, v)) => {
                            *v = self.convert(std::mem::replace(v, Value::Null), None)?
                        }
                        None => entries.push((Value::String(self.field.clone()), Value::Null)),
                    }
                    value
                };
            }
            Some(schema) if self.field.is_empty() => {
                let kind = Kind::of_schema(&schema)?;
                data.value = self.convert(value, Some(kind))?;
                data.schema = Some(self.target.schema(schema.optional));
            }
            Some(schema) => {
                let mut value = value;
                if !value.is_null() {
                    require_struct(&mut value, PURPOSE)?;
                }
                let updated = self.struct_schema(&schema)?;
                data.value = match &value {
                    Value::Struct(s) => Value::Struct(self.convert_struct(s, &updated)?),
                    _ => Value::Null,
                };
                data.schema = Some(updated);
            }
        }
        Ok(Some(record))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::smt::test_support::build as make;
    use crate::{Data, SchemaAndValue};

    const FMT: &str = "yyyy MM dd HH mm ss SSS z";
    // One day and 1234 ms after the epoch, as Kafka Connect's tests use.
    const DATE_PLUS_TIME: i64 = 86_401_234;
    const DATE_PLUS_TIME_STRING: &str = "1970 01 02 00 00 01 234 UTC";

    fn value(props: &[(&str, &str)], sv: SchemaAndValue) -> Result<SchemaAndValue, TransformError> {
        let mut t = make("TimestampConverter$Value", props).unwrap();
        let r = Record {
            topic: "t".into(),
            partition: None,
            offset: None,
            timestamp: None,
            key: Data::Typed(SchemaAndValue::schemaless(Value::Null)),
            value: Data::Typed(sv),
            headers: Vec::new(),
        };
        let mut out = t.apply(r)?.unwrap();
        Ok(out.value.typed()?.clone())
    }

    fn s(x: &str) -> Value {
        Value::String(x.into())
    }

    #[test]
    fn config_problems() {
        let p = make("TimestampConverter$Value", &[("target.type", "string")]).err().unwrap();
        assert_eq!(
            p[0].message,
            "TimestampConverter requires format option to be specified when using string timestamps"
        );
        let p = make(
            "TimestampConverter$Value",
            &[("target.type", "string"), ("format", "bad-pattern")],
        )
        .err()
        .unwrap();
        assert_eq!(
            p[0].message,
            "TimestampConverter requires a SimpleDateFormat-compatible pattern for string timestamps: bad-pattern"
        );
        let p = make("TimestampConverter$Value", &[("target.type", "date")]).err().unwrap();
        assert_eq!(
            p[0].message,
            "Invalid value date for configuration transforms.t.target.type: String must be one of: \
             string, unix, Date, Time, Timestamp"
        );
        let p = make("TimestampConverter$Key", &[]).err().unwrap();
        assert!(
            p[0].message.starts_with("Missing required configuration \"transforms.t.target.type\"")
        );
        let p =
            make("TimestampConverter$Key", &[("target.type", "unix"), ("unix.precision", "days")])
                .err()
                .unwrap();
        assert!(
            p[0].message.ends_with(
                "String must be one of: nanoseconds, microseconds, milliseconds, seconds"
            )
        );
    }

    #[test]
    fn whole_values_with_schema_to_every_target() {
        let ts = SchemaAndValue::new(Kind::Timestamp.schema(false), Value::Int64(DATE_PLUS_TIME));
        let cases = [
            (vec![("target.type", "Timestamp")], Kind::Timestamp, Value::Int64(DATE_PLUS_TIME)),
            (vec![("target.type", "Date")], Kind::Date, Value::Int32(1)),
            (vec![("target.type", "Time")], Kind::Time, Value::Int32(1234)),
            (vec![("target.type", "unix")], Kind::Unix, Value::Int64(DATE_PLUS_TIME)),
            (
                vec![("target.type", "unix"), ("unix.precision", "seconds")],
                Kind::Unix,
                Value::Int64(86_401),
            ),
            (
                vec![("target.type", "unix"), ("unix.precision", "microseconds")],
                Kind::Unix,
                Value::Int64(86_401_234_000),
            ),
            (
                vec![("target.type", "unix"), ("unix.precision", "nanoseconds")],
                Kind::Unix,
                Value::Int64(86_401_234_000_000),
            ),
            (
                vec![("target.type", "string"), ("format", FMT)],
                Kind::String,
                s(DATE_PLUS_TIME_STRING),
            ),
        ];
        for (props, kind, expected) in cases {
            let out = value(&props, ts.clone()).unwrap();
            assert_eq!(out.value, expected, "{props:?}");
            assert_eq!(out.schema.unwrap(), kind.schema(false));
        }
        // The logical schemas are Kafka Connect's own, version 1.
        let date = Kind::Date.schema(true);
        assert_eq!(
            (date.name.as_deref(), date.version, date.ty, date.optional),
            (Some(DATE), Some(1), Type::Int32, true)
        );
    }

    #[test]
    fn whole_values_with_schema_from_every_source() {
        let to_ts = [("target.type", "Timestamp"), ("format", FMT)];
        let sources = [
            SchemaAndValue::new(Kind::Date.schema(false), Value::Int32(1)),
            SchemaAndValue::new(Kind::Time.schema(false), Value::Int32(1234)),
            SchemaAndValue::new(Arc::new(Schema::new(Type::Int64)), Value::Int64(DATE_PLUS_TIME)),
            SchemaAndValue::new(Arc::new(Schema::new(Type::String)), s(DATE_PLUS_TIME_STRING)),
        ];
        let expected = [86_400_000, 1234, DATE_PLUS_TIME, DATE_PLUS_TIME];
        for (src, ms) in sources.into_iter().zip(expected) {
            assert_eq!(value(&to_ts, src).unwrap().value, Value::Int64(ms));
        }
        let unix_s = [("target.type", "Timestamp"), ("unix.precision", "seconds")];
        let src = SchemaAndValue::new(
            Arc::new(Schema::new(Type::Int64).optional()),
            Value::Int64(86_401),
        );
        let out = value(&unix_s, src).unwrap();
        assert_eq!((out.value, out.schema.unwrap().optional), (Value::Int64(86_401_000), true));
        let bad = SchemaAndValue::new(Arc::new(Schema::new(Type::Int32)), Value::Null);
        assert_eq!(
            value(&to_ts, bad).unwrap_err().message,
            "Schema Schema{INT32} does not correspond to a known timestamp type format"
        );
        let unparsable = SchemaAndValue::new(Schema::optional_string(), s("yesterday"));
        assert_eq!(
            value(&to_ts, unparsable).unwrap_err().message,
            "Could not parse timestamp: value (yesterday) does not match pattern (yyyy MM dd HH mm ss SSS z)"
        );
    }

    #[test]
    fn schemaless_whole_values() {
        let out = value(
            &[("target.type", "string"), ("format", FMT)],
            SchemaAndValue::schemaless(Value::Int64(DATE_PLUS_TIME)),
        )
        .unwrap();
        assert_eq!(out, SchemaAndValue::schemaless(s(DATE_PLUS_TIME_STRING)));
        let out = value(
            &[("target.type", "unix"), ("format", FMT)],
            SchemaAndValue::schemaless(s(DATE_PLUS_TIME_STRING)),
        )
        .unwrap();
        assert_eq!(out.value, Value::Int64(DATE_PLUS_TIME));
        // Without a schema there is no java.util.Date: Date, Time and Timestamp are written as
        // epoch milliseconds.
        let out = value(
            &[("target.type", "Date")],
            SchemaAndValue::schemaless(Value::Int64(DATE_PLUS_TIME)),
        )
        .unwrap();
        assert_eq!(out.value, Value::Int64(86_400_000));
        let out = value(
            &[("target.type", "Time")],
            SchemaAndValue::schemaless(Value::Int64(DATE_PLUS_TIME)),
        )
        .unwrap();
        assert_eq!(out.value, Value::Int64(1234));
        let out =
            value(&[("target.type", "Date")], SchemaAndValue::schemaless(Value::Null)).unwrap();
        assert_eq!(out.value, Value::Null);
        let err = value(&[("target.type", "Date")], SchemaAndValue::schemaless(Value::Int32(1)))
            .unwrap_err();
        assert_eq!(
            err.message,
            "TimestampConverter does not support class java.lang.Integer objects as timestamps"
        );
    }

    #[test]
    fn a_field_schemaless() {
        let props = [("target.type", "Date"), ("field", "ts")];
        let map = Value::Map(vec![(s("ts"), Value::Int64(DATE_PLUS_TIME)), (s("other"), s("x"))]);
        let out = value(&props, SchemaAndValue::schemaless(map)).unwrap();
        assert_eq!(
            out.value,
            Value::Map(vec![(s("ts"), Value::Int64(86_400_000)), (s("other"), s("x"))])
        );
        let out = value(&props, SchemaAndValue::schemaless(Value::Map(vec![]))).unwrap();
        assert_eq!(out.value, Value::Map(vec![(s("ts"), Value::Null)]));
        let err = value(&props, SchemaAndValue::schemaless(s("x"))).unwrap_err();
        assert_eq!(
            err.message,
            "Only Map objects supported in absence of schema for [converting timestamp formats], found: java.lang.String"
        );
    }

    #[test]
    fn a_field_with_schema_and_its_default() {
        let mut ts_default = Schema::clone(&Kind::Timestamp.schema(true));
        ts_default.default = Some(Value::Int64(DATE_PLUS_TIME));
        let schema = Arc::new(
            Schema::structure()
                .named("rec")
                .with_field("ts", Arc::new(ts_default))
                .with_field("other", Schema::optional_string()),
        );
        let mut v = Struct::new(schema.clone());
        v.values = vec![Value::Null, s("kept")];
        for (replace, expected) in
            [("true", s("1970 01 02 00 00 01 234 UTC")), ("false", Value::Null)]
        {
            let props = [
                ("target.type", "string"),
                ("format", FMT),
                ("field", "ts"),
                ("replace.null.with.default", replace),
            ];
            let out = value(&props, SchemaAndValue::new(schema.clone(), Value::Struct(v.clone())))
                .unwrap();
            let updated = out.schema.unwrap();
            assert_eq!(updated.name.as_deref(), Some("rec"));
            // The converted field's schema is the target's plain schema: its default is gone.
            assert_eq!(updated.field("ts").unwrap().schema, Schema::optional_string());
            assert_eq!(updated.field("other").unwrap().schema, Schema::optional_string());
            let Value::Struct(o) = out.value else { panic!() };
            assert_eq!(o.values, [expected, s("kept")]);
            assert!(Arc::ptr_eq(&o.schema, &updated));
        }
        let out = value(
            &[("target.type", "unix"), ("field", "ts")],
            SchemaAndValue::new(schema.clone(), Value::Null),
        )
        .unwrap();
        assert_eq!(out.value, Value::Null);
        assert_eq!(out.schema.unwrap().field("ts").unwrap().schema.ty, Type::Int64);
        let err = value(
            &[("target.type", "unix"), ("field", "other")],
            SchemaAndValue::new(schema.clone(), Value::Struct(v)),
        )
        .unwrap_err();
        // "other" is a string, read with the (missing) format.
        assert!(err.message.contains("requires format option"), "{}", err.message);
    }

    #[test]
    fn the_key_variant_converts_the_key() {
        let mut t = make("TimestampConverter$Key", &[("target.type", "Timestamp")]).unwrap();
        let r = Record {
            topic: "t".into(),
            partition: None,
            offset: None,
            timestamp: None,
            key: Data::Typed(SchemaAndValue::new(
                Arc::new(Schema::new(Type::Int64)),
                Value::Int64(-1),
            )),
            value: Data::Typed(SchemaAndValue::schemaless(Value::Int64(5))),
            headers: Vec::new(),
        };
        let mut out = t.apply(r).unwrap().unwrap();
        let key = out.key.typed().unwrap().clone();
        assert_eq!(
            (key.schema.unwrap(), key.value),
            (Kind::Timestamp.schema(false), Value::Int64(-1))
        );
        assert_eq!(out.value.typed().unwrap().value, Value::Int64(5));
    }
}
