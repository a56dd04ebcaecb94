//! Stream messages built byte by byte from "Streaming Replication Protocol".

use super::*;

fn be(v: u64) -> [u8; 8] {
    v.to_be_bytes()
}

#[test]
fn xlog_data_carries_positions_time_and_the_payload() {
    // 'w', WAL start 0/16B3748, WAL end 0/16B3780, send time 1 s after 2000-01-01, then a
    // pgoutput Begin's first byte and two more.
    let mut msg = vec![b'w'];
    msg.extend_from_slice(&be(0x016B_3748));
    msg.extend_from_slice(&be(0x016B_3780));
    msg.extend_from_slice(&be(1_000_000));
    msg.extend_from_slice(b"Bxy");
    let event = Event::parse(Bytes::from(msg)).unwrap();
    assert_eq!(
        event,
        Event::XLogData {
            wal_start: "0/16B3748".parse().unwrap(),
            wal_end: "0/16B3780".parse().unwrap(),
            server_time_us: 1_000_000,
            data: Bytes::from_static(b"Bxy"),
        }
    );
    assert_eq!(event.wal_end(), Lsn(0x016B_3780));
}

#[test]
fn an_empty_xlog_payload_is_allowed_and_a_short_header_is_not() {
    let mut msg = vec![b'w'];
    msg.extend_from_slice(&[0; 24]);
    assert!(
        matches!(Event::parse(Bytes::from(msg.clone())), Ok(Event::XLogData { data, .. }) if data.is_empty())
    );
    msg.pop();
    assert!(Event::parse(Bytes::from(msg)).is_err());
}

#[test]
fn keepalives_say_whether_a_reply_is_due() {
    // 'k', WAL end 1/0 (high word 1), send time -5 (before 2000), reply flag.
    let mut msg = vec![b'k'];
    msg.extend_from_slice(&be(1 << 32));
    msg.extend_from_slice(&(-5i64).to_be_bytes());
    msg.push(1);
    let event = Event::parse(Bytes::from(msg.clone())).unwrap();
    assert_eq!(
        event,
        Event::Keepalive {
            wal_end: "1/0".parse().unwrap(),
            server_time_us: -5,
            reply_requested: true
        }
    );
    *msg.last_mut().unwrap() = 0;
    assert!(matches!(
        Event::parse(Bytes::from(msg.clone())),
        Ok(Event::Keepalive { reply_requested: false, .. })
    ));
    msg.push(0);
    assert!(Event::parse(Bytes::from(msg)).is_err(), "a keepalive is exactly 18 bytes");
}

#[test]
fn other_messages_are_protocol_errors() {
    assert!(Event::parse(Bytes::new()).is_err());
    assert!(matches!(Event::parse(Bytes::from_static(b"x")), Err(PgError::Protocol(_))));
}

#[test]
fn the_status_update_is_r_three_positions_a_clock_and_a_flag() {
    let out = status_update(Lsn(0x0102), Lsn(0x0304), Lsn(0x0506), 0x0708, true);
    let mut expected = vec![b'r'];
    expected.extend_from_slice(&be(0x0102));
    expected.extend_from_slice(&be(0x0304));
    expected.extend_from_slice(&be(0x0506));
    expected.extend_from_slice(&be(0x0708));
    expected.push(1);
    assert_eq!(&out[..], &expected[..]);
    assert_eq!(status_update(Lsn(0), Lsn(0), Lsn(0), 0, false)[33], 0);
}

#[test]
fn the_clock_counts_from_2000() {
    // 2000-01-01 is day 10957 after 1970-01-01 (30 years, 7 of them leap years).
    assert_eq!(PG_EPOCH_UNIX_SECS, 10_957 * 86_400);
    let unix_us =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_micros()
            as i64;
    let pg = pg_now_us();
    assert!((unix_us - PG_EPOCH_UNIX_SECS * 1_000_000 - pg).abs() < 5_000_000);
}
