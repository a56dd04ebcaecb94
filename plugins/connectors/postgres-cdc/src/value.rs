//! A column value's PostgreSQL text turned into its payload in `JsonConverter`'s JSON
//! encoding (bytes and decimals as base64, int64 exact), following a [`Conv`] chosen by
//! `schema`; and the zero value Debezium puts in NOT NULL columns it did not receive.
//!
//! This module owns text parsing per conversion; it does not choose conversions.

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE};
use serde_json::{Value, json};

use crate::numeric::Decimal;
use crate::schema::Conv;
use crate::settings::BinaryMode;
use crate::temporal::{self, NEGATIVE_INFINITY, POSITIVE_INFINITY};

/// What Debezium writes for a TOASTed value the change did not carry.
pub const UNAVAILABLE: &str = "__debezium_unavailable_value";

fn b64(bytes: &[u8]) -> Value {
    Value::String(STANDARD.encode(bytes))
}

/// `bytea` text output (`\x0a0b`, or the older escape format) as bytes.
pub fn bytea(text: &str) -> Result<Vec<u8>, String> {
    if let Some(hex) = text.strip_prefix("\\x") {
        if hex.len() % 2 != 0 || !hex.is_ascii() {
            return Err(format!("odd hex length in bytea {text:?}"));
        }
        return (0..hex.len())
            .step_by(2)
            .map(|i| {
                u8::from_str_radix(&hex[i..i + 2], 16).map_err(|_| format!("bad bytea {text:?}"))
            })
            .collect();
    }
    let (mut out, b) = (Vec::new(), text.as_bytes());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && b.get(i + 1) == Some(&b'\\') {
            out.push(b'\\');
            i += 2;
        } else if b[i] == b'\\'
            && i + 3 < b.len()
            && b[i + 1..i + 4].iter().all(|c| (b'0'..=b'7').contains(c))
        {
            out.push(((b[i + 1] - b'0') << 6) | ((b[i + 2] - b'0') << 3) | (b[i + 3] - b'0'));
            i += 4;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    Ok(out)
}

/// A bit string (`10110`, first character the highest bit) as Java's
/// `BitSet.toByteArray`: little-endian bytes, the last character bit 0, no trailing zero
/// bytes (so all zeros is empty).
pub fn bits(text: &str) -> Result<Vec<u8>, String> {
    let mut out = vec![0u8; text.len().div_ceil(8)];
    for (i, c) in text.bytes().rev().enumerate() {
        match c {
            b'1' => out[i / 8] |= 1 << (i % 8),
            b'0' => {}
            _ => return Err(format!("bad bit string {text:?}")),
        }
    }
    while out.last() == Some(&0) {
        out.pop();
    }
    Ok(out)
}

/// Bytes in a binary handling mode.
pub fn binary(bytes: &[u8], mode: BinaryMode) -> Value {
    match mode {
        BinaryMode::Bytes | BinaryMode::Base64 => b64(bytes),
        BinaryMode::Base64UrlSafe => Value::String(URL_SAFE.encode(bytes)),
        BinaryMode::Hex => Value::String(bytes.iter().map(|b| format!("{b:02x}")).collect()),
    }
}

fn decimal(text: &str, money: bool) -> Option<Decimal> {
    if money { Decimal::parse_money(text) } else { Decimal::parse(text) }
}

fn number(text: &str) -> Result<Value, String> {
    match text {
        "NaN" | "Infinity" | "-Infinity" => Ok(Value::String(text.to_owned())),
        _ => {
            let f: f64 = text.parse().map_err(|_| format!("not a number: {text:?}"))?;
            Ok(serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number))
        }
    }
}

/// The payload of streamed (or default) `text` under `conv`.
pub fn convert(conv: &Conv, text: &str) -> Result<Value, String> {
    convert_in(conv, text, false)
}

/// The payload of `text` under `conv`, read by a snapshot (`snapshot`) or streamed: they
/// differ only for `date` infinities, as in Debezium.
pub fn convert_in(conv: &Conv, text: &str, snapshot: bool) -> Result<Value, String> {
    let infinity = |pos: bool, scale: i64| {
        json!(if pos { POSITIVE_INFINITY } else { NEGATIVE_INFINITY } / scale)
    };
    Ok(match conv {
        Conv::Int => Value::Number(
            text.trim().parse::<i64>().map_err(|_| format!("not an integer: {text:?}"))?.into(),
        ),
        Conv::Float => number(text.trim())?,
        Conv::Bool => json!(matches!(text, "t" | "true")),
        Conv::Text => Value::String(text.to_owned()),
        Conv::Decimal { scale, money } => match decimal(text, *money) {
            Some(d) => b64(&d.rescale(*scale).unscaled_bytes()),
            None => Value::Null,
        },
        // Debezium strips trailing zeros (never below scale 0): 1.500 is 15 at scale 1.
        Conv::VariableDecimal => match Decimal::parse(text) {
            Some(d) => {
                let d = d.strip_fraction_zeros();
                json!({"scale": d.scale, "value": b64(&d.unscaled_bytes())})
            }
            None => Value::Null,
        },
        Conv::DecimalDouble { money } => match decimal(text, *money) {
            Some(d) => serde_json::Number::from_f64(d.to_f64()).map_or(Value::Null, Value::Number),
            None => number(text)?,
        },
        Conv::DecimalString { money } => match (money, decimal(text, *money)) {
            (true, Some(d)) => {
                let (int, frac) = d.digits.split_at(d.digits.len() - 2);
                let int = int.trim_start_matches('0');
                json!(format!(
                    "{}{}.{frac}",
                    if d.negative { "-" } else { "" },
                    if int.is_empty() { "0" } else { int }
                ))
            }
            _ => Value::String(text.to_owned()),
        },
        Conv::Days => json!(temporal::date_days(text, snapshot)?),
        Conv::TimeMillis => json!(temporal::time_micros(text)? / 1000),
        Conv::TimeMicros => json!(temporal::time_micros(text)?),
        Conv::TimestampMillis => match temporal::timestamp_micros(text)? {
            Ok(us) => json!(us.div_euclid(1000)),
            Err(pos) => infinity(pos, 1000),
        },
        Conv::TimestampMicros => match temporal::timestamp_micros(text)? {
            Ok(us) => json!(us),
            Err(pos) => infinity(pos, 1),
        },
        Conv::ZonedTimestamp { precision } => json!(temporal::zoned_timestamp(text, *precision)?),
        Conv::ZonedTime => json!(temporal::zoned_time(text)?),
        Conv::IntervalMicros => json!(temporal::interval_micros(text)?),
        Conv::IntervalIso => json!(temporal::interval_iso(text)?),
        Conv::Binary(mode) => binary(&bytea(text)?, *mode),
        Conv::BitBool => json!(text.contains('1')),
        Conv::Bits => b64(&bits(text)?),
        Conv::HstoreJson => Value::String(crate::hstore::json_text(&crate::hstore::parse(text)?)),
        Conv::HstoreMap => crate::hstore::map(&crate::hstore::parse(text)?),
        Conv::UnknownBytes(mode) => binary(text.as_bytes(), *mode),
        Conv::Array(element) => Value::Array(
            crate::array::parse(text)?
                .iter()
                .map(|e| e.as_deref().map_or(Ok(Value::Null), |t| convert_in(element, t, snapshot)))
                .collect::<Result<_, _>>()?,
        ),
    })
}

/// The payload of a TOASTed value that was not sent: the placeholder as text, or its
/// UTF-8 bytes where the schema is binary.
pub fn unavailable(conv: &Conv) -> Value {
    match conv {
        Conv::Binary(mode) => binary(UNAVAILABLE.as_bytes(), *mode),
        Conv::UnknownBytes(mode) => binary(UNAVAILABLE.as_bytes(), *mode),
        Conv::Array(element) => Value::Array(vec![unavailable(element)]),
        _ => Value::String(UNAVAILABLE.to_owned()),
    }
}

/// The zero value of a type: what Debezium fills NOT NULL columns with when it has no
/// value for them (a REPLICA IDENTITY DEFAULT delete's `before`, a schema default).
pub fn zero(conv: &Conv) -> Value {
    match conv {
        Conv::Int
        | Conv::Days
        | Conv::TimeMillis
        | Conv::TimeMicros
        | Conv::TimestampMillis
        | Conv::TimestampMicros
        | Conv::IntervalMicros => json!(0),
        Conv::Float | Conv::DecimalDouble { .. } => json!(0.0),
        Conv::Bool | Conv::BitBool => json!(false),
        Conv::Bits => b64(&[]),
        Conv::Text | Conv::DecimalString { .. } => json!(""),
        Conv::Decimal { .. } => b64(&[0]),
        Conv::VariableDecimal => json!({"scale": 0, "value": b64(&[0])}),
        Conv::ZonedTimestamp { .. } => json!("1970-01-01T00:00:00Z"),
        Conv::ZonedTime => json!("00:00:00Z"),
        Conv::IntervalIso => json!("P0Y0M0DT0H0M0S"),
        Conv::Binary(mode) => binary(&[], *mode),
        Conv::UnknownBytes(mode) => binary(&[], *mode),
        Conv::HstoreJson => json!("{}"),
        Conv::HstoreMap => json!({}),
        Conv::Array(_) => json!([]),
    }
}

#[cfg(test)]
#[path = "value_tests.rs"]
mod tests;
