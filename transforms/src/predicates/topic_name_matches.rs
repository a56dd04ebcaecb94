//! Kafka Connect's `predicates.TopicNameMatches`: true when the whole topic name matches
//! `pattern` (Java's `Matcher.matches`).
//!
//! This module owns that test; it must not change records. Patterns are Rust's `regex`
//! syntax, which covers the Java syntax topic patterns use but not look-around or
//! back-references.

use regex::Regex;

use crate::Record;
use crate::config::{Default, Importance, KeyDef, KeyType, Parsed, Problem, Validator};
use crate::registry::{Predicate, PredicateDef};

/// The classes of this module.
pub(crate) const DEFS: &[PredicateDef] = &[PredicateDef {
    class: "org.apache.kafka.connect.transforms.predicates.TopicNameMatches",
    doc: "A predicate which is true for records with a topic name that matches the configured \
          regular expression.",
    keys: KEYS,
    build,
}];

const KEYS: &[KeyDef] = &[KeyDef {
    name: "pattern",
    ty: KeyType::String,
    default: Default::Required,
    validator: Some(Validator::Custom(non_empty_regex)),
    importance: Importance::Medium,
    doc: "A Java regular expression for matching against the name of a record's topic.",
}];

/// Kafka Connect's `CompositeValidator.of(NonEmptyString, RegexValidator)`.
fn non_empty_regex(text: &str) -> Result<(), String> {
    if text.is_empty() {
        return Err("String must be non-empty".into());
    }
    Regex::new(text).map(drop).map_err(|e| format!("Invalid regex: {e}"))
}

fn build(parsed: &Parsed) -> Result<Box<dyn Predicate>, Vec<Problem>> {
    let text = parsed.string("pattern").unwrap_or_default();
    let pattern = Regex::new(&format!(r"\A(?:{text})\z")).map_err(|e| {
        vec![parsed.invalid(
            "pattern",
            text,
            format!("entry must be a Java-compatible regular expression: {e}"),
        )]
    })?;
    Ok(Box::new(TopicNameMatches { pattern }))
}

struct TopicNameMatches {
    pattern: Regex,
}

impl Predicate for TopicNameMatches {
    fn test(&mut self, record: &Record) -> bool {
        self.pattern.is_match(&record.topic)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Data, Kind, config};

    fn predicate(pattern: &str) -> Result<Box<dyn Predicate>, Vec<Problem>> {
        build(&config::parse(KEYS, &[("pattern".into(), pattern.into())], "predicates.p.")?)
    }

    fn record(topic: &str) -> Record {
        Record {
            offset: None,
            topic: topic.into(),
            partition: None,
            timestamp: None,
            key: Data::raw(Kind::Bytes, None),
            value: Data::raw(Kind::Bytes, None),
            headers: Vec::new(),
        }
    }

    #[test]
    fn the_whole_topic_name_must_match() {
        // TopicNameMatchesTest.testTest
        let mut p = predicate("my-prefix-.*").unwrap();
        assert!(p.test(&record("my-prefix-")));
        assert!(p.test(&record("my-prefix-foo")));
        assert!(!p.test(&record("x-my-prefix-")));
        assert!(!p.test(&record("x-my-prefix-foo")));
        assert!(!p.test(&record("your-prefix-")));
        let mut p = predicate("a|ab").unwrap();
        assert!(p.test(&record("ab")), "an alternative that covers the name matches");
        assert!(!p.test(&record("abc")));
    }

    #[test]
    fn bad_patterns_are_config_problems() {
        // TopicNameMatchesTest.testPatternIsValidRegex / testPatternRequired
        let p = predicate("[").err().unwrap();
        assert_eq!(p[0].key, "predicates.p.pattern");
        assert!(
            p[0].message.starts_with(
                "Invalid value [ for configuration predicates.p.pattern: Invalid regex: "
            ),
            "{}",
            p[0].message
        );
        let p = predicate("").err().unwrap();
        assert_eq!(
            p[0].message,
            "Invalid value  for configuration predicates.p.pattern: String must be non-empty"
        );
        let p = config::parse(KEYS, &[], "predicates.p.").unwrap_err();
        assert_eq!(
            p[0].message,
            "Missing required configuration \"predicates.p.pattern\" which has no default value."
        );
    }
}
