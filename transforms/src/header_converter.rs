//! `header.converter`: how a header a transform made (`HeaderFrom`, `InsertHeader`)
//! becomes bytes, as Kafka Connect's `SimpleHeaderConverter` (the default),
//! `StringConverter` and `ByteArrayConverter` write it (`fromConnectHeader`).
//!
//! Headers that arrived as bytes pass through unchanged. This module owns the class names
//! and the writing; it must not parse header bytes a plugin gave.

use crate::{SchemaAndValue, TransformError};

/// A header converter.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HeaderConverter {
    /// `org.apache.kafka.connect.storage.SimpleHeaderConverter`.
    #[default]
    Simple,
    /// `org.apache.kafka.connect.storage.StringConverter`.
    String,
    /// `org.apache.kafka.connect.converters.ByteArrayConverter`.
    ByteArray,
}

impl HeaderConverter {
    /// The converter a `header.converter` value names (its class or simple name).
    pub fn from_class(_class: &str) -> Option<Self> {
        unimplemented!("header converter lookup")
    }

    /// Writes a typed header value; `None` for null.
    pub fn write(
        &self,
        _header: &str,
        _data: &SchemaAndValue,
    ) -> Result<Option<Vec<u8>>, TransformError> {
        unimplemented!("header converter writing")
    }
}
