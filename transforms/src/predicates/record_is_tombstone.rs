//! Kafka Connect's `predicates.RecordIsTombstone`: true when the record's value is null.
//! This module owns that test; it must not decode or change records.

use crate::Record;
use crate::config::{KeyDef, Parsed, Problem};
use crate::registry::{Predicate, PredicateDef};

/// The classes of this module.
pub(crate) const DEFS: &[PredicateDef] = &[PredicateDef {
    class: "org.apache.kafka.connect.transforms.predicates.RecordIsTombstone",
    doc: "A predicate which is true for records which are tombstones (i.e. have null value).",
    keys: KEYS,
    build,
}];

const KEYS: &[KeyDef] = &[];

fn build(_parsed: &Parsed) -> Result<Box<dyn Predicate>, Vec<Problem>> {
    Ok(Box::new(RecordIsTombstone))
}

struct RecordIsTombstone;

impl Predicate for RecordIsTombstone {
    fn test(&mut self, record: &Record) -> bool {
        record.value.is_null()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Data, Kind, Schema, SchemaAndValue, Value, config};

    fn record(value: Data) -> Record {
        Record {
            offset: None,
            topic: "t".into(),
            partition: None,
            timestamp: None,
            key: Data::raw(Kind::String, Some(b"k".to_vec())),
            value,
            headers: Vec::new(),
        }
    }

    #[test]
    fn true_only_for_a_null_value() {
        // RecordIsTombstoneTest
        let mut p = build(&config::parse(KEYS, &[], "predicates.p.").unwrap()).unwrap();
        assert!(p.test(&record(Data::raw(Kind::Bytes, None))));
        assert!(p.test(&record(Data::raw(Kind::Json, Some(b" null ".to_vec())))));
        assert!(p.test(&record(Data::Typed(SchemaAndValue::new(
            Schema::optional_string(),
            Value::Null
        )))));
        assert!(!p.test(&record(Data::raw(Kind::Bytes, Some(Vec::new())))));
        assert!(!p.test(&record(Data::raw(Kind::Json, Some(b"{}".to_vec())))));
        assert!(!p.test(&record(Data::Typed(SchemaAndValue::schemaless(Value::Int64(0))))));
    }
}
