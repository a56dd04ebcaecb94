//! Round trips, version 1 compatibility and every malformed input.

use super::*;

fn sample() -> Vec<Record> {
    vec![
        Record {
            topic: "t".into(),
            partition: Some(3),
            offset: Some(42),
            timestamp: Some(1_700_000_000_000),
            key_kind: Kind::String,
            key: Some(b"k".to_vec()),
            value_kind: Kind::ConnectJson,
            value: Some(br#"{"schema":null,"payload":1}"#.to_vec()),
            headers: vec![
                Header { key: "h1".into(), value: Some(b"v".to_vec()) },
                Header { key: "h2".into(), value: None },
            ],
            source_partition: None,
            source_offset: None,
        },
        Record {
            topic: "other".into(),
            key_kind: Kind::Json,
            key: None,
            value: Some(vec![7; 100]),
            source_partition: Some(br#"{"file":"a"}"#.to_vec()),
            source_offset: Some(br#"{"position":9}"#.to_vec()),
            ..Record::default()
        },
    ]
}

/// A version 1 batch of `records`, written field by field as the old layout has it.
fn encode_v1(records: &[Record]) -> Vec<u8> {
    fn opt(out: &mut Vec<u8>, b: &Option<Vec<u8>>) {
        match b {
            Some(b) => {
                out.extend_from_slice(&(b.len() as i32).to_le_bytes());
                out.extend_from_slice(b);
            }
            None => out.extend_from_slice(&(-1i32).to_le_bytes()),
        }
    }
    let mut out = vec![1];
    out.extend_from_slice(&(records.len() as u32).to_le_bytes());
    for r in records {
        out.extend_from_slice(&(r.topic.len() as u32).to_le_bytes());
        out.extend_from_slice(r.topic.as_bytes());
        out.extend_from_slice(&r.partition.unwrap_or(-1).to_le_bytes());
        out.extend_from_slice(&r.offset.unwrap_or(-1).to_le_bytes());
        out.extend_from_slice(&r.timestamp.unwrap_or(-1).to_le_bytes());
        opt(&mut out, &r.key);
        opt(&mut out, &r.value);
        out.extend_from_slice(&(r.headers.len() as u32).to_le_bytes());
        for h in &r.headers {
            out.extend_from_slice(&(h.key.len() as u32).to_le_bytes());
            out.extend_from_slice(h.key.as_bytes());
            opt(&mut out, &h.value);
        }
        opt(&mut out, &r.source_partition);
        opt(&mut out, &r.source_offset);
    }
    out
}

/// Where the key kind byte of the only record of a batch with topic `t` sits: version,
/// count, topic (4+1), partition, offset, timestamp.
const KEY_KIND_AT: usize = 1 + 4 + 5 + 4 + 8 + 8;

#[test]
fn round_trip_keeps_every_field_and_kind() {
    let records = sample();
    let bytes = encode(&records);
    assert_eq!(bytes[0], VERSION);
    assert_eq!(bytes.len(), 5 + records.iter().map(Record::encoded_len).sum::<usize>());
    assert_eq!(decode(&bytes).unwrap(), records);
}

#[test]
fn every_kind_round_trips_on_keys_and_values() {
    for kind in Kind::ALL {
        assert_eq!(Kind::from_tag(kind.tag()), Some(kind));
        let r = Record {
            topic: "t".into(),
            key_kind: kind,
            key: Some(b"1".to_vec()),
            value_kind: kind,
            value: Some(b"2".to_vec()),
            ..Record::default()
        };
        let bytes = encode(std::slice::from_ref(&r));
        assert_eq!(bytes[KEY_KIND_AT], kind.tag());
        assert_eq!(decode(&bytes).unwrap(), vec![r]);
    }
    assert_eq!(Kind::from_tag(4), None);
    assert_eq!(Kind::default(), Kind::Bytes);
    let names: Vec<String> = Kind::ALL.iter().map(ToString::to_string).collect();
    assert_eq!(names, ["bytes", "string", "json", "connect-json"]);
}

#[test]
fn version_1_batches_decode_with_bytes_kinds() {
    let mut records = sample();
    for r in &mut records {
        r.key_kind = Kind::Bytes;
        r.value_kind = Kind::Bytes;
    }
    let v1 = encode_v1(&records);
    assert_eq!(v1.len() + 2 * records.len(), encode(&records).len());
    assert_eq!(decode(&v1).unwrap(), records);
    for cut in 0..v1.len() {
        assert!(decode(&v1[..cut]).is_err(), "v1 cut at {cut} decoded");
    }
}

#[test]
fn empty_batch_is_five_bytes() {
    let bytes = encode(&[]);
    assert_eq!(bytes, vec![2, 0, 0, 0, 0]);
    assert!(decode(&bytes).unwrap().is_empty());
    assert!(decode(&[1, 0, 0, 0, 0]).unwrap().is_empty());
}

#[test]
fn every_truncation_is_an_error_not_a_panic() {
    let bytes = encode(&sample());
    for cut in 0..bytes.len() {
        assert!(decode(&bytes[..cut]).is_err(), "cut at {cut} decoded");
    }
}

#[test]
fn rejects_wrong_version_trailing_bytes_and_lying_counts() {
    for version in [0, 3, 255] {
        let mut bytes = encode(&sample());
        bytes[0] = version;
        assert_eq!(decode(&bytes), Err(DecodeError::Version(version)));
    }
    assert_eq!(
        DecodeError::Version(3).to_string(),
        "record batch version 3 is not supported (want 1 to 2)"
    );
    let mut bytes = encode(&sample());
    bytes.push(0);
    assert_eq!(decode(&bytes), Err(DecodeError::TrailingBytes(1)));
    let lying = [2u8, 0xff, 0xff, 0xff, 0xff];
    assert!(matches!(decode(&lying), Err(DecodeError::Truncated { record: 0, .. })));
}

#[test]
fn unknown_kind_tags_are_rejected_by_name() {
    let mut bytes = encode(&[Record { topic: "t".into(), ..Record::default() }]);
    bytes[KEY_KIND_AT] = 9;
    let err = decode(&bytes).unwrap_err();
    assert_eq!(err, DecodeError::Kind { record: 0, field: "key kind", tag: 9 });
    assert_eq!(err.to_string(), "`key kind` of record 0 is the unknown kind tag 9");
    let mut bytes = encode(&[Record { topic: "t".into(), ..Record::default() }]);
    // The key kind, the null key's length, then the value kind.
    bytes[KEY_KIND_AT + 5] = 4;
    assert!(matches!(decode(&bytes), Err(DecodeError::Kind { field: "value kind", tag: 4, .. })));
}

#[test]
fn negative_lengths_other_than_null_are_rejected() {
    let mut bytes = encode(&[Record { topic: "t".into(), ..Record::default() }]);
    let key_at = KEY_KIND_AT + 1;
    bytes[key_at..key_at + 4].copy_from_slice(&(-5i32).to_le_bytes());
    assert!(matches!(decode(&bytes), Err(DecodeError::Length { field: "key", .. })));
}

#[test]
fn encoder_counts_records_and_bytes() {
    let mut enc = Encoder::default();
    assert!(enc.is_empty());
    for r in sample() {
        enc.push(&r);
    }
    assert_eq!(enc.len(), 2);
    assert_eq!(enc.byte_len(), encode(&sample()).len());
    assert_eq!(decode(&enc.finish()).unwrap(), sample());
}

/// The records of the shared test vectors in `testdata/`; the Python SDK's tests
/// (`plugins/sdk-python/tests/test_batch.py`) build the same records and check the same
/// bytes, so both encoders and decoders are pinned to one layout.
fn vector_records() -> Vec<Record> {
    vec![
        Record {
            topic: "t".into(),
            partition: Some(3),
            offset: Some(42),
            timestamp: Some(1_700_000_000_000),
            key_kind: Kind::String,
            key: Some(b"k".to_vec()),
            value_kind: Kind::ConnectJson,
            value: Some(br#"{"schema":null,"payload":1}"#.to_vec()),
            headers: vec![
                Header { key: "h1".into(), value: Some(b"v".to_vec()) },
                Header { key: "h2".into(), value: None },
            ],
            source_partition: None,
            source_offset: None,
        },
        Record {
            topic: "src".into(),
            key_kind: Kind::Json,
            value_kind: Kind::Json,
            value: Some(br#"{"n":1}"#.to_vec()),
            source_partition: Some(br#"{"p":0}"#.to_vec()),
            source_offset: Some(br#"{"seq":1}"#.to_vec()),
            ..Record::default()
        },
    ]
}

fn unhex(text: &str) -> Vec<u8> {
    let text = text.trim();
    (0..text.len()).step_by(2).map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap()).collect()
}

#[test]
fn encoding_matches_the_shared_version_2_vector() {
    let want = unhex(include_str!("../testdata/batch-v2.hex"));
    assert_eq!(encode(&vector_records()), want);
    assert_eq!(decode(&want).unwrap(), vector_records());
}

#[test]
fn decoding_reads_the_shared_version_1_vector() {
    let mut want = vector_records();
    for r in &mut want {
        (r.key_kind, r.value_kind) = (Kind::Bytes, Kind::Bytes);
    }
    assert_eq!(decode(&unhex(include_str!("../testdata/batch-v1.hex"))).unwrap(), want);
}

#[test]
fn records_borrow_the_batch_and_match_decode() {
    let batch = encode(&sample());
    let views: Vec<RecordRef<'_>> = records(&batch).unwrap().map(Result::unwrap).collect();
    assert_eq!(views.len(), 2);
    assert_eq!(views[0].topic, "t");
    let headers: Vec<_> = views[0].headers.collect();
    assert_eq!(headers, [("h1", Some(&b"v"[..])), ("h2", None)]);
    assert_eq!(views[0].headers.len(), 2);
    assert_eq!(views[1].source_offset, Some(&br#"{"position":9}"#[..]));
    let within = batch.as_ptr_range();
    assert!(within.contains(&views[1].value.unwrap().as_ptr()));
    let owned: Vec<Record> = views.iter().map(RecordRef::to_record).collect();
    assert_eq!(owned, sample());
}

#[test]
fn records_stop_after_the_first_error() {
    let mut batch = encode(&sample());
    batch.push(0);
    let items: Vec<_> = records(&batch).unwrap().collect();
    assert_eq!(items.len(), 3);
    assert_eq!(items[2], Err(DecodeError::TrailingBytes(1)));
    let cut = &batch[..batch.len() - 10];
    let items: Vec<_> = records(cut).unwrap().collect();
    assert_eq!(items.len(), 2);
    assert!(matches!(items[1], Err(DecodeError::Truncated { record: 1, .. })));
}
