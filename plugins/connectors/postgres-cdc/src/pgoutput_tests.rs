use super::*;

/// A message builder, written from the protocol documentation.
#[derive(Default)]
struct B(Vec<u8>);

impl B {
    fn u8(mut self, v: u8) -> Self {
        self.0.push(v);
        self
    }
    fn i16(mut self, v: i16) -> Self {
        self.0.extend(v.to_be_bytes());
        self
    }
    fn i32(mut self, v: i32) -> Self {
        self.0.extend(v.to_be_bytes());
        self
    }
    fn i64(mut self, v: i64) -> Self {
        self.0.extend(v.to_be_bytes());
        self
    }
    fn s(mut self, v: &str) -> Self {
        self.0.extend(v.as_bytes());
        self.0.push(0);
        self
    }
    fn text(self, v: &str) -> Self {
        let mut b = self.u8(b't').i32(v.len() as i32);
        b.0.extend(v.as_bytes());
        b
    }
}

fn samples() -> Vec<Vec<u8>> {
    vec![
        B::default().u8(b'B').i64(0x16B3748).i64(757_000_000_000_000).i32(731).0,
        B::default().u8(b'C').u8(0).i64(0x16B3748).i64(0x16B3778).i64(5).0,
        B::default().u8(b'O').i64(77).s("node1").0,
        B::default()
            .u8(b'R')
            .i32(16385)
            .s("public")
            .s("items")
            .u8(b'd')
            .i16(2)
            .u8(1)
            .s("id")
            .i32(23)
            .i32(-1)
            .u8(0)
            .s("name")
            .i32(1043)
            .i32(68)
            .0,
        B::default().u8(b'Y').i32(16400).s("public").s("mood").0,
        B::default().u8(b'I').i32(16385).u8(b'N').i16(3).text("1").u8(b'n').u8(b'u').0,
        B::default().u8(b'U').i32(16385).u8(b'K').i16(1).text("1").u8(b'N').i16(1).text("2").0,
        B::default().u8(b'U').i32(16385).u8(b'N').i16(1).text("é").0,
        B::default().u8(b'D').i32(16385).u8(b'O').i16(2).text("1").u8(b'n').0,
        B::default().u8(b'T').i32(2).u8(3).i32(16385).i32(16386).0,
        B::default().u8(b'M').u8(1).i64(99).s("audit").i32(3).u8(1).u8(2).u8(0).0,
    ]
}

#[test]
fn every_message_type_decodes_field_by_field() {
    let d: Vec<Message> = samples().iter().map(|b| decode(b).unwrap()).collect();
    assert_eq!(
        d[0],
        Message::Begin { final_lsn: 0x16B3748, commit_ts_us: 757_000_000_000_000, xid: 731 }
    );
    assert_eq!(
        d[1],
        Message::Commit { commit_lsn: 0x16B3748, end_lsn: 0x16B3778, commit_ts_us: 5 }
    );
    assert_eq!(d[2], Message::Origin { lsn: 77, name: "node1".into() });
    let Message::Relation(rel) = &d[3] else { panic!("{:?}", d[3]) };
    assert_eq!(
        (rel.oid, rel.namespace.as_str(), rel.name.as_str(), rel.replica_identity),
        (16385, "public", "items", 'd')
    );
    assert_eq!(
        rel.columns[0],
        RelationColumn { key: true, name: "id".into(), type_oid: 23, type_modifier: -1 }
    );
    assert_eq!(
        rel.columns[1],
        RelationColumn { key: false, name: "name".into(), type_oid: 1043, type_modifier: 68 }
    );
    assert_eq!(d[4], Message::Type { oid: 16400, namespace: "public".into(), name: "mood".into() });
    assert_eq!(
        d[5],
        Message::Insert {
            relation: 16385,
            new: vec![Datum::Text("1".into()), Datum::Null, Datum::Unchanged]
        }
    );
    assert_eq!(
        d[6],
        Message::Update {
            relation: 16385,
            old: Some(vec![Datum::Text("1".into())]),
            key_only_old: true,
            new: vec![Datum::Text("2".into())],
        }
    );
    assert_eq!(
        d[7],
        Message::Update {
            relation: 16385,
            old: None,
            key_only_old: false,
            new: vec![Datum::Text("é".into())]
        }
    );
    assert_eq!(
        d[8],
        Message::Delete {
            relation: 16385,
            old: vec![Datum::Text("1".into()), Datum::Null],
            key_only: false
        }
    );
    assert_eq!(
        d[9],
        Message::Truncate { cascade: true, restart_identity: true, relations: vec![16385, 16386] }
    );
    assert_eq!(
        d[10],
        Message::Message {
            transactional: true,
            lsn: 99,
            prefix: "audit".into(),
            content: vec![1, 2, 0]
        }
    );
}

#[test]
fn every_truncation_and_trailing_byte_is_an_error() {
    for sample in samples() {
        for len in 0..sample.len() {
            assert!(decode(&sample[..len]).is_err(), "{:?} cut at {len}", sample[0] as char);
        }
        let mut long = sample.clone();
        long.push(0);
        assert!(decode(&long).unwrap_err().contains("trailing"));
    }
}

#[test]
fn bad_markers_and_lengths_are_named() {
    assert!(decode(b"Z").unwrap_err().contains("unknown pgoutput message type"));
    let neg = B::default().u8(b'I').i32(1).u8(b'N').i16(-1).0;
    assert!(decode(&neg).unwrap_err().contains("negative column count"));
    let huge = B::default().u8(b'I').i32(1).u8(b'N').i16(1).u8(b't').i32(i32::MAX).0;
    assert!(decode(&huge).unwrap_err().contains("truncated"));
    let binary = B::default().u8(b'I').i32(1).u8(b'N').i16(1).u8(b'b').i32(0).0;
    assert!(decode(&binary).unwrap_err().contains("binary"));
}

#[test]
fn random_bytes_never_panic() {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    for round in 0..20_000 {
        let len = round % 64;
        let mut buf = Vec::with_capacity(len);
        for _ in 0..len {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            buf.push(x as u8);
        }
        if let Some(first) = buf.first_mut() {
            *first = b"BCORYIUDTM"[round % 10];
        }
        let _ = decode(&buf);
    }
}
