//! The replication connection against a scripted server on a local socket (timeouts,
//! partial messages, the end of the stream) and against a real PostgreSQL
//! (`scripts/postgres.sh`; those tests are skipped when `POSTGRES_URL` is unset).

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::thread;
use std::time::{Duration, Instant};

use super::*;
use crate::SlotProblem;

// ---- a scripted server -------------------------------------------------------------

fn message(tag: u8, body: &[u8]) -> Vec<u8> {
    let mut out = vec![tag];
    out.extend_from_slice(&((body.len() + 4) as u32).to_be_bytes());
    out.extend_from_slice(body);
    out
}

/// Reads one frontend message: its tag and body.
fn read_message(s: &mut TcpStream) -> (u8, Vec<u8>) {
    let mut head = [0u8; 5];
    s.read_exact(&mut head).unwrap();
    let mut body = vec![0; u32::from_be_bytes([head[1], head[2], head[3], head[4]]) as usize - 4];
    s.read_exact(&mut body).unwrap();
    (head[0], body)
}

/// A server that logs the client in without a password (AuthenticationOk, a
/// `server_version`, ReadyForQuery), answers its first query with CopyBothResponse, then
/// follows `script`. Returns the URL to connect to.
fn scripted(script: impl FnOnce(&mut TcpStream) + Send + 'static) -> ConnectUrl {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        let mut len = [0u8; 4];
        s.read_exact(&mut len).unwrap();
        let mut startup = vec![0; u32::from_be_bytes(len) as usize - 4];
        s.read_exact(&mut startup).unwrap();
        let wanted = b"replication\0database\0";
        assert!(startup.windows(wanted.len()).any(|w| w == wanted), "startup parameters");
        let mut out = message(b'R', &0u32.to_be_bytes());
        out.extend(message(b'S', b"server_version\x0014.9 (Debian)\0"));
        out.extend(message(b'Z', b"I"));
        s.write_all(&out).unwrap();
        let (tag, query) = read_message(&mut s);
        assert_eq!(tag, b'Q');
        assert!(
            query.starts_with(b"START_REPLICATION SLOT \"s\" LOGICAL 0/10 (\"proto_version\" '1')")
        );
        s.write_all(&message(b'W', &[0, 0, 0])).unwrap();
        script(&mut s);
    });
    ConnectUrl::parse(&format!("postgres://127.0.0.1:{port}/db")).unwrap()
}

fn started(url: &ConnectUrl) -> Replication {
    let mut r = Replication::connect(url, "u", "").unwrap();
    assert_eq!(r.server_major_version(), 14);
    r.start("s", Lsn(16), &[("proto_version", "1")]).unwrap();
    assert!(r.is_streaming());
    r
}

fn xlog(start: u64, payload: &[u8]) -> Vec<u8> {
    let mut body = vec![b'w'];
    body.extend_from_slice(&start.to_be_bytes());
    body.extend_from_slice(&(start + 8).to_be_bytes());
    body.extend_from_slice(&7i64.to_be_bytes());
    body.extend_from_slice(payload);
    message(b'd', &body)
}

#[test]
fn a_wait_without_data_returns_none_and_keeps_a_partial_message() {
    let url = scripted(|s| {
        let whole = xlog(0x20, b"Bpayload");
        thread::sleep(Duration::from_millis(400));
        s.write_all(&whole[..10]).unwrap();
        thread::sleep(Duration::from_millis(600));
        s.write_all(&whole[10..]).unwrap();
        // Then a status update from the client, echoed back as a keepalive.
        let (tag, body) = read_message(s);
        assert_eq!(tag, b'd');
        assert_eq!(body, status_update(Lsn(0x28), Lsn(0x28), Lsn(0x28), 99, true));
        let mut k = vec![b'k'];
        k.extend_from_slice(&0x28u64.to_be_bytes());
        k.extend_from_slice(&5i64.to_be_bytes());
        k.push(1);
        s.write_all(&message(b'd', &k)).unwrap();
        thread::sleep(Duration::from_secs(5));
    });
    let mut r = started(&url);
    let t = Instant::now();
    assert_eq!(r.next(Duration::from_millis(150)).unwrap(), None, "nothing sent yet");
    let waited = t.elapsed();
    assert!(
        waited >= Duration::from_millis(140) && waited < Duration::from_millis(390),
        "{waited:?}"
    );
    // The first 10 bytes arrive at ~400 ms; the wait ends at ~700 ms with them buffered.
    assert_eq!(r.next(Duration::from_millis(550)).unwrap(), None, "half a message");
    assert!(!r.is_broken());
    let event = r.next(Duration::from_secs(3)).unwrap().unwrap();
    assert_eq!(
        event,
        Event::XLogData {
            wal_start: Lsn(0x20),
            wal_end: Lsn(0x28),
            server_time_us: 7,
            data: bytes::Bytes::from_static(b"Bpayload"),
        }
    );
    r.send_status_at(Lsn(0x28), Lsn(0x28), Lsn(0x28), 99, true).unwrap();
    let keepalive = r.next(Duration::from_secs(3)).unwrap().unwrap();
    assert_eq!(
        keepalive,
        Event::Keepalive { wal_end: Lsn(0x28), server_time_us: 5, reply_requested: true }
    );
}

#[test]
fn the_end_of_the_stream_and_a_closed_socket_are_errors() {
    let url = scripted(|s| s.write_all(&message(b'c', &[])).unwrap());
    let mut r = started(&url);
    assert!(matches!(r.next(Duration::from_secs(3)), Err(PgError::Protocol(_))));
    assert!(r.is_broken() && !r.is_streaming());

    let url = scripted(|s| s.shutdown(std::net::Shutdown::Both).unwrap());
    let mut r = started(&url);
    assert!(matches!(r.next(Duration::from_secs(3)), Err(PgError::Io(_))));
    assert!(r.is_broken());

    let url = scripted(|s| {
        let e = message(b'E', b"SERROR\0C58P01\0Mrequested WAL segment 000000010000000000000001 has already been removed\0\0");
        s.write_all(&e).unwrap();
    });
    let mut r = started(&url);
    let e = r.next(Duration::from_secs(3)).unwrap_err();
    assert_eq!((e.code(), e.slot_problem()), (Some("58P01"), Some(SlotProblem::Lost)));
    assert!(!e.is_transient());
}

#[test]
fn commands_are_refused_while_streaming() {
    let url = scripted(|_| thread::sleep(Duration::from_secs(2)));
    let mut r = started(&url);
    assert!(matches!(r.identify_system(), Err(PgError::Protocol(_))));
    assert!(!r.is_broken(), "refused locally, nothing sent");
}

// ---- a real PostgreSQL -----------------------------------------------------------------

fn env() -> Option<(ConnectUrl, String, String)> {
    let url = std::env::var("POSTGRES_URL").ok()?;
    let user = std::env::var("POSTGRES_USER").ok()?;
    Some((ConnectUrl::parse(&url).unwrap(), user, std::env::var("POSTGRES_PASSWORD").ok()?))
}

fn client() -> Client {
    let (url, user, password) = env().unwrap();
    Client::connect(&url, &user, &password).unwrap()
}

fn replication() -> Replication {
    let (url, user, password) = env().unwrap();
    crate::Session::new(url, Some(&user), Some(&password)).replication().unwrap()
}

/// A fresh schema `wire_<what>_<pid>` with table `t (id int primary key, v text)`.
fn schema(what: &str) -> String {
    let schema = format!("wire_{what}_{}", std::process::id());
    client()
        .simple_query(&format!(
            "DROP SCHEMA IF EXISTS {schema} CASCADE; CREATE SCHEMA {schema}; \
             CREATE TABLE {schema}.t (id int PRIMARY KEY, v text)"
        ))
        .unwrap();
    schema
}

/// Drops the test's slot (once no stream holds it), its publication `<schema>_pub` and its
/// schema when the test ends, even on a failed assertion.
struct Cleanup {
    schema: String,
}

impl Cleanup {
    fn slot(&self) -> String {
        format!("{}_slot", self.schema)
    }
}

impl Drop for Cleanup {
    fn drop(&mut self) {
        let (schema, slot) = (&self.schema, self.slot());
        let sql = format!(
            "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots \
             WHERE slot_name = '{slot}' AND NOT active"
        );
        let mut c = client();
        for _ in 0..50 {
            if c.simple_query(&sql).is_ok()
                && c.simple_query(&crate::slot::slot_query(&slot)).unwrap().rows.is_empty()
            {
                break;
            }
            thread::sleep(Duration::from_millis(100));
        }
        let _ = c.simple_query(&format!(
            "DROP PUBLICATION IF EXISTS {schema}_pub; DROP SCHEMA IF EXISTS {schema} CASCADE"
        ));
    }
}

fn count(c: &mut Client, sql: &str) -> String {
    c.simple_query(sql).unwrap().rows[0][0].clone().unwrap()
}

#[test]
fn an_exported_snapshot_shows_the_database_as_of_the_slot() {
    let Some((url, ..)) = env() else { return eprintln!("POSTGRES_URL unset: skipped") };
    let cleanup = Cleanup { schema: schema("snap") };
    let (schema, slot) = (&cleanup.schema, cleanup.slot());
    let mut other = client();
    other.simple_query(&format!("INSERT INTO {schema}.t VALUES (1, 'before')")).unwrap();

    let mut r = replication();
    assert_eq!(r.server_major_version(), 15);
    let system = r.identify_system().unwrap();
    assert!(system.timeline >= 1 && !system.xlog_pos.is_invalid());
    assert!(system.system_id.parse::<u64>().is_ok(), "{}", system.system_id);
    assert_eq!(system.dbname, url.database);

    let created = r.create_slot(&slot, "pgoutput", true).unwrap();
    assert!(created.consistent_point >= system.xlog_pos);
    let snapshot = created.snapshot_name.expect("an exported snapshot");
    other.simple_query(&format!("INSERT INTO {schema}.t VALUES (2, 'after')")).unwrap();

    let mut reader = client();
    let seen = count(
        &mut reader,
        &format!(
            "BEGIN ISOLATION LEVEL REPEATABLE READ; SET TRANSACTION SNAPSHOT '{snapshot}'; \
             SELECT string_agg(v, ',' ORDER BY id) FROM {schema}.t"
        ),
    );
    assert_eq!(seen, "before", "the insert after the slot is not in its snapshot");
    reader.simple_query("COMMIT").unwrap();
    assert_eq!(count(&mut reader, &format!("SELECT count(*) FROM {schema}.t")), "2");

    let info = r.slot(&slot).unwrap().expect("the slot exists");
    assert_eq!(
        (info.plugin.as_deref(), info.database.as_deref()),
        (Some("pgoutput"), url.database.as_deref())
    );
    assert!(!info.active);
    assert_eq!(info.confirmed_flush_lsn, Some(created.consistent_point));
    assert_eq!(info.wal_status.as_deref(), Some("reserved"));
    assert!(info.restart_lsn.unwrap() <= created.consistent_point);
    assert_eq!(r.slot("wire_no_such_slot").unwrap(), None);

    assert!(r.drop_slot(&slot).unwrap());
    assert!(!r.drop_slot(&slot).unwrap(), "already gone");
    let e = r.start(&slot, Lsn(0), &[]).unwrap_err();
    assert_eq!((e.code(), e.slot_problem()), (Some("42704"), Some(SlotProblem::Missing)), "{e}");
    assert!(!e.is_transient());
    assert!(r.identify_system().is_ok(), "a failed start leaves the connection usable");
    r.close();
}

#[path = "replication_pg_tests.rs"]
mod pg;
