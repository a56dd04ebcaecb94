//! KIP-821 field paths: Kafka Connect's `FieldSyntaxVersion` (the `field.syntax.version`
//! key) and `SingleFieldPath` (a path of field names into a struct or a schemaless map).
//!
//! With `V1` a path is one field name, as before KIP-821. With `V2` a path is dotted
//! (`a.b.c`); a name holding dots is wrapped in backticks (`` `a.b`.c ``), and a backtick
//! right before a dot inside such a name is escaped with a backslash. This module owns the
//! parser, its configuration message and the lookups; it must not know which transforms
//! use it.

use crate::config::{Default, Importance, KeyDef, KeyType, Validator};
use crate::smt::connect_struct;
use crate::smt::side::{require_map, require_struct};
use crate::{Field, Schema, Struct, TransformError, Value};

/// The key's name.
pub(crate) const SYNTAX_VERSION: &str = "field.syntax.version";

/// `FieldSyntaxVersion.appendConfigTo`'s key definition.
pub(crate) const SYNTAX_VERSION_KEY: KeyDef = KeyDef {
    name: SYNTAX_VERSION,
    ty: KeyType::String,
    default: Default::Value("V1"),
    validator: Some(Validator::OneOfIgnoringCase(&["V1", "V2"])),
    importance: Importance::High,
    doc: "The field path syntax. `V1` reaches only fields at the top level of the struct or \
          map. `V2` reaches nested fields with dotted paths; wrap a field name that holds dots \
          in backticks, e.g. \"`foo.bar`.baz\" for the field `baz` inside a field named \
          \"foo.bar\".",
};

/// `FieldSyntaxVersion`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SyntaxVersion {
    /// Top-level field names only.
    V1,
    /// Dotted paths with backtick quoting.
    V2,
}

impl SyntaxVersion {
    /// The version the (already validated) key names, any case.
    pub(crate) fn from_config(text: &str) -> SyntaxVersion {
        if text.eq_ignore_ascii_case("V2") { SyntaxVersion::V2 } else { SyntaxVersion::V1 }
    }
}

/// `SingleFieldPath`: one or more steps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SingleFieldPath {
    steps: Vec<String>,
}

impl SingleFieldPath {
    /// Parses `path`; the error is Kafka Connect's `ConfigException` message.
    pub(crate) fn parse(path: &str, version: SyntaxVersion) -> Result<Self, String> {
        let steps = match version {
            SyntaxVersion::V1 => vec![path.to_owned()],
            SyntaxVersion::V2 => parse_v2(path)?,
        };
        Ok(Self { steps })
    }

    /// The steps but the last, and the last. A `V2` path of `""` has no steps: Kafka
    /// Connect then fails on every record taking its `subList(0, -1)`.
    fn split(&self) -> Result<(&[String], &str), TransformError> {
        match self.steps.split_last() {
            Some((last, init)) => Ok((init, last)),
            None => Err(TransformError::new("fromIndex(0) > toIndex(-1)")),
        }
    }

    /// `fieldFrom(schema)`: the field at this path, `None` when a step is missing; fails
    /// as `Schema.field` does on a schema that is not a STRUCT.
    pub(crate) fn field_from<'a>(
        &self,
        schema: &'a Schema,
    ) -> Result<Option<&'a Field>, TransformError> {
        let (init, last) = self.split()?;
        let mut current = schema;
        for step in init {
            match struct_field(current, step)? {
                Some(field) => current = &field.schema,
                None => return Ok(None),
            }
        }
        struct_field(current, last)
    }

    /// `valueFrom(struct, withDefault)`: the value at this path, null when a step is
    /// missing or null; fails when a step holds something other than a struct.
    pub(crate) fn value_from_struct(
        &self,
        value: &Struct,
        with_default: bool,
    ) -> Result<Value, TransformError> {
        let (init, last) = self.split()?;
        let mut owned;
        let mut current = value;
        for step in init {
            let Some(field) = current.schema.field(step) else { return Ok(Value::Null) };
            let mut sub = connect_struct::get(current, field, true);
            if sub.is_null() {
                return Ok(Value::Null);
            }
            require_struct(&mut sub, "nested field access")?;
            let Value::Struct(s) = sub else { unreachable!("checked above") };
            owned = s;
            current = &owned;
        }
        Ok(match current.schema.field(last) {
            Some(field) => connect_struct::get(current, field, with_default),
            None => Value::Null,
        })
    }

    /// `valueFrom(map)`: the value at this path in a schemaless map, null when a step is
    /// missing or null; fails when a step holds something other than a map.
    pub(crate) fn value_from_map(&self, map: &Value) -> Result<Value, TransformError> {
        let (init, last) = self.split()?;
        let mut current = map;
        for step in init {
            match current.map_get(step) {
                None | Some(Value::Null) => return Ok(Value::Null),
                Some(sub @ Value::Map(_)) => current = sub,
                Some(other) => {
                    require_map(&mut other.clone(), "nested field access")?;
                }
            }
        }
        Ok(current.map_get(last).cloned().unwrap_or(Value::Null))
    }
}

/// `Schema.field(name)`.
fn struct_field<'a>(schema: &'a Schema, name: &str) -> Result<Option<&'a Field>, TransformError> {
    if schema.ty != crate::Type::Struct {
        return Err(TransformError::new("Cannot look up fields on non-struct type"));
    }
    Ok(schema.field(name))
}

fn parse_v2(path: &str) -> Result<Vec<String>, String> {
    let bytes = path.as_bytes();
    let find = |c: u8, from: usize| bytes[from..].iter().position(|&b| b == c).map(|i| i + from);
    let mut steps = Vec::new();
    let mut idx = 0;
    while idx < bytes.len() {
        if bytes[idx] != b'`' {
            match find(b'.', idx) {
                Some(dot) => {
                    steps.push(path[idx..dot].to_owned());
                    idx = dot + 1;
                }
                None => {
                    steps.push(path[idx..].to_owned());
                    idx = bytes.len();
                }
            }
            continue;
        }
        let backtick_at = idx;
        idx += 1;
        let mut field = String::new();
        let mut start = idx;
        loop {
            let Some(close) = find(b'`', idx) else {
                return Err(incomplete(path, backtick_at));
            };
            idx = close;
            let escaped = bytes[idx - 1] == b'\\';
            if idx + 1 >= bytes.len() {
                if escaped {
                    return Err(incomplete(path, backtick_at));
                }
                field.push_str(&path[start..idx]);
                steps.push(field);
                idx += 1;
                break;
            }
            if bytes[idx + 1] != b'.' {
                idx += 1;
                continue;
            }
            if escaped {
                field.push_str(&path[start..idx - 1]);
                field.push('`');
                idx += 1;
                start = idx;
                continue;
            }
            field.push_str(&path[start..idx]);
            steps.push(field);
            idx += 2;
            break;
        }
    }
    if path.ends_with('.') {
        steps.push(String::new());
    }
    Ok(steps)
}

fn incomplete(path: &str, backtick_at: usize) -> String {
    // Java counts UTF-16 units.
    let position = path[..backtick_at].encode_utf16().count();
    format!(
        "Incomplete backtick pair in path: [{path}], consider adding a backslash before \
         backtick at position {position} to escape it"
    )
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    fn v2(path: &str) -> Vec<String> {
        SingleFieldPath::parse(path, SyntaxVersion::V2).unwrap().steps
    }

    #[test]
    fn v1_is_one_step_whatever_it_holds() {
        let p = SingleFieldPath::parse("a.`b`.c", SyntaxVersion::V1).unwrap();
        assert_eq!(p.steps, ["a.`b`.c"]);
    }

    #[test]
    fn v2_splits_on_dots_and_honours_backticks() {
        // Cases from Kafka Connect's SingleFieldPathTest / FieldPathNotationTest.
        assert_eq!(v2("foo"), ["foo"]);
        assert_eq!(v2("foo.bar.baz"), ["foo", "bar", "baz"]);
        assert_eq!(v2("`foo.bar`.baz"), ["foo.bar", "baz"]);
        assert_eq!(v2("foo.`bar.baz`"), ["foo", "bar.baz"]);
        assert_eq!(v2("`foo`"), ["foo"]);
        assert_eq!(v2("foo`bar`.baz"), ["foo`bar`", "baz"]);
        assert_eq!(v2("`fo`o`.bar"), ["fo`o", "bar"]);
        assert_eq!(v2("`foo\\`.bar`.baz"), ["foo`.bar", "baz"]);
        assert_eq!(v2("foo."), ["foo", ""]);
        assert_eq!(v2(".foo"), ["", "foo"]);
        assert_eq!(v2("foo..bar"), ["foo", "", "bar"]);
        assert!(v2("").is_empty());
        let empty = SingleFieldPath::parse("", SyntaxVersion::V2).unwrap();
        assert_eq!(
            empty.value_from_map(&Value::Map(vec![])).unwrap_err().message,
            "fromIndex(0) > toIndex(-1)"
        );
    }

    #[test]
    fn v2_rejects_an_open_backtick() {
        let err = SingleFieldPath::parse("foo.`bar", SyntaxVersion::V2).unwrap_err();
        assert_eq!(
            err,
            "Incomplete backtick pair in path: [foo.`bar], consider adding a backslash before \
             backtick at position 4 to escape it"
        );
        assert!(SingleFieldPath::parse("`foo\\`", SyntaxVersion::V2).is_err());
    }

    #[test]
    fn lookups_walk_structs_and_maps() {
        let inner = Arc::new(Schema::structure().with_field("b", Schema::optional_string()));
        let outer = Arc::new(
            Schema::structure()
                .with_field("a", inner.clone())
                .with_field("n", Arc::new(Schema::new(crate::Type::Int32))),
        );
        let path = SingleFieldPath::parse("a.b", SyntaxVersion::V2).unwrap();
        assert_eq!(path.field_from(&outer).unwrap().unwrap().name, "b");
        let through_int = SingleFieldPath::parse("n.b", SyntaxVersion::V2).unwrap();
        assert_eq!(
            through_int.field_from(&outer).unwrap_err().message,
            "Cannot look up fields on non-struct type"
        );
        let mut s = Struct::new(outer);
        let mut i = Struct::new(inner);
        i.values[0] = Value::String("x".into());
        s.values = vec![Value::Struct(i), Value::Int32(1)];
        assert_eq!(path.value_from_struct(&s, true).unwrap(), Value::String("x".into()));
        assert_eq!(
            through_int.value_from_struct(&s, true).unwrap_err().message,
            "Only Struct objects supported for [nested field access], found: java.lang.Integer"
        );

        let map = Value::Map(vec![(
            Value::String("a".into()),
            Value::Map(vec![(Value::String("b".into()), Value::Int64(7))]),
        )]);
        assert_eq!(path.value_from_map(&map).unwrap(), Value::Int64(7));
        let missing = SingleFieldPath::parse("z.b", SyntaxVersion::V2).unwrap();
        assert_eq!(missing.value_from_map(&map).unwrap(), Value::Null);
        let through_long = SingleFieldPath::parse("a.b.c", SyntaxVersion::V2).unwrap();
        assert_eq!(
            through_long.value_from_map(&map).unwrap_err().message,
            "Only Map objects supported in absence of schema for [nested field access], found: \
             java.lang.Long"
        );
    }
}
