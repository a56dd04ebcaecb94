//! Kafka Connect's `Values.parseString`, the typed value `InsertHeader` makes of its
//! `value.literal`: `true`/`false`, the smallest integer type that holds an integer,
//! FLOAT32 (or FLOAT64, or Decimal) for other numbers, ISO-8601 dates, times and
//! timestamps, `[...]` arrays and `{k: v}` maps of such values (a common element schema
//! when one exists), and anything else as the STRING it is.
//!
//! This is a port of Kafka Connect's tokenizer and parser, with its quirks (a literal that
//! does not parse as a whole array or map is a string; a leading number is read up to the
//! first delimiter). It owns nothing else. An array or map whose elements share no schema
//! (Kafka Connect's `arrayOfNull`, `mapOfNull`) has no inner schema here, so its header
//! is schemaless.

use std::sync::Arc;

use crate::data::unscaled::unscaled_bytes;
use crate::data::{DATE, DECIMAL, DECIMAL_SCALE, TIME, TIMESTAMP};
use crate::{Schema, SchemaAndValue, Type, Value};

/// `Values.parseString`; `None` is Kafka Connect's null.
pub(super) fn parse_string(text: &str) -> Option<SchemaAndValue> {
    if text.is_empty() {
        return Some(SchemaAndValue::new(
            Arc::new(Schema::new(Type::String)),
            Value::String(String::new()),
        ));
    }
    let mut p = ValueParser { p: Parser::new(text) };
    let parsed = p.parse(false).unwrap_or_else(|_| Some(p.string(text)))?;
    // Kafka Connect's schemas for arrays and maps of nulls have no inner schemas: such a
    // header is schemaless here.
    Some(if parsed.schema.as_deref().is_some_and(complete) {
        parsed
    } else {
        SchemaAndValue::schemaless(parsed.value)
    })
}

fn complete(s: &Schema) -> bool {
    match s.ty {
        Type::Array => s.value_schema.as_deref().is_some_and(complete),
        Type::Map => {
            s.key_schema.as_deref().is_some_and(complete)
                && s.value_schema.as_deref().is_some_and(complete)
        }
        _ => true,
    }
}

/// Java's `String.trim`.
fn java_trim(s: &str) -> &str {
    s.trim_matches(|c: char| c <= ' ')
}

struct Parser {
    chars: Vec<char>,
    original: String,
    pos: usize,
    next_token: Option<String>,
    previous: Option<String>,
}

impl Parser {
    fn new(text: &str) -> Self {
        Self {
            chars: text.chars().collect(),
            original: text.into(),
            pos: 0,
            next_token: None,
            previous: None,
        }
    }

    fn mark(&self) -> usize {
        self.pos - self.next_token.as_ref().map_or(0, |t| t.chars().count())
    }

    fn rewind_to(&mut self, position: usize) {
        self.pos = position;
        self.next_token = None;
        self.previous = None;
    }

    fn can_consume_next_token(&self) -> bool {
        self.pos < self.chars.len()
    }

    fn has_next(&self) -> bool {
        self.next_token.is_some() || self.can_consume_next_token()
    }

    fn next(&mut self) -> String {
        let token = match self.next_token.take() {
            Some(t) => t,
            None => self.consume_next_token(),
        };
        self.previous = Some(token.clone());
        token
    }

    fn next_n(&mut self, n: usize) -> Option<String> {
        let start = self.mark();
        for _ in 0..n {
            if !self.has_next() {
                self.rewind_to(start);
                return None;
            }
            self.next();
        }
        Some(self.chars[start..self.pos].iter().collect())
    }

    fn consume_next_token(&mut self) -> String {
        let mut escaped = false;
        let start = self.pos;
        while self.can_consume_next_token() {
            match self.chars[self.pos] {
                '\\' => escaped = !escaped,
                ':' | ',' | '{' | '}' | '[' | ']' | '"' => {
                    if !escaped {
                        if start < self.pos {
                            return self.chars[start..self.pos].iter().collect();
                        }
                        self.pos += 1;
                        return self.chars[start..start + 1].iter().collect();
                    }
                    escaped = false;
                }
                _ => escaped = false,
            }
            self.pos += 1;
        }
        self.chars[start..self.pos].iter().collect()
    }

    fn can_consume(&mut self, expected: &str) -> bool {
        if self.is_next(expected) {
            self.next_token = None;
            return true;
        }
        false
    }

    fn is_next(&mut self, expected: &str) -> bool {
        if self.next_token.is_none() {
            if !self.has_next() {
                return false;
            }
            self.next_token = Some(self.consume_next_token());
        }
        while self.next_token.as_deref().is_some_and(|t| java_trim(t).is_empty())
            && self.can_consume_next_token()
        {
            self.next_token = Some(self.consume_next_token());
        }
        self.next_token.as_deref().is_some_and(|t| java_trim(t) == expected)
    }
}

/// A `DataException` inside the parser (the whole literal may then be a string).
type Parse<T> = Result<T, String>;

struct ValueParser {
    p: Parser,
}

fn prim(ty: Type) -> Arc<Schema> {
    Arc::new(Schema::new(ty))
}

impl ValueParser {
    fn string(&self, s: &str) -> SchemaAndValue {
        SchemaAndValue::new(prim(Type::String), Value::String(s.into()))
    }

    fn literal(&mut self, embedded: bool, token: &str) -> bool {
        let start = self.p.mark();
        if self.p.can_consume(token) && (embedded || !self.p.has_next()) {
            return true;
        }
        self.p.rewind_to(start);
        false
    }

    fn parse(&mut self, embedded: bool) -> Parse<Option<SchemaAndValue>> {
        if !self.p.has_next() {
            return Ok(None);
        }
        if embedded && self.p.can_consume("\"") {
            return Ok(Some(self.parse_quoted_string()));
        }
        if self.literal(embedded, "null") {
            return Ok(None);
        }
        for (word, b) in [("true", true), ("false", false)] {
            if self.literal(embedded, word) {
                return Ok(Some(SchemaAndValue::new(prim(Type::Boolean), Value::Boolean(b))));
            }
        }
        let start = self.p.mark();
        let attempt = if self.p.can_consume("[") {
            Some(self.parse_array())
        } else if self.p.can_consume("{") {
            Some(self.parse_map())
        } else {
            None
        };
        match attempt {
            Some(Ok(v)) => return Ok(Some(v)),
            Some(Err(_)) => self.p.rewind_to(start),
            None => {}
        }
        let token = self.p.next();
        if java_trim(&token).is_empty() {
            return Ok(Some(self.string(&token)));
        }
        self.parse_next_token(embedded, java_trim(&token)).map(Some)
    }

    fn parse_next_token(&mut self, embedded: bool, token: &str) -> Parse<SchemaAndValue> {
        let first = token.chars().next().expect("a non-blank token");
        if first.is_ascii_digit()
            && let Some(t) = self.parse_multiple_tokens_as_temporal(token)
        {
            return Ok(t);
        }
        if (first.is_ascii_digit() || first == '+' || first == '-')
            && let Some(n) = parse_as_number(token)
        {
            return Ok(n);
        }
        if embedded {
            return Err("Failed to parse embedded value".into());
        }
        Ok(self.string(&self.p.original.clone()))
    }

    fn parse_quoted_string(&mut self) -> SchemaAndValue {
        let mut content = String::new();
        while self.p.has_next() {
            if self.p.can_consume("\"") {
                break;
            }
            content.push_str(&self.p.next());
        }
        parse_as_temporal(&content).unwrap_or_else(|| self.string(&content))
    }

    fn parse_multiple_tokens_as_temporal(&mut self, token: &str) -> Option<SchemaAndValue> {
        let position = self.p.mark();
        if let Some(rest) = self.p.next_n(4)
            && let Some(t) = parse_as_temporal(&format!("{token}{rest}"))
        {
            return Some(t);
        }
        self.p.rewind_to(position);
        parse_as_temporal(token)
    }

    fn parse_array(&mut self) -> Parse<SchemaAndValue> {
        let mut result = Vec::new();
        let mut elements = Merger::default();
        while self.p.has_next() {
            if self.p.can_consume("]") {
                return Ok(match elements.common() {
                    Some(common) => {
                        let values =
                            result.into_iter().map(|v| align(&common, v)).collect::<Parse<_>>()?;
                        SchemaAndValue::new(Arc::new(Schema::array(common)), Value::Array(values))
                    }
                    None => SchemaAndValue::new(
                        Arc::new(Schema::new(Type::Array)),
                        Value::Array(result),
                    ),
                });
            }
            if self.p.can_consume(",") {
                return Err(format!("Unable to parse an empty array element: {}", self.p.original));
            }
            let element = self.parse(true)?;
            elements.merge(element.as_ref());
            result.push(element.map_or(Value::Null, |e| e.value));
            let current = self.p.mark();
            if self.p.can_consume("]") {
                self.p.rewind_to(current);
            } else if !self.p.can_consume(",") {
                return Err("Array elements missing ',' delimiter".into());
            }
        }
        if self.p.previous.as_deref() == Some(",") {
            return Err(format!("Array is missing element after ',': {}", self.p.original));
        }
        Err(format!("Array is missing terminating ']': {}", self.p.original))
    }

    fn parse_map(&mut self) -> Parse<SchemaAndValue> {
        let mut result: Vec<(Value, Value)> = Vec::new();
        let (mut keys, mut values) = (Merger::default(), Merger::default());
        while self.p.has_next() {
            if self.p.can_consume("}") {
                let mut schema = Schema::new(Type::Map);
                schema.key_schema = keys.common();
                if schema.key_schema.is_some() {
                    schema.value_schema = values.common();
                }
                if let Some(k) = &schema.key_schema {
                    let v = schema.value_schema.clone();
                    result = result
                        .into_iter()
                        .map(|(key, value)| {
                            let value = match &v {
                                Some(v) => align(v, value)?,
                                None => value,
                            };
                            Ok((align(k, key)?, value))
                        })
                        .collect::<Parse<_>>()?;
                }
                return Ok(SchemaAndValue::new(Arc::new(schema), Value::Map(result)));
            }
            if self.p.can_consume(",") {
                return Err(format!(
                    "Unable to parse a map entry with no key or value: {}",
                    self.p.original
                ));
            }
            let key = match self.parse(true)? {
                Some(k) if !k.value.is_null() => k,
                _ => return Err(format!("Map entry may not have a null key: {}", self.p.original)),
            };
            if !self.p.can_consume(":") {
                return Err(format!(
                    "Map entry is missing ':' at {} in {}",
                    self.p.pos, self.p.original
                ));
            }
            let value = self.parse(true)?;
            let entry = value.as_ref().map_or(Value::Null, |v| v.value.clone());
            match result.iter_mut().find(|(k, _)| *k == key.value) {
                Some(e) => e.1 = entry,
                None => result.push((key.value.clone(), entry)),
            }
            self.p.can_consume(",");
            keys.merge(Some(&key));
            values.merge(value.as_ref());
        }
        if self.p.previous.as_deref() == Some(",") {
            return Err(format!("Map is missing element after ',': {}", self.p.original));
        }
        Err(format!("Map is missing terminating '}}': {}", self.p.original))
    }
}

/// Kafka Connect's `SchemaMerger`: the schema every element can take, if any.
#[derive(Default)]
struct Merger {
    common: Option<Arc<Schema>>,
    incompatible: bool,
}

impl Merger {
    fn merge(&mut self, latest: Option<&SchemaAndValue>) {
        let Some(schema) = latest.and_then(|l| l.schema.clone()) else { return };
        if self.incompatible {
            return;
        }
        self.common = match self.common.take() {
            None => Some(schema),
            Some(previous) => merge_schemas(previous, schema),
        };
        self.incompatible = self.common.is_none();
    }

    fn common(&self) -> Option<Arc<Schema>> {
        self.common.clone()
    }
}

fn numeric_rank(t: Type) -> Option<u8> {
    [Type::Int8, Type::Int16, Type::Int32, Type::Int64, Type::Float32, Type::Float64]
        .iter()
        .position(|n| *n == t)
        .map(|i| i as u8)
}

fn merge_schemas(previous: Arc<Schema>, new: Arc<Schema>) -> Option<Arc<Schema>> {
    if previous.ty != new.ty {
        let (p, n) = (numeric_rank(previous.ty)?, numeric_rank(new.ty)?);
        return Some(if n > p { new } else { previous });
    }
    if previous.optional == new.optional {
        return Some(if previous.optional { previous } else { new });
    }
    (previous == new).then_some(previous)
}

/// `Values.convertTo` as the parser uses it: numbers to the common numeric type.
fn align(schema: &Schema, value: Value) -> Parse<Value> {
    if value.is_null() {
        return if schema.optional {
            Ok(Value::Null)
        } else {
            Err("Unable to convert a null value to a schema that requires a value".into())
        };
    }
    let (as_long, as_double) = match value {
        Value::Int8(n) => (i64::from(n), f64::from(n)),
        Value::Int16(n) => (i64::from(n), f64::from(n)),
        Value::Int32(n) => (i64::from(n), f64::from(n)),
        Value::Int64(n) => (n, n as f64),
        Value::Float32(f) => (f as i64, f64::from(f)),
        Value::Float64(d) => (d as i64, d),
        other => return Ok(other),
    };
    Ok(match schema.ty {
        Type::Int8 => Value::Int8(as_long as i8),
        Type::Int16 => Value::Int16(as_long as i16),
        Type::Int32 => Value::Int32(as_long as i32),
        Type::Int64 => Value::Int64(as_long),
        Type::Float32 => Value::Float32(as_double as f32),
        Type::Float64 => Value::Float64(as_double),
        _ => value,
    })
}

/// `parseAsNumber`: Java's `BigDecimal` syntax, then the smallest integer type, FLOAT32,
/// FLOAT64 or a Decimal.
fn parse_as_number(token: &str) -> Option<SchemaAndValue> {
    let (negative, rest) = match token.as_bytes().first() {
        Some(b'-') => (true, &token[1..]),
        Some(b'+') => (false, &token[1..]),
        _ => (false, token),
    };
    let (mantissa, exp) = match rest.find(['e', 'E']) {
        Some(i) => (&rest[..i], rest[i + 1..].parse::<i32>().ok()?),
        None => (rest, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if int.is_empty() && frac.is_empty()
        || !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let all = format!("{int}{frac}");
    let digits = all.trim_start_matches('0');
    let digits = if digits.is_empty() { "0" } else { digits };
    let scale = frac.len() as i64 - i64::from(exp);
    let scale = i32::try_from(scale).ok()?;
    let integral = scale <= 0
        || digits == "0"
        || digits.len() > scale as usize
            && digits[digits.len() - scale as usize..].bytes().all(|b| b == b'0');
    if integral {
        let integer = if digits == "0" {
            "0".to_owned()
        } else if scale <= 0 {
            format!("{digits}{}", "0".repeat((-scale).min(20) as usize))
        } else {
            digits[..digits.len() - scale as usize].to_owned()
        };
        if let Ok(n) = format!("{}{integer}", if negative { "-" } else { "" }).parse::<i64>() {
            return Some(if let Ok(b) = i8::try_from(n) {
                SchemaAndValue::new(prim(Type::Int8), Value::Int8(b))
            } else if let Ok(s) = i16::try_from(n) {
                SchemaAndValue::new(prim(Type::Int16), Value::Int16(s))
            } else if let Ok(i) = i32::try_from(n) {
                SchemaAndValue::new(prim(Type::Int32), Value::Int32(i))
            } else {
                SchemaAndValue::new(prim(Type::Int64), Value::Int64(n))
            });
        }
    }
    let text = format!("{}{}e{}", if negative { "-" } else { "" }, digits, -i64::from(scale));
    let (f, d) = (text.parse::<f32>().ok()?, text.parse::<f64>().ok()?);
    if f.is_finite() && scale != 0 {
        return Some(SchemaAndValue::new(prim(Type::Float32), Value::Float32(f)));
    }
    if d.is_finite() && scale != 0 {
        return Some(SchemaAndValue::new(prim(Type::Float64), Value::Float64(d)));
    }
    let mut schema = Schema::new(Type::Bytes).named(DECIMAL);
    schema.version = Some(1);
    schema.parameters = vec![(DECIMAL_SCALE.into(), scale.to_string())];
    Some(SchemaAndValue::new(Arc::new(schema), Value::Bytes(unscaled_bytes(negative, digits))))
}

const MILLIS_PER_DAY: i64 = 86_400_000;

/// `parseAsTemporal`: a token of the length of `HH:mm:ss.SSS'Z'`, `yyyy-MM-dd'T'HH:mm:ss.SSS'Z'`
/// or `yyyy-MM-dd` read as that (leniently, out-of-range fields rolling over, in UTC).
fn parse_as_temporal(token: &str) -> Option<SchemaAndValue> {
    let token = token.replace("\\:", ":");
    let logical = |ty: Type, name: &str, value: Value| {
        let mut schema = Schema::new(ty).named(name);
        schema.version = Some(1);
        SchemaAndValue::new(Arc::new(schema), value)
    };
    match token.chars().count() {
        13 => {
            let ms = time_of(&token)?;
            Some(logical(Type::Int32, TIME, Value::Int32(i32::try_from(ms).ok()?)))
        }
        24 => {
            let (date, time) = token.split_once('T')?;
            let days = date_of(date)?;
            let ms = time_of(time)?;
            Some(logical(Type::Int64, TIMESTAMP, Value::Int64(days * MILLIS_PER_DAY + ms)))
        }
        10 => {
            let days = date_of(&token)?;
            Some(logical(Type::Int32, DATE, Value::Int32(i32::try_from(days).ok()?)))
        }
        _ => None,
    }
}

fn numbers(text: &str, separators: &[char]) -> Option<Vec<i64>> {
    let mut out = Vec::new();
    let mut rest = text;
    for sep in separators {
        let (n, r) = rest.split_once(*sep)?;
        out.push(n.parse::<u32>().ok()?.into());
        rest = r;
    }
    if !rest.is_empty() {
        out.push(rest.parse::<u32>().ok()?.into());
    }
    Some(out)
}

/// Milliseconds of `HH:mm:ss.SSSZ`.
fn time_of(text: &str) -> Option<i64> {
    let n = numbers(text, &[':', ':', '.', 'Z'])?;
    Some(((n[0] * 60 + n[1]) * 60 + n[2]) * 1000 + n[3])
}

/// Days since the epoch of `yyyy-MM-dd`, months and days rolling over.
fn date_of(text: &str) -> Option<i64> {
    let n = numbers(text, &['-', '-'])?;
    let months = n[0] * 12 + n[1] - 1;
    let (y, m) = (months.div_euclid(12), months.rem_euclid(12) + 1);
    // Howard Hinnant's days-from-civil.
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    Some(era * 146_097 + doe - 719_468 + n[2] - 1)
}
