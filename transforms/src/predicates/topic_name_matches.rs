//! Kafka Connect's `predicates.TopicNameMatches`.

use crate::registry::PredicateDef;

/// The classes of this module.
pub(crate) const DEFS: &[PredicateDef] = &[];
