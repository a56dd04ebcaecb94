//! `header.converter`: how a header a transform made (`HeaderFrom`, `InsertHeader`)
//! becomes bytes, as Kafka Connect's `SimpleHeaderConverter` (the default),
//! `StringConverter` and `ByteArrayConverter` write it (`fromConnectHeader`).
//!
//! Headers that arrived as bytes pass through unchanged. This module owns the class names
//! and the writing; it must not parse header bytes a plugin gave.
//!
//! Kafka Connect holds logical values as Java objects (`BigDecimal`, `java.util.Date`);
//! here they are their base values, so the writers look at the schema to render them as
//! Kafka Connect would. Dates are rendered in UTC (Kafka Connect uses the worker JVM's
//! default time zone, UTC on a usual deployment).

use crate::data::schemaless::json::{base64_encode, java_double, java_float};
use crate::data::unscaled::unscaled_digits;
use crate::data::{DATE, DECIMAL, DECIMAL_SCALE, TIME, TIMESTAMP, java_class};
use crate::{Schema, SchemaAndValue, TransformError, Type, Value};

/// A header converter.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HeaderConverter {
    /// `org.apache.kafka.connect.storage.SimpleHeaderConverter`.
    #[default]
    Simple,
    /// `org.apache.kafka.connect.storage.StringConverter`.
    String,
    /// `org.apache.kafka.connect.converters.ByteArrayConverter`.
    ByteArray,
}

const CLASSES: [(&str, HeaderConverter); 3] = [
    ("org.apache.kafka.connect.storage.SimpleHeaderConverter", HeaderConverter::Simple),
    ("org.apache.kafka.connect.storage.StringConverter", HeaderConverter::String),
    ("org.apache.kafka.connect.converters.ByteArrayConverter", HeaderConverter::ByteArray),
];

impl HeaderConverter {
    /// The class names of every header converter, sorted.
    pub const CLASSES: [&'static str; 3] = [
        "org.apache.kafka.connect.converters.ByteArrayConverter",
        "org.apache.kafka.connect.storage.SimpleHeaderConverter",
        "org.apache.kafka.connect.storage.StringConverter",
    ];

    /// The converter a `header.converter` value names (its class or simple name).
    pub fn from_class(class: &str) -> Option<Self> {
        let class = class.trim();
        CLASSES
            .iter()
            .find(|(name, _)| *name == class || name.rsplit('.').next() == Some(class))
            .map(|(_, c)| *c)
    }

    /// The converter's full class name.
    pub fn class(&self) -> &'static str {
        CLASSES.iter().find(|(_, c)| c == self).map(|(name, _)| *name).expect("every converter")
    }

    /// Writes a typed header value; `None` for null.
    pub fn write(
        &self,
        _header: &str,
        data: &SchemaAndValue,
    ) -> Result<Option<Vec<u8>>, TransformError> {
        let schema = data.schema.as_deref();
        match self {
            HeaderConverter::Simple | HeaderConverter::String if data.value.is_null() => Ok(None),
            HeaderConverter::Simple => {
                let mut out = String::new();
                append(&mut out, schema, &data.value, false);
                Ok(Some(out.into_bytes()))
            }
            HeaderConverter::String => Ok(Some(to_string(schema, &data.value).into_bytes())),
            HeaderConverter::ByteArray => {
                if let Some(s) = schema.filter(|s| s.ty != Type::Bytes) {
                    return Err(TransformError::new(format!(
                        "Invalid schema type for ByteArrayConverter: {}",
                        s.ty.upper()
                    )));
                }
                match &data.value {
                    Value::Null => Ok(None),
                    Value::Bytes(b) if !schema.is_some_and(|s| s.is_logical(DECIMAL)) => {
                        Ok(Some(b.clone()))
                    }
                    other => Err(TransformError::new(format!(
                        "ByteArrayConverter is not compatible with objects of type class {}",
                        class_of(schema, other)
                    ))),
                }
            }
        }
    }
}

/// What a value of `schema` is in Kafka Connect's Java runtime.
enum Logical {
    Decimal(i32),
    Date(i64),
    None,
}

fn logical(schema: Option<&Schema>, value: &Value) -> Logical {
    let Some(schema) = schema else { return Logical::None };
    match (schema.name.as_deref(), value) {
        (Some(DECIMAL), Value::Bytes(_)) => {
            let scale = schema.parameter(DECIMAL_SCALE).and_then(|s| s.parse().ok());
            scale.map_or(Logical::None, Logical::Decimal)
        }
        (Some(DATE), Value::Int32(days)) => Logical::Date(i64::from(*days) * MILLIS_PER_DAY),
        (Some(TIME), Value::Int32(ms)) => Logical::Date(i64::from(*ms)),
        (Some(TIMESTAMP), Value::Int64(ms)) => Logical::Date(*ms),
        _ => Logical::None,
    }
}

fn class_of(schema: Option<&Schema>, value: &Value) -> &'static str {
    match logical(schema, value) {
        Logical::Decimal(_) => "java.math.BigDecimal",
        Logical::Date(_) => "java.util.Date",
        Logical::None => java_class(value),
    }
}

const MILLIS_PER_DAY: i64 = 24 * 60 * 60 * 1000;

/// Kafka Connect's `Values.append`: `SimpleHeaderConverter`'s text. Strings and bytes
/// (base64) are quoted inside arrays, maps and structs; struct fields show their defaults.
fn append(out: &mut String, schema: Option<&Schema>, value: &Value, embedded: bool) {
    match logical(schema, value) {
        Logical::Decimal(scale) => {
            let Value::Bytes(b) = value else { unreachable!("a Decimal is bytes") };
            out.push_str(&decimal_string(b, scale));
            return;
        }
        Logical::Date(ms) => {
            // `Values.dateFormatFor`: a time under a day, a date on a day's start, else
            // a timestamp, whatever the logical type.
            let (date, time) = civil(ms);
            if ms < MILLIS_PER_DAY {
                out.push_str(&time);
            } else if ms % MILLIS_PER_DAY == 0 {
                out.push_str(&date);
            } else {
                out.push_str(&format!("{date}T{time}"));
            }
            return;
        }
        Logical::None => {}
    }
    let quoted = |out: &mut String, s: &str| {
        if embedded {
            out.push('"');
            out.push_str(&s.replace('\\', "\\\\").replace('"', "\\\""));
            out.push('"');
        } else {
            out.push_str(s);
        }
    };
    let inner = |f: fn(&Schema) -> Option<&Schema>| schema.and_then(f);
    match value {
        Value::String(s) => quoted(out, s),
        Value::Bytes(b) => {
            let text = base64_encode(b);
            if embedded { out.push_str(&format!("\"{text}\"")) } else { out.push_str(&text) }
        }
        Value::Array(items) => {
            let items_schema = inner(|s| s.value_schema.as_deref());
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                append(out, items_schema, item, true);
            }
            out.push(']');
        }
        Value::Map(entries) => {
            let keys = inner(|s| s.key_schema.as_deref());
            let values = inner(|s| s.value_schema.as_deref());
            out.push('{');
            for (i, (k, v)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                append(out, keys, k, true);
                out.push(':');
                append(out, values, v, true);
            }
            out.push('}');
        }
        Value::Struct(st) => {
            out.push('{');
            for (i, (field, v)) in st.schema.fields.iter().zip(&st.values).enumerate() {
                if i > 0 {
                    out.push(',');
                }
                append(out, None, &Value::String(field.name.clone()), true);
                out.push(':');
                let v = match (&field.schema.default, v) {
                    (Some(d), Value::Null) => d,
                    _ => v,
                };
                append(out, Some(&field.schema), v, true);
            }
            out.push('}');
        }
        other => out.push_str(&to_string(None, other)),
    }
}

/// Java's `toString()` of the value Kafka Connect holds: `StringConverter`'s text.
fn to_string(schema: Option<&Schema>, value: &Value) -> String {
    match logical(schema, value) {
        Logical::Decimal(scale) => {
            let Value::Bytes(b) = value else { unreachable!("a Decimal is bytes") };
            return decimal_string(b, scale);
        }
        Logical::Date(ms) => return java_date_string(ms),
        Logical::None => {}
    }
    match value {
        Value::Null => "null".into(),
        Value::Boolean(b) => b.to_string(),
        Value::Int8(n) => n.to_string(),
        Value::Int16(n) => n.to_string(),
        Value::Int32(n) => n.to_string(),
        Value::Int64(n) => n.to_string(),
        Value::Float32(f) => java_float(*f),
        Value::Float64(d) => java_double(*d),
        Value::String(s) => s.clone(),
        // A Java array's `toString` is its class and identity hash: stable here, but
        // only in shape what Kafka Connect writes.
        Value::Bytes(b) => {
            let hash = b
                .iter()
                .fold(0x811c_9dc5_u32, |h, x| (h ^ u32::from(*x)).wrapping_mul(0x0100_0193));
            format!("[B@{hash:x}")
        }
        Value::Array(items) => {
            let items_schema = schema.and_then(|s| s.value_schema.as_deref());
            let parts: Vec<String> = items.iter().map(|i| to_string(items_schema, i)).collect();
            format!("[{}]", parts.join(", "))
        }
        Value::Map(entries) => {
            let keys = schema.and_then(|s| s.key_schema.as_deref());
            let values = schema.and_then(|s| s.value_schema.as_deref());
            let parts: Vec<String> = entries
                .iter()
                .map(|(k, v)| format!("{}={}", to_string(keys, k), to_string(values, v)))
                .collect();
            format!("{{{}}}", parts.join(", "))
        }
        Value::Struct(st) => {
            let parts: Vec<String> = st
                .schema
                .fields
                .iter()
                .zip(&st.values)
                .filter(|(_, v)| !v.is_null())
                .map(|(f, v)| format!("{}={}", f.name, to_string(Some(&f.schema), v)))
                .collect();
            format!("Struct{{{}}}", parts.join(","))
        }
    }
}

/// `BigDecimal.toString()` of two's complement unscaled bytes at `scale`.
fn decimal_string(bytes: &[u8], scale: i32) -> String {
    let (negative, coeff) = unscaled_digits(bytes);
    let sign = if negative { "-" } else { "" };
    let len = coeff.len() as i64;
    let scale = i64::from(scale);
    let adjusted = -scale + (len - 1);
    if scale >= 0 && adjusted >= -6 {
        if scale == 0 {
            format!("{sign}{coeff}")
        } else if len > scale {
            let (int, frac) = coeff.split_at((len - scale) as usize);
            format!("{sign}{int}.{frac}")
        } else {
            format!("{sign}0.{}{coeff}", "0".repeat((scale - len) as usize))
        }
    } else {
        let (first, rest) = coeff.split_at(1);
        let rest = if rest.is_empty() { String::new() } else { format!(".{rest}") };
        let exp = if adjusted >= 0 { format!("+{adjusted}") } else { adjusted.to_string() };
        format!("{sign}{first}{rest}E{exp}")
    }
}

/// UTC `yyyy-MM-dd` and `HH:mm:ss.SSS'Z'` of epoch milliseconds.
fn civil(ms: i64) -> (String, String) {
    let (y, m, d, hh, mm, ss, milli) = fields(ms);
    (format!("{y:04}-{m:02}-{d:02}"), format!("{hh:02}:{mm:02}:{ss:02}.{milli:03}Z"))
}

/// Year, month, day, hour, minute, second, millisecond (proleptic Gregorian, UTC).
fn fields(ms: i64) -> (i64, u32, u32, i64, i64, i64, i64) {
    let days = ms.div_euclid(MILLIS_PER_DAY);
    let in_day = ms.rem_euclid(MILLIS_PER_DAY);
    // Howard Hinnant's days-to-civil.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d, in_day / 3_600_000, in_day / 60_000 % 60, in_day / 1000 % 60, in_day % 1000)
}

/// `java.util.Date.toString()` in UTC: `Thu Jan 01 00:00:00 UTC 1970`.
fn java_date_string(ms: i64) -> String {
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] =
        ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    let (y, m, d, hh, mm, ss, _) = fields(ms);
    let weekday = DAYS[ms.div_euclid(MILLIS_PER_DAY).rem_euclid(7) as usize];
    format!("{weekday} {} {d:02} {hh:02}:{mm:02}:{ss:02} UTC {y}", MONTHS[m as usize - 1])
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::Struct;

    fn prim(ty: Type) -> Arc<Schema> {
        Arc::new(Schema::new(ty))
    }

    fn text(c: HeaderConverter, schema: Option<Arc<Schema>>, value: Value) -> String {
        let data = SchemaAndValue { schema, value };
        String::from_utf8(c.write("h", &data).unwrap().unwrap()).unwrap()
    }

    fn simple(schema: Arc<Schema>, value: Value) -> String {
        text(HeaderConverter::Simple, Some(schema), value)
    }

    fn s(v: &str) -> Value {
        Value::String(v.into())
    }

    fn named(ty: Type, name: &str) -> Schema {
        Schema::new(ty).named(name)
    }

    #[test]
    fn classes_are_found_by_full_and_simple_name() {
        for (class, c) in CLASSES {
            assert_eq!(HeaderConverter::from_class(class), Some(c));
            assert_eq!(HeaderConverter::from_class(class.rsplit('.').next().unwrap()), Some(c));
            assert_eq!(c.class(), class);
        }
        assert_eq!(
            HeaderConverter::from_class("org.apache.kafka.connect.json.JsonConverter"),
            None
        );
        assert_eq!(HeaderConverter::default(), HeaderConverter::Simple);
    }

    #[test]
    fn simple_header_converter_writes_values_convert_to_string() {
        assert_eq!(simple(prim(Type::String), s("a \"b\"")), "a \"b\"");
        assert_eq!(simple(prim(Type::Int8), Value::Int8(-5)), "-5");
        assert_eq!(simple(prim(Type::Int64), Value::Int64(1 << 40)), "1099511627776");
        assert_eq!(simple(prim(Type::Float32), Value::Float32(1.5)), "1.5");
        assert_eq!(simple(prim(Type::Float64), Value::Float64(1e10)), "1.0E10");
        assert_eq!(simple(prim(Type::Boolean), Value::Boolean(true)), "true");
        assert_eq!(simple(prim(Type::Bytes), Value::Bytes(b"hi".to_vec())), "aGk=");
        let list = Arc::new(Schema::array(prim(Type::String)));
        assert_eq!(simple(list, Value::Array(vec![s("a"), s("b\\\"c")])), r#"["a","b\\\"c"]"#);
        let map = Value::Map(vec![(s("k"), Value::Int32(1)), (s("j"), Value::Null)]);
        assert_eq!(text(HeaderConverter::Simple, None, map), r#"{"k":1,"j":null}"#);
        let mut with_default = Schema::new(Type::Int32).optional();
        with_default.default = Some(Value::Int32(7));
        let schema = Arc::new(
            Schema::structure()
                .with_field("name", prim(Type::String))
                .with_field("n", Arc::new(with_default))
                .with_field("b", Schema::optional_bytes()),
        );
        let mut st = Struct::new(schema.clone());
        st.values[0] = s("x");
        assert_eq!(simple(schema, Value::Struct(st)), r#"{"name":"x","n":7,"b":null}"#);
        assert_eq!(
            HeaderConverter::Simple.write("h", &SchemaAndValue::schemaless(Value::Null)).unwrap(),
            None
        );
    }

    #[test]
    fn logical_values_render_as_kafka_connects_java_objects() {
        let mut dec = named(Type::Bytes, DECIMAL);
        dec.parameters = vec![("scale".into(), "2".into())];
        let dec = Arc::new(dec);
        assert_eq!(simple(dec.clone(), Value::Bytes(vec![0x00, 0x9c])), "1.56");
        assert_eq!(simple(dec.clone(), Value::Bytes(vec![0xff, 0x6a])), "-1.50");
        assert_eq!(simple(dec.clone(), Value::Bytes(vec![0x01])), "0.01");
        let mut neg_scale = named(Type::Bytes, DECIMAL);
        neg_scale.parameters = vec![("scale".into(), "-3".into())];
        assert_eq!(simple(Arc::new(neg_scale), Value::Bytes(vec![12])), "1.2E+4");
        assert_eq!(decimal_string(&[1], 8), "1E-8");
        // Values.dateFormatFor picks the format by the instant, not the logical type.
        assert_eq!(simple(Arc::new(named(Type::Int32, DATE)), Value::Int32(10000)), "1997-05-19");
        assert_eq!(
            simple(Arc::new(named(Type::Int32, TIME)), Value::Int32(14_400_000)),
            "04:00:00.000Z"
        );
        assert_eq!(simple(Arc::new(named(Type::Int32, DATE)), Value::Int32(0)), "00:00:00.000Z");
        let ts = Arc::new(named(Type::Int64, TIMESTAMP));
        assert_eq!(simple(ts.clone(), Value::Int64(1_700_000_000_123)), "2023-11-14T22:13:20.123Z");
        assert_eq!(
            text(HeaderConverter::String, Some(ts), Value::Int64(0)),
            "Thu Jan 01 00:00:00 UTC 1970"
        );
        assert_eq!(java_date_string(1_700_000_000_123), "Tue Nov 14 22:13:20 UTC 2023");
        assert_eq!(
            text(HeaderConverter::String, Some(dec), Value::Bytes(vec![0x00, 0x9c])),
            "1.56"
        );
    }

    #[test]
    fn string_converter_writes_javas_to_string() {
        let c = HeaderConverter::String;
        assert_eq!(text(c, None, s("plain")), "plain");
        assert_eq!(text(c, None, Value::Float64(12.0)), "12.0");
        assert_eq!(
            text(c, None, Value::Array(vec![s("a"), Value::Null, Value::Int64(2)])),
            "[a, null, 2]"
        );
        assert_eq!(
            text(c, None, Value::Map(vec![(s("k"), s("v")), (s("n"), Value::Int32(1))])),
            "{k=v, n=1}"
        );
        let schema = Arc::new(
            Schema::structure()
                .with_field("a", prim(Type::Int32))
                .with_field("b", Schema::optional_string()),
        );
        let mut st = Struct::new(schema.clone());
        st.values[0] = Value::Int32(1);
        assert_eq!(text(c, Some(schema), Value::Struct(st)), "Struct{a=1}");
        assert!(text(c, None, Value::Bytes(vec![1])).starts_with("[B@"));
    }

    #[test]
    fn byte_array_converter_writes_only_bytes() {
        let c = HeaderConverter::ByteArray;
        let w =
            |schema: Option<Arc<Schema>>, value| c.write("h", &SchemaAndValue { schema, value });
        assert_eq!(w(Some(prim(Type::Bytes)), Value::Bytes(vec![1, 2])).unwrap(), Some(vec![1, 2]));
        assert_eq!(w(None, Value::Bytes(vec![3])).unwrap(), Some(vec![3]));
        assert_eq!(w(Some(Schema::optional_bytes()), Value::Null).unwrap(), None);
        assert_eq!(
            w(Some(prim(Type::String)), s("x")).unwrap_err().message,
            "Invalid schema type for ByteArrayConverter: STRING"
        );
        assert_eq!(
            w(None, s("x")).unwrap_err().message,
            "ByteArrayConverter is not compatible with objects of type class java.lang.String"
        );
        let mut dec = named(Type::Bytes, DECIMAL);
        dec.parameters = vec![("scale".into(), "0".into())];
        assert_eq!(
            w(Some(Arc::new(dec)), Value::Bytes(vec![1])).unwrap_err().message,
            "ByteArrayConverter is not compatible with objects of type class java.math.BigDecimal"
        );
    }
}
