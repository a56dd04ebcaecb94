//! One value cast to a primitive type as Kafka Connect's `Cast.castValueToType` does it:
//! Java's narrowing of numbers, `Integer.parseInt`-style parsing of strings, Java's
//! `toString` of numbers and `BigDecimal`s, base64 of bytes, and `Values.dateFormatFor`
//! for `Date`, `Time` and `Timestamp` values cast to strings (in UTC).
//!
//! This module owns those conversions and their messages; which fields to cast and the
//! schemas that result are `cast`'s.

use base64::Engine as _;

use super::date_format::DateFormat;
use crate::data::{DATE, DECIMAL, DECIMAL_SCALE, TIME, TIMESTAMP, java_class};
use crate::{Schema, TransformError, Type, Value};

/// The types `Cast` reads, in Kafka Connect's order.
const INPUTS: &[Type] = &[
    Type::Int8,
    Type::Int16,
    Type::Int32,
    Type::Int64,
    Type::Float32,
    Type::Float64,
    Type::Boolean,
    Type::String,
    Type::Bytes,
];

/// The types `Cast` writes (`spec`'s targets), in Kafka Connect's order.
pub(super) const OUTPUTS: &[Type] = &[
    Type::Int8,
    Type::Int16,
    Type::Int32,
    Type::Int64,
    Type::Float32,
    Type::Float64,
    Type::Boolean,
    Type::String,
];

/// `[INT8, INT16, ...]`, as Java prints an `EnumSet`.
pub(super) fn type_list(types: &[Type]) -> String {
    format!("[{}]", types.iter().map(|t| t.upper()).collect::<Vec<_>>().join(", "))
}

/// What the Java runtime would hold for a value before the cast.
enum Java {
    /// A `Number` other than `BigDecimal`.
    Number(Value),
    Decimal(i128, i32),
    Boolean(bool),
    String(String),
    Bytes(Vec<u8>),
    /// A `java.util.Date`, as milliseconds since the epoch.
    Date(i64),
}

/// Casts `value` (of `schema`, or schemaless) to `target`.
pub(super) fn cast(
    schema: Option<&Schema>,
    value: Value,
    target: Type,
) -> Result<Value, TransformError> {
    if value.is_null() {
        return Ok(Value::Null);
    }
    let from = schema.map_or_else(|| value.inferred_type().expect("not null"), |s| s.ty);
    if !INPUTS.contains(&from) {
        return Err(TransformError::new(format!(
            "Cast transformation does not support casting from {}; supported types are {}",
            from.upper(),
            type_list(INPUTS)
        )));
    }
    let logical = schema.and_then(|s| s.name.as_deref());
    let java = match (logical, value) {
        (Some(DECIMAL), Value::Bytes(b)) => {
            let scale =
                schema.and_then(|s| s.parameter(DECIMAL_SCALE)).and_then(|s| s.parse().ok());
            let scale = scale.ok_or_else(|| {
                TransformError::new("Invalid Decimal schema: scale parameter not found.")
            })?;
            Java::Decimal(unscaled(&b)?, scale)
        }
        (Some(DATE), Value::Int32(d)) if target == Type::String => {
            Java::Date(i64::from(d) * 86_400_000)
        }
        (Some(TIME), Value::Int32(ms)) if target == Type::String => Java::Date(i64::from(ms)),
        (Some(TIMESTAMP), Value::Int64(ms)) if target == Type::String => Java::Date(ms),
        (_, Value::Boolean(b)) => Java::Boolean(b),
        (_, Value::String(s)) => Java::String(s),
        (_, Value::Bytes(b)) => Java::Bytes(b),
        (_, v) => Java::Number(v),
    };
    let out_of_range = |text: &str| {
        TransformError::new(format!("Value ({text}) was out of range for requested data type"))
    };
    let unexpected = |class: &str| {
        TransformError::new(format!("Unexpected type in Cast transformation: class {class}"))
    };
    Ok(match (java, target) {
        (Java::Bytes(b), Type::String) => {
            Value::String(base64::engine::general_purpose::STANDARD.encode(b))
        }
        (Java::Bytes(_), _) => return Err(unexpected("[B")),
        (Java::Date(ms), Type::String) => Value::String(date_string(ms)),
        (Java::Date(_), _) => unreachable!("dates are only kept for strings"),
        (Java::String(s), Type::String) => Value::String(s),
        (Java::Boolean(b), Type::String) => Value::String(b.to_string()),
        (Java::Number(n), Type::String) => Value::String(number_string(&n)),
        (Java::Decimal(u, s), Type::String) => Value::String(decimal_string(u, s)),
        (Java::String(s), Type::Boolean) => Value::Boolean(s.eq_ignore_ascii_case("true")),
        (Java::String(s), Type::Float32) => {
            Value::Float32(java_parse_float(&s).map(|v| v as f32).ok_or_else(|| out_of_range(&s))?)
        }
        (Java::String(s), Type::Float64) => {
            Value::Float64(java_parse_float(&s).ok_or_else(|| out_of_range(&s))?)
        }
        (Java::String(s), ty) => {
            let n: i64 = match ty {
                Type::Int8 => s.parse::<i8>().map(i64::from),
                Type::Int16 => s.parse::<i16>().map(i64::from),
                Type::Int32 => s.parse::<i32>().map(i64::from),
                _ => s.parse::<i64>(),
            }
            .map_err(|_| out_of_range(&s))?;
            integer(n, ty)
        }
        (Java::Boolean(b), Type::Boolean) => Value::Boolean(b),
        (Java::Boolean(b), Type::Float32) => Value::Float32(if b { 1.0 } else { 0.0 }),
        (Java::Boolean(b), Type::Float64) => Value::Float64(if b { 1.0 } else { 0.0 }),
        (Java::Boolean(b), ty) => integer(i64::from(b), ty),
        (Java::Decimal(u, s), ty) => match ty {
            Type::Float32 => {
                Value::Float32(format!("{u}e{}", -i64::from(s)).parse().unwrap_or(0.0))
            }
            Type::Float64 => {
                Value::Float64(format!("{u}e{}", -i64::from(s)).parse().unwrap_or(0.0))
            }
            Type::Boolean => Value::Boolean(decimal_truncated(u, s) as i64 != 0),
            ty => integer(decimal_truncated(u, s) as i64, ty),
        },
        (Java::Number(n), ty) => {
            let (int, float) = match n {
                Value::Int8(v) => (i64::from(v), f64::from(v)),
                Value::Int16(v) => (i64::from(v), f64::from(v)),
                Value::Int32(v) => (i64::from(v), f64::from(v)),
                Value::Int64(v) => (v, v as f64),
                Value::Float32(v) => (v as i64, f64::from(v)),
                Value::Float64(v) => (v as i64, v),
                other => return Err(unexpected(java_class(&other))),
            };
            let is_float = matches!(n, Value::Float32(_) | Value::Float64(_));
            match ty {
                Type::Float32 => Value::Float32(match n {
                    Value::Int64(v) => v as f32,
                    _ => float as f32,
                }),
                Type::Float64 => Value::Float64(float),
                Type::Boolean => Value::Boolean(int != 0),
                // Java narrows a float to an int (saturating) before narrowing further.
                Type::Int8 | Type::Int16 | Type::Int32 if is_float => {
                    integer(i64::from(float as i32), ty)
                }
                ty => integer(int, ty),
            }
        }
    })
}

/// `n` narrowed to an integer type as Java's `byteValue`/`shortValue`/`intValue` do.
fn integer(n: i64, ty: Type) -> Value {
    match ty {
        Type::Int8 => Value::Int8(n as i8),
        Type::Int16 => Value::Int16(n as i16),
        Type::Int32 => Value::Int32(n as i32),
        _ => Value::Int64(n),
    }
}

/// A `Decimal`'s two's-complement big-endian unscaled value.
fn unscaled(bytes: &[u8]) -> Result<i128, TransformError> {
    if bytes.is_empty() || bytes.len() > 16 {
        return Err(TransformError::new(format!(
            "Cast supports Decimal values of 1 to 16 bytes, found {}",
            bytes.len()
        )));
    }
    let fill = if bytes[0] & 0x80 != 0 { 0xff } else { 0 };
    let mut buf = [fill; 16];
    buf[16 - bytes.len()..].copy_from_slice(bytes);
    Ok(i128::from_be_bytes(buf))
}

/// `BigDecimal.toBigInteger()`'s low 128 bits: the fraction dropped.
fn decimal_truncated(unscaled: i128, scale: i32) -> i128 {
    if scale >= 0 {
        10i128.checked_pow(scale as u32).map_or(0, |p| unscaled / p)
    } else {
        unscaled.wrapping_mul(10i128.wrapping_pow(scale.unsigned_abs()))
    }
}

/// `BigDecimal.toString()`.
fn decimal_string(unscaled: i128, scale: i32) -> String {
    let digits = unscaled.unsigned_abs().to_string();
    let sign = if unscaled < 0 { "-" } else { "" };
    let adjusted = -i64::from(scale) + digits.len() as i64 - 1;
    if scale >= 0 && adjusted >= -6 {
        let scale = scale as usize;
        if scale == 0 {
            return format!("{sign}{digits}");
        }
        if digits.len() > scale {
            let (int, frac) = digits.split_at(digits.len() - scale);
            format!("{sign}{int}.{frac}")
        } else {
            format!("{sign}0.{}{digits}", "0".repeat(scale - digits.len()))
        }
    } else {
        let (first, rest) = digits.split_at(1);
        let point = if rest.is_empty() { String::new() } else { format!(".{rest}") };
        let plus = if adjusted > 0 { "+" } else { "" };
        format!("{sign}{first}{point}E{plus}{adjusted}")
    }
}

/// Java's `toString` of a `Number`.
fn number_string(n: &Value) -> String {
    match n {
        Value::Int8(v) => v.to_string(),
        Value::Int16(v) => v.to_string(),
        Value::Int32(v) => v.to_string(),
        Value::Int64(v) => v.to_string(),
        Value::Float32(v) => java_float_string(f64::from(*v), format!("{v:e}")),
        Value::Float64(v) => java_float_string(*v, format!("{v:e}")),
        other => java_class(other).to_owned(),
    }
}

/// `Double.toString`/`Float.toString` from the shortest digits (`sci`, Rust's `{:e}`).
fn java_float_string(v: f64, sci: String) -> String {
    if v.is_nan() {
        return "NaN".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    let (sign, sci) = sci.strip_prefix('-').map_or(("", sci.as_str()), |s| ("-", s));
    let (mantissa, exp) = sci.split_once('e').expect("{:e} has an exponent");
    let exp: i64 = exp.parse().expect("an integer exponent");
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    if v == 0.0 || (1e-3..1e7).contains(&v.abs()) {
        if v == 0.0 {
            return format!("{sign}0.0");
        }
        let point = exp + 1; // digits before the decimal point
        if point <= 0 {
            format!("{sign}0.{}{digits}", "0".repeat((-point) as usize))
        } else if (point as usize) >= digits.len() {
            format!("{sign}{digits}{}.0", "0".repeat(point as usize - digits.len()))
        } else {
            let (int, frac) = digits.split_at(point as usize);
            format!("{sign}{int}.{frac}")
        }
    } else {
        let (first, rest) = digits.split_at(1);
        let rest = if rest.is_empty() { "0" } else { rest };
        format!("{sign}{first}.{rest}E{exp}")
    }
}

/// `Double.parseDouble`: surrounding white space, `NaN`, `Infinity` and a trailing
/// `f`/`d` allowed; Rust's own spellings (`inf`, `nan`) refused.
fn java_parse_float(s: &str) -> Option<f64> {
    let t = s.trim_matches(|c: char| c <= ' ');
    let (sign, body) = match t.as_bytes().first() {
        Some(b'-') => (-1.0, &t[1..]),
        Some(b'+') => (1.0, &t[1..]),
        _ => (1.0, t),
    };
    match body {
        "NaN" => return Some(f64::NAN),
        "Infinity" => return Some(sign * f64::INFINITY),
        _ => {}
    }
    let body = body.strip_suffix(['f', 'F', 'd', 'D']).unwrap_or(body);
    if body.is_empty() || !body.bytes().all(|b| b.is_ascii_digit() || b".eE+-".contains(&b)) {
        return None;
    }
    body.parse::<f64>().ok().map(|v| sign * v)
}

/// `Values.dateFormatFor(date).format(date)`, in UTC.
fn date_string(ms: i64) -> String {
    let pattern = if ms < 86_400_000 {
        "HH:mm:ss.SSS'Z'"
    } else if ms % 86_400_000 == 0 {
        "yyyy-MM-dd"
    } else {
        "yyyy-MM-dd'T'HH:mm:ss.SSS'Z'"
    };
    DateFormat::new(pattern).expect("a valid pattern").format(ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_number_strings() {
        let d = |v: f64| number_string(&Value::Float64(v));
        assert_eq!(d(42.0), "42.0");
        assert_eq!(d(-64.5), "-64.5");
        assert_eq!(d(0.001), "0.001");
        assert_eq!(d(0.0001), "1.0E-4");
        assert_eq!(d(1e7), "1.0E7");
        assert_eq!(d(1234567.0), "1234567.0");
        assert_eq!(d(9.223372036854776E18), "9.223372036854776E18");
        assert_eq!(d(-0.0), "-0.0");
        assert_eq!(d(f64::NEG_INFINITY), "-Infinity");
        assert_eq!(number_string(&Value::Float32(0.1)), "0.1");
        assert_eq!(number_string(&Value::Float32(3.4e38)), "3.4E38");
    }

    #[test]
    fn big_decimal_strings_and_truncation() {
        assert_eq!(decimal_string(42, 0), "42");
        assert_eq!(decimal_string(-12345, 2), "-123.45");
        assert_eq!(decimal_string(5, 3), "0.005");
        assert_eq!(decimal_string(1, 7), "1E-7");
        assert_eq!(decimal_string(12, -3), "1.2E+4");
        assert_eq!(decimal_string(0, -1), "0E+1");
        assert_eq!(decimal_truncated(-12345, 2), -123);
        assert_eq!(decimal_truncated(12, -2), 1200);
        assert_eq!(unscaled(&[0xff, 0x00]).unwrap(), -256);
        assert_eq!(unscaled(&[0x00, 0x80]).unwrap(), 128);
    }

    #[test]
    fn java_float_parsing() {
        assert_eq!(java_parse_float(" 1.5 "), Some(1.5));
        assert_eq!(java_parse_float("2f"), Some(2.0));
        assert_eq!(java_parse_float("-Infinity"), Some(f64::NEG_INFINITY));
        assert!(java_parse_float("NaN").unwrap().is_nan());
        assert_eq!(java_parse_float("inf"), None);
        assert_eq!(java_parse_float("1,5"), None);
    }

    #[test]
    fn dates_format_as_values_does() {
        assert_eq!(date_string(86_400_000), "1970-01-02");
        assert_eq!(date_string(86_400_001), "1970-01-02T00:00:00.001Z");
        assert_eq!(date_string(3_600_000), "01:00:00.000Z");
    }
}
