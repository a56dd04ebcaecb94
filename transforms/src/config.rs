//! A small `ConfigDef` for transforms and predicates: [`KeyDef`]s, and [`parse`], which
//! checks a transform's own keys and answers Kafka Connect's messages
//! (`Missing required configuration "transforms.a.field" which has no default value.`,
//! `Invalid value x for configuration transforms.a.n: Not a number of type INT`).
//!
//! Keys are parsed as Kafka Connect's `ConfigDef.parseType` does: surrounding white space
//! is trimmed (but for passwords), lists split on commas and trimmed, an empty list value
//! is an empty list. This module owns parsing and its messages; each transform reads the
//! parsed values through [`Parsed`] and adds its own problems with [`Parsed::problem`].

use std::collections::BTreeMap;

/// The type of a key's value (Kafka Connect's `ConfigDef.Type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyType {
    /// `true` or `false`, any case.
    Boolean,
    /// 32-bit integer.
    Int,
    /// 64-bit integer.
    Long,
    /// Floating point.
    Double,
    /// Text.
    String,
    /// Comma-separated text.
    List,
    /// Secret text.
    Password,
}

impl KeyType {
    /// Kafka Connect's name (`BOOLEAN`, `INT`, ...), as its messages and REST answers
    /// print it.
    pub const fn upper(self) -> &'static str {
        match self {
            KeyType::Boolean => "BOOLEAN",
            KeyType::Int => "INT",
            KeyType::Long => "LONG",
            KeyType::Double => "DOUBLE",
            KeyType::String => "STRING",
            KeyType::List => "LIST",
            KeyType::Password => "PASSWORD",
        }
    }
}

/// How much a key matters (Kafka Connect's `ConfigDef.Importance`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Importance {
    /// HIGH.
    High,
    /// MEDIUM.
    Medium,
    /// LOW.
    Low,
}

/// A key's default.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Default {
    /// No default: the key must be set (`ConfigDef.NO_DEFAULT_VALUE`).
    Required,
    /// `null`: the key may be left out and then has no value.
    Null,
    /// This value, as a user would type it.
    Value(&'static str),
}

/// A check of a value beyond its type (Kafka Connect's `ConfigDef.Validator`).
#[derive(Clone, Copy, Debug)]
pub enum Validator {
    /// One of these strings, exactly (`ValidString.in`): `String must be one of: a, b`.
    OneOf(&'static [&'static str]),
    /// One of these strings, any case (`CaseInsensitiveValidString.in`).
    OneOfIgnoringCase(&'static [&'static str]),
    /// A non-empty string (`NonEmptyString`): `String must be non-empty`.
    NonEmpty,
    /// A number at least this (`Range.atLeast`): `Value must be at least N`.
    AtLeast(i64),
    /// Any other check: the message after `Invalid value V for configuration K: `.
    Custom(fn(&str) -> Result<(), String>),
}

/// One key of a transform's or predicate's definition.
#[derive(Clone, Copy, Debug)]
pub struct KeyDef {
    /// The key, without the `transforms.<alias>.` prefix.
    pub name: &'static str,
    /// Its type.
    pub ty: KeyType,
    /// Its default.
    pub default: Default,
    /// A check beyond the type.
    pub validator: Option<Validator>,
    /// How much it matters.
    pub importance: Importance,
    /// What it does, as Kafka Connect documents it.
    pub doc: &'static str,
}

/// A problem with one key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// The full key, e.g. `transforms.a.field`.
    pub key: String,
    /// Kafka Connect's message.
    pub message: String,
}

/// A parsed value.
#[derive(Clone, Debug, PartialEq)]
pub enum Parsed1 {
    /// No value (a `Default::Null` key left out).
    Null,
    /// BOOLEAN.
    Boolean(bool),
    /// INT or LONG.
    Integer(i64),
    /// DOUBLE.
    Double(f64),
    /// STRING or PASSWORD.
    Text(String),
    /// LIST.
    List(Vec<String>),
}

/// A transform's keys after [`parse`].
#[derive(Clone, Debug)]
pub struct Parsed {
    prefix: String,
    values: BTreeMap<&'static str, Parsed1>,
}

impl Parsed {
    /// A problem with key `name` (prefixed like the parsed keys).
    pub fn problem(&self, name: &str, message: impl Into<String>) -> Problem {
        Problem { key: format!("{}{name}", self.prefix), message: message.into() }
    }

    /// `Invalid value {value} for configuration {key}: {reason}` for key `name`.
    pub fn invalid(&self, name: &str, value: &str, reason: impl std::fmt::Display) -> Problem {
        let key = format!("{}{name}", self.prefix);
        Problem { message: format!("Invalid value {value} for configuration {key}: {reason}"), key }
    }

    /// The prefix the keys were given under (`transforms.a.`).
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// The value of a STRING or PASSWORD key; `None` when it has none. Panics on a key the
    /// definition does not have: a bug in the transform.
    pub fn string(&self, name: &str) -> Option<&str> {
        match self.get(name) {
            Parsed1::Text(s) => Some(s),
            Parsed1::Null => None,
            other => panic!("{name} is not a string key: {other:?}"),
        }
    }

    /// The value of a LIST key; empty when it has none.
    pub fn list(&self, name: &str) -> &[String] {
        match self.get(name) {
            Parsed1::List(l) => l,
            Parsed1::Null => &[],
            other => panic!("{name} is not a list key: {other:?}"),
        }
    }

    /// The value of an INT or LONG key.
    pub fn integer(&self, name: &str) -> Option<i64> {
        match self.get(name) {
            Parsed1::Integer(n) => Some(*n),
            Parsed1::Null => None,
            other => panic!("{name} is not an integer key: {other:?}"),
        }
    }

    /// The value of a DOUBLE key.
    pub fn double(&self, name: &str) -> Option<f64> {
        match self.get(name) {
            Parsed1::Double(n) => Some(*n),
            Parsed1::Null => None,
            other => panic!("{name} is not a double key: {other:?}"),
        }
    }

    /// The value of a BOOLEAN key (`false` when it has none).
    pub fn boolean(&self, name: &str) -> bool {
        match self.get(name) {
            Parsed1::Boolean(b) => *b,
            Parsed1::Null => false,
            other => panic!("{name} is not a boolean key: {other:?}"),
        }
    }

    fn get(&self, name: &str) -> &Parsed1 {
        self.values.get(name).unwrap_or_else(|| panic!("{name} is not a defined key"))
    }
}

/// Parses `props` (the transform's own keys, prefix stripped) against `defs`. Keys that
/// `defs` does not define are left alone, as Kafka Connect leaves them. Problems name
/// the key as `prefix` + name.
pub fn parse(
    defs: &[KeyDef],
    props: &[(String, String)],
    prefix: &str,
) -> Result<Parsed, Vec<Problem>> {
    let mut values = BTreeMap::new();
    let mut problems = Vec::new();
    for def in defs {
        let key = format!("{prefix}{}", def.name);
        let given = props.iter().rev().find(|(k, _)| k == def.name).map(|(_, v)| v.as_str());
        let text = match (given, def.default) {
            (Some(v), _) => v,
            (None, Default::Value(v)) => v,
            (None, Default::Null) => {
                values.insert(def.name, Parsed1::Null);
                continue;
            }
            (None, Default::Required) => {
                problems.push(Problem {
                    message: format!(
                        "Missing required configuration \"{key}\" which has no default value."
                    ),
                    key,
                });
                continue;
            }
        };
        match parse_one(def, text) {
            Ok(v) => match check(def, text, &v) {
                Ok(()) => {
                    values.insert(def.name, v);
                }
                Err(reason) => problems.push(Problem {
                    message: format!("Invalid value {text} for configuration {key}: {reason}"),
                    key,
                }),
            },
            Err(reason) => problems.push(Problem {
                message: format!("Invalid value {text} for configuration {key}: {reason}"),
                key,
            }),
        }
    }
    if problems.is_empty() {
        Ok(Parsed { prefix: prefix.to_owned(), values })
    } else {
        Err(problems)
    }
}

fn parse_one(def: &KeyDef, text: &str) -> Result<Parsed1, String> {
    let trimmed = text.trim();
    Ok(match def.ty {
        KeyType::Boolean => match trimmed.to_ascii_lowercase().as_str() {
            "true" => Parsed1::Boolean(true),
            "false" => Parsed1::Boolean(false),
            _ => return Err("Expected value to be either true or false".into()),
        },
        KeyType::Int => Parsed1::Integer(
            trimmed.parse::<i32>().map_err(|_| "Not a number of type INT".to_owned())?.into(),
        ),
        KeyType::Long => Parsed1::Integer(
            trimmed.parse::<i64>().map_err(|_| "Not a number of type LONG".to_owned())?,
        ),
        KeyType::Double => Parsed1::Double(
            trimmed.parse::<f64>().map_err(|_| "Not a number of type DOUBLE".to_owned())?,
        ),
        KeyType::String => Parsed1::Text(trimmed.to_owned()),
        KeyType::Password => Parsed1::Text(text.to_owned()),
        KeyType::List if trimmed.is_empty() => Parsed1::List(Vec::new()),
        KeyType::List => Parsed1::List(trimmed.split(',').map(|s| s.trim().to_owned()).collect()),
    })
}

fn check(def: &KeyDef, text: &str, value: &Parsed1) -> Result<(), String> {
    let Some(validator) = def.validator else { return Ok(()) };
    let as_text = match value {
        Parsed1::Text(s) => s.as_str(),
        _ => text.trim(),
    };
    match validator {
        Validator::OneOf(allowed) => {
            let ok = match value {
                Parsed1::List(items) => items.iter().all(|i| allowed.contains(&i.as_str())),
                _ => allowed.contains(&as_text),
            };
            if ok { Ok(()) } else { Err(format!("String must be one of: {}", allowed.join(", "))) }
        }
        Validator::OneOfIgnoringCase(allowed) => {
            if allowed.iter().any(|a| a.eq_ignore_ascii_case(as_text)) {
                Ok(())
            } else {
                Err(format!("String must be one of (case insensitive): {}", allowed.join(", ")))
            }
        }
        Validator::NonEmpty => {
            if as_text.is_empty() {
                Err("String must be non-empty".into())
            } else {
                Ok(())
            }
        }
        Validator::AtLeast(min) => match value {
            Parsed1::Integer(n) if *n < min => Err(format!("Value must be at least {min}")),
            Parsed1::Double(n) if *n < min as f64 => Err(format!("Value must be at least {min}")),
            _ => Ok(()),
        },
        Validator::Custom(f) => f(as_text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEFS: &[KeyDef] = &[
        KeyDef {
            name: "field",
            ty: KeyType::String,
            default: Default::Required,
            validator: Some(Validator::NonEmpty),
            importance: Importance::High,
            doc: "",
        },
        KeyDef {
            name: "n",
            ty: KeyType::Int,
            default: Default::Value("3"),
            validator: Some(Validator::AtLeast(1)),
            importance: Importance::Low,
            doc: "",
        },
        KeyDef {
            name: "names",
            ty: KeyType::List,
            default: Default::Value(""),
            validator: None,
            importance: Importance::Low,
            doc: "",
        },
        KeyDef {
            name: "mode",
            ty: KeyType::String,
            default: Default::Null,
            validator: Some(Validator::OneOf(&["a", "b"])),
            importance: Importance::Low,
            doc: "",
        },
    ];

    fn props(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn values_are_trimmed_defaulted_and_split() {
        let p = parse(DEFS, &props(&[("field", " f "), ("names", "a, b ,c")]), "transforms.x.")
            .unwrap();
        assert_eq!(p.string("field"), Some("f"));
        assert_eq!(p.integer("n"), Some(3));
        assert_eq!(p.list("names"), ["a", "b", "c"]);
        assert_eq!(p.string("mode"), None);
    }

    #[test]
    fn problems_carry_kafka_connects_messages_and_the_full_key() {
        let problems =
            parse(DEFS, &props(&[("n", "x"), ("mode", "c")]), "transforms.x.").unwrap_err();
        let messages: Vec<&str> = problems.iter().map(|p| p.message.as_str()).collect();
        assert_eq!(
            messages,
            [
                "Missing required configuration \"transforms.x.field\" which has no default value.",
                "Invalid value x for configuration transforms.x.n: Not a number of type INT",
                "Invalid value c for configuration transforms.x.mode: String must be one of: a, b",
            ]
        );
        assert_eq!(problems[1].key, "transforms.x.n");
        let p = parse(DEFS, &props(&[("field", ""), ("n", "0")]), "").unwrap_err();
        assert_eq!(
            p[0].message,
            "Invalid value  for configuration field: String must be non-empty"
        );
        assert_eq!(p[1].message, "Invalid value 0 for configuration n: Value must be at least 1");
    }
}
