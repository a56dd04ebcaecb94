//! [`RecordFactory`]: builds [`SinkRecord`]s with increasing Kafka offsets per
//! topic-partition, for the harnesses that hand records to a plugin (sink tasks and
//! transforms). It owns the offset counters only.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::{Kind, SinkRecord, TopicPartition};

/// The next Kafka offset of each topic-partition.
#[derive(Default)]
pub(super) struct RecordFactory {
    log_end: BTreeMap<TopicPartition, i64>,
}

impl RecordFactory {
    /// A record of `topic`/`partition` at the partition's next offset, null key and value.
    pub(super) fn next_record(&mut self, topic: &str, partition: i32) -> SinkRecord {
        let end =
            self.log_end.entry(TopicPartition { topic: topic.into(), partition }).or_insert(0);
        let offset = *end;
        *end += 1;
        SinkRecord {
            topic: topic.into(),
            partition: Some(partition),
            offset: Some(offset),
            ..SinkRecord::default()
        }
    }

    /// Records with text values ([`Kind::String`]).
    pub(super) fn string_records<S: Into<String>>(
        &mut self,
        topic: &str,
        partition: i32,
        values: impl IntoIterator<Item = S>,
    ) -> Vec<SinkRecord> {
        values
            .into_iter()
            .map(|v| SinkRecord {
                value_kind: Kind::String,
                value: Some(v.into().into_bytes()),
                ..self.next_record(topic, partition)
            })
            .collect()
    }

    /// Records with schemaless JSON values ([`Kind::Json`]).
    pub(super) fn json_records(
        &mut self,
        topic: &str,
        partition: i32,
        values: impl IntoIterator<Item = Value>,
    ) -> Vec<SinkRecord> {
        values
            .into_iter()
            .map(|v| SinkRecord {
                value_kind: Kind::Json,
                value: Some(v.to_string().into_bytes()),
                ..self.next_record(topic, partition)
            })
            .collect()
    }
}
