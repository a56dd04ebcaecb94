//! Kafka Connect's `predicates.HasHeaderKey`.

use crate::registry::PredicateDef;

/// The classes of this module.
pub(crate) const DEFS: &[PredicateDef] = &[];
