//! [`PolledRecord`]: a record a source task returned from `poll`, as the worker carries
//! it, and [`decode_polled`], which reads a batch into such records without copying it.
//!
//! The batch arrives as one buffer; every key, value, source partition and source offset
//! of its records is a [`Bytes`] slice of that buffer (one allocation for the batch, none
//! per field), and a topic that repeats is one shared [`Arc<str>`]. Only headers, rare
//! on the source path, are copied out. This module owns that shape and its decoding; it
//! does not interpret the bytes (converters and the task's offset tracking do).

use std::sync::Arc;

use bytes::Bytes;
use wasm_connect_batch::{DecodeError, Header, Kind, Record};

/// One record of a source batch. The fields mean what `wasm_connect_batch::Record`'s do;
/// a source record has no Kafka offset.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PolledRecord {
    /// Topic to write to.
    pub topic: Arc<str>,
    /// Kafka partition; `None` lets the producer choose by key.
    pub partition: Option<i32>,
    /// Milliseconds since the Unix epoch, if set.
    pub timestamp: Option<i64>,
    /// What the key's bytes hold.
    pub key_kind: Kind,
    /// Key; `None` is a null key.
    pub key: Option<Bytes>,
    /// What the value's bytes hold.
    pub value_kind: Kind,
    /// Value; `None` is a null value.
    pub value: Option<Bytes>,
    /// Headers, in order.
    pub headers: Vec<Header>,
    /// Source partition as JSON text, unparsed.
    pub source_partition: Option<Bytes>,
    /// Source offset as JSON text, unparsed.
    pub source_offset: Option<Bytes>,
}

impl From<Record> for PolledRecord {
    /// Takes the record's buffers as they are (no copy but the topic's).
    fn from(r: Record) -> Self {
        Self {
            topic: r.topic.into(),
            partition: r.partition,
            timestamp: r.timestamp,
            key_kind: r.key_kind,
            key: r.key.map(Bytes::from),
            value_kind: r.value_kind,
            value: r.value.map(Bytes::from),
            headers: r.headers,
            source_partition: r.source_partition.map(Bytes::from),
            source_offset: r.source_offset.map(Bytes::from),
        }
    }
}

impl From<&PolledRecord> for Record {
    /// A copy with owned fields (for transforms and tests).
    fn from(r: &PolledRecord) -> Self {
        Self {
            topic: r.topic.to_string(),
            partition: r.partition,
            offset: None,
            timestamp: r.timestamp,
            key_kind: r.key_kind,
            key: r.key.as_deref().map(<[u8]>::to_vec),
            value_kind: r.value_kind,
            value: r.value.as_deref().map(<[u8]>::to_vec),
            headers: r.headers.clone(),
            source_partition: r.source_partition.as_deref().map(<[u8]>::to_vec),
            source_offset: r.source_offset.as_deref().map(<[u8]>::to_vec),
        }
    }
}

/// Decodes a batch of any version the batch crate reads into records that share `batch`.
/// `max_records` bounds the room reserved up front (the caller refuses a batch holding
/// more).
pub fn decode_polled(batch: Bytes, max_records: usize) -> Result<Vec<PolledRecord>, DecodeError> {
    let records = wasm_connect_batch::records(&batch)?;
    let mut out = Vec::with_capacity(records.capacity_hint().min(max_records));
    let mut topic: Option<Arc<str>> = None;
    let slice = |s: Option<&[u8]>| s.map(|s| batch.slice_ref(s));
    for r in records {
        let r = r?;
        let topic = match &topic {
            Some(t) if **t == *r.topic => t.clone(),
            _ => topic.insert(Arc::from(r.topic)).clone(),
        };
        out.push(PolledRecord {
            topic,
            partition: r.partition,
            timestamp: r.timestamp,
            key_kind: r.key_kind,
            key: slice(r.key),
            value_kind: r.value_kind,
            value: slice(r.value),
            headers: r
                .headers
                .map(|(key, value)| Header {
                    key: key.to_owned(),
                    value: value.map(<[u8]>::to_vec),
                })
                .collect(),
            source_partition: slice(r.source_partition),
            source_offset: slice(r.source_offset),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(topic: &str, value: &str, offset: u32) -> Record {
        Record {
            topic: topic.into(),
            partition: Some(1),
            timestamp: Some(5),
            key_kind: Kind::String,
            key: Some(b"k".to_vec()),
            value_kind: Kind::Json,
            value: Some(value.as_bytes().to_vec()),
            headers: vec![Header { key: "h".into(), value: None }],
            source_partition: Some(br#"{"p":0}"#.to_vec()),
            source_offset: Some(format!(r#"{{"o":{offset}}}"#).into_bytes()),
            ..Record::default()
        }
    }

    #[test]
    fn records_slice_the_batch_and_share_a_repeated_topic() {
        let sent = vec![record("a", "1", 1), record("a", "2", 2), record("b", "3", 3)];
        let batch = Bytes::from(wasm_connect_batch::encode(&sent));
        let polled = decode_polled(batch.clone(), 10).unwrap();
        let back: Vec<Record> = polled.iter().map(Record::from).collect();
        assert_eq!(back, sent);
        assert!(Arc::ptr_eq(&polled[0].topic, &polled[1].topic));
        assert_eq!(&*polled[2].topic, "b");
        let within = batch.as_ptr_range();
        for r in &polled {
            for field in [&r.key, &r.value, &r.source_partition, &r.source_offset] {
                assert!(within.contains(&field.as_ref().unwrap().as_ptr()));
            }
        }
    }

    #[test]
    fn malformed_batches_are_errors() {
        let mut batch = wasm_connect_batch::encode(&[record("a", "1", 1)]);
        batch.push(9);
        let err = decode_polled(batch.into(), 10).unwrap_err();
        assert_eq!(err, DecodeError::TrailingBytes(1));
        assert_eq!(decode_polled(Bytes::new(), 10).unwrap_err(), DecodeError::Empty);
    }

    #[test]
    fn version_1_batches_of_old_components_decode_with_bytes_kinds() {
        let hex = include_str!("../../../plugins/batch/testdata/batch-v1.hex").trim();
        let batch: Vec<u8> = (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
            .collect();
        let polled = decode_polled(batch.clone().into(), 10).unwrap();
        let want = wasm_connect_batch::decode(&batch).unwrap();
        assert_eq!(polled.len(), 2);
        assert_eq!(
            polled.iter().map(Record::from).map(|r| r.topic).collect::<Vec<_>>(),
            ["t", "src"]
        );
        for (p, w) in polled.iter().zip(&want) {
            assert_eq!((p.key_kind, p.value_kind), (Kind::Bytes, Kind::Bytes));
            assert_eq!(p.value.as_deref(), w.value.as_deref());
            assert_eq!(p.source_offset.as_deref(), w.source_offset.as_deref());
            assert_eq!(p.headers, w.headers);
        }
    }

    #[test]
    fn owned_records_move_their_buffers() {
        let r = record("t", "v", 7);
        let moved = r.clone();
        let value_ptr = moved.value.as_ref().unwrap().as_ptr();
        let polled = PolledRecord::from(moved);
        assert_eq!(polled.value.as_ref().unwrap().as_ptr(), value_ptr);
        assert_eq!(Record::from(&polled), r);
    }
}
