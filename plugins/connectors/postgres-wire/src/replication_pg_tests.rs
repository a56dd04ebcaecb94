//! Streaming from a real PostgreSQL: pgoutput's messages arriving for changes to a
//! published table, the idle wait, status updates moving the slot, and the slot and
//! publication errors a task must recognise.

use super::*;

/// pgoutput's options as Debezium passes them on PostgreSQL 14+.
fn options(publication: &str) -> [(&str, &str); 3] {
    [("proto_version", "1"), ("publication_names", publication), ("messages", "true")]
}

/// Reads until a wait of `wait` passes with nothing, answering keepalives that ask for a
/// reply; fails on data or if the stream never goes quiet.
fn drain_until_idle(r: &mut Replication, confirmed: Lsn, wait: Duration) {
    for _ in 0..20 {
        let t = Instant::now();
        match r.next(wait).unwrap() {
            None => {
                assert!(t.elapsed() >= wait - Duration::from_millis(20), "{:?}", t.elapsed());
                return;
            }
            Some(Event::Keepalive { reply_requested, .. }) => {
                if reply_requested {
                    r.send_status(confirmed, confirmed, confirmed, false).unwrap();
                }
            }
            Some(other) => panic!("no change was made yet: {other:?}"),
        }
    }
    panic!("the stream never went quiet");
}

fn u64_at(data: &[u8], at: usize) -> u64 {
    u64::from_be_bytes(data[at..at + 8].try_into().unwrap())
}

/// The payloads of whole transactions (Begin to Commit) that are ours: changes to the
/// published table, or a logical message with our `prefix`; until `want` of them came.
fn transactions(r: &mut Replication, prefix: &str, want: usize) -> Vec<Vec<bytes::Bytes>> {
    let deadline = Instant::now() + Duration::from_secs(30);
    let (mut done, mut current) = (Vec::new(), Vec::new());
    while done.len() < want {
        assert!(Instant::now() < deadline, "only {} transactions came", done.len());
        match r.next(Duration::from_millis(500)).unwrap() {
            Some(Event::XLogData { data, .. }) => {
                if current.is_empty() && data[0] != b'B' {
                    continue; // a non-transactional message, not ours
                }
                let end = data[0] == b'C';
                current.push(data);
                if end {
                    let txn = std::mem::take(&mut current);
                    let theirs = txn.iter().any(|m| {
                        m[0] == b'M' && !m.windows(prefix.len()).any(|w| w == prefix.as_bytes())
                    });
                    if !theirs {
                        done.push(txn);
                    }
                }
            }
            Some(Event::Keepalive { .. }) | None => {}
        }
    }
    done
}

#[test]
fn changes_stream_as_pgoutput_messages_and_status_moves_the_slot() {
    if env().is_none() {
        return eprintln!("POSTGRES_URL unset: skipped");
    }
    let cleanup = Cleanup { schema: schema("stream") };
    let (schema, slot) = (&cleanup.schema, cleanup.slot());
    let publication = format!("{schema}_pub");
    let mut other = client();
    other
        .simple_query(&format!(
            "DROP PUBLICATION IF EXISTS {publication}; CREATE PUBLICATION {publication} FOR TABLE {schema}.t"
        ))
        .unwrap();
    let mut r = replication();
    let created = r.create_slot(&slot, "pgoutput", false).unwrap();
    assert_eq!(created.snapshot_name, None);
    r.start(&slot, Lsn(0), &options(&publication)).unwrap();
    drain_until_idle(&mut r, created.consistent_point, Duration::from_millis(300));

    for sql in [
        format!("INSERT INTO {schema}.t VALUES (1, 'a')"),
        format!("UPDATE {schema}.t SET v = 'b' WHERE id = 1"),
        format!("DELETE FROM {schema}.t WHERE id = 1"),
        format!("SELECT pg_logical_emit_message(true, '{schema}', 'hello')"),
    ] {
        other.simple_query(&sql).unwrap();
    }
    let txns = transactions(&mut r, schema, 4);
    let tags: Vec<Vec<char>> =
        txns.iter().map(|t| t.iter().map(|m| char::from(m[0])).collect()).collect();
    assert_eq!(
        tags,
        [vec!['B', 'R', 'I', 'C'], vec!['B', 'U', 'C'], vec!['B', 'D', 'C'], vec!['B', 'M', 'C']]
    );
    // Relation: oid, then the namespace and the name as C strings.
    let relation = &txns[0][1];
    assert!(relation[5..].starts_with(format!("{schema}\0t\0").as_bytes()));
    // Commit: 'C', flags, commit LSN, end LSN, time; each later transaction ends later.
    let ends: Vec<u64> = txns.iter().map(|t| u64_at(t.last().unwrap(), 10)).collect();
    assert!(ends[0] > created.consistent_point.0 && ends.windows(2).all(|w| w[0] < w[1]));
    // Begin: 'B', the final LSN of the transaction (its commit record), time, xid.
    assert_eq!(u64_at(&txns[3][0], 1), u64_at(txns[3].last().unwrap(), 2));

    // A status update asking for a reply gets a keepalive back; the slot moves to what
    // was confirmed.
    let end = Lsn(ends[3]);
    r.send_status(end, end, end, true).unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        assert!(Instant::now() < deadline, "no keepalive answered the status update");
        if let Some(Event::Keepalive { wal_end, reply_requested, .. }) =
            r.next(Duration::from_millis(500)).unwrap()
        {
            assert!(wal_end >= end && !reply_requested);
            break;
        }
    }
    let mut confirmed = None;
    for _ in 0..100 {
        let info = slot::slot_info(&other.simple_query(&slot::slot_query(&slot)).unwrap()).unwrap();
        let info = info.expect("the slot exists");
        assert!(info.active);
        confirmed = info.confirmed_flush_lsn;
        if confirmed == Some(end) {
            break;
        }
        thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(confirmed, Some(end), "confirmed_flush_lsn follows the status update");

    // A second stream from the same slot is refused while this one runs.
    let e = replication().start(&slot, Lsn(0), &options(&publication)).unwrap_err();
    assert_eq!((e.code(), e.slot_problem()), (Some("55006"), Some(SlotProblem::InUse)), "{e}");
    assert!(e.is_transient());

    // Stopping with a change on its way hands the connection back to commands; the slot
    // is free and still at what was confirmed. A second stream on that connection ends at
    // once (PostgreSQL 15); a new connection resumes from there with the change.
    other.simple_query(&format!("INSERT INTO {schema}.t VALUES (2, 'c')")).unwrap();
    r.stop().unwrap();
    assert!(!r.is_streaming() && !r.is_broken());
    let info = r.slot(&slot).unwrap().unwrap();
    assert_eq!((info.active, info.confirmed_flush_lsn), (false, Some(end)));
    r.start(&slot, end, &options(&publication)).unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    let ended = loop {
        assert!(Instant::now() < deadline, "the second stream went on");
        match r.next(Duration::from_secs(1)) {
            Ok(Some(Event::XLogData { data, .. })) => panic!("{:?}", char::from(data[0])),
            Ok(_) => {}
            Err(e) => break e,
        }
    };
    assert!(matches!(ended, PgError::Protocol(_)) && r.is_broken(), "{ended}");
    r.close();
    let mut r = replication();
    r.start(&slot, end, &options(&publication)).unwrap();
    let again = transactions(&mut r, schema, 1);
    let tags: String = again[0].iter().map(|m| char::from(m[0])).collect();
    assert_eq!(tags, "BRIC", "the relation is described again on a new stream");
    assert!(u64_at(&again[0][3], 10) > end.0);
    r.close();
    other.simple_query(&format!("DROP PUBLICATION {publication}")).unwrap();
}

#[test]
fn a_missing_publication_is_reported_when_the_first_change_is_decoded() {
    if env().is_none() {
        return eprintln!("POSTGRES_URL unset: skipped");
    }
    let cleanup = Cleanup { schema: schema("nopub") };
    let (schema, slot) = (&cleanup.schema, cleanup.slot());
    let mut r = replication();
    r.create_slot(&slot, "pgoutput", false).unwrap();
    r.start(&slot, Lsn(0), &options(&format!("{schema}_missing"))).unwrap();
    client().simple_query(&format!("INSERT INTO {schema}.t VALUES (1, 'a')")).unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    let e = loop {
        assert!(Instant::now() < deadline, "no error came");
        match r.next(Duration::from_millis(500)) {
            Ok(_) => {}
            Err(e) => break e,
        }
    };
    assert_eq!(
        (e.code(), e.slot_problem()),
        (Some("42704"), Some(SlotProblem::PublicationMissing)),
        "{e}"
    );
    assert!(r.is_broken() && !r.is_streaming());
}
