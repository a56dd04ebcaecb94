//! One polled batch of a source task made ready to send ([`prepare`]): the transform
//! chain's outcomes applied, the converters run, each record numbered, and the source
//! offsets noted in poll order. It calls no plugin and does no I/O of its own (a Schema
//! Registry converter may ask its registry about a schema it has not seen, through
//! `schema_lookup`); the task loop runs the chain before it and reports, sends and
//! acknowledges after it.
//!
//! It must not decide what a failed record costs: failures come back as [`Refused`]
//! records for the loop to report.

use bytes::Bytes;
use wasm_connect_transforms::header_converter::HeaderConverter;

use super::convert::{Converter, Side};
use super::errors::Stage;
use super::schema_lookup::{Lookups, converted};
use super::topics::OutRecord;
use super::transforms::{self, Outcome};
use crate::runtime::PolledRecord;

/// What one polled batch came to.
#[derive(Debug, Default)]
pub(super) struct Prepared {
    /// The records to send, converted.
    pub out: Vec<OutRecord>,
    /// The sequence number of each record of `out`, in order.
    pub sequences: Vec<u64>,
    /// Sequence numbers of the records not sent: dropped by a transform, or refused.
    pub skipped: Vec<u64>,
    /// Source partition and offset (JSON text) of the polled records, sent or skipped, in
    /// poll order; of a run of records with the same partition, only the last offset.
    pub offsets: Vec<(Bytes, Bytes)>,
    /// The records a transform or a converter refused, in poll order.
    pub refused: Vec<Refused>,
}

/// A record a transform or a converter refused.
#[derive(Debug)]
pub(super) struct Refused {
    /// Where it failed.
    pub stage: Stage,
    /// Why.
    pub error: String,
    /// The transform's class, for a transform's failure.
    pub class: Option<String>,
    /// The record: as polled when the chain refused it, as transformed when a converter
    /// did.
    pub record: PolledRecord,
}

/// Numbers `records` from `first_sequence`, applies the chain's `outcomes` (one per record;
/// `None` without a chain) and converts what is kept with `key` and `value`; `lookups`
/// names the task for the registry metrics and bounds the wait for an unreachable schema
/// registry.
pub(super) async fn prepare(
    records: Vec<PolledRecord>,
    outcomes: Option<Vec<Outcome>>,
    header_converter: HeaderConverter,
    (key, value): (&dyn Converter, &dyn Converter),
    lookups: &Lookups<'_>,
    first_sequence: u64,
) -> Prepared {
    let mut outcomes = outcomes.map(Vec::into_iter);
    let mut batch = Prepared {
        out: Vec::with_capacity(records.len()),
        sequences: Vec::with_capacity(records.len()),
        ..Prepared::default()
    };
    for (r, sequence) in records.into_iter().zip(first_sequence..) {
        if let (Some(p), Some(o)) = (&r.source_partition, &r.source_offset) {
            note_offset(&mut batch.offsets, p, o);
        }
        let next = match outcomes.as_mut().and_then(Iterator::next) {
            None => Ok(r),
            Some(Outcome::Keep(t)) => match transforms::to_batch(t, header_converter) {
                Ok(t) => Ok(PolledRecord::from(t)),
                Err(error) => {
                    Err(Refused { stage: Stage::Transformation, error, class: None, record: r })
                }
            },
            Some(Outcome::Dropped) => {
                batch.skipped.push(sequence);
                continue;
            }
            Some(Outcome::Failed { class, error }) => {
                Err(Refused { stage: Stage::Transformation, error, class: Some(class), record: r })
            }
        };
        let t = match next {
            Ok(t) => t,
            Err(refused) => {
                batch.skipped.push(sequence);
                batch.refused.push(refused);
                continue;
            }
        };
        // Bytes that pass through unchanged are the batch's own (no copy); the record
        // keeps them too, so a failed one is reported as polled.
        let k = converted(key, Side::Key, lookups, || {
            key.from_plugin_shared(&t.topic, t.key_kind, t.key.as_ref())
        })
        .await;
        let v = match &k {
            Ok(_) => {
                converted(value, Side::Value, lookups, || {
                    value.from_plugin_shared(&t.topic, t.value_kind, t.value.as_ref())
                })
                .await
            }
            Err(_) => Ok(None),
        };
        let (stage, error) = match (k, v) {
            (Ok(key), Ok(value)) => {
                batch.out.push(OutRecord {
                    topic: t.topic,
                    partition: t.partition,
                    timestamp: t.timestamp,
                    key,
                    value,
                    headers: t.headers,
                });
                batch.sequences.push(sequence);
                continue;
            }
            (Err(e), _) => (Stage::KeyConverter, e),
            (_, Err(e)) => (Stage::ValueConverter, e),
        };
        batch.skipped.push(sequence);
        batch.refused.push(Refused { stage, error: error.to_string(), class: None, record: t });
    }
    batch
}

/// Whether `bytes` is JSON, checked without building a value.
fn is_json(bytes: &[u8]) -> bool {
    serde_json::from_slice::<serde::de::IgnoredAny>(bytes).is_ok()
}

/// Notes a record's source partition `p` and offset `o` (JSON text) after the earlier
/// records of its batch. Records that are not JSON are left out, as they cannot be
/// committed. Only the last offset of a run of records with the same partition is kept:
/// the offsets store would keep only that one, and a batch's records usually share one
/// partition, so the JSON is parsed once per run instead of once per record.
pub(super) fn note_offset(offsets: &mut Vec<(Bytes, Bytes)>, p: &Bytes, o: &Bytes) {
    if !is_json(o) {
        return;
    }
    match offsets.last_mut() {
        Some((last, offset)) if last == p => *offset = o.clone(),
        _ if is_json(p) => offsets.push((p.clone(), o.clone())),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::sync::Arc;

    use bytes::Bytes;
    use wasm_connect_batch::{Kind, Record};
    use wasm_connect_transforms::header_converter::HeaderConverter;

    use super::{Lookups, Stage, note_offset, prepare};
    use crate::runtime::PolledRecord;
    use crate::worker::convert::{Converter, Side, worker_default};
    use crate::worker::transforms::{Outcome, from_batch};

    #[test]
    fn runs_keep_their_last_offset_and_bad_json_is_left_out() {
        let mut offsets = Vec::new();
        for (p, o) in [
            (&b"{\"p\":0}"[..], &b"{\"seq\":1}"[..]),
            (b"{\"p\":0}", b"{\"seq\":2}"),
            (b"{\"p\":0}", b"not json"),
            (b"{\"p\":1}", b"{\"seq\":3}"),
            (b"nope", b"{\"seq\":4}"),
            (b"{\"p\":0}", b"{\"seq\":5}"),
        ] {
            note_offset(&mut offsets, &Bytes::from_static(p), &Bytes::from_static(o));
        }
        let text: Vec<(String, String)> = offsets
            .iter()
            .map(|(p, o)| (String::from_utf8_lossy(p).into(), String::from_utf8_lossy(o).into()))
            .collect();
        let want = [
            ("{\"p\":0}", "{\"seq\":2}"),
            ("{\"p\":1}", "{\"seq\":3}"),
            ("{\"p\":0}", "{\"seq\":5}"),
        ];
        assert_eq!(text, want.map(|(p, o)| (p.to_owned(), o.to_owned())));
    }

    fn converter(class: &str) -> Arc<dyn Converter> {
        let props = match class {
            "org.apache.kafka.connect.json.JsonConverter" => {
                BTreeMap::from([("schemas.enable".to_owned(), "false".to_owned())])
            }
            _ => BTreeMap::new(),
        };
        worker_default(Side::Value, class, &props).unwrap()
    }

    /// A polled record with a JSON value and source offset `{"n":<offset>}` of partition
    /// `{"p":0}`.
    fn polled(value: &str, offset: u32) -> PolledRecord {
        PolledRecord::from(Record {
            topic: "out".into(),
            partition: None,
            offset: None,
            timestamp: Some(7),
            key_kind: Kind::String,
            key: Some(b"k".to_vec()),
            value_kind: Kind::Json,
            value: Some(value.as_bytes().to_vec()),
            headers: Vec::new(),
            source_partition: Some(br#"{"p":0}"#.to_vec()),
            source_offset: Some(format!(r#"{{"n":{offset}}}"#).into_bytes()),
        })
    }

    fn text(bytes: &Option<Bytes>) -> &str {
        std::str::from_utf8(bytes.as_deref().unwrap()).unwrap()
    }

    use crate::worker::errors::ErrorPolicy;

    #[tokio::test]
    async fn without_a_chain_every_record_is_converted_and_numbered() {
        let string = converter("org.apache.kafka.connect.storage.StringConverter");
        let json = converter("org.apache.kafka.connect.json.JsonConverter");
        let records = vec![polled("1", 1), polled(r#"{"a":2}"#, 2)];
        let policy = ErrorPolicy::default();
        let lookups = Lookups { connector: "c", task: 0, policy: &policy };
        let converters = (&*string, &*json);
        let batch =
            prepare(records, None, HeaderConverter::default(), converters, &lookups, 10).await;
        assert_eq!(batch.sequences, [10, 11]);
        assert!(batch.skipped.is_empty() && batch.refused.is_empty());
        assert_eq!(batch.out.len(), 2);
        assert_eq!(text(&batch.out[0].key), "k");
        assert_eq!(text(&batch.out[1].value), r#"{"a":2}"#);
        assert_eq!(batch.out[1].timestamp, Some(7));
        // One run of one partition: its last offset.
        assert_eq!(batch.offsets, [(Bytes::from_static(br#"{"p":0}"#), Bytes::from(r#"{"n":2}"#))]);
    }

    #[tokio::test]
    async fn dropped_and_refused_records_are_skipped_and_their_offsets_still_noted() {
        let string = converter("org.apache.kafka.connect.storage.StringConverter");
        // The byte array converter takes bytes only: a JSON value is refused.
        let bytes = converter("org.apache.kafka.connect.converters.ByteArrayConverter");
        let records = vec![polled("1", 1), polled("2", 2), polled("3", 3), polled("4", 4)];
        let keep = |r: &PolledRecord| Outcome::Keep(from_batch(r.into()));
        let outcomes = vec![
            keep(&records[0]),
            Outcome::Dropped,
            Outcome::Failed { class: "Boom".into(), error: "no".into() },
            keep(&records[3]),
        ];
        let header = HeaderConverter::default();
        let policy = ErrorPolicy::default();
        let lookups = Lookups { connector: "c", task: 0, policy: &policy };
        let converters = (&*string, &*bytes);
        let batch = prepare(records, Some(outcomes), header, converters, &lookups, 0).await;
        assert!(batch.out.is_empty());
        assert!(batch.sequences.is_empty());
        assert_eq!(batch.skipped, [0, 1, 2, 3]);
        let refused: Vec<(Stage, Option<&str>, &str)> = batch
            .refused
            .iter()
            .map(|r| (r.stage, r.class.as_deref(), text(&r.record.value)))
            .collect();
        assert_eq!(
            refused,
            [
                (Stage::ValueConverter, None, "1"),
                (Stage::Transformation, Some("Boom"), "3"),
                (Stage::ValueConverter, None, "4"),
            ]
        );
        assert_eq!(batch.refused[1].error, "no");
        assert_eq!(batch.offsets, [(Bytes::from_static(br#"{"p":0}"#), Bytes::from(r#"{"n":4}"#))]);
    }
}
