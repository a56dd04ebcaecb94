//! Kafka Connect's `Filter`: drops every record. Used with a predicate (`predicate`,
//! `negate`), which the worker's chain applies; this module owns only the dropping.

use crate::config::{KeyDef, Parsed, Problem};
use crate::registry::{TransformDef, Transformation};
use crate::{Record, TransformError};

/// The classes of this module.
pub(crate) const DEFS: &[TransformDef] = &[TransformDef {
    class: "org.apache.kafka.connect.transforms.Filter",
    doc: "Drops all records, filtering them from subsequent transformations in the chain. \
          This is intended to be used conditionally to filter out records matching (or not \
          matching) a particular Predicate.",
    keys: KEYS,
    build,
}];

const KEYS: &[KeyDef] = &[];

fn build(_parsed: &Parsed) -> Result<Box<dyn Transformation>, Vec<Problem>> {
    Ok(Box::new(Filter))
}

struct Filter;

impl Transformation for Filter {
    fn apply(&mut self, _record: Record) -> Result<Option<Record>, TransformError> {
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Data, Kind, config};

    #[test]
    fn drops_every_record() {
        let parsed =
            config::parse(KEYS, &[("unknown".into(), "x".into())], "transforms.f.").unwrap();
        let mut f = build(&parsed).unwrap();
        for value in [Data::raw(Kind::Json, Some(b"{}".to_vec())), Data::raw(Kind::Json, None)] {
            let record = Record {
                offset: None,
                topic: "t".into(),
                partition: None,
                timestamp: Some(1),
                key: Data::raw(Kind::Bytes, None),
                value,
                headers: Vec::new(),
            };
            assert_eq!(f.apply(record).unwrap(), None);
        }
        assert!(crate::registry::transform("Filter").is_some());
    }
}
