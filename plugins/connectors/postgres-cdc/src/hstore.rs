//! `hstore` text (`"a"=>"1", "b"=>NULL`) read into pairs, and written as Debezium writes it:
//! the JDBC driver's `HStoreConverter` fills a Java `HashMap`, whose iteration order
//! Debezium's JSON text follows, so [`json_text`] reproduces that order.
//!
//! This module owns the hstore grammar and the emulation of `HashMap`'s order (Java's
//! `String.hashCode`, the spread `h ^ (h >>> 16)`, 16 buckets doubled past a 0.75 load,
//! insertion order within a bucket). Bins treeified at eight or more colliding keys are
//! not emulated.

use serde_json::{Map, Value};

/// The pairs of an hstore's text, in text order; `None` is a NULL value.
pub fn parse(text: &str) -> Result<Vec<(String, Option<String>)>, String> {
    let bad = || format!("bad hstore {text:?}");
    let mut out: Vec<(String, Option<String>)> = Vec::new();
    let mut chars = text.chars().peekable();
    let quoted = |chars: &mut std::iter::Peekable<std::str::Chars>| -> Option<String> {
        let mut s = String::new();
        loop {
            match chars.next()? {
                '\\' => s.push(chars.next()?),
                '"' => return Some(s),
                c => s.push(c),
            }
        }
    };
    let skip_space = |chars: &mut std::iter::Peekable<std::str::Chars>| {
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
    };
    loop {
        while chars.peek().is_some_and(|c| c.is_whitespace() || *c == ',') {
            chars.next();
        }
        match chars.next() {
            None => return Ok(out),
            Some('"') => {}
            Some(_) => return Err(bad()),
        }
        let key = quoted(&mut chars).ok_or_else(bad)?;
        skip_space(&mut chars);
        if (chars.next(), chars.next()) != (Some('='), Some('>')) {
            return Err(bad());
        }
        skip_space(&mut chars);
        let value = if chars.peek() == Some(&'"') {
            chars.next();
            Some(quoted(&mut chars).ok_or_else(bad)?)
        } else {
            let word: String =
                std::iter::from_fn(|| chars.next_if(|c| c.is_alphanumeric())).collect();
            if !word.eq_ignore_ascii_case("NULL") {
                return Err(bad());
            }
            None
        };
        match out.iter_mut().find(|(k, _)| *k == key) {
            Some(pair) => pair.1 = value,
            None => out.push((key, value)),
        }
    }
}

/// Java's `String.hashCode`: over UTF-16 code units, `h * 31 + c`, wrapping.
pub fn java_hash(s: &str) -> i32 {
    s.encode_utf16().fold(0i32, |h, c| h.wrapping_mul(31).wrapping_add(i32::from(c)))
}

/// The pairs in the order a Java `HashMap` filled with them in order iterates them.
pub fn hash_map_order(pairs: &[(String, Option<String>)]) -> Vec<&(String, Option<String>)> {
    let mut capacity = 16usize;
    while pairs.len() * 4 > capacity * 3 {
        capacity *= 2;
    }
    let bucket = |k: &str| {
        let h = java_hash(k);
        ((h ^ ((h as u32) >> 16) as i32) as u32 as usize) & (capacity - 1)
    };
    let mut indexed: Vec<(usize, usize)> =
        pairs.iter().enumerate().map(|(i, (k, _))| (bucket(k), i)).collect();
    indexed.sort();
    indexed.into_iter().map(|(_, i)| &pairs[i]).collect()
}

/// Debezium's JSON text of an hstore (`hstore.handling.mode=json`).
pub fn json_text(pairs: &[(String, Option<String>)]) -> String {
    let quote = |s: &str| Value::String(s.to_owned()).to_string();
    let fields: Vec<String> = hash_map_order(pairs)
        .into_iter()
        .map(|(k, v)| format!("{}:{}", quote(k), v.as_deref().map_or("null".to_owned(), quote)))
        .collect();
    format!("{{{}}}", fields.join(","))
}

/// The hstore as a Kafka Connect map (`hstore.handling.mode=map`).
pub fn map(pairs: &[(String, Option<String>)]) -> Value {
    let mut m = Map::new();
    for (k, v) in pairs {
        m.insert(k.clone(), v.clone().map_or(Value::Null, Value::String));
    }
    Value::Object(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_hashes_by_hand() {
        // "a" = 97; "ab" = 97 * 31 + 98 = 3105; "" = 0.
        assert_eq!((java_hash("a"), java_hash("ab"), java_hash("")), (97, 3105, 0));
        // "k1" = 107 * 31 + 49 = 3366; "é" is one UTF-16 unit, 233.
        assert_eq!((java_hash("k1"), java_hash("é")), (3366, 233));
    }

    #[test]
    fn json_text_follows_the_hash_map_order() {
        // Buckets of 16: "b" = 98 -> 2, "a" = 97 -> 1, "q" = 113 -> 1 (113 & 15), so a, q, b.
        let pairs = parse(r#""b"=>"2", "a"=>NULL, "q"=>"x\"y""#).unwrap();
        assert_eq!(json_text(&pairs), r#"{"a":null,"q":"x\"y","b":"2"}"#);
        // What Debezium wrote for the scenario's value.
        assert_eq!(
            json_text(&parse(r#""k1"=>"v1", "k2"=>NULL"#).unwrap()),
            r#"{"k1":"v1","k2":null}"#
        );
        assert_eq!(json_text(&parse("").unwrap()), "{}");
        assert!(parse(r#""a"=>1"#).is_err());
    }

    #[test]
    fn thirteen_keys_use_thirty_two_buckets() {
        // 13 > 0.75 * 16: 32 buckets, so "p" (112 -> 16) follows "a" (97 -> 1).
        let mut pairs: Vec<(String, Option<String>)> = Vec::new();
        for k in ["p", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"] {
            pairs.push((k.to_owned(), None));
        }
        let order: Vec<&str> = hash_map_order(&pairs).iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(order[0], "a");
        assert_eq!(order[12], "p");
    }
}
