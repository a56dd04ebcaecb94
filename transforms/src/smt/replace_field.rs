//! Kafka Connect's `ReplaceField`.

use crate::registry::TransformDef;

/// The classes of this module.
pub(crate) const DEFS: &[TransformDef] = &[];
