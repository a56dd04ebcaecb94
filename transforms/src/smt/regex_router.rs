//! Kafka Connect's `RegexRouter`: when the whole topic matches `regex`, the topic becomes
//! `replacement` with `$n` / `${name}` group references, as Java's `Matcher.matches` then
//! `Matcher.replaceFirst` give it.
//!
//! This module owns the topic rewrite and Java's replacement syntax; it must not touch a
//! record's key, value or headers. Regular expressions are Rust's `regex` syntax, which
//! covers the Java syntax topic patterns use but not look-around or back-references.

use regex::Regex;

use crate::config::{Default, Importance, KeyDef, KeyType, Parsed, Problem, Validator};
use crate::registry::{TransformDef, Transformation};
use crate::{Record, TransformError};

/// The classes of this module.
pub(crate) const DEFS: &[TransformDef] = &[TransformDef {
    class: "org.apache.kafka.connect.transforms.RegexRouter",
    doc: "Update the record topic using the configured regular expression and replacement \
          string. If the pattern matches the whole input topic, the first match is replaced \
          with the replacement string (Java's Matcher#replaceFirst()) to obtain the new topic.",
    keys: KEYS,
    build,
}];

const KEYS: &[KeyDef] = &[
    KeyDef {
        name: "regex",
        ty: KeyType::String,
        default: Default::Required,
        validator: Some(Validator::Custom(valid_regex)),
        importance: Importance::High,
        doc: "Regular expression to use for matching.",
    },
    KeyDef {
        name: "replacement",
        ty: KeyType::String,
        default: Default::Required,
        validator: None,
        importance: Importance::High,
        doc: "Replacement string.",
    },
];

/// Kafka Connect's `RegexValidator`.
fn valid_regex(text: &str) -> Result<(), String> {
    Regex::new(text).map(drop).map_err(|e| format!("Invalid regex: {e}"))
}

fn build(parsed: &Parsed) -> Result<Box<dyn Transformation>, Vec<Problem>> {
    let text = parsed.string("regex").unwrap_or_default();
    let compile = |re: &str| Regex::new(re).map_err(|e| vec![parsed.invalid("regex", text, e)]);
    let find = compile(text)?;
    let whole = compile(&format!(r"\A(?:{text})\z"))?;
    let replacement = parse_replacement(parsed.string("replacement").unwrap_or_default(), &find);
    Ok(Box::new(RegexRouter { whole, find, replacement }))
}

struct RegexRouter {
    /// The regex anchored at both ends: Java's `matches()`.
    whole: Regex,
    /// The regex as given: Java's `replaceFirst` finds its first match.
    find: Regex,
    /// The replacement, or Java's exception for a bad one (thrown on each matching record).
    replacement: Result<Vec<Part>, String>,
}

/// A piece of a Java replacement string.
#[derive(Debug, PartialEq)]
enum Part {
    Literal(String),
    Group(usize),
}

/// Java's `Matcher.appendReplacement` syntax: `\x` is `x`, `$n` takes as many digits as
/// still name a group, `${name}` a named group.
fn parse_replacement(text: &str, regex: &Regex) -> Result<Vec<Part>, String> {
    let groups = regex.captures_len() - 1;
    let mut parts = Vec::new();
    let mut literal = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(escaped) => literal.push(escaped),
                None => return Err("character to be escaped is missing".into()),
            },
            '$' => {
                let index = match chars.peek() {
                    None => return Err("Illegal group reference: group index is missing".into()),
                    Some('{') => {
                        chars.next();
                        let mut name = String::new();
                        loop {
                            match chars.next() {
                                Some('}') => break,
                                Some(c) if c.is_ascii_alphanumeric() => name.push(c),
                                _ => {
                                    return Err(
                                        "named capturing group is missing trailing '}'".into()
                                    );
                                }
                            }
                        }
                        if name.is_empty() {
                            return Err("named capturing group has 0 length name".into());
                        }
                        if name.starts_with(|c: char| c.is_ascii_digit()) {
                            return Err("capturing group name {".to_owned()
                                + &name
                                + "} starts with digit character");
                        }
                        regex
                            .capture_names()
                            .position(|n| n == Some(name.as_str()))
                            .ok_or_else(|| format!("No group with name {{{name}}}"))?
                    }
                    Some(d) if d.is_ascii_digit() => {
                        let mut index = d.to_digit(10).expect("a digit") as usize;
                        chars.next();
                        if index > groups {
                            return Err(format!("No group {index}"));
                        }
                        while let Some(next) = chars.peek().and_then(|c| c.to_digit(10)) {
                            let longer = index * 10 + next as usize;
                            if longer > groups {
                                break;
                            }
                            index = longer;
                            chars.next();
                        }
                        index
                    }
                    Some(_) => return Err("Illegal group reference".into()),
                };
                if !literal.is_empty() {
                    parts.push(Part::Literal(std::mem::take(&mut literal)));
                }
                parts.push(Part::Group(index));
            }
            c => literal.push(c),
        }
    }
    if !literal.is_empty() {
        parts.push(Part::Literal(literal));
    }
    Ok(parts)
}

impl Transformation for RegexRouter {
    fn apply(&mut self, mut record: Record) -> Result<Option<Record>, TransformError> {
        if !self.whole.is_match(&record.topic) {
            return Ok(Some(record));
        }
        let parts = self.replacement.as_ref().map_err(|e| TransformError::new(e.clone()))?;
        let topic = &record.topic;
        let caps = self.find.captures(topic).expect("a whole match is a match");
        let whole = caps.get(0).expect("group 0 is the match");
        let mut out = String::with_capacity(topic.len());
        out.push_str(&topic[..whole.start()]);
        for part in parts {
            match part {
                Part::Literal(s) => out.push_str(s),
                Part::Group(i) => out.push_str(caps.get(*i).map_or("", |m| m.as_str())),
            }
        }
        out.push_str(&topic[whole.end()..]);
        record.topic = out;
        Ok(Some(record))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Data, Kind, config};

    fn router(regex: &str, replacement: &str) -> Result<Box<dyn Transformation>, Vec<Problem>> {
        let props =
            vec![("regex".into(), regex.into()), ("replacement".into(), replacement.into())];
        let parsed = config::parse(KEYS, &props, "transforms.r.")?;
        build(&parsed)
    }

    fn record(topic: &str) -> Record {
        Record {
            offset: None,
            topic: topic.into(),
            partition: Some(0),
            timestamp: None,
            key: Data::raw(Kind::String, Some(b"k".to_vec())),
            value: Data::raw(Kind::Bytes, None),
            headers: Vec::new(),
        }
    }

    fn route(regex: &str, replacement: &str, topic: &str) -> Result<String, TransformError> {
        let mut t = router(regex, replacement).unwrap();
        Ok(t.apply(record(topic))?.unwrap().topic)
    }

    #[test]
    fn kafka_connects_examples() {
        // RegexRouterTest and the documentation's example.
        assert_eq!(route("(.*)", "prefix-$1", "orig").unwrap(), "prefix-orig");
        assert_eq!(route("(.*)", "$1-suffix", "orig").unwrap(), "orig-suffix");
        assert_eq!(route("(.*)-(.*)-(.*)", "$3", "a-b-c").unwrap(), "c");
        assert_eq!(route("(.*)-(.*)-(.*)", "$3", "a-b").unwrap(), "a-b", "no match: unchanged");
        assert_eq!(route("(.*)", "", "orig").unwrap(), "");
        assert_eq!(route("^.*$", "lol", "orig").unwrap(), "lol");
        assert_eq!(route("(.*)(_dev)", "$1", "foo_dev").unwrap(), "foo");
        assert_eq!(route("([^.]+)\\.([^.]+)\\.(.+)", "$3", "server1.db.table").unwrap(), "table");
    }

    #[test]
    fn the_whole_topic_must_match_and_the_first_match_is_replaced() {
        assert_eq!(route("or", "x", "orig").unwrap(), "orig", "a partial match does not route");
        // Java's replaceFirst replaces the first match, which a lazy pattern can make
        // shorter than the whole topic.
        assert_eq!(route("a*?", "X", "aaa").unwrap(), "Xaaa");
        let mut t = router("a", "b").unwrap();
        let r = t.apply(record("a")).unwrap().unwrap();
        assert_eq!(
            (r.topic.as_str(), r.key, r.partition),
            ("b", Data::raw(Kind::String, Some(b"k".to_vec())), Some(0))
        );
    }

    #[test]
    fn replacements_follow_javas_syntax() {
        assert_eq!(route("(a)(b)", "$12", "ab").unwrap(), "a2", "$12 with two groups is $1 then 2");
        assert_eq!(route("(?<first>a)b", "${first}-\\$1", "ab").unwrap(), "a-$1");
        assert_eq!(
            route("(a)|b", "[$1]", "b").unwrap(),
            "[]",
            "a group that took no part is empty"
        );
        assert_eq!(route("a", "$1", "a").unwrap_err().message, "No group 1");
        assert_eq!(route("a", "${x}", "a").unwrap_err().message, "No group with name {x}");
        assert_eq!(
            route("a", "x\\", "a").unwrap_err().message,
            "character to be escaped is missing"
        );
        assert_eq!(route("a", "$", "b").unwrap(), "b", "a bad replacement only fails on a match");
    }

    #[test]
    fn config_problems() {
        let p = router("(", "x").err().unwrap();
        assert!(
            p[0].message.starts_with(
                "Invalid value ( for configuration transforms.r.regex: Invalid regex: "
            ),
            "{p:?}"
        );
        let props = vec![("regex".to_owned(), "a".to_owned())];
        let p = config::parse(KEYS, &props, "transforms.r.").unwrap_err();
        assert_eq!(
            p[0].message,
            "Missing required configuration \"transforms.r.replacement\" which has no default value."
        );
    }
}
