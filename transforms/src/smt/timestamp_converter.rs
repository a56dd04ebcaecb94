//! Kafka Connect's `TimestampConverter`.

use crate::registry::TransformDef;

/// The classes of this module.
pub(crate) const DEFS: &[TransformDef] = &[];
