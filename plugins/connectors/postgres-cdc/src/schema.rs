//! A column's Kafka Connect schema, as Debezium's `PostgresValueConverter` gives it for
//! each type and handling mode, in `JsonConverter`'s JSON form, together with the
//! [`Conv`]ersion its values need; and the default value Debezium puts in the schema.
//!
//! This module owns the mapping from [`PgType`] + type modifier + modes to (schema, Conv).
//! Converting a value's text is `value`'s job; assembling fields into key, value and
//! envelope schemas is `envelope`'s (with [`struct_schema`] from here).

use serde_json::{Map, Value, json};

use crate::catalog::ColumnMeta;
use crate::pgtype::PgType;
use crate::settings::{BinaryMode, DecimalMode, HstoreMode, IntervalMode, Settings, TimeMode};

/// How a value's text becomes its JSON payload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Conv {
    Int,
    Float,
    Bool,
    Text,
    /// Decimal bytes at this scale (`money` too).
    Decimal {
        scale: u32,
        money: bool,
    },
    /// VariableScaleDecimal `{scale, value}`.
    VariableDecimal,
    /// numeric/money as a double.
    DecimalDouble {
        money: bool,
    },
    /// numeric/money as its text.
    DecimalString {
        money: bool,
    },
    Days,
    TimeMillis,
    TimeMicros,
    TimestampMillis,
    TimestampMicros,
    ZonedTimestamp {
        precision: u32,
    },
    ZonedTime,
    IntervalMicros,
    IntervalIso,
    Binary(BinaryMode),
    /// `bit(1)` as a boolean.
    BitBool,
    /// `bit(n)`, n > 1, as `io.debezium.data.Bits` little-endian bytes.
    Bits,
    HstoreJson,
    HstoreMap,
    /// The text's bytes (include.unknown.datatypes).
    UnknownBytes(BinaryMode),
    Array(Box<Conv>),
}

fn named(ty: &str, name: &str) -> Value {
    json!({"type": ty, "name": name, "version": 1})
}

/// An unknown type's schema (`include.unknown.datatypes`): its text's bytes in the binary
/// handling mode.
fn unknown(s: &Settings) -> (Value, Conv) {
    let ty = if s.binary == BinaryMode::Bytes { "bytes" } else { "string" };
    (json!({"type": ty}), Conv::UnknownBytes(s.binary))
}

/// `numeric(p, s)`'s precision and scale from its type modifier.
pub fn numeric_precision_scale(typmod: i32) -> Option<(u32, u32)> {
    (typmod >= 4).then(|| ((((typmod - 4) >> 16) & 0xffff) as u32, ((typmod - 4) & 0xffff) as u32))
}

/// A time type's fractional digits: its modifier, else 6.
pub fn time_precision(typmod: i32) -> u32 {
    if (0..=6).contains(&typmod) { typmod as u32 } else { 6 }
}

/// The schema (without `optional`, `default` and `field`) and conversion of a value of
/// `ty`, or `None` when Debezium leaves such a column out.
pub fn plan(ty: &PgType, typmod: i32, s: &Settings) -> Option<(Value, Conv)> {
    use PgType::*;
    let adaptive = matches!(s.time, TimeMode::Adaptive);
    let connect = matches!(s.time, TimeMode::Connect);
    Some(match ty {
        Bool => (json!({"type": "boolean"}), Conv::Bool),
        Int2 => (json!({"type": "int16"}), Conv::Int),
        Int4 => (json!({"type": "int32"}), Conv::Int),
        Int8 | Oid => (json!({"type": "int64"}), Conv::Int),
        Float4 => (json!({"type": "float"}), Conv::Float),
        Float8 => (json!({"type": "double"}), Conv::Float),
        Numeric => match (s.decimal, numeric_precision_scale(typmod)) {
            (DecimalMode::Precise, None) => (
                json!({"type": "struct", "name": "io.debezium.data.VariableScaleDecimal", "version": 1,
                       "doc": "Variable scaled decimal",
                       "fields": [{"type": "int32", "optional": false, "field": "scale"},
                                  {"type": "bytes", "optional": false, "field": "value"}]}),
                Conv::VariableDecimal,
            ),
            (DecimalMode::Precise, Some((p, sc))) => (
                json!({"type": "bytes", "name": "org.apache.kafka.connect.data.Decimal", "version": 1,
                       "parameters": {"scale": sc.to_string(), "connect.decimal.precision": p.to_string()}}),
                Conv::Decimal { scale: sc, money: false },
            ),
            (DecimalMode::Double, _) => {
                (json!({"type": "double"}), Conv::DecimalDouble { money: false })
            }
            (DecimalMode::String, _) => {
                (json!({"type": "string"}), Conv::DecimalString { money: false })
            }
        },
        Money => match s.decimal {
            DecimalMode::Precise => (
                json!({"type": "bytes", "name": "org.apache.kafka.connect.data.Decimal", "version": 1,
                       "parameters": {"scale": "2"}}),
                Conv::Decimal { scale: 2, money: true },
            ),
            DecimalMode::Double => (json!({"type": "double"}), Conv::DecimalDouble { money: true }),
            DecimalMode::String => (json!({"type": "string"}), Conv::DecimalString { money: true }),
        },
        Text | TextForm => (json!({"type": "string"}), Conv::Text),
        Date if connect => (named("int32", "org.apache.kafka.connect.data.Date"), Conv::Days),
        Date => (named("int32", "io.debezium.time.Date"), Conv::Days),
        Time if connect => (named("int32", "org.apache.kafka.connect.data.Time"), Conv::TimeMillis),
        Time if adaptive && time_precision(typmod) <= 3 => {
            (named("int32", "io.debezium.time.Time"), Conv::TimeMillis)
        }
        Time => (named("int64", "io.debezium.time.MicroTime"), Conv::TimeMicros),
        Timestamp if connect => {
            (named("int64", "org.apache.kafka.connect.data.Timestamp"), Conv::TimestampMillis)
        }
        Timestamp if !matches!(s.time, TimeMode::Microseconds) && time_precision(typmod) <= 3 => {
            (named("int64", "io.debezium.time.Timestamp"), Conv::TimestampMillis)
        }
        Timestamp => (named("int64", "io.debezium.time.MicroTimestamp"), Conv::TimestampMicros),
        TimestampTz => (
            named("string", "io.debezium.time.ZonedTimestamp"),
            Conv::ZonedTimestamp { precision: time_precision(typmod) },
        ),
        TimeTz => (named("string", "io.debezium.time.ZonedTime"), Conv::ZonedTime),
        Interval => match s.interval {
            IntervalMode::Numeric => {
                (named("int64", "io.debezium.time.MicroDuration"), Conv::IntervalMicros)
            }
            IntervalMode::String => {
                (named("string", "io.debezium.time.Interval"), Conv::IntervalIso)
            }
        },
        Json => (named("string", "io.debezium.data.Json"), Conv::Text),
        Xml => (named("string", "io.debezium.data.Xml"), Conv::Text),
        Uuid => (named("string", "io.debezium.data.Uuid"), Conv::Text),
        Bytea => match s.binary {
            BinaryMode::Bytes => (json!({"type": "bytes"}), Conv::Binary(s.binary)),
            mode => (json!({"type": "string"}), Conv::Binary(mode)),
        },
        Bit if typmod == 1 => (json!({"type": "boolean"}), Conv::BitBool),
        Bit if typmod > 1 => (
            json!({"type": "bytes", "name": "io.debezium.data.Bits", "version": 1,
                   "parameters": {"length": typmod.to_string()}}),
            Conv::Bits,
        ),
        // An unconstrained `bit varying` has no length to declare.
        Bit if s.include_unknown_datatypes => unknown(s),
        Bit => return None,
        Hstore => match s.hstore {
            HstoreMode::Json => (named("string", "io.debezium.data.Json"), Conv::HstoreJson),
            HstoreMode::Map => (
                json!({"type": "map", "keys": {"type": "string", "optional": false},
                       "values": {"type": "string", "optional": true}}),
                Conv::HstoreMap,
            ),
        },
        Enum(labels) => (
            json!({"type": "string", "name": "io.debezium.data.Enum", "version": 1,
                   "parameters": {"allowed": labels.join(",")}}),
            Conv::Text,
        ),
        Array(element) => {
            let (mut items, conv) = match plan(element, typmod, s) {
                Some(p) => p,
                None if s.include_unknown_datatypes => unknown(s),
                None => return None,
            };
            // Debezium's enum arrays alone have required items.
            items["optional"] = json!(!matches!(**element, Enum(_)));
            (json!({"type": "array", "items": items}), Conv::Array(Box::new(conv)))
        }
        Unknown(_) if s.include_unknown_datatypes => unknown(s),
        Unknown(_) => return None,
    })
}

/// The field schema of `column` in a Value or Key struct: its type's schema, `optional`
/// unless NOT NULL (or `force_required`), Debezium's default, and `field`.
pub fn field_schema(
    column: &ColumnMeta,
    s: &Settings,
    force_required: bool,
) -> Option<(Value, Conv)> {
    let (schema, conv) = plan(&column.ty, column.type_modifier, s)?;
    let Value::Object(mut map) = schema else { return None };
    let optional = !(column.not_null || force_required);
    map.insert("optional".into(), json!(optional));
    if let Some(default) = default_value(column, &conv) {
        map.insert("default".into(), default);
    }
    map.insert("field".into(), json!(column.name));
    Some((Value::Object(map), conv))
}

/// The schema default Debezium's `PostgresDefaultValueConverter` derives from a column
/// default, for the types it has a mapper for: a literal (`'dflt'::text`, `42`, `true`)
/// converted like a value; a function call (`nextval(...)`, `now()`) or `CURRENT_*` as
/// the type's placeholder (`0`, `''`, `1970-01-01`, ...). Struct values (variable scale
/// decimals) and anything unparseable give no default.
pub fn default_value(column: &ColumnMeta, conv: &Conv) -> Option<Value> {
    use PgType::*;
    let expr = column.default_expr.as_deref()?.trim();
    let placeholder = match &column.ty {
        Bool => "false",
        Int2 | Int4 | Int8 => "0",
        Float4 | Float8 | Numeric => "0.0",
        Text | Xml => "",
        Json => "{}",
        Uuid => "00000000-0000-0000-0000-000000000000",
        Date | Timestamp | TimestampTz => "1970-01-01",
        Time => "00:00",
        Interval => "epoch",
        Enum(_) => {
            let (value, _) = expr.rsplit_once("::")?;
            let text = value.strip_prefix('\'')?.strip_suffix('\'')?;
            return crate::value::convert(conv, text).ok();
        }
        _ => return None,
    };
    let function = regex_lite::Regex::new(r"^[(]?[A-Za-z0-9_.]+\((?:.+(?:, ?.+)*)?\)").ok()?;
    let current =
        ["current_timestamp", "current_time", "current_date", "localtime", "localtimestamp"];
    let text = if function.is_match(expr) || current.contains(&expr.to_ascii_lowercase().as_str()) {
        placeholder.to_owned()
    } else if !expr.contains('\'') {
        if expr.starts_with("NULL::") {
            return None;
        }
        expr.to_owned()
    } else {
        first_literal(expr)?
    };
    let text = match &column.ty {
        Date | Timestamp | TimestampTz if !text.contains(' ') && text.len() <= 13 => {
            if column.ty == Date { text } else { format!("{text} 00:00:00+00") }
        }
        Time if text.matches(':').count() == 1 => format!("{text}:00"),
        _ => text,
    };
    match crate::value::convert(conv, &text) {
        Ok(v) if !v.is_null() && !v.is_object() => Some(v),
        _ => None,
    }
}

/// The first single-quoted literal of `expr`, with doubled quotes undone.
fn first_literal(expr: &str) -> Option<String> {
    let rest = &expr[expr.find('\'')? + 1..];
    let mut out = String::new();
    let mut chars = rest.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\'' {
            if chars.peek() == Some(&'\'') {
                chars.next();
                out.push('\'');
                continue;
            }
            return Some(out);
        }
        out.push(c);
    }
    None
}

/// A struct schema named `name` with `fields`, optional or not.
pub fn struct_schema(
    name: &str,
    fields: Vec<Value>,
    optional: bool,
    version: Option<u32>,
) -> Value {
    let mut m = Map::new();
    m.insert("type".into(), json!("struct"));
    m.insert("fields".into(), Value::Array(fields));
    m.insert("optional".into(), json!(optional));
    m.insert("name".into(), json!(name));
    if let Some(v) = version {
        m.insert("version".into(), json!(v));
    }
    Value::Object(m)
}

#[cfg(test)]
#[path = "schema_tests.rs"]
mod tests;
