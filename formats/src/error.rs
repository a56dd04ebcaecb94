//! [`FormatError`]: why a format could not be configured, could not express a schema, or
//! could not encode or decode a value. Messages follow Confluent's converters' where they
//! have one for the same failure. This module owns the wording only.

/// A format problem.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FormatError {
    /// A setting with a value the format cannot take.
    #[error("Invalid value {value} for configuration {key}: {expected}")]
    InvalidSetting {
        /// The full config key, e.g. `value.converter.connect.meta.data`.
        key: String,
        /// The value given.
        value: String,
        /// What the key takes.
        expected: String,
    },
    /// A Connect schema the format cannot express.
    #[error("{0}")]
    Schema(String),
    /// A registered schema the format cannot read (bad text, unsupported construct).
    #[error("{0}")]
    RegisteredSchema(String),
    /// A value that does not match its Connect schema.
    #[error("{0}")]
    Value(String),
    /// Payload bytes that do not decode with their schema.
    #[error("{0}")]
    Decode(String),
}
