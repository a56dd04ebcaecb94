//! A JSON tree as Jackson's `ObjectMapper.readTree` gives it to Kafka Connect's
//! `JsonConverter`, and its writer.
//!
//! Objects keep their keys in input order (a repeated key keeps its first place and its last
//! value, as Jackson's `ObjectNode` does); numbers keep their text, so integers beyond 64
//! bits and decimals beyond a double's precision convert as Jackson's `BigIntegerNode` and
//! `DecimalNode` (`USE_BIG_DECIMAL_FOR_FLOATS`) do. Parsing follows Jackson with
//! `ALLOW_LEADING_ZEROS_FOR_NUMBERS`, as `JsonDeserializer` enables it; writing follows
//! Jackson's generator (its string escapes, `Double.toString` numbers, `"NaN"`).
//!
//! This module owns JSON text ↔ tree and number conversions; it must not know about Kafka
//! Connect's schemas or values (that is `schemaless`'s and `envelope`'s, and the JSON Schema
//! format's in the formats crate, which shares this tree).

use base64::Engine as _;
use base64::alphabet;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};

use crate::TransformError;

/// A JSON value.
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number, as written.
    Number(Number),
    /// A string.
    String(String),
    /// An array.
    Array(Vec<Json>),
    /// An object, keys in order and unique.
    Object(Vec<(String, Json)>),
}

impl Json {
    /// The member `key` of an object (`None` for a missing key or a non-object, as
    /// Jackson's `JsonNode.get`).
    pub fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// Jackson's `JsonNodeType` name, as Kafka Connect's messages print it.
    pub fn node_type(&self) -> &'static str {
        match self {
            Json::Null => "NULL",
            Json::Bool(_) => "BOOLEAN",
            Json::Number(_) => "NUMBER",
            Json::String(_) => "STRING",
            Json::Array(_) => "ARRAY",
            Json::Object(_) => "OBJECT",
        }
    }

    /// An integer number.
    pub fn int(n: impl Into<i64>) -> Json {
        Json::Number(Number(n.into().to_string()))
    }

    /// A FLOAT64 number, written as Java's `Double.toString` (non-finite as Jackson's
    /// quoted `"NaN"`, `"Infinity"`).
    pub fn double(d: f64) -> Json {
        match non_finite(d.is_nan(), d.is_infinite(), d < 0.0) {
            Some(s) => Json::String(s.into()),
            None => Json::Number(Number(java_float_text(&format!("{d:e}")))),
        }
    }

    /// A FLOAT32 number, written as Java's `Float.toString`.
    pub fn float(f: f32) -> Json {
        match non_finite(f.is_nan(), f.is_infinite(), f < 0.0) {
            Some(s) => Json::String(s.into()),
            None => Json::Number(Number(java_float_text(&format!("{f:e}")))),
        }
    }
}

/// Java's `Double.toString(d)`.
pub fn java_double(d: f64) -> String {
    match non_finite(d.is_nan(), d.is_infinite(), d < 0.0) {
        Some(s) => s.to_owned(),
        None => java_float_text(&format!("{d:e}")),
    }
}

/// Java's `Float.toString(f)`.
pub fn java_float(f: f32) -> String {
    match non_finite(f.is_nan(), f.is_infinite(), f < 0.0) {
        Some(s) => s.to_owned(),
        None => java_float_text(&format!("{f:e}")),
    }
}

fn non_finite(nan: bool, inf: bool, neg: bool) -> Option<&'static str> {
    match (nan, inf, neg) {
        (true, _, _) => Some("NaN"),
        (_, true, false) => Some("Infinity"),
        (_, true, true) => Some("-Infinity"),
        _ => None,
    }
}

/// Java's `Double.toString` layout for Rust's shortest `{:e}` text (`-1.25e-7`).
fn java_float_text(e: &str) -> String {
    let (mantissa, exp) = e.split_once('e').expect("{:e} has an exponent");
    let exp: i32 = exp.parse().expect("{:e} exponent is an integer");
    let (sign, mantissa) = mantissa.strip_prefix('-').map_or(("", mantissa), |m| ("-", m));
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    if digits.bytes().all(|b| b == b'0') {
        return format!("{sign}0.0");
    }
    if (-3..7).contains(&exp) {
        if exp >= 0 {
            let int_len = exp as usize + 1;
            let padded = format!("{digits:0<int_len$}");
            let (int, frac) = padded.split_at(int_len);
            format!("{sign}{int}.{}", if frac.is_empty() { "0" } else { frac })
        } else {
            format!("{sign}0.{}{digits}", "0".repeat((-exp - 1) as usize))
        }
    } else {
        let (first, rest) = digits.split_at(1);
        format!("{sign}{first}.{}E{exp}", if rest.is_empty() { "0" } else { rest })
    }
}

/// A JSON number's text (valid JSON, but leading zeros are allowed).
#[derive(Clone, Debug, PartialEq)]
pub struct Number(String);

/// A decimal: `-`? `unscaled` × 10^-`scale`, `unscaled` decimal digits (no sign).
#[derive(Clone, Debug, PartialEq)]
pub struct Decimal {
    pub negative: bool,
    pub unscaled: String,
    pub scale: i64,
}

impl Number {
    /// The number's text, as written.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// A number from its JSON text; `None` when `text` is not one JSON number.
    pub fn from_text(text: &str) -> Option<Number> {
        match parse(text.as_bytes()) {
            Ok(Some(Json::Number(n))) if n.0.len() == text.len() => Some(n),
            _ => None,
        }
    }

    /// Whether Jackson reads this as an integer node (no fraction, no exponent).
    pub fn is_integral(&self) -> bool {
        !self.0.contains(['.', 'e', 'E'])
    }

    /// Whether Jackson reads this as an `IntNode` (`JsonNode.isInt`).
    pub fn is_int(&self) -> bool {
        self.is_integral() && self.0.parse::<i32>().is_ok()
    }

    /// Jackson's `longValue()`: the value truncated toward zero, its low 64 bits (as
    /// `BigInteger.longValue` and `BigDecimal.longValue` give them).
    pub fn long_value(&self) -> i64 {
        let d = self.decimal();
        let digits = d.unscaled.as_bytes();
        let mut n: u64 = 0;
        let kept =
            if d.scale >= 0 { digits.len().saturating_sub(d.scale as usize) } else { digits.len() };
        for &b in &digits[..kept] {
            n = n.wrapping_mul(10).wrapping_add(u64::from(b - b'0'));
        }
        if d.scale < 0 {
            // 10^64 is a multiple of 2^64: larger shifts leave no low bits.
            for _ in 0..(-d.scale).min(64) {
                n = n.wrapping_mul(10);
            }
        }
        let n = n as i64;
        if d.negative { n.wrapping_neg() } else { n }
    }

    /// Jackson's `intValue()`: the low 32 bits of [`Number::long_value`].
    pub fn int_value(&self) -> i32 {
        self.long_value() as i32
    }

    /// Jackson's `doubleValue()` (correctly rounded from the text).
    pub fn double_value(&self) -> f64 {
        self.0.parse().expect("a JSON number parses as f64")
    }

    /// Jackson's `floatValue()` (correctly rounded from the text).
    pub fn float_value(&self) -> f32 {
        self.0.parse().expect("a JSON number parses as f32")
    }

    /// Jackson's `decimalValue()`: the exact decimal, its scale as `BigDecimal` keeps it
    /// (`1.5600` has scale 4, `1e3` scale -3).
    pub fn decimal(&self) -> Decimal {
        let text = self.0.as_str();
        let (negative, text) = text.strip_prefix('-').map_or((false, text), |t| (true, t));
        let (mantissa, exp) = match text.find(['e', 'E']) {
            Some(i) => (&text[..i], text[i + 1..].parse::<i64>().unwrap_or(0)),
            None => (text, 0),
        };
        let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        let all = format!("{int}{frac}");
        let trimmed = all.trim_start_matches('0');
        let unscaled = if trimmed.is_empty() { "0".to_owned() } else { trimmed.to_owned() };
        Decimal { negative, unscaled, scale: frac.len() as i64 - exp }
    }
}

/// Parses JSON text as Jackson's `readTree` does: `None` for text with no value in it,
/// the first value otherwise (what follows a complete object or array is not read).
pub fn parse(bytes: &[u8]) -> Result<Option<Json>, String> {
    let text = std::str::from_utf8(bytes).map_err(|e| format!("Invalid UTF-8: {e}"))?;
    let mut p = Parser { s: text.as_bytes(), text, pos: 0 };
    p.skip_ws();
    if p.pos == p.s.len() {
        return Ok(None);
    }
    let value = p.value(0)?;
    if matches!(value, Json::Number(_) | Json::Bool(_) | Json::Null)
        && p.peek().is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_')
    {
        return Err(p.error("Expected space separating root-level values"));
    }
    Ok(Some(value))
}

/// How deep arrays and objects may nest (Jackson's `StreamReadConstraints` default).
const MAX_DEPTH: usize = 1000;

struct Parser<'a> {
    s: &'a [u8],
    text: &'a str,
    pos: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn error(&self, what: &str) -> String {
        let before = &self.text[..self.pos.min(self.text.len())];
        let line = before.matches('\n').count() + 1;
        let column = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
        format!("{what} (line: {line}, column: {column})")
    }

    fn unexpected(&self) -> String {
        match self.text[self.pos..].chars().next() {
            None => self.error("Unexpected end-of-input"),
            Some(c) => self.error(&format!("Unexpected character ('{c}' (code {}))", c as u32)),
        }
    }

    fn value(&mut self, depth: usize) -> Result<Json, String> {
        if depth > MAX_DEPTH {
            return Err(self.error("Document nesting depth exceeds the maximum allowed"));
        }
        match self.peek() {
            Some(b'{') => self.object(depth),
            Some(b'[') => self.array(depth),
            Some(b'"') => self.string().map(Json::String),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(b't') => self.literal("true", Json::Bool(true)),
            Some(b'f') => self.literal("false", Json::Bool(false)),
            Some(b'n') => self.literal("null", Json::Null),
            _ => Err(self.unexpected()),
        }
    }

    fn literal(&mut self, word: &str, value: Json) -> Result<Json, String> {
        if self.s[self.pos..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(value)
        } else {
            let token: String = self.text[self.pos..]
                .chars()
                .take_while(|c| c.is_alphanumeric())
                .take(256)
                .collect();
            Err(self.error(&format!("Unrecognized token '{token}'")))
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.pos;
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.pos += 1;
        }
        self.pos - start
    }

    fn number(&mut self) -> Result<Json, String> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        if self.digits() == 0 {
            return Err(self.error("Expected a digit for a number"));
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if self.digits() == 0 {
                return Err(self.error("Decimal point not followed by a digit"));
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if self.digits() == 0 {
                return Err(self.error("Exponent indicator not followed by a digit"));
            }
        }
        Ok(Json::Number(Number(self.text[start..self.pos].to_owned())))
    }

    fn string(&mut self) -> Result<String, String> {
        self.pos += 1; // the opening quote
        let mut out = String::new();
        loop {
            let start = self.pos;
            while self.peek().is_some_and(|b| b != b'"' && b != b'\\' && b >= 0x20) {
                self.pos += 1;
            }
            out.push_str(&self.text[start..self.pos]);
            match self.peek() {
                None => return Err(self.error("Unexpected end-of-input in a string")),
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.pos += 1;
                    let escaped = match self.peek() {
                        Some(b'"') => '"',
                        Some(b'\\') => '\\',
                        Some(b'/') => '/',
                        Some(b'b') => '\u{8}',
                        Some(b'f') => '\u{c}',
                        Some(b'n') => '\n',
                        Some(b'r') => '\r',
                        Some(b't') => '\t',
                        Some(b'u') => {
                            self.pos += 1;
                            let unit = self.hex4()?;
                            let c = self.code_point(unit)?;
                            self.pos -= 1;
                            c
                        }
                        _ => return Err(self.error("Unrecognized character escape")),
                    };
                    self.pos += 1;
                    out.push(escaped);
                }
                Some(_) => return Err(self.error("Illegal unquoted character in a string")),
            }
        }
    }

    /// Four hex digits at `pos`; leaves `pos` after them.
    fn hex4(&mut self) -> Result<u32, String> {
        let hex = self.s.get(self.pos..self.pos + 4).and_then(|h| std::str::from_utf8(h).ok());
        let unit = hex
            .filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()))
            .and_then(|h| u32::from_str_radix(h, 16).ok())
            .ok_or_else(|| self.error("Unexpected character in a \\u escape"))?;
        self.pos += 4;
        Ok(unit)
    }

    /// The character a `\u` escape names, reading a low surrogate that follows a high one.
    /// A lone surrogate (which a Java string may hold) becomes U+FFFD.
    fn code_point(&mut self, unit: u32) -> Result<char, String> {
        if (0xD800..0xDC00).contains(&unit) && self.s[self.pos..].starts_with(b"\\u") {
            let save = self.pos;
            self.pos += 2;
            let low = self.hex4()?;
            if (0xDC00..0xE000).contains(&low) {
                let c = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                return Ok(char::from_u32(c).unwrap_or('\u{FFFD}'));
            }
            self.pos = save;
        }
        Ok(char::from_u32(unit).unwrap_or('\u{FFFD}'))
    }

    fn array(&mut self, depth: usize) -> Result<Json, String> {
        self.pos += 1;
        let mut items = Vec::new();
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.pos += 1;
            return Ok(Json::Array(items));
        }
        loop {
            self.skip_ws();
            items.push(self.value(depth + 1)?);
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(Json::Array(items));
                }
                _ => return Err(self.unexpected()),
            }
        }
    }

    fn object(&mut self, depth: usize) -> Result<Json, String> {
        self.pos += 1;
        let mut entries: Vec<(String, Json)> = Vec::new();
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(Json::Object(entries));
        }
        loop {
            self.skip_ws();
            if self.peek() != Some(b'"') {
                return Err(self.unexpected());
            }
            let key = self.string()?;
            self.skip_ws();
            if self.peek() != Some(b':') {
                return Err(self.unexpected());
            }
            self.pos += 1;
            self.skip_ws();
            let value = self.value(depth + 1)?;
            match entries.iter_mut().find(|(k, _)| *k == key) {
                Some(entry) => entry.1 = value,
                None => entries.push((key, value)),
            }
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(Json::Object(entries));
                }
                _ => return Err(self.unexpected()),
            }
        }
    }
}

/// Writes `json` compactly, as Jackson's generator does.
pub fn write(json: &Json, out: &mut Vec<u8>) {
    match json {
        Json::Null => out.extend_from_slice(b"null"),
        Json::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
        Json::Number(n) => out.extend_from_slice(n.0.as_bytes()),
        Json::String(s) => write_string(s, out),
        Json::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write(item, out);
            }
            out.push(b']');
        }
        Json::Object(entries) => {
            out.push(b'{');
            for (i, (k, v)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_string(k, out);
                out.push(b':');
                write(v, out);
            }
            out.push(b'}');
        }
    }
}

/// A string with Jackson's escapes: `\"`, `\\`, the short forms of backspace, tab, new
/// line, form feed and carriage return, `\u00XX` for other control characters.
pub fn write_string(s: &str, out: &mut Vec<u8>) {
    out.push(b'"');
    // Runs of bytes that need no escape are copied whole: every byte that needs one is
    // ASCII, and the bytes of a multi-byte UTF-8 character are all 0x80 or above.
    let bytes = s.as_bytes();
    let mut run = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let escape: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            0x08 => b"\\b",
            b'\t' => b"\\t",
            b'\n' => b"\\n",
            0x0c => b"\\f",
            b'\r' => b"\\r",
            0..0x20 => {
                &[b'\\', b'u', b'0', b'0', HEX[usize::from(b >> 4)], HEX[usize::from(b & 0xf)]]
            }
            _ => continue,
        };
        out.extend_from_slice(&bytes[run..i]);
        out.extend_from_slice(escape);
        run = i + 1;
    }
    out.extend_from_slice(&bytes[run..]);
    out.push(b'"');
}

/// Jackson's hex digits in `\u00XX` escapes (upper case).
const HEX: &[u8; 16] = b"0123456789ABCDEF";

/// `json` as text.
pub fn to_vec(json: &Json) -> Vec<u8> {
    let mut out = Vec::new();
    write(json, &mut out);
    out
}

/// Kafka Connect's message when bytes are not JSON, with what is wrong after it.
pub fn read(bytes: &[u8]) -> Result<Option<Json>, TransformError> {
    parse(bytes).map_err(|e| {
        TransformError::new(format!(
            "Converting byte[] to Kafka Connect data failed due to serialization error: {e}"
        ))
    })
}

/// Jackson's default Base64 variant: the standard alphabet, padding written and required.
const BASE64: GeneralPurpose = GeneralPurpose::new(
    &alphabet::STANDARD,
    GeneralPurposeConfig::new()
        .with_decode_allow_trailing_bits(true)
        .with_decode_padding_mode(DecodePaddingMode::RequireCanonical),
);

/// Bytes as Jackson writes a binary node.
pub fn base64_encode(bytes: &[u8]) -> String {
    BASE64.encode(bytes)
}

/// A base64 text as Jackson's `TextNode.binaryValue()` reads it (white space skipped).
pub fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let compact: String = text.chars().filter(|c| *c > ' ').collect();
    BASE64.decode(compact).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Json {
        parse(s.as_bytes()).unwrap().unwrap()
    }

    #[test]
    fn objects_keep_their_order_and_a_repeated_key_its_first_place() {
        let j = p(r#"{"b": 1, "a": [true, null], "b": "x"}"#);
        assert_eq!(String::from_utf8(to_vec(&j)).unwrap(), r#"{"b":"x","a":[true,null]}"#);
    }

    #[test]
    fn numbers_keep_their_text_and_convert_as_jackson() {
        let Json::Number(n) = p("0012") else { panic!() };
        assert!(n.is_int());
        assert_eq!(n.long_value(), 12);
        let Json::Number(n) = p("18446744073709551615") else { panic!() };
        assert!(n.is_integral() && !n.is_int());
        assert_eq!(n.long_value(), -1, "BigInteger.longValue keeps the low 64 bits");
        let Json::Number(n) = p("-12.99") else { panic!() };
        assert_eq!((n.int_value(), n.is_integral()), (-12, false));
        let Json::Number(n) = p("1.5e3") else { panic!() };
        assert_eq!(n.long_value(), 1500);
        assert_eq!(n.decimal(), Decimal { negative: false, unscaled: "15".into(), scale: -2 });
        let Json::Number(n) = p("1.5600") else { panic!() };
        assert_eq!(n.decimal().scale, 4);
        assert_eq!(n.float_value(), 1.56f32);
        let Json::Number(n) = p("4294967296") else { panic!() };
        assert_eq!(n.int_value(), 0, "(int) of a long keeps the low 32 bits");
    }

    #[test]
    fn strings_unescape_and_escape_as_jackson() {
        let j = p(r#""a\"\\\/\n\u00e9\ud83d\ude00\u0001""#);
        assert_eq!(j, Json::String("a\"\\/\né😀\u{1}".into()));
        assert_eq!(String::from_utf8(to_vec(&j)).unwrap(), r#""a\"\\/\né😀\u0001""#);
    }

    #[test]
    fn every_escape_between_plain_runs() {
        let text = "abc\"d\u{e9}f\\g\u{8}\t\n\u{c}\r\u{1f}\u{0}\u{7f}\u{1F600}end";
        let mut out = Vec::new();
        write_string(text, &mut out);
        // RFC 8259 §7 escapes, in Jackson's forms: the short ones where they exist, else
        // \u00XX in upper case; DEL (0x7f) and non-ASCII characters are written as they are.
        let expected = "\"abc\\\"d\u{e9}f\\\\g\\b\\t\\n\\f\\r\\u001F\\u0000\u{7f}\u{1F600}end\"";
        assert_eq!(String::from_utf8(out).unwrap(), expected);
        let mut out = Vec::new();
        write_string("", &mut out);
        assert_eq!(out, b"\"\"");
    }

    #[test]
    fn floats_are_written_as_java_prints_them() {
        let text = |j: Json| String::from_utf8(to_vec(&j)).unwrap();
        assert_eq!(text(Json::double(12.34)), "12.34");
        assert_eq!(text(Json::double(1.0)), "1.0");
        assert_eq!(text(Json::double(-0.0)), "-0.0");
        assert_eq!(text(Json::double(1e7)), "1.0E7");
        assert_eq!(text(Json::double(1234567.5)), "1234567.5");
        assert_eq!(text(Json::double(0.001)), "0.001");
        assert_eq!(text(Json::double(0.0001234)), "1.234E-4");
        assert_eq!(text(Json::float(12.34)), "12.34");
        assert_eq!(text(Json::double(f64::NAN)), "\"NaN\"");
        assert_eq!(text(Json::double(f64::NEG_INFINITY)), "\"-Infinity\"");
    }

    #[test]
    fn bad_text_and_empty_text() {
        assert_eq!(parse(b"  \n").unwrap(), None);
        assert!(
            parse(b"{\"a\" 1}").unwrap_err().starts_with("Unexpected character ('1' (code 49))")
        );
        assert!(parse(b"[1,]").is_err());
        assert!(parse(b"12x").is_err());
        assert!(parse(b"tru").unwrap_err().starts_with("Unrecognized token 'tru'"));
        assert!(parse(b"1.").unwrap_err().starts_with("Decimal point not followed by a digit"));
        assert!(parse(b"\"a\nb\"").is_err());
        assert_eq!(parse(b"{} trailing").unwrap(), Some(Json::Object(vec![])));
        assert!(parse(&[b'"', 0xff, b'"']).unwrap_err().starts_with("Invalid UTF-8"));
        let deep = "[".repeat(2000);
        assert!(parse(deep.as_bytes()).unwrap_err().contains("nesting depth"));
    }
}
