//! Kafka Connect's `ReplaceField$Key` and `ReplaceField$Value`: keeps (`include`), drops
//! (`exclude`, which wins) and renames (`renames`, `old:new` pairs) the fields of a struct
//! (rebuilding its schema) or of a schemaless map. A null key or value is left as it is.
//!
//! Kafka Connect 4.0 removed the deprecated `whitelist` and `blacklist` aliases
//! (KAFKA-17530), so they are ordinary unknown keys here too. This module owns the
//! transform; it must not touch the other side of the record.

use crate::config::{Default, Importance, KeyDef, KeyType, Parsed, Problem};
use crate::data::java_class;
use crate::registry::{TransformDef, Transformation};
use crate::smt::connect_struct::{self, SchemaCache};
use crate::smt::side::{Side, require_map, require_struct};
use crate::{Data, Kind, Record, Schema, SchemaAndValue, Struct, TransformError, Value};

const PURPOSE: &str = "field replacement";

const DOC: &str = "Filter or rename fields.";

const fn list_key(name: &'static str, doc: &'static str) -> KeyDef {
    KeyDef {
        name,
        ty: KeyType::List,
        default: Default::Value(""),
        validator: None,
        importance: Importance::Medium,
        doc,
    }
}

const KEYS: &[KeyDef] = &[
    list_key("exclude", "Fields to drop; this wins over include."),
    list_key("include", "Fields to keep; when set, only these are kept."),
    // Kafka Connect validates this key with a lambda validator ("list of colon-delimited
    // pairs, e.g. foo:bar,abc:xyz"); `build` runs the same check with its message.
    list_key("renames", "Field renames, as old:new pairs, e.g. foo:bar,abc:xyz."),
    super::side::REPLACE_NULL_WITH_DEFAULT,
];

/// The classes of this module.
pub(crate) const DEFS: &[TransformDef] = &[
    TransformDef {
        class: "org.apache.kafka.connect.transforms.ReplaceField$Key",
        doc: DOC,
        keys: KEYS,
        build: build_key,
    },
    TransformDef {
        class: "org.apache.kafka.connect.transforms.ReplaceField$Value",
        doc: DOC,
        keys: KEYS,
        build: build_value,
    },
];

fn build_key(parsed: &Parsed) -> Result<Box<dyn Transformation>, Vec<Problem>> {
    ReplaceField::build(parsed, Side::Key)
}

fn build_value(parsed: &Parsed) -> Result<Box<dyn Transformation>, Vec<Problem>> {
    ReplaceField::build(parsed, Side::Value)
}

/// `parseRenameMappings`: `old:new` pairs, a later pair for the same old name winning.
/// Splits as Java's `String.split(":")` does (trailing empty parts dropped), so `a:b:`
/// is a pair and `:b` renames the empty name.
fn parse_renames(mappings: &[String]) -> Result<Vec<(String, String)>, String> {
    let mut renames: Vec<(String, String)> = Vec::new();
    for mapping in mappings {
        let mut parts: Vec<&str> = mapping.split(':').collect();
        while parts.last() == Some(&"") {
            parts.pop();
        }
        let [from, to] = parts[..] else {
            return Err(format!(
                "Invalid value [{}] for configuration renames: Invalid rename mapping: {mapping}",
                mappings.join(", ")
            ));
        };
        renames.retain(|(f, _)| f != from);
        renames.push((from.to_owned(), to.to_owned()));
    }
    Ok(renames)
}

struct ReplaceField {
    side: Side,
    exclude: Vec<String>,
    include: Vec<String>,
    renames: Vec<(String, String)>,
    replace_null_with_default: bool,
    cache: SchemaCache,
}

impl ReplaceField {
    fn build(parsed: &Parsed, side: Side) -> Result<Box<dyn Transformation>, Vec<Problem>> {
        let renames = parse_renames(parsed.list("renames"))
            .map_err(|message| vec![parsed.problem("renames", message)])?;
        Ok(Box::new(Self {
            side,
            exclude: parsed.list("exclude").to_vec(),
            include: parsed.list("include").to_vec(),
            renames,
            replace_null_with_default: parsed.boolean("replace.null.with.default"),
            cache: SchemaCache::default(),
        }))
    }

    fn keeps(&self, name: &str) -> bool {
        !self.exclude.iter().any(|e| e == name)
            && (self.include.is_empty() || self.include.iter().any(|i| i == name))
    }

    fn renamed<'a>(&'a self, name: &'a str) -> &'a str {
        self.renames.iter().find(|(from, _)| from == name).map_or(name, |(_, to)| to)
    }

    /// `reverseRenamed`: the old name a new name came from. Kafka Connect applies it to
    /// every output field, renamed or not (see the tests).
    fn reverse_renamed<'a>(&'a self, name: &'a str) -> &'a str {
        self.renames.iter().rev().find(|(_, to)| to == name).map_or(name, |(from, _)| from)
    }

    fn updated_schema(&self, schema: &Schema) -> Result<Schema, TransformError> {
        let mut builder = connect_struct::copy_basics(schema);
        for field in schema.fields.iter().filter(|f| self.keeps(&f.name)) {
            connect_struct::add_field(
                &mut builder,
                self.renamed(&field.name),
                field.schema.clone(),
            )?;
        }
        Ok(builder)
    }

    fn schemaless(&self, entries: &[(Value, Value)]) -> Result<Value, TransformError> {
        let mut updated = Vec::with_capacity(entries.len());
        for (key, value) in entries {
            let name = key.as_str().ok_or_else(|| {
                TransformError::new(format!(
                    "class {} cannot be cast to class java.lang.String",
                    java_class(key)
                ))
            })?;
            if self.keeps(name) {
                connect_struct::map_put(&mut updated, self.renamed(name), value.clone());
            }
        }
        Ok(Value::Map(updated))
    }

    fn with_schema(&mut self, value: &Struct) -> Result<SchemaAndValue, TransformError> {
        let mut cache = std::mem::take(&mut self.cache);
        let schema = cache.get_or_try(&value.schema, |s| self.updated_schema(s));
        self.cache = cache;
        let schema = schema?;
        let mut updated = Struct::new(schema.clone());
        for field in &schema.fields {
            let from = self.reverse_renamed(&field.name);
            let v = connect_struct::get_named(value, from, self.replace_null_with_default)?;
            connect_struct::put(&mut updated, &field.name, v)?;
        }
        Ok(SchemaAndValue::new(schema, Value::Struct(updated)))
    }
}

impl Transformation for ReplaceField {
    fn apply(&mut self, mut record: Record) -> Result<Option<Record>, TransformError> {
        if self.side.data(&mut record).is_null() {
            return Ok(Some(record));
        }
        let mut data = std::mem::replace(self.side.data(&mut record), Data::raw(Kind::Bytes, None));
        let typed = data.typed()?;
        if !typed.value.is_null() {
            let updated = match &typed.schema {
                None => SchemaAndValue::schemaless(
                    self.schemaless(require_map(&mut typed.value, PURPOSE)?)?,
                ),
                Some(_) => self.with_schema(require_struct(&mut typed.value, PURPOSE)?)?,
            };
            data = Data::Typed(updated);
        }
        *self.side.data(&mut record) = data;
        Ok(Some(record))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::Type;
    use crate::smt::connect_struct::plain;
    use crate::smt::test_support::{build, map, null, problems, record, typed};

    fn value_after(
        props: &[(&str, &str)],
        value: SchemaAndValue,
    ) -> Result<SchemaAndValue, String> {
        let mut t = build("ReplaceField$Value", props).unwrap();
        let out = t.apply(record(null(), value)).map_err(|e| e.message)?.unwrap();
        Ok(typed(out.value))
    }

    fn abcd() -> SchemaAndValue {
        let schema = Arc::new(
            Schema::structure()
                .named("s")
                .with_field("dont", plain(Type::String, false))
                .with_field("abc", plain(Type::Int32, false))
                .with_field("foo", plain(Type::Boolean, false))
                .with_field("etc", plain(Type::String, false)),
        );
        let values = vec![
            Value::String("whatever".into()),
            Value::Int32(42),
            Value::Boolean(true),
            Value::String("etc".into()),
        ];
        SchemaAndValue::new(schema.clone(), Value::Struct(Struct { schema, values }))
    }

    #[test]
    fn schemaless_excludes_includes_and_renames() {
        // Kafka Connect's documentation example: exclude `dont`, rename `abc` and `foo`.
        let value = SchemaAndValue::schemaless(map(&[
            ("dont", Value::String("whatever".into())),
            ("abc", Value::Int64(42)),
            ("foo", Value::Boolean(true)),
            ("etc", Value::String("etc".into())),
        ]));
        let props = [("exclude", "dont"), ("renames", "abc:xyz,foo:bar")];
        let out = value_after(&props, value.clone()).unwrap();
        let expected = map(&[
            ("xyz", Value::Int64(42)),
            ("bar", Value::Boolean(true)),
            ("etc", Value::String("etc".into())),
        ]);
        assert_eq!(out, SchemaAndValue::schemaless(expected));
        // Exclude wins over include.
        let out = value_after(&[("include", "abc,foo"), ("exclude", "foo")], value).unwrap();
        assert_eq!(out.value, map(&[("abc", Value::Int64(42))]));
    }

    #[test]
    fn with_schema_rebuilds_the_struct() {
        let props = [("include", "abc,foo"), ("renames", "abc:xyz,foo:bar")];
        let out = value_after(&props, abcd()).unwrap();
        let schema = out.schema.unwrap();
        let names: Vec<&str> = schema.fields.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["xyz", "bar"]);
        assert_eq!(schema.name.as_deref(), Some("s"));
        assert_eq!(schema.fields[0].schema, plain(Type::Int32, false));
        let Value::Struct(s) = out.value else { panic!("a struct") };
        assert_eq!(s.values, [Value::Int32(42), Value::Boolean(true)]);
        // Two fields renamed to one name.
        let err = value_after(&[("renames", "abc:foo")], abcd()).unwrap_err();
        assert_eq!(err, "Cannot create field because of field name duplication foo");
    }

    #[test]
    fn reverse_renames_apply_to_every_output_field() {
        // Kafka Connect looks every output field up by its reverse-renamed name: an
        // excluded `abc` renamed to `foo` hands its value to the kept `foo` field, which
        // then fails the check of `foo`'s BOOLEAN schema.
        let err = value_after(&[("exclude", "abc"), ("renames", "abc:foo")], abcd()).unwrap_err();
        assert_eq!(
            err,
            "Invalid Java object for schema with type BOOLEAN: class java.lang.Integer for \
             field: \"foo\""
        );
    }

    #[test]
    fn replace_null_with_default_and_tombstones() {
        let with_default = Arc::new(Schema {
            default: Some(Value::Int32(7)),
            ..Schema::new(Type::Int32).optional()
        });
        let schema = Arc::new(Schema::structure().with_field("a", with_default));
        let value = SchemaAndValue::new(
            schema.clone(),
            Value::Struct(Struct { schema: schema.clone(), values: vec![Value::Null] }),
        );
        for (setting, expected) in [("true", Value::Int32(7)), ("false", Value::Null)] {
            let props = [("renames", "a:b"), ("replace.null.with.default", setting)];
            let Value::Struct(s) = value_after(&props, value.clone()).unwrap().value else {
                panic!("a struct")
            };
            assert_eq!(s.values, [expected]);
        }
        assert_eq!(value_after(&[("exclude", "a")], null()).unwrap(), null());
        let tombstone = SchemaAndValue::new(schema, Value::Null);
        assert_eq!(value_after(&[("exclude", "a")], tombstone.clone()).unwrap(), tombstone);
        let err = value_after(&[], SchemaAndValue::schemaless(Value::Int64(1))).unwrap_err();
        assert_eq!(
            err,
            "Only Map objects supported in absence of schema for [field replacement], found: \
             java.lang.Long"
        );
    }

    #[test]
    fn key_side_and_removed_aliases() {
        let mut t =
            build("ReplaceField$Key", &[("whitelist", "abc"), ("renames", "dont:do")]).unwrap();
        let out = t.apply(record(abcd(), null())).unwrap().unwrap();
        let names: Vec<String> =
            typed(out.key).schema.unwrap().fields.iter().map(|f| f.name.clone()).collect();
        // `whitelist` is no longer a key of Kafka Connect 4.x: every field is kept.
        assert_eq!(names, ["do", "abc", "foo", "etc"]);
        assert_eq!(typed(out.value), null());
    }

    #[test]
    fn renames_must_be_pairs() {
        assert_eq!(
            problems("ReplaceField$Value", &[("renames", "a:b,c")]),
            ["Invalid value [a:b, c] for configuration renames: Invalid rename mapping: c"]
        );
        assert_eq!(
            problems("ReplaceField$Value", &[("renames", "a:b:c")]),
            ["Invalid value [a:b:c] for configuration renames: Invalid rename mapping: a:b:c"]
        );
        // Java's split drops trailing empty parts.
        assert!(build("ReplaceField$Value", &[("renames", "a:b:")]).is_ok());
        assert!(build("ReplaceField$Value", &[("renames", "a:")]).is_err());
    }
}
