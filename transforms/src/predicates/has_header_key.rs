//! Kafka Connect's `predicates.HasHeaderKey`: true when the record has at least one
//! header called `name`. This module owns that test; it must not change records.

use crate::Record;
use crate::config::{Default, Importance, KeyDef, KeyType, Parsed, Problem, Validator};
use crate::registry::{Predicate, PredicateDef};

/// The classes of this module.
pub(crate) const DEFS: &[PredicateDef] = &[PredicateDef {
    class: "org.apache.kafka.connect.transforms.predicates.HasHeaderKey",
    doc: "A predicate which is true for records with at least one header with the configured \
          name.",
    keys: KEYS,
    build,
}];

const KEYS: &[KeyDef] = &[KeyDef {
    name: "name",
    ty: KeyType::String,
    default: Default::Required,
    validator: Some(Validator::NonEmpty),
    importance: Importance::Medium,
    doc: "The header name.",
}];

fn build(parsed: &Parsed) -> Result<Box<dyn Predicate>, Vec<Problem>> {
    Ok(Box::new(HasHeaderKey { name: parsed.string("name").unwrap_or_default().to_owned() }))
}

struct HasHeaderKey {
    name: String,
}

impl Predicate for HasHeaderKey {
    fn test(&mut self, record: &Record) -> bool {
        record.has_header(&self.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Data, Header, HeaderValue, Kind, config};

    fn predicate(name: &str) -> Result<Box<dyn Predicate>, Vec<Problem>> {
        build(&config::parse(KEYS, &[("name".into(), name.into())], "predicates.p.")?)
    }

    fn record(keys: &[&str]) -> Record {
        Record {
            offset: None,
            topic: "t".into(),
            partition: None,
            timestamp: None,
            key: Data::raw(Kind::Bytes, None),
            value: Data::raw(Kind::Bytes, None),
            headers: keys
                .iter()
                .map(|k| Header { key: k.to_string(), value: HeaderValue::Raw(None) })
                .collect(),
        }
    }

    #[test]
    fn true_when_a_header_of_that_name_exists() {
        // HasHeaderKeyTest.testTest
        let mut p = predicate("foo").unwrap();
        assert!(p.test(&record(&["foo"])));
        assert!(p.test(&record(&["bar", "foo", "bar", "foo"])));
        assert!(!p.test(&record(&["bar"])));
        assert!(!p.test(&record(&[])));
        assert!(!p.test(&record(&["Foo", "foo2"])), "names match exactly");
    }

    #[test]
    fn name_is_required_and_non_empty() {
        let p = predicate("").err().unwrap();
        assert_eq!(
            p[0].message,
            "Invalid value  for configuration predicates.p.name: String must be non-empty"
        );
        let p = config::parse(KEYS, &[], "predicates.p.").unwrap_err();
        assert_eq!(
            p[0].message,
            "Missing required configuration \"predicates.p.name\" which has no default value."
        );
    }
}
