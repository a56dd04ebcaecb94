//! The built-in predicates, one file per Kafka Connect class. Each file exports `DEFS`.
//!
//! Layout: `topic_name_matches`, `has_header_key`, `record_is_tombstone`.

mod has_header_key;
mod record_is_tombstone;
mod topic_name_matches;

use crate::registry::PredicateDef;

/// The definitions of every module, for the registry.
pub(crate) const ALL: &[&[PredicateDef]] =
    &[topic_name_matches::DEFS, has_header_key::DEFS, record_is_tombstone::DEFS];
