//! Kafka Connect's `HeaderFrom$Key` and `HeaderFrom$Value`: copies or moves fields of the
//! key or value into headers (`fields[i]` → `headers[i]`), each header typed with its
//! field's schema (none for schemaless data).
//!
//! This module owns that copy or move and the rebuilt struct schema of a move (Kafka
//! Connect's `copySchemaBasics`: name, version, doc and parameters, required, without the
//! moved fields); it must not write the headers as bytes (the header converter does).

use std::sync::Arc;

use super::side::{Side, require_map, require_struct};
use crate::config::{Default, Importance, KeyDef, KeyType, Parsed, Problem, Validator};
use crate::registry::{TransformDef, Transformation};
use crate::{Header, HeaderValue, Record, Schema, SchemaAndValue, Struct, TransformError, Value};

const DOC: &str = "Moves or copies fields in the key/value of a record into that record's \
    headers. Corresponding elements of fields and headers together identify a field and the \
    header it should be moved or copied to. Use the concrete transformation type designed for \
    the record key (HeaderFrom$Key) or value (HeaderFrom$Value).";

/// The classes of this module.
pub(crate) const DEFS: &[TransformDef] = &[
    TransformDef {
        class: "org.apache.kafka.connect.transforms.HeaderFrom$Key",
        doc: DOC,
        keys: KEYS,
        build: |p| build(p, Side::Key),
    },
    TransformDef {
        class: "org.apache.kafka.connect.transforms.HeaderFrom$Value",
        doc: DOC,
        keys: KEYS,
        build: |p| build(p, Side::Value),
    },
];

// `fields` and `headers` have Kafka Connect's `NonEmptyListValidator`; `build` gives its
// message with the value as Kafka Connect prints an empty list (`[]`).
const KEYS: &[KeyDef] = &[
    KeyDef {
        name: "fields",
        ty: KeyType::List,
        default: Default::Required,
        validator: None,
        importance: Importance::High,
        doc: "Field names in the record whose values are to be copied or moved to headers.",
    },
    KeyDef {
        name: "headers",
        ty: KeyType::List,
        default: Default::Required,
        validator: None,
        importance: Importance::High,
        doc: "Header names, in the same order as the field names listed in the fields \
              configuration property.",
    },
    KeyDef {
        name: "operation",
        ty: KeyType::String,
        default: Default::Required,
        validator: Some(Validator::OneOf(&["move", "copy"])),
        importance: Importance::High,
        doc: "Either move if the fields are to be moved to the headers (removed from the \
              key/value), or copy if the fields are to be copied to the headers (retained in \
              the key/value).",
    },
    super::side::REPLACE_NULL_WITH_DEFAULT,
];

fn build(parsed: &Parsed, side: Side) -> Result<Box<dyn Transformation>, Vec<Problem>> {
    let fields = parsed.list("fields").to_vec();
    let headers = parsed.list("headers").to_vec();
    let mut problems = Vec::new();
    for (name, list) in [("fields", &fields), ("headers", &headers)] {
        if list.is_empty() {
            problems.push(parsed.invalid(name, "[]", "Empty list"));
        }
    }
    if problems.is_empty() && fields.len() != headers.len() {
        problems.push(parsed.problem(
            "headers",
            "'fields' config must have the same number of elements as 'headers' config.",
        ));
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    Ok(Box::new(HeaderFrom {
        side,
        fields,
        headers,
        is_move: parsed.string("operation") == Some("move"),
        replace_null_with_default: parsed.boolean("replace.null.with.default"),
        moved: None,
    }))
}

struct HeaderFrom {
    side: Side,
    fields: Vec<String>,
    headers: Vec<String>,
    is_move: bool,
    replace_null_with_default: bool,
    /// The last schema a move rebuilt, and what it became.
    moved: Option<(Arc<Schema>, Arc<Schema>)>,
}

impl HeaderFrom {
    fn purpose(&self) -> &'static str {
        if self.is_move { "header move" } else { "header copy" }
    }

    /// Kafka Connect's `getFieldValue`: the field's value, or its default for a null.
    fn field_value(&self, st: &Struct, index: usize) -> Value {
        let field = &st.schema.fields[index];
        match (&st.values[index], &field.schema.default) {
            (Value::Null, Some(d)) if self.replace_null_with_default => d.clone(),
            (v, _) => v.clone(),
        }
    }

    fn move_schema(&mut self, schema: &Arc<Schema>) -> Arc<Schema> {
        if let Some((from, to)) = &self.moved
            && (Arc::ptr_eq(from, schema) || **from == **schema)
        {
            return to.clone();
        }
        let mut moved = Schema::structure();
        moved.name = schema.name.clone();
        moved.version = schema.version;
        moved.doc = schema.doc.clone();
        moved.parameters = schema.parameters.clone();
        for field in schema.fields.iter().filter(|f| !self.fields.contains(&f.name)) {
            moved = moved.with_field(field.name.clone(), field.schema.clone());
        }
        let moved = Arc::new(moved);
        self.moved = Some((schema.clone(), moved.clone()));
        moved
    }

    fn apply_schemaless(&self, value: &mut Value) -> Result<Vec<Header>, TransformError> {
        let entries = require_map(value, self.purpose())?;
        let mut added = Vec::with_capacity(self.fields.len());
        for (field, header) in self.fields.iter().zip(&self.headers) {
            let v = entries
                .iter()
                .find(|(k, _)| k.as_str() == Some(field.as_str()))
                .map_or(Value::Null, |(_, v)| v.clone());
            added.push(typed(header, SchemaAndValue::schemaless(v)));
        }
        if self.is_move {
            entries
                .retain(|(k, _)| !k.as_str().is_some_and(|k| self.fields.iter().any(|f| f == k)));
        }
        Ok(added)
    }

    fn apply_with_schema(
        &mut self,
        schema: &Arc<Schema>,
        value: &mut Value,
    ) -> Result<(Arc<Schema>, Vec<Header>), TransformError> {
        let purpose = self.purpose();
        let original = require_struct(value, purpose)?.clone();
        let updated_schema = if self.is_move {
            let moved_schema = self.move_schema(schema);
            let mut moved = Struct::new(moved_schema.clone());
            for field in &moved_schema.fields {
                let index = original.schema.field(&field.name).expect("a kept field").index;
                let v = self.field_value(&original, index);
                if v.is_null() && !field.schema.optional {
                    return Err(TransformError::new(format!(
                        "Invalid value: null used for required field: \"{}\", schema type: {}",
                        field.name,
                        field.schema.ty.upper()
                    )));
                }
                moved.values[field.index] = v;
            }
            *value = Value::Struct(moved);
            moved_schema
        } else {
            schema.clone()
        };
        let mut added = Vec::with_capacity(self.fields.len());
        for (field, header) in self.fields.iter().zip(&self.headers) {
            let v = original
                .schema
                .field(field)
                .map_or(Value::Null, |f| self.field_value(&original, f.index));
            let field_schema = schema.field(field).ok_or_else(|| {
                TransformError::new(format!(
                    "Cannot invoke \"org.apache.kafka.connect.data.Field.schema()\" because the \
                     return value of \"org.apache.kafka.connect.data.Schema.field(String)\" is \
                     null (no field {field})"
                ))
            })?;
            added.push(typed(header, SchemaAndValue::new(field_schema.schema.clone(), v)));
        }
        Ok((updated_schema, added))
    }
}

fn typed(key: &str, data: SchemaAndValue) -> Header {
    Header { key: key.to_owned(), value: HeaderValue::Typed(data) }
}

impl Transformation for HeaderFrom {
    fn apply(&mut self, mut record: Record) -> Result<Option<Record>, TransformError> {
        let data = self.side.data(&mut record).typed()?;
        let added = match data.schema.clone() {
            None => self.apply_schemaless(&mut data.value)?,
            Some(schema) => {
                let (updated, added) = self.apply_with_schema(&schema, &mut data.value)?;
                data.schema = Some(updated);
                added
            }
        };
        record.headers.extend(added);
        Ok(Some(record))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Data, Kind, Type, config};

    fn transform(
        side: Side,
        props: &[(&str, &str)],
    ) -> Result<Box<dyn Transformation>, Vec<Problem>> {
        let props: Vec<(String, String)> =
            props.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        build(&config::parse(KEYS, &props, "transforms.h.")?, side)
    }

    fn op(fields: &str, headers: &str, operation: &str) -> Vec<(&'static str, String)> {
        vec![
            ("fields", fields.into()),
            ("headers", headers.into()),
            ("operation", operation.into()),
        ]
    }

    fn run(side: Side, fields: &str, headers: &str, operation: &str, record: Record) -> Record {
        let props = op(fields, headers, operation);
        let props: Vec<(&str, &str)> = props.iter().map(|(k, v)| (*k, v.as_str())).collect();
        transform(side, &props).unwrap().apply(record).unwrap().unwrap()
    }

    fn string() -> Arc<Schema> {
        Arc::new(Schema::new(Type::String))
    }

    fn s(v: &str) -> Value {
        Value::String(v.into())
    }

    fn existing() -> Header {
        typed("header1", SchemaAndValue::new(string(), s("existing-value")))
    }

    fn record_with(side: Side, data: SchemaAndValue) -> Record {
        let other = Data::raw(Kind::String, Some(b"other".to_vec()));
        let data = Data::Typed(data);
        let (key, value) = if side == Side::Key { (data, other) } else { (other, data) };
        Record {
            offset: None,
            topic: "topic".into(),
            partition: Some(0),
            timestamp: None,
            key,
            value,
            headers: vec![existing()],
        }
    }

    fn two_fields() -> (Arc<Schema>, Value) {
        let schema = Arc::new(
            Schema::structure().with_field("field1", string()).with_field("field2", string()),
        );
        let mut st = Struct::new(schema.clone());
        st.values = vec![s("field1-value"), s("field2-value")];
        (schema, Value::Struct(st))
    }

    fn side_of(record: &mut Record, side: Side) -> SchemaAndValue {
        side.data(record).typed().unwrap().clone()
    }

    #[test]
    fn copy_and_move_with_schema_on_either_side() {
        // HeaderFromTest: "basic copy" and "basic move".
        for side in [Side::Key, Side::Value] {
            let (schema, value) = two_fields();
            let r = record_with(side, SchemaAndValue::new(schema.clone(), value.clone()));
            let mut out = run(side, "field1", "inserted1", "copy", r);
            assert_eq!(side_of(&mut out, side), SchemaAndValue::new(schema.clone(), value.clone()));
            assert_eq!(
                out.headers,
                vec![
                    existing(),
                    typed("inserted1", SchemaAndValue::new(string(), s("field1-value")))
                ]
            );

            let r = record_with(side, SchemaAndValue::new(schema.clone(), value.clone()));
            let mut out = run(side, "field1", "inserted1", "move", r);
            let moved = Arc::new(Schema::structure().with_field("field2", string()));
            let mut st = Struct::new(moved.clone());
            st.values = vec![s("field2-value")];
            assert_eq!(side_of(&mut out, side), SchemaAndValue::new(moved, Value::Struct(st)));
            assert_eq!(
                out.headers[1],
                typed("inserted1", SchemaAndValue::new(string(), s("field1-value")))
            );
        }
    }

    #[test]
    fn a_move_keeps_schema_basics_and_struct_headers_keep_their_schema() {
        let inner = Arc::new(Schema::structure().with_field("foo", string()));
        let mut inner_value = Struct::new(inner.clone());
        inner_value.values = vec![s("foo-value")];
        let mut outer = Schema::structure().named("com.example.Row").optional();
        outer.version = Some(2);
        outer.doc = Some("d".into());
        outer.parameters = vec![("p".into(), "v".into())];
        let outer =
            Arc::new(outer.with_field("field1", inner.clone()).with_field("field2", string()));
        let mut st = Struct::new(outer.clone());
        st.values = vec![Value::Struct(inner_value.clone()), s("field2-value")];
        let r = record_with(Side::Value, SchemaAndValue::new(outer, Value::Struct(st)));
        let mut out = run(Side::Value, "field1", "inserted1", "move", r);
        let data = side_of(&mut out, Side::Value);
        let schema = data.schema.unwrap();
        assert_eq!(
            (schema.name.as_deref(), schema.version, schema.doc.as_deref(), schema.optional),
            (Some("com.example.Row"), Some(2), Some("d"), false)
        );
        assert_eq!(schema.parameters, [("p".to_owned(), "v".to_owned())]);
        assert_eq!(schema.fields.len(), 1);
        assert_eq!(
            out.headers[1],
            typed("inserted1", SchemaAndValue::new(inner, Value::Struct(inner_value)))
        );
    }

    #[test]
    fn repeated_fields_and_headers() {
        // HeaderFromTest: "two headers from same field", "two fields to same header".
        let (schema, value) = two_fields();
        let r = record_with(Side::Value, SchemaAndValue::new(schema.clone(), value.clone()));
        let out = run(Side::Value, "field1,field1", "inserted1,inserted2", "move", r);
        let h = |k: &str, v: &str| typed(k, SchemaAndValue::new(string(), s(v)));
        assert_eq!(
            out.headers,
            vec![existing(), h("inserted1", "field1-value"), h("inserted2", "field1-value")]
        );
        let r = record_with(Side::Value, SchemaAndValue::new(schema, value));
        let mut out = run(Side::Value, "field1,field2", "inserted1,inserted1", "move", r);
        assert_eq!(
            out.headers,
            vec![existing(), h("inserted1", "field1-value"), h("inserted1", "field2-value")]
        );
        let data = side_of(&mut out, Side::Value);
        assert!(data.schema.unwrap().fields.is_empty());
    }

    #[test]
    fn schemaless_copy_and_move() {
        for side in [Side::Key, Side::Value] {
            let map = Value::Map(vec![
                (s("field1"), s("field1-value")),
                (s("field2"), s("field2-value")),
            ]);
            let r = record_with(side, SchemaAndValue::schemaless(map.clone()));
            let mut out = run(side, "field1,missing", "inserted1,inserted2", "copy", r);
            assert_eq!(side_of(&mut out, side), SchemaAndValue::schemaless(map.clone()));
            assert_eq!(
                out.headers,
                vec![
                    existing(),
                    typed("inserted1", SchemaAndValue::schemaless(s("field1-value"))),
                    typed("inserted2", SchemaAndValue::schemaless(Value::Null)),
                ]
            );
            let r = record_with(side, SchemaAndValue::schemaless(map));
            let mut out = run(side, "field1", "inserted1", "move", r);
            assert_eq!(
                side_of(&mut out, side),
                SchemaAndValue::schemaless(Value::Map(vec![(s("field2"), s("field2-value"))]))
            );
        }
        // Raw JSON decodes on the way.
        let mut r = record_with(Side::Value, SchemaAndValue::schemaless(Value::Null));
        r.value = Data::raw(Kind::Json, Some(br#"{"a": 1, "b": 2}"#.to_vec()));
        let out = run(Side::Value, "b", "hb", "move", r);
        assert_eq!(out.value.into_raw().unwrap(), (Kind::Json, Some(br#"{"a":1}"#.to_vec())));
        assert_eq!(out.headers[1], typed("hb", SchemaAndValue::schemaless(Value::Int64(2))));
    }

    #[test]
    fn defaults_replace_nulls_unless_told_not_to() {
        let mut with_default = Schema::new(Type::String).optional();
        with_default.default = Some(s("dflt"));
        let with_default = Arc::new(with_default);
        let schema = Arc::new(Schema::structure().with_field("f", with_default.clone()));
        let st = Value::Struct(Struct::new(schema.clone()));
        let r = record_with(Side::Value, SchemaAndValue::new(schema.clone(), st.clone()));
        let out = run(Side::Value, "f", "h", "copy", r);
        assert_eq!(
            out.headers[1],
            typed("h", SchemaAndValue::new(with_default.clone(), s("dflt")))
        );
        let props = [
            ("fields", "f"),
            ("headers", "h"),
            ("operation", "copy"),
            ("replace.null.with.default", "false"),
        ];
        let r = record_with(Side::Value, SchemaAndValue::new(schema, st));
        let out = transform(Side::Value, &props).unwrap().apply(r).unwrap().unwrap();
        assert_eq!(out.headers[1], typed("h", SchemaAndValue::new(with_default, Value::Null)));
    }

    #[test]
    fn data_errors_carry_kafka_connects_messages() {
        let r = record_with(Side::Value, SchemaAndValue::schemaless(Value::Null));
        let mut t =
            transform(Side::Value, &[("fields", "a"), ("headers", "h"), ("operation", "move")])
                .unwrap();
        assert_eq!(
            t.apply(r).unwrap_err().message,
            "Only Map objects supported in absence of schema for [header move], found: null"
        );
        let r = record_with(Side::Key, SchemaAndValue::new(Schema::optional_string(), s("x")));
        let mut t =
            transform(Side::Key, &[("fields", "a"), ("headers", "h"), ("operation", "copy")])
                .unwrap();
        assert_eq!(
            t.apply(r).unwrap_err().message,
            "Only Struct objects supported for [header copy], found: java.lang.String"
        );
        let (schema, value) = two_fields();
        let r = record_with(Side::Value, SchemaAndValue::new(schema, value));
        let mut t =
            transform(Side::Value, &[("fields", "nope"), ("headers", "h"), ("operation", "copy")])
                .unwrap();
        assert!(t.apply(r).is_err(), "Kafka Connect fails on a field the schema lacks");
    }

    #[test]
    fn config_problems() {
        let p =
            transform(Side::Value, &[("fields", "a,b"), ("headers", "h"), ("operation", "copy")])
                .err()
                .unwrap();
        assert_eq!(
            p[0].message,
            "'fields' config must have the same number of elements as 'headers' config."
        );
        let p = transform(Side::Value, &[("fields", ""), ("headers", ""), ("operation", "copy")])
            .err()
            .unwrap();
        assert_eq!(p.len(), 2);
        assert_eq!(
            p[0].message,
            "Invalid value [] for configuration transforms.h.fields: Empty list"
        );
        let p = transform(Side::Value, &[("fields", "a"), ("headers", "h"), ("operation", "cut")])
            .err()
            .unwrap();
        assert_eq!(
            p[0].message,
            "Invalid value cut for configuration transforms.h.operation: String must be one of: move, copy"
        );
        let p = transform(Side::Value, &[("fields", "a"), ("headers", "h")]).err().unwrap();
        assert_eq!(
            p[0].message,
            "Missing required configuration \"transforms.h.operation\" which has no default value."
        );
    }
}
