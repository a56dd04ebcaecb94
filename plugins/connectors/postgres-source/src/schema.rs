//! From PostgreSQL columns to a Kafka Connect struct, as the JDBC source maps them:
//! integers, floats, booleans, text, bytes, and the logical types Decimal (numeric with a
//! declared scale), Date, Time and Timestamp. Other types (json, uuid, unconstrained
//! numeric, ...) become strings. The schema is JsonConverter's JSON form; values are the
//! payload JSON of each field. Pure.

use postgres_wire::{Column, parse_date, parse_time_micros, parse_timestamp_micros};
use wasm_connect_sdk::serde_json::{Map, Value, json};

/// How one column converts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Conv {
    Bool,
    Int(&'static str),
    Float(&'static str),
    Decimal(u32),
    Bytes,
    Date,
    Time,
    Timestamp,
    Text,
}

fn conv(c: &Column) -> Conv {
    match c.type_oid {
        16 => Conv::Bool,
        21 => Conv::Int("int16"),
        23 => Conv::Int("int32"),
        20 | 26 => Conv::Int("int64"),
        700 => Conv::Float("float"),
        701 => Conv::Float("double"),
        1700 if c.type_modifier >= 4 => Conv::Decimal(((c.type_modifier - 4) & 0xffff) as u32),
        17 => Conv::Bytes,
        1082 => Conv::Date,
        1083 => Conv::Time,
        1114 | 1184 => Conv::Timestamp,
        _ => Conv::Text,
    }
}

/// The struct schema of a result, named `name`; `optional[i]` says whether column `i`
/// may be null.
pub fn struct_schema(name: &str, columns: &[Column], optional: &[bool]) -> Value {
    let fields: Vec<Value> = columns
        .iter()
        .zip(optional)
        .map(|(c, opt)| {
            let mut f = match conv(c) {
                Conv::Bool => json!({"type": "boolean"}),
                Conv::Int(t) | Conv::Float(t) => json!({"type": t}),
                Conv::Decimal(scale) => json!({"type": "bytes",
                    "name": "org.apache.kafka.connect.data.Decimal", "version": 1,
                    "parameters": {"scale": scale.to_string(),
                        "connect.decimal.precision": (((c.type_modifier - 4) >> 16) & 0xffff).to_string()}}),
                Conv::Bytes => json!({"type": "bytes"}),
                Conv::Date => json!({"type": "int32", "name": "org.apache.kafka.connect.data.Date", "version": 1}),
                Conv::Time => json!({"type": "int32", "name": "org.apache.kafka.connect.data.Time", "version": 1}),
                Conv::Timestamp => json!({"type": "int64", "name": "org.apache.kafka.connect.data.Timestamp", "version": 1}),
                Conv::Text => json!({"type": "string"}),
            };
            f["optional"] = json!(opt);
            f["field"] = json!(c.name);
            f
        })
        .collect();
    json!({"type": "struct", "fields": fields, "optional": false, "name": name})
}

/// The payload of one row.
pub fn payload(columns: &[Column], row: &[Option<String>]) -> Result<Value, String> {
    let mut out = Map::with_capacity(columns.len());
    for (c, v) in columns.iter().zip(row) {
        let value = match v {
            None => Value::Null,
            Some(text) => value(conv(c), text).map_err(|e| format!("column {}: {e}", c.name))?,
        };
        out.insert(c.name.clone(), value);
    }
    Ok(Value::Object(out))
}

fn value(conv: Conv, text: &str) -> Result<Value, String> {
    Ok(match conv {
        Conv::Bool => json!(text == "t" || text == "true"),
        Conv::Int(_) => json!(text.parse::<i64>().map_err(|e| e.to_string())?),
        Conv::Float(_) => match text {
            "NaN" | "Infinity" | "-Infinity" => json!(text),
            _ => json!(text.parse::<f64>().map_err(|e| e.to_string())?),
        },
        Conv::Decimal(scale) => json!(base64(&unscaled(text, scale)?)),
        Conv::Bytes => {
            let hex = text.strip_prefix("\\x").ok_or("bytea not in hex form")?;
            let bytes: Result<Vec<u8>, _> =
                (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16)).collect();
            json!(base64(&bytes.map_err(|e| e.to_string())?))
        }
        Conv::Date => json!(parse_date(text)?),
        Conv::Time => json!(parse_time_micros(text)? / 1000),
        Conv::Timestamp => json!(parse_timestamp_micros(text)?.div_euclid(1000)),
        Conv::Text => json!(text),
    })
}

/// The big-endian two's complement bytes of `text` scaled by 10^scale (Connect's
/// Decimal), minimal length.
fn unscaled(text: &str, scale: u32) -> Result<Vec<u8>, String> {
    let (neg, digits) = text.strip_prefix('-').map_or((false, text), |d| (true, d));
    let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
    let frac = format!("{frac:0<width$}", width = scale as usize);
    let n: i128 = format!("{int}{}", &frac[..scale as usize])
        .parse()
        .map_err(|_| format!("bad numeric {text:?}"))?;
    let n = if neg { -n } else { n };
    let bytes = n.to_be_bytes();
    let mut start = 0;
    while start < 15 {
        let (b, next) = (bytes[start], bytes[start + 1]);
        if (b == 0 && next & 0x80 == 0) || (b == 0xff && next & 0x80 != 0) {
            start += 1;
        } else {
            break;
        }
    }
    Ok(bytes[start..].to_vec())
}

/// Standard base64 with padding, as JsonConverter writes bytes.
fn base64(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn col(name: &str, oid: u32, typmod: i32) -> Column {
        Column {
            name: name.into(),
            type_oid: oid,
            type_modifier: typmod,
            table_oid: 0,
            column_id: 0,
        }
    }

    #[test]
    fn columns_map_to_connect_types_and_payloads() {
        let cols = [
            col("id", 20, -1),
            col("price", 1700, (10 << 16 | 2) + 4),
            col("at", 1184, -1),
            col("raw", 17, -1),
        ];
        let schema = struct_schema("t", &cols, &[false, true, true, true]);
        assert_eq!(schema["fields"][0], json!({"type": "int64", "optional": false, "field": "id"}));
        assert_eq!(schema["fields"][1]["parameters"]["scale"], "2");
        let row = [
            Some("7".into()),
            Some("-2.00".into()),
            Some("1970-01-01 00:00:01.5+00".into()),
            Some("\\x0102ff".into()),
        ];
        let p = payload(&cols, &row).unwrap();
        assert_eq!(p, json!({"id": 7, "price": "/zg=", "at": 1500, "raw": "AQL/"}));
    }
}
