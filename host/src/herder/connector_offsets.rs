//! A connector's committed offsets as the offsets API (KIP-875) answers them: plain values
//! that serialize as Kafka Connect's `ConnectorOffsets`. Reading, altering and resetting
//! them is `offsets`'.

use serde_json::Value;

/// One committed offset (Kafka Connect's `ConnectorOffset`).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ConnectorOffset {
    /// The source partition, or `{"kafka_topic", "kafka_partition"}` for a sink.
    pub partition: Value,
    /// The offset, or `{"kafka_offset"}` for a sink.
    pub offset: Value,
}

/// A connector's committed offsets (Kafka Connect's `ConnectorOffsets`); serializes as
/// `{"offsets": [{"partition": ..., "offset": ...}]}`.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct ConnectorOffsets {
    /// The entries.
    pub offsets: Vec<ConnectorOffset>,
}
