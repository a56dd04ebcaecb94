//! Kafka Connect's `predicates.RecordIsTombstone`.

use crate::registry::PredicateDef;

/// The classes of this module.
pub(crate) const DEFS: &[PredicateDef] = &[];
