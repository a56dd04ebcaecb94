//! Codec tests: hand-written bytes, round trips, truncation and malformed input.

use std::collections::BTreeSet;
use std::time::Duration;

use proptest::prelude::*;

use super::*;

fn task(connector: &str, task: u32) -> TaskId {
    TaskId { connector: connector.into(), task }
}

fn allocation(connectors: &[&str], tasks: &[(&str, u32)]) -> Allocation {
    Allocation {
        connectors: connectors.iter().map(|c| c.to_string()).collect(),
        tasks: tasks.iter().map(|(c, t)| task(c, *t)).collect(),
    }
}

fn sample_metadata() -> MemberMetadata {
    MemberMetadata {
        url: "u1".into(),
        config_offset: 7,
        allocation: allocation(&["c"], &[("c", 0), ("c", 1), ("d", 0)]),
    }
}

fn sample_assignment() -> Assignment {
    Assignment {
        error: AssignmentError::ConfigMismatch,
        leader: "L".into(),
        leader_url: "http://l".into(),
        config_offset: 42,
        assigned: allocation(&["a"], &[]),
        revoked: allocation(&[], &[("b", 2)]),
        delay: Duration::from_millis(1500),
    }
}

#[rustfmt::skip]
const METADATA_BYTES: &[u8] = &[
    0, 2,                          // version
    0, 2, b'u', b'1',              // url
    0, 0, 0, 0, 0, 0, 0, 7,        // config offset
    0, 0, 0, 58,                   // allocation: 58 bytes, an assignment
    0, 2, 0, 0, 0, 0, 0, 0,        //   version, error, leader "", leader url ""
    0, 0, 0, 0, 0, 0, 0, 7,        //   config offset
    0, 0, 0, 2,                    //   two connectors
    0, 1, b'c', 0, 0, 0, 3,        //   "c": three ids
    0xff, 0xff, 0xff, 0xff,        //     the instance
    0, 0, 0, 0, 0, 0, 0, 1,        //     tasks 0 and 1
    0, 1, b'd', 0, 0, 0, 1,        //   "d": one id
    0, 0, 0, 0,                    //     task 0
    0, 0, 0, 0,                    //   nothing revoked
    0, 0, 0, 0,                    //   no delay
];

#[rustfmt::skip]
const ASSIGNMENT_BYTES: &[u8] = &[
    0, 2,                          // version
    0, 1,                          // error: config mismatch
    0, 1, b'L',                    // leader
    0, 8, b'h', b't', b't', b'p', b':', b'/', b'/', b'l', // leader url
    0, 0, 0, 0, 0, 0, 0, 42,       // config offset
    0, 0, 0, 1,                    // assigned: one connector
    0, 1, b'a', 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff, // "a": the instance
    0, 0, 0, 1,                    // revoked: one connector
    0, 1, b'b', 0, 0, 0, 1, 0, 0, 0, 2, // "b": task 2
    0, 0, 0x05, 0xdc,              // delay 1500 ms
];

#[test]
fn metadata_bytes_by_hand() {
    assert_eq!(sample_metadata().encode(), METADATA_BYTES);
    assert_eq!(MemberMetadata::decode(METADATA_BYTES).unwrap(), sample_metadata());
}

#[test]
fn assignment_bytes_by_hand() {
    assert_eq!(sample_assignment().encode(), ASSIGNMENT_BYTES);
    assert_eq!(Assignment::decode(ASSIGNMENT_BYTES).unwrap(), sample_assignment());
}

#[test]
fn empty_allocation_is_written_null_and_read_back_empty() {
    let metadata =
        MemberMetadata { url: String::new(), config_offset: -1, allocation: Allocation::default() };
    let bytes = metadata.encode();
    assert_eq!(&bytes[bytes.len() - 4..], &[0xff; 4]);
    assert_eq!(MemberMetadata::decode(&bytes).unwrap(), metadata);
}

#[test]
fn null_lists_read_as_empty() {
    let mut bytes = vec![0, 1, 0, 0, 0, 0, 0, 0];
    bytes.extend_from_slice(&5i64.to_be_bytes());
    bytes.extend_from_slice(&[0xff; 8]); // assignment and revoked: null
    bytes.extend_from_slice(&[0, 0, 0, 0]);
    let assignment = Assignment::decode(&bytes).unwrap();
    assert_eq!(assignment.assigned, Allocation::default());
    assert_eq!(assignment.revoked, Allocation::default());
    assert_eq!(assignment.config_offset, 5);
}

#[test]
fn version_1_reads_and_older_versions_fail() {
    let mut bytes = ASSIGNMENT_BYTES.to_vec();
    bytes[1] = 1;
    assert_eq!(Assignment::decode(&bytes).unwrap(), sample_assignment());
    for version in [0i16, -1, i16::MIN] {
        bytes[..2].copy_from_slice(&version.to_be_bytes());
        let want = ProtocolError::Version { what: "assignment", version };
        assert_eq!(Assignment::decode(&bytes), Err(want));
        let mut metadata = METADATA_BYTES.to_vec();
        metadata[..2].copy_from_slice(&version.to_be_bytes());
        let want = ProtocolError::Version { what: "metadata", version };
        assert_eq!(MemberMetadata::decode(&metadata), Err(want));
    }
}

#[test]
fn every_truncation_is_an_error() {
    for len in 0..METADATA_BYTES.len() {
        let err = MemberMetadata::decode(&METADATA_BYTES[..len]).unwrap_err();
        assert!(matches!(err, ProtocolError::Truncated { what: "metadata", .. }), "{len}: {err}");
    }
    for len in 0..ASSIGNMENT_BYTES.len() {
        let err = Assignment::decode(&ASSIGNMENT_BYTES[..len]).unwrap_err();
        assert!(matches!(err, ProtocolError::Truncated { what: "assignment", .. }), "{len}: {err}");
    }
    let err = Assignment::decode(&ASSIGNMENT_BYTES[..3]).unwrap_err();
    assert_eq!(err.to_string(), "truncated assignment: error is missing");
}

#[test]
fn trailing_bytes_are_ignored() {
    let mut bytes = ASSIGNMENT_BYTES.to_vec();
    bytes.extend_from_slice(b"future fields");
    assert_eq!(Assignment::decode(&bytes).unwrap(), sample_assignment());
}

/// Overwrites bytes of a valid assignment and expects [`ProtocolError::Invalid`].
fn assert_invalid(at: usize, patch: &[u8]) {
    let mut bytes = ASSIGNMENT_BYTES.to_vec();
    bytes[at..at + patch.len()].copy_from_slice(patch);
    let err = Assignment::decode(&bytes).unwrap_err();
    assert!(matches!(err, ProtocolError::Invalid { .. }), "{at}: {err}");
}

#[test]
fn malformed_fields_are_invalid() {
    assert_invalid(2, &[0, 2]); // unknown error code
    assert_invalid(2, &[0xff, 0xff]); // negative error code
    assert_invalid(4, &[0xff, 0xfe]); // leader length -2
    assert_invalid(4, &[0xff, 0xff]); // leader is not nullable
    assert_invalid(6, &[0xff]); // leader is not UTF-8
    assert_invalid(25, &[0xff, 0xff, 0xff, 0xfe]); // assignment count -2
    assert_invalid(32, &[0xff, 0xff, 0xff, 0xff]); // task count -1
    assert_invalid(51, &[0xff, 0xff, 0xff, 0xfe]); // revoked task id -2
    assert_invalid(55, &[0xff, 0xff, 0xff, 0xff]); // negative delay
    let mut metadata = METADATA_BYTES.to_vec();
    metadata[14..18].copy_from_slice(&[0xff, 0xff, 0xff, 0xfe]);
    assert!(matches!(MemberMetadata::decode(&metadata), Err(ProtocolError::Invalid { .. })));
    metadata[14..18].copy_from_slice(&[0, 0, 0, 58]);
    metadata[20] = 9; // the allocation's error code
    let err = MemberMetadata::decode(&metadata).unwrap_err();
    assert!(matches!(err, ProtocolError::Invalid { what: "metadata", .. }), "{err}");
}

#[test]
fn long_delays_saturate() {
    let mut assignment = sample_assignment();
    assignment.delay = Duration::from_secs(u64::MAX);
    let decoded = Assignment::decode(&assignment.encode()).unwrap();
    assert_eq!(decoded.delay, Duration::from_millis(i32::MAX as u64));
}

fn arb_allocation() -> impl Strategy<Value = Allocation> {
    let name = "[a-zé-]{0,6}";
    (
        proptest::collection::btree_set(name, 0..4),
        proptest::collection::btree_set((name, 0u32..1000), 0..8),
    )
        .prop_map(|(connectors, tasks)| Allocation {
            connectors,
            tasks: tasks.into_iter().map(|(c, t)| task(&c, t)).collect::<BTreeSet<_>>(),
        })
}

proptest! {
    #[test]
    fn metadata_round_trips(url in ".{0,20}", config_offset: i64, allocation in arb_allocation()) {
        let metadata = MemberMetadata { url, config_offset, allocation };
        prop_assert_eq!(MemberMetadata::decode(&metadata.encode()).unwrap(), metadata);
    }

    #[test]
    fn assignment_round_trips(
        mismatch: bool,
        leader in ".{0,10}",
        leader_url in ".{0,10}",
        config_offset: i64,
        assigned in arb_allocation(),
        revoked in arb_allocation(),
        delay_ms in 0u64..=i32::MAX as u64,
    ) {
        let error = if mismatch { AssignmentError::ConfigMismatch } else { AssignmentError::None };
        let delay = Duration::from_millis(delay_ms);
        let assignment =
            Assignment { error, leader, leader_url, config_offset, assigned, revoked, delay };
        prop_assert_eq!(Assignment::decode(&assignment.encode()).unwrap(), assignment);
    }

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..80)) {
        let _ = MemberMetadata::decode(&bytes);
        let _ = Assignment::decode(&bytes);
    }
}
