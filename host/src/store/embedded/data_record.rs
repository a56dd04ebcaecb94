//! The records of data topics as the embedded store takes and gives them: [`DataRecord`]
//! to append, [`Position`] where one landed, [`DataEntry`] read back.
//!
//! Plain values; the SQL that moves them is in `data_writer.rs` and `data_reader.rs`.

use wasm_connect_batch::Header;

/// A record to append to a data topic.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DataRecord {
    /// Topic; created with one partition on first write when missing.
    pub topic: String,
    /// Partition; `None` picks one: the key's (murmur2, as Kafka's producer), or for a
    /// keyless record the topic's sticky partition (see `data_writer.rs`).
    pub partition: Option<i32>,
    /// Milliseconds since the epoch; `None` stamps the time of the append.
    pub timestamp_ms: Option<i64>,
    /// Key.
    pub key: Option<Vec<u8>>,
    /// Value; `None` is a tombstone.
    pub value: Option<Vec<u8>>,
    /// Headers, in order.
    pub headers: Vec<Header>,
}

/// Where an appended record landed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Position {
    /// Partition.
    pub partition: i32,
    /// Offset within the partition.
    pub offset: i64,
}

/// A record read back from a data topic.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DataEntry {
    /// Topic.
    pub topic: String,
    /// Partition.
    pub partition: i32,
    /// Offset within the partition.
    pub offset: i64,
    /// Milliseconds since the epoch.
    pub timestamp_ms: i64,
    /// Key.
    pub key: Option<Vec<u8>>,
    /// Value; `None` is a tombstone.
    pub value: Option<Vec<u8>>,
    /// Headers, in order.
    pub headers: Vec<Header>,
}

/// A topic of the file and its partition count.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TopicInfo {
    /// Topic name.
    pub name: String,
    /// Partition count.
    pub partitions: i32,
}
