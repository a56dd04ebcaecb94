//! The `source-task` interface: numbers and encodes what [`SourceTask::poll`] returns.
//!
//! The task state carries the running record `sequence` (see [`RecordAck`]) next to the
//! author's task, so acks always match the order records left `poll`.
//!
//! [`RecordAck`]: crate::RecordAck

use serde_json::Value;
use wasm_connect_batch::Encoder;

use super::convert::{ack_from_wit, config_from_wit, result_to_wit};
use super::{Glue, SOURCE_TASK, drop_state, with_state};
use crate::bindings::source::exports::wasm_connect::connector::source_task::Guest;
use crate::bindings::source::wasm_connect::connector::types as wit;
use crate::{Error, Result, SourceRecord, SourceTask};

/// A source task and what the glue keeps for it.
#[derive(Default)]
struct SourceState<T> {
    task: T,
    /// The sequence number the next polled record gets.
    next_sequence: u64,
    /// The last source partition encoded, and its JSON text: most tasks repeat one.
    partition_cache: Option<(Value, Vec<u8>)>,
}

impl<C: 'static, T: SourceTask> Guest for Glue<C, T> {
    fn start(config: wit::Config) -> Result<(), wit::Error> {
        let config = config_from_wit(config);
        result_to_wit(with_state(&SOURCE_TASK, |s: &mut SourceState<T>| s.task.start(config)))
    }

    fn poll(max_records: u32) -> Result<Vec<u8>, wit::Error> {
        result_to_wit(with_state(&SOURCE_TASK, |s: &mut SourceState<T>| {
            let records = s.task.poll(max_records)?;
            let batch = encode(&records, &mut s.partition_cache)?;
            s.next_sequence += records.len() as u64;
            Ok(batch)
        }))
    }

    fn commit_records(acks: Vec<wit::RecordAck>) -> Result<(), wit::Error> {
        result_to_wit(with_state(&SOURCE_TASK, |s: &mut SourceState<T>| {
            acks.into_iter().try_for_each(|ack| s.task.commit_record(ack_from_wit(ack)))
        }))
    }

    fn commit() -> Result<(), wit::Error> {
        result_to_wit(with_state(&SOURCE_TASK, |s: &mut SourceState<T>| s.task.commit()))
    }

    fn stop() {
        with_state(&SOURCE_TASK, |s: &mut SourceState<T>| s.task.stop());
        drop_state(&SOURCE_TASK);
    }
}

/// The bytes a record takes in a batch besides its strings and data: lengths, partition,
/// offset, timestamp, kinds and the header count.
const FIXED_LEN: usize = 4 + 4 + 8 + 8 + 1 + 4 + 1 + 4 + 4 + 4 + 4;

/// Encodes `records` as one `record-batch`, checking that source partitions and offsets
/// are JSON objects.
fn encode(records: &[SourceRecord], cache: &mut Option<(Value, Vec<u8>)>) -> Result<Vec<u8>> {
    // Room for the whole batch up front, so that it is never copied as it grows: the fixed
    // fields, the data, and the source fields at the size of the last partition's text
    // (the usual case: one partition) plus an offset of up to 32 bytes.
    let source = cache.as_ref().map_or(64, |(_, text)| text.len()) + 32;
    let bytes: usize = records
        .iter()
        .map(|r| {
            FIXED_LEN
                + source
                + r.topic.len()
                + r.key.as_ref().map_or(0, Vec::len)
                + r.value.as_ref().map_or(0, Vec::len)
                + r.headers
                    .iter()
                    .map(|h| 8 + h.key.len() + h.value.as_ref().map_or(0, Vec::len))
                    .sum::<usize>()
        })
        .sum();
    let mut enc = Encoder::with_capacity(bytes);
    let mut offset = Vec::with_capacity(32);
    for (i, r) in records.iter().enumerate() {
        if !r.source_partition.is_object() || !r.source_offset.is_object() {
            return Err(Error::fatal(format!(
                "source record {i} of the batch: source partition and offset must be JSON \
                 objects, got {} and {}",
                r.source_partition, r.source_offset
            )));
        }
        let partition = match cache {
            Some((value, text)) if *value == r.source_partition => text,
            _ => {
                let text = serde_json::to_vec(&r.source_partition).map_err(json_error)?;
                &mut cache.insert((r.source_partition.clone(), text)).1
            }
        };
        offset.clear();
        serde_json::to_writer(&mut offset, &r.source_offset).map_err(json_error)?;
        enc.push_parts(
            &r.topic,
            r.partition,
            None,
            r.timestamp,
            (r.key_kind, r.key.as_deref()),
            (r.value_kind, r.value.as_deref()),
            r.headers.iter().map(|h| (h.key.as_str(), h.value.as_deref())),
            Some(partition),
            Some(&offset),
        );
    }
    Ok(enc.finish())
}

fn json_error(e: serde_json::Error) -> Error {
    Error::fatal(format!("cannot encode a source partition or offset: {e}"))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::Kind;

    #[test]
    fn encodes_json_source_fields_and_reuses_the_partition_text() {
        let records = vec![
            SourceRecord::new("t", json!({"f": "a"}), json!({"p": 1})).value("x"),
            SourceRecord::new("t", json!({"f": "a"}), json!({"p": 2}))
                .string_key("k")
                .json_value(&json!([1]))
                .header("h", "v"),
        ];
        let mut cache = None;
        let batch = encode(&records, &mut cache).unwrap();
        let decoded = wasm_connect_batch::decode(&batch).unwrap();
        assert_eq!(decoded.len(), 2);
        assert_eq!(decoded[0].source_partition.as_deref(), Some(&br#"{"f":"a"}"#[..]));
        assert_eq!(decoded[1].source_offset.as_deref(), Some(&br#"{"p":2}"#[..]));
        assert_eq!(decoded[1].key.as_deref(), Some(&b"k"[..]));
        assert_eq!((decoded[0].key_kind, decoded[0].value_kind), (Kind::Bytes, Kind::Bytes));
        assert_eq!((decoded[1].key_kind, decoded[1].value_kind), (Kind::String, Kind::Json));
        assert_eq!(decoded[0].offset, None);
        assert_eq!(cache.unwrap().0, json!({"f": "a"}));
    }

    #[test]
    fn rejects_non_object_source_fields() {
        let records = vec![SourceRecord::new("t", json!("a"), json!({}))];
        assert!(matches!(encode(&records, &mut None), Err(Error::Fatal(_))));
    }
}
