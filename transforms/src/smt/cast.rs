//! Kafka Connect's `Cast` (`$Key`, `$Value`): casts the whole key or value, or top-level
//! fields of a struct or map, to a primitive type (`spec`: `int32` or `f1:int32,f2:string`).
//!
//! This module owns `spec`'s parsing and messages, which values are cast and the schema
//! that results (as `Cast.getOrBuildSchema` builds it); how one value is cast is
//! `cast_value`'s.

use std::sync::Arc;

use super::cast_value::{OUTPUTS, cast, type_list};
use super::side::{Side, require_map, require_struct};
use crate::config::{Default, Importance, KeyDef, KeyType, Parsed, Problem};
use crate::registry::{TransformDef, Transformation};
use crate::{Record, Schema, Struct, TransformError, Type, Value};

const DOC: &str = "Cast fields or the entire key or value to a specific type, e.g. to force an \
                   integer field to a smaller width. Casts from integers, floats, boolean and \
                   string to any other type, and from binary to string (base64 encoded).";

const KEYS: &[KeyDef] = &[
    KeyDef {
        name: "spec",
        ty: KeyType::List,
        default: Default::Required,
        validator: None,
        importance: Importance::High,
        doc: "Fields and the types to cast them to, as field1:type,field2:type, for fields of \
              Maps or Structs; or a single type to cast the entire value. Valid types are \
              int8, int16, int32, int64, float32, float64, boolean, and string; binary \
              fields can only be cast to string.",
    },
    super::side::REPLACE_NULL_WITH_DEFAULT,
];

const PURPOSE: &str = "cast types";

/// The classes of this module.
pub(crate) const DEFS: &[TransformDef] = &[
    TransformDef {
        class: "org.apache.kafka.connect.transforms.Cast$Key",
        doc: DOC,
        keys: KEYS,
        build: |p| build(p, Side::Key),
    },
    TransformDef {
        class: "org.apache.kafka.connect.transforms.Cast$Value",
        doc: DOC,
        keys: KEYS,
        build: |p| build(p, Side::Value),
    },
];

/// What `spec` asks for.
#[derive(Debug, PartialEq)]
enum Spec {
    Whole(Type),
    /// Per field, in `spec`'s order; a later entry for a field replaces an earlier one.
    Fields(Vec<(String, Type)>),
}

fn build(parsed: &Parsed, side: Side) -> Result<Box<dyn Transformation>, Vec<Problem>> {
    let spec = parse_spec(parsed.list("spec")).map_err(|m| vec![parsed.problem("spec", m)])?;
    let replace_null_with_default = parsed.boolean("replace.null.with.default");
    Ok(Box::new(Cast { side, spec, replace_null_with_default, cache: None }))
}

/// `Cast.parseFieldTypes`, with Kafka Connect's messages.
fn parse_spec(mappings: &[String]) -> Result<Spec, String> {
    if mappings.is_empty() {
        return Err("Must specify at least one field to cast.".into());
    }
    let target = |name: &str| {
        let ty = Type::ALL
            .into_iter()
            .find(|t| t.upper().eq_ignore_ascii_case(name.trim()))
            .ok_or_else(|| format!("Invalid type found in casting spec: {}", name.trim()))?;
        if OUTPUTS.contains(&ty) {
            Ok(ty)
        } else {
            Err(format!(
                "Cast transformation does not support casting to {}; supported types are {}",
                ty.upper(),
                type_list(OUTPUTS)
            ))
        }
    };
    let mut whole = None;
    let mut fields: Vec<(String, Type)> = Vec::new();
    for mapping in mappings {
        // Java's `split(":")` drops trailing empty parts.
        let mut parts: Vec<&str> = mapping.split(':').collect();
        while parts.len() > 1 && parts.last() == Some(&"") {
            parts.pop();
        }
        if mapping.chars().all(|c| c == ':') && !mapping.is_empty() {
            parts.clear();
        }
        match parts.as_slice() {
            [ty] => whole = Some(target(ty)?),
            [field, ty] => {
                let ty = target(ty)?;
                let field = field.trim().to_owned();
                match fields.iter_mut().find(|(f, _)| *f == field) {
                    Some(entry) => entry.1 = ty,
                    None => fields.push((field, ty)),
                }
            }
            [] => return Err("Index 1 out of bounds for length 0".into()),
            _ => {
                // Kafka Connect reports this under ReplaceField's key.
                return Err(format!(
                    "Invalid value [{}] for configuration renames: Invalid rename mapping: {mapping}",
                    mappings.join(", ")
                ));
            }
        }
    }
    match whole {
        Some(_) if mappings.len() > 1 => Err("Cast transformations that specify a type to cast \
                                              the entire value to may only specify a single cast \
                                              in their spec"
            .into()),
        Some(ty) => Ok(Spec::Whole(ty)),
        None => Ok(Spec::Fields(fields)),
    }
}

struct Cast {
    side: Side,
    spec: Spec,
    replace_null_with_default: bool,
    /// The last schema cast and the schema built for it.
    cache: Option<(Arc<Schema>, Arc<Schema>)>,
}

impl Cast {
    fn field_type(&self, name: &str) -> Option<Type> {
        match &self.spec {
            Spec::Whole(_) => None,
            Spec::Fields(f) => f.iter().find(|(n, _)| n == name).map(|(_, t)| *t),
        }
    }

    /// `Cast.getOrBuildSchema`.
    fn updated_schema(&mut self, schema: &Arc<Schema>) -> Result<Arc<Schema>, TransformError> {
        if let Some((from, to)) = &self.cache
            && (Arc::ptr_eq(from, schema) || **from == **schema)
        {
            return Ok(to.clone());
        }
        let mut out = match &self.spec {
            Spec::Whole(ty) => basics(schema, *ty),
            Spec::Fields(_) => {
                let mut out = basics(schema, Type::Struct);
                for field in &schema.fields {
                    let field_schema = match self.field_type(&field.name) {
                        None => field.schema.clone(),
                        Some(ty) => {
                            let mut s = Schema::new(ty);
                            s.optional = field.schema.optional;
                            if let Some(d) = &field.schema.default {
                                s.default = Some(cast(Some(&field.schema), d.clone(), ty)?);
                            }
                            Arc::new(s)
                        }
                    };
                    out = out.with_field(field.name.clone(), field_schema);
                }
                out
            }
        };
        out.optional = schema.optional;
        if let Some(d) = &schema.default {
            out.default = Some(cast(Some(schema), d.clone(), out.ty)?);
        }
        let out = Arc::new(out);
        self.cache = Some((schema.clone(), out.clone()));
        Ok(out)
    }
}

/// `SchemaUtil.copySchemaBasics(schema, builder of ty)`: name, version, doc, parameters.
fn basics(schema: &Schema, ty: Type) -> Schema {
    let mut out = Schema::new(ty);
    out.name = schema.name.clone();
    out.version = schema.version;
    out.doc = schema.doc.clone();
    out.parameters = schema.parameters.clone();
    out
}

impl Transformation for Cast {
    fn apply(&mut self, mut record: Record) -> Result<Option<Record>, TransformError> {
        if self.side.data(&mut record).is_null() {
            return Ok(Some(record));
        }
        let data = self.side.data(&mut record).typed()?;
        if data.value.is_null() {
            return Ok(Some(record));
        }
        let value = std::mem::replace(&mut data.value, Value::Null);
        match data.schema.clone() {
            None => match &self.spec {
                Spec::Whole(ty) => data.value = cast(None, value, *ty)?,
                Spec::Fields(fields) => {
                    let mut value = value;
                    let entries = require_map(&mut value, PURPOSE)?;
                    for (name, ty) in fields {
                        let slot = entries.iter_mut().find(|(k, _)| k.as_str() == Some(name));
                        match slot {
                            Some((_, v)) => {
                                *v = cast(None, std::mem::replace(v, Value::Null), *ty)?
                            }
                            // Kafka Connect puts the missing field in, as null.
                            None => entries.push((Value::String(name.clone()), Value::Null)),
                        }
                    }
                    data.value = value;
                }
            },
            Some(schema) => {
                let updated = self.updated_schema(&schema)?;
                data.value = match self.spec {
                    Spec::Whole(ty) => cast(Some(&schema), value, ty)?,
                    Spec::Fields(_) => {
                        let mut value = value;
                        let old = require_struct(&mut value, PURPOSE)?;
                        let mut out = Struct::new(updated.clone());
                        for (field, v) in
                            old.schema.fields.iter().zip(std::mem::take(&mut old.values))
                        {
                            let v = match (v, &field.schema.default) {
                                (Value::Null, Some(d)) if self.replace_null_with_default => {
                                    d.clone()
                                }
                                (v, _) => v,
                            };
                            let v = match self.field_type(&field.name) {
                                Some(ty) => cast(Some(&field.schema), v, ty)?,
                                None => v,
                            };
                            out.put(&field.name, v)?;
                        }
                        Value::Struct(out)
                    }
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
    use crate::data::{DATE, DECIMAL, TIME, TIMESTAMP};
    use crate::smt::test_support::build as make;
    use crate::{Data, SchemaAndValue};

    fn spec_problem(spec: &str) -> String {
        make("Cast$Value", &[("spec", spec)]).err().unwrap()[0].message.clone()
    }

    fn run(
        t: &mut Box<dyn Transformation>,
        value: SchemaAndValue,
    ) -> Result<SchemaAndValue, TransformError> {
        let r = Record {
            offset: None,
            topic: "t".into(),
            partition: None,
            timestamp: None,
            key: Data::Typed(SchemaAndValue::schemaless(Value::Null)),
            value: Data::Typed(value),
            headers: Vec::new(),
        };
        let mut out = t.apply(r)?.unwrap();
        Ok(out.value.typed()?.clone())
    }

    fn whole(
        spec: &str,
        schema: Option<Schema>,
        v: Value,
    ) -> Result<SchemaAndValue, TransformError> {
        let mut t = make("Cast$Value", &[("spec", spec)]).unwrap();
        let sv = match schema {
            Some(s) => SchemaAndValue::new(Arc::new(s), v),
            None => SchemaAndValue::schemaless(v),
        };
        run(&mut t, sv)
    }

    fn s(x: &str) -> Value {
        Value::String(x.into())
    }

    fn logical(ty: Type, name: &str) -> Arc<Schema> {
        Arc::new(Schema::new(ty).named(name))
    }

    fn decimal(scale: i32) -> Schema {
        let mut d = Schema::new(Type::Bytes).named(DECIMAL);
        d.parameters = vec![("scale".into(), scale.to_string())];
        d
    }

    #[test]
    fn spec_problems_carry_kafka_connects_messages() {
        assert_eq!(spec_problem(""), "Must specify at least one field to cast.");
        assert_eq!(spec_problem("foo:faketype"), "Invalid type found in casting spec: faketype");
        assert_eq!(
            spec_problem("foo:array"),
            "Cast transformation does not support casting to ARRAY; supported types are \
             [INT8, INT16, INT32, INT64, FLOAT32, FLOAT64, BOOLEAN, STRING]"
        );
        assert!(
            spec_problem("bytes")
                .starts_with("Cast transformation does not support casting to BYTES")
        );
        // Kafka Connect's docs name ReplaceField's key for this; its code does exactly that.
        assert_eq!(
            spec_problem("foo:int8:extra"),
            "Invalid value [foo:int8:extra] for configuration renames: Invalid rename mapping: foo:int8:extra"
        );
        assert_eq!(
            spec_problem("foo:int8,int32"),
            "Cast transformations that specify a type to cast the entire value to may only specify a single cast in their spec"
        );
        // `split(":")` drops the empty type: "foo" is then read as a type.
        assert_eq!(spec_problem("foo:"), "Invalid type found in casting spec: foo");
        let problems = make("Cast$Key", &[("spec", "int8")]).map(|_| ()).err();
        assert_eq!(problems, None);
        assert_eq!(
            parse_spec(&["a:int8".into(), "a:INT16".into()]).unwrap(),
            Spec::Fields(vec![("a".into(), Type::Int16)])
        );
    }

    #[test]
    fn whole_values_with_schema_cast_to_every_target() {
        let int32 = || Some(Schema::new(Type::Int32));
        let cases = [
            ("int8", Value::Int8(42)),
            ("int16", Value::Int16(42)),
            ("int32", Value::Int32(42)),
            ("int64", Value::Int64(42)),
            ("float32", Value::Float32(42.0)),
            ("float64", Value::Float64(42.0)),
            ("boolean", Value::Boolean(true)),
            ("string", s("42")),
        ];
        for (spec, expected) in cases {
            let out = whole(spec, int32(), Value::Int32(42)).unwrap();
            assert_eq!(out.value, expected, "{spec}");
            assert_eq!(out.schema.unwrap().ty, expected.inferred_type().unwrap());
        }
        assert_eq!(
            whole("boolean", int32(), Value::Int32(0)).unwrap().value,
            Value::Boolean(false)
        );
    }

    #[test]
    fn whole_value_keeps_the_schema_basics_and_casts_the_default() {
        let mut f = Schema::new(Type::Float32).named("n");
        f.default = Some(Value::Float32(-42.125));
        f.doc = Some("d".into());
        let out = whole("int32", Some(f), Value::Float32(42.125)).unwrap();
        assert_eq!(out.value, Value::Int32(42));
        let schema = out.schema.unwrap();
        assert_eq!((schema.ty, schema.default.clone()), (Type::Int32, Some(Value::Int32(-42))));
        assert_eq!((schema.name.as_deref(), schema.doc.as_deref()), (Some("n"), Some("d")));
    }

    #[test]
    fn whole_values_schemaless_and_the_key_side() {
        assert_eq!(
            whole("int8", None, Value::Int64(42)).unwrap(),
            SchemaAndValue::schemaless(Value::Int8(42))
        );
        assert_eq!(whole("string", None, Value::Int64(42)).unwrap().value, s("42"));
        assert_eq!(whole("float64", None, s("1e3")).unwrap().value, Value::Float64(1000.0));
        assert_eq!(
            whole("int8", None, Value::Array(vec![s("foo")])).unwrap_err().message,
            "Cast transformation does not support casting from ARRAY; supported types are \
             [INT8, INT16, INT32, INT64, FLOAT32, FLOAT64, BOOLEAN, STRING, BYTES]"
        );
        assert_eq!(
            whole("int8", None, s("300")).unwrap_err().message,
            "Value (300) was out of range for requested data type"
        );
        let mut t = make("Cast$Key", &[("spec", "int8")]).unwrap();
        let r = Record {
            offset: None,
            topic: "t".into(),
            partition: None,
            timestamp: None,
            key: Data::Typed(SchemaAndValue::new(
                Arc::new(Schema::new(Type::Int32)),
                Value::Int32(42),
            )),
            value: Data::Typed(SchemaAndValue::schemaless(s("bogus"))),
            headers: Vec::new(),
        };
        let mut out = t.apply(r).unwrap().unwrap();
        assert_eq!(out.key.typed().unwrap().value, Value::Int8(42));
        assert_eq!(out.value.typed().unwrap().value, s("bogus"));
    }

    #[test]
    fn null_values_pass_untouched() {
        let tombstone = SchemaAndValue::new(Schema::optional_string(), Value::Null);
        let mut t = make("Cast$Value", &[("spec", "foo:int64")]).unwrap();
        assert_eq!(run(&mut t, tombstone.clone()).unwrap(), tombstone);
        assert_eq!(
            run(&mut t, SchemaAndValue::schemaless(Value::Null)).unwrap().value,
            Value::Null
        );
    }

    #[test]
    fn whole_decimal_and_timestamp_to_string() {
        let out = whole("string", Some(decimal(0)), Value::Bytes(vec![42])).unwrap();
        assert_eq!(out.value, s("42"));
        // Kafka Connect keeps the logical name and parameters on the STRING schema.
        assert_eq!(out.schema.unwrap().name.as_deref(), Some(DECIMAL));
        let ts = Schema::new(Type::Int64).named(TIMESTAMP);
        assert_eq!(
            whole("string", Some(ts), Value::Int64(86_400_001)).unwrap().value,
            s("1970-01-02T00:00:00.001Z")
        );
        let st = Schema::structure().with_field("a", Arc::new(Schema::new(Type::Int8)));
        let st = Arc::new(st);
        let err =
            whole("string", Some(Schema::clone(&st)), Value::Struct(Struct::new(st))).unwrap_err();
        assert!(
            err.message.starts_with("Cast transformation does not support casting from STRUCT;"),
            "{}",
            err.message
        );
    }

    #[test]
    fn fields_with_schema_as_kafka_connects_test_casts_them() {
        let spec = "int8:int16,int16:int32,int32:int64,int64:boolean,float32:float64,float64:boolean,\
                    boolean:int8,string:int32,bigdecimal:string,date:string,optional:int32,bytes:string";
        let mut t = make("Cast$Value", &[("spec", spec)]).unwrap();
        let with_default = |ty, d| {
            let mut s = Schema::new(ty);
            s.default = Some(d);
            Arc::new(s)
        };
        let p = |ty| Arc::new(Schema::new(ty));
        let schema = Arc::new(
            Schema::structure()
                .with_field("int8", p(Type::Int8))
                .with_field("int16", Arc::new(Schema::new(Type::Int16).optional()))
                .with_field("int32", with_default(Type::Int32, Value::Int32(2)))
                .with_field("int64", p(Type::Int64))
                .with_field("float32", p(Type::Float32))
                .with_field("float64", with_default(Type::Float64, Value::Float64(-1.125)))
                .with_field("boolean", p(Type::Boolean))
                .with_field("string", p(Type::String))
                .with_field("bigdecimal", Arc::new(decimal(0)))
                .with_field("date", logical(Type::Int32, DATE))
                .with_field("optional", Arc::new(Schema::new(Type::Float32).optional()))
                .with_field("timestamp", logical(Type::Int64, TIMESTAMP))
                .with_field("bytes", p(Type::Bytes)),
        );
        let mut v = Struct::new(schema.clone());
        v.values = vec![
            Value::Int8(8),
            Value::Int16(16),
            Value::Int32(32),
            Value::Int64(64),
            Value::Float32(32.0),
            Value::Float64(-64.0),
            Value::Boolean(true),
            s("42"),
            Value::Bytes(vec![42]),
            Value::Int32(1),
            Value::Null,
            Value::Int64(0),
            Value::Bytes(vec![0xFE, 0xDC, 0xBA, 0x98, 0x76, 0x54, 0x32, 0x10]),
        ];
        let out = run(&mut t, SchemaAndValue::new(schema, Value::Struct(v))).unwrap();
        let Value::Struct(o) = out.value else { panic!() };
        assert_eq!(
            o.values,
            [
                Value::Int16(8),
                Value::Int32(16),
                Value::Int64(32),
                Value::Boolean(true),
                Value::Float64(32.0),
                Value::Boolean(true),
                Value::Int8(1),
                Value::Int32(42),
                s("42"),
                s("1970-01-02"),
                Value::Null,
                Value::Int64(0),
                s("/ty6mHZUMhA="),
            ]
        );
        let f = |n: &str| o.schema.field(n).unwrap().schema.clone();
        assert!(f("int16").optional && f("optional").optional && !f("int8").optional);
        assert_eq!(f("int32").default, Some(Value::Int64(2)));
        assert_eq!(f("float64").default, Some(Value::Boolean(true)));
        // A cast field loses its logical name; a field not cast keeps its schema.
        assert_eq!((f("date").ty, f("date").name.clone()), (Type::String, None));
        assert_eq!(*f("timestamp"), *logical(Type::Int64, TIMESTAMP));
        o.validate().unwrap();
    }

    #[test]
    fn logical_types_to_primitives() {
        let spec = "date_to_int32:int32,timestamp_to_int64:int64,time_to_int64:int64,\
                    decimal_to_int32:int32,timestamp_to_float64:float64,null_timestamp_to_int32:int32,\
                    time:string,neg:string";
        let mut t = make("Cast$Value", &[("spec", spec)]).unwrap();
        let schema = Arc::new(
            Schema::structure()
                .with_field("date_to_int32", logical(Type::Int32, DATE))
                .with_field("timestamp_to_int64", logical(Type::Int64, TIMESTAMP))
                .with_field("time_to_int64", logical(Type::Int32, TIME))
                .with_field("decimal_to_int32", Arc::new(decimal(0)))
                .with_field("timestamp_to_float64", logical(Type::Int64, TIMESTAMP))
                .with_field(
                    "null_timestamp_to_int32",
                    Arc::new(Schema::new(Type::Int64).named(TIMESTAMP).optional()),
                )
                .with_field("time", logical(Type::Int32, TIME))
                .with_field("neg", Arc::new(decimal(2))),
        );
        let mut v = Struct::new(schema.clone());
        v.values = vec![
            Value::Int32(1),
            Value::Int64(0),
            Value::Int32(1),
            // Integer.MAX_VALUE + 1 as a BigDecimal: 0x0080000000.
            Value::Bytes(vec![0x00, 0x80, 0, 0, 0]),
            Value::Int64(i64::MAX),
            Value::Null,
            Value::Int32(3_600_000),
            Value::Bytes((-12345i16).to_be_bytes().to_vec()),
        ];
        let out = run(&mut t, SchemaAndValue::new(schema, Value::Struct(v))).unwrap();
        let Value::Struct(o) = out.value else { panic!() };
        assert_eq!(
            o.values,
            [
                Value::Int32(1),
                Value::Int64(0),
                Value::Int64(1),
                Value::Int32(i32::MIN),
                Value::Float64(9.223372036854776E18),
                Value::Null,
                s("01:00:00.000Z"),
                s("-123.45"),
            ]
        );
        assert_eq!(o.schema.field("null_timestamp_to_int32").unwrap().schema.ty, Type::Int32);
    }

    #[test]
    fn replace_null_with_default_decides_what_a_null_field_becomes() {
        for (replace, expected) in [("false", Value::Null), ("true", s("10"))] {
            let mut t = make(
                "Cast$Value",
                &[("spec", "magic:string"), ("replace.null.with.default", replace)],
            )
            .unwrap();
            let mut magic = Schema::new(Type::Int32).optional();
            magic.default = Some(Value::Int32(10));
            let schema = Arc::new(Schema::structure().with_field("magic", Arc::new(magic)));
            let out = run(
                &mut t,
                SchemaAndValue::new(schema.clone(), Value::Struct(Struct::new(schema))),
            )
            .unwrap();
            let Value::Struct(o) = out.value else { panic!() };
            assert_eq!(o.schema.field("magic").unwrap().schema.ty, Type::String);
            assert_eq!(o.values, [expected]);
        }
    }

    #[test]
    fn fields_schemaless() {
        let mut t = make(
            "Cast$Value",
            &[("spec", "int8:int16,int64:boolean,float64:boolean,boolean:int8,string:int32,missing:int8,f:string")],
        )
        .unwrap();
        let map = Value::Map(vec![
            (s("int8"), Value::Int8(8)),
            (s("int64"), Value::Int64(64)),
            (s("float64"), Value::Float64(-64.0)),
            (s("boolean"), Value::Boolean(true)),
            (s("string"), s("42")),
            (s("f"), Value::Float64(1e21)),
            (s("other"), s("kept")),
        ]);
        let out = run(&mut t, SchemaAndValue::schemaless(map)).unwrap();
        assert_eq!(out.schema, None);
        assert_eq!(
            out.value,
            Value::Map(vec![
                (s("int8"), Value::Int16(8)),
                (s("int64"), Value::Boolean(true)),
                (s("float64"), Value::Boolean(true)),
                (s("boolean"), Value::Int8(1)),
                (s("string"), Value::Int32(42)),
                (s("f"), s("1.0E21")),
                (s("other"), s("kept")),
                // Kafka Connect puts a field named in spec but missing from the map, as null.
                (s("missing"), Value::Null),
            ])
        );
        let err = run(&mut t, SchemaAndValue::schemaless(s("x"))).unwrap_err();
        assert_eq!(
            err.message,
            "Only Map objects supported in absence of schema for [cast types], found: java.lang.String"
        );
    }

    #[test]
    fn bytes_cast_only_to_string() {
        let err =
            whole("int32", Some(Schema::new(Type::Bytes)), Value::Bytes(vec![1])).unwrap_err();
        assert_eq!(err.message, "Unexpected type in Cast transformation: class [B");
        assert_eq!(whole("string", None, Value::Bytes(vec![0xff])).unwrap().value, s("/w=="));
    }
}
