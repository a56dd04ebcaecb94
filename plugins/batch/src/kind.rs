//! [`Kind`]: what the bytes of a record's key or value hold.
//!
//! This module owns the kind tags of the encoding (one byte before each key and value
//! since version 2). It does not look inside the data: checking that a `Json` value is
//! JSON belongs to whoever converts it.

use std::fmt;

/// What the bytes of a key or value hold, so that the host can apply Kafka Connect
/// converters to them. A null key or value is null whatever its kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// Raw bytes: Kafka Connect's BYTES (tag 0). Every key and value of a version 1
    /// batch is `Bytes`.
    #[default]
    Bytes,
    /// UTF-8 text: Kafka Connect's STRING (tag 1).
    String,
    /// Schemaless structured data as JSON text: Kafka Connect data without a schema
    /// (tag 2). The JSON text `null` is a null.
    Json,
    /// Data with a Kafka Connect schema: the JSON text of the envelope
    /// `{"schema": {...}, "payload": ...}`, as Kafka's `JsonConverter` writes it (tag 3).
    ConnectJson,
}

impl Kind {
    /// Every kind, in tag order.
    pub const ALL: [Kind; 4] = [Kind::Bytes, Kind::String, Kind::Json, Kind::ConnectJson];

    /// The kind's tag in a batch.
    pub const fn tag(self) -> u8 {
        match self {
            Kind::Bytes => 0,
            Kind::String => 1,
            Kind::Json => 2,
            Kind::ConnectJson => 3,
        }
    }

    /// The kind a tag stands for; `None` for an unknown tag.
    pub const fn from_tag(tag: u8) -> Option<Kind> {
        match tag {
            0 => Some(Kind::Bytes),
            1 => Some(Kind::String),
            2 => Some(Kind::Json),
            3 => Some(Kind::ConnectJson),
            _ => None,
        }
    }

    /// The kind's name as the WIT documentation spells it: `bytes`, `string`, `json` or
    /// `connect-json`.
    pub const fn name(self) -> &'static str {
        match self {
            Kind::Bytes => "bytes",
            Kind::String => "string",
            Kind::Json => "json",
            Kind::ConnectJson => "connect-json",
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
