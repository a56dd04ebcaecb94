//! Bad payloads: every truncation of a valid payload, and arbitrary bytes, give a value or
//! a `Decode` error, never a panic.

use wasm_connect_transforms::data::Value;

use super::*;

const SCHEMA: &str = r#"{"type":"record","name":"G","fields":[
  {"name":"i","type":"int"},{"name":"l","type":"long"},{"name":"f","type":"float"},
  {"name":"d","type":"double"},{"name":"s","type":"string"},{"name":"b","type":"bytes"},
  {"name":"x","type":{"type":"fixed","name":"X","size":3}},
  {"name":"e","type":{"type":"enum","name":"E","symbols":["A","B"]}},
  {"name":"a","type":{"type":"array","items":["null","int"]}},
  {"name":"m","type":{"type":"map","values":"boolean"}},
  {"name":"u","type":["null","int","string"]},
  {"name":"dec","type":{"type":"bytes","logicalType":"decimal","precision":5,"scale":1}},
  {"name":"empty","type":{"type":"array","items":{"type":"record","name":"Z","fields":[]}}}
]}"#;

fn valid_payload() -> Vec<u8> {
    unhex(concat!(
        "02",
        "04",
        "0000803f",
        "000000000000f03f",
        "0261",
        "0201",
        "616263",
        "02",
        "0400020600",
        "0202610100",
        "0202",
        "0201",
        "00"
    ))
}

#[test]
fn a_valid_payload_decodes() {
    let v = reader(SCHEMA).decode(&[], &valid_payload()).unwrap().value;
    let Value::Struct(st) = v else { panic!("struct") };
    assert_eq!(st.values[0], Value::Int32(1));
    assert_eq!(st.values[7], s("B"));
    assert_eq!(st.values[8], Value::Array(vec![Value::Null, Value::Int32(3)]));
    assert_eq!(st.values[12], Value::Array(vec![]));
}

#[test]
fn truncated_payloads_are_decode_errors() {
    let r = reader(SCHEMA);
    let payload = valid_payload();
    for len in 0..payload.len() {
        match r.decode(&[], &payload[..len]) {
            Err(FormatError::Decode(_)) => {}
            other => panic!("length {len}: expected a decode error, got {other:?}"),
        }
    }
}

#[test]
fn garbage_never_panics() {
    let r = reader(SCHEMA);
    let strings = reader(r#"{"type":"array","items":{"type":"map","values":"string"}}"#);
    // A small xorshift generator: deterministic garbage.
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    for round in 0..20_000 {
        let len = (round % 40) as usize;
        let bytes: Vec<u8> = (0..len)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state as u8
            })
            .collect();
        for reader in [&r, &strings] {
            if let Err(e) = reader.decode(&[], &bytes) {
                assert!(matches!(e, FormatError::Decode(_)), "{e:?}");
            }
        }
    }
    // Hostile counts and lengths.
    for hostile in ["ffffffffffffffff7f", "feffffffffffffffff01", "0180", "01", "7f00"] {
        for reader in [&r, &strings] {
            assert!(
                matches!(reader.decode(&[], &unhex(hostile)), Err(FormatError::Decode(_))),
                "{hostile}"
            );
        }
    }
}
