//! [`Replication`]: one logical replication connection (`replication=database`): the
//! replication commands (`IDENTIFY_SYSTEM`, `CREATE_REPLICATION_SLOT` with an exported
//! snapshot, `DROP_REPLICATION_SLOT`, `START_REPLICATION`), plain SQL (PostgreSQL 10+
//! accepts it on such a connection) and, once started, the CopyBoth stream: [`Event`]s in,
//! standby status updates out.
//!
//! It owns the connection's mode (commands or streaming) and nothing of what the stream
//! means: it neither decodes pgoutput nor decides which position to confirm. A broken
//! connection stays broken; the caller connects again.
//!
//! Bounded waits on wasm32-wasip2: std's `TcpStream` there is a wasi-libc socket
//! (`std/src/sys/net/connection/socket/wasip2.rs`). `set_read_timeout` becomes
//! `setsockopt(SO_RCVTIMEO)`, which the wasi-libc that Rust 1.95 ships keeps per socket
//! (its `wasip2_tcp.c` holds `recv_timeout`): `recv` then polls the input stream's
//! pollable together with a `wasi:clocks/monotonic-clock` pollable of that duration and
//! fails with `EWOULDBLOCK` (`ErrorKind::WouldBlock`) when the clock fires first, having
//! read nothing. `set_nonblocking` (`ioctl(FIONBIO)`) works too. [`Replication::next`]
//! sets the read timeout to what is left of its wait before each read, so a timeout
//! leaves the connection usable and the part of a message already read stays buffered.
//! The host times that wait with its own clock (wasmtime's `subscribe-duration` sleeps on
//! tokio's), so it ends even in a sandbox whose clock is frozen (no clock grant); the
//! guest's `Instant` is only used to share one wait among several reads. Only reading is
//! bounded: a status update is sent blocking (34 bytes). Checked in a wasm32-wasip2
//! command under wasmtime 48.0.8 (the host's version) against PostgreSQL 15: a 250 ms
//! read timeout on an idle socket gave `WouldBlock` after 251 ms, a non-blocking read gave
//! it at once, `next(300 ms)` returned `None` after 301 ms with the connection usable, and
//! the changes of a later insert arrived on the next call; the same with the guest's
//! monotonic clock frozen.

use std::time::{Duration, Instant};

use bytes::{Buf, BytesMut};
use postgres_protocol::message::backend::Message;

use crate::client::server_error;
use crate::slot::{self, CreatedSlot, SlotInfo, SystemInfo};
use crate::wal_message::{pg_now_us, status_update};
use crate::{Client, ConnectUrl, Event, Lsn, PgError, QueryResult, quote_ident};

/// How long a command waits for the server by default: creating a slot waits for the
/// transactions running at that moment to end.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(300);

/// A logical replication connection.
pub struct Replication {
    client: Client,
    major: u32,
    streaming: bool,
}

fn protocol(e: impl std::fmt::Display) -> PgError {
    PgError::Protocol(e.to_string())
}

impl Replication {
    /// Connects to the database of `url` as `user` (who needs the REPLICATION attribute)
    /// in logical replication mode.
    pub fn connect(url: &ConnectUrl, user: &str, password: &str) -> Result<Self, PgError> {
        let mut client = Client::connect_with(url, user, password, &[("replication", "database")])?;
        client.set_command_timeout(COMMAND_TIMEOUT);
        let major = client
            .parameter("server_version")
            .and_then(|v| v.split(|c: char| !c.is_ascii_digit()).next()?.parse().ok())
            .unwrap_or(0);
        Ok(Self { client, major, streaming: false })
    }

    /// The server's major version (15 for `15.4`), 0 if it did not say.
    pub fn server_major_version(&self) -> u32 {
        self.major
    }

    /// How long a command waits for the server before the connection counts as broken
    /// (5 minutes unless set).
    pub fn set_command_timeout(&mut self, timeout: Duration) {
        self.client.set_command_timeout(timeout);
    }

    /// Whether the connection failed or went out of step: it must be dropped.
    pub fn is_broken(&self) -> bool {
        self.client.is_broken()
    }

    /// Whether `start` succeeded and the stream is running.
    pub fn is_streaming(&self) -> bool {
        self.streaming
    }

    fn commands(&mut self) -> Result<&mut Client, PgError> {
        if self.streaming {
            return Err(protocol("the connection is streaming: no command can run on it"));
        }
        Ok(&mut self.client)
    }

    /// Runs SQL or a replication command with the simple protocol (the only one a
    /// replication connection speaks).
    pub fn simple_query(&mut self, sql: &str) -> Result<QueryResult, PgError> {
        self.commands()?.simple_query(sql)
    }

    /// The system identifier, timeline and current WAL position.
    pub fn identify_system(&mut self) -> Result<SystemInfo, PgError> {
        slot::system_info(&self.simple_query("IDENTIFY_SYSTEM")?)
    }

    /// Creates logical slot `name` for output `plugin`, exporting a snapshot when asked.
    /// The snapshot stays valid until the next command on this connection: read it from
    /// another connection (`BEGIN ISOLATION LEVEL REPEATABLE READ; SET TRANSACTION
    /// SNAPSHOT '…'`) before calling anything else here.
    pub fn create_slot(
        &mut self,
        name: &str,
        plugin: &str,
        export_snapshot: bool,
    ) -> Result<CreatedSlot, PgError> {
        let sql = slot::create_command(slot::checked(name)?, plugin, export_snapshot, self.major);
        slot::created_slot(&self.simple_query(&sql)?)
    }

    /// Slot `name` as `pg_replication_slots` shows it, `None` if there is none.
    pub fn slot(&mut self, name: &str) -> Result<Option<SlotInfo>, PgError> {
        slot::slot_info(&self.simple_query(&slot::slot_query(name))?)
    }

    /// Drops slot `name`: false if there was none. Fails while a connection streams from
    /// it (55006).
    pub fn drop_slot(&mut self, name: &str) -> Result<bool, PgError> {
        let sql = format!("DROP_REPLICATION_SLOT {}", quote_ident(slot::checked(name)?));
        match self.simple_query(&sql) {
            Ok(_) => Ok(true),
            Err(e) if e.code() == Some("42704") => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Starts streaming slot `slot` from `start` (changes committed after it; `0/0` or
    /// anything before the slot's `confirmed_flush_lsn` means from there) with the output
    /// plugin's `options` (pgoutput: `proto_version`, `publication_names`, `messages`;
    /// names and values are quoted here, but `publication_names` is itself a list of
    /// identifiers, so a name with upper case or a comma needs its own double quotes).
    /// A missing slot, a lost one or one in use fails here with the server's error; see
    /// [`PgError::slot_problem`].
    pub fn start(
        &mut self,
        slot: &str,
        start: Lsn,
        options: &[(&str, &str)],
    ) -> Result<(), PgError> {
        let sql = slot::start_command(slot::checked(slot)?, start, options);
        let client = self.commands()?;
        let mut body = sql.into_bytes();
        body.push(0);
        client.send(b'Q', &body)?;
        let mut error = None;
        loop {
            let mut frame = client.next_frame(None)?.expect("waits without a deadline");
            match frame[0] {
                b'W' => {
                    self.streaming = true;
                    return Ok(());
                }
                b'E' => error = Some(Self::error(client, &mut frame)),
                b'Z' => return Err(error.unwrap_or_else(|| protocol("START_REPLICATION ended"))),
                b'N' | b'S' | b'C' => {}
                t => return Err(Self::off_protocol(client, t)),
            }
        }
    }

    /// The next message of the stream, waiting at most `wait` for it: `None` when none
    /// came in time (the connection stays usable). The end of the stream (CopyDone or
    /// CommandComplete from the server), a server error or a closed socket fail and leave
    /// the connection broken.
    pub fn next(&mut self, wait: Duration) -> Result<Option<Event>, PgError> {
        if !self.streaming {
            return Err(protocol("replication is not started"));
        }
        let deadline = Instant::now() + wait;
        loop {
            let Some(mut frame) = self.client.next_frame(Some(deadline))? else {
                return Ok(None);
            };
            match frame[0] {
                b'd' => {
                    frame.advance(5);
                    return Event::parse(frame.freeze()).map(Some).inspect_err(|_| {
                        self.client.set_broken();
                    });
                }
                b'E' => {
                    self.streaming = false;
                    let e = Self::error(&mut self.client, &mut frame);
                    self.client.set_broken();
                    return Err(e);
                }
                b'c' | b'C' => {
                    self.streaming = false;
                    self.client.set_broken();
                    return Err(protocol("the server ended the replication stream"));
                }
                b'N' | b'S' => {}
                t => return Err(Self::off_protocol(&mut self.client, t)),
            }
        }
    }

    /// Tells the server how far the client got: `flushed` is what the slot keeps as
    /// `confirmed_flush_lsn` (a restart resumes after it; the server may free WAL before
    /// it), `reply` asks for a keepalive back at once. The clock is the sandbox's.
    pub fn send_status(
        &mut self,
        written: Lsn,
        flushed: Lsn,
        applied: Lsn,
        reply: bool,
    ) -> Result<(), PgError> {
        self.send_status_at(written, flushed, applied, pg_now_us(), reply)
    }

    /// [`Replication::send_status`] with the client's clock given, in microseconds since
    /// 2000-01-01 UTC.
    pub fn send_status_at(
        &mut self,
        written: Lsn,
        flushed: Lsn,
        applied: Lsn,
        now_us: i64,
        reply: bool,
    ) -> Result<(), PgError> {
        if !self.streaming {
            return Err(protocol("replication is not started"));
        }
        self.client.send(b'd', &status_update(written, flushed, applied, now_us, reply))
    }

    /// Ends the stream (CopyDone) and waits for the server to end its side, dropping the
    /// messages still on their way; the connection then takes commands again, but not a
    /// new stream: PostgreSQL 15 ends a second logical stream on the same connection at
    /// once (`next` then fails), so stream again on a new connection. Does nothing when
    /// not streaming.
    pub fn stop(&mut self) -> Result<(), PgError> {
        if !self.streaming {
            return Ok(());
        }
        self.streaming = false;
        self.client.send(b'c', &[])?;
        let mut error = None;
        loop {
            let mut frame = self.client.next_frame(None)?.expect("waits without a deadline");
            match frame[0] {
                b'Z' => return error.map_or(Ok(()), Err),
                b'E' => error = Some(Self::error(&mut self.client, &mut frame)),
                b'd' | b'c' | b'C' | b'N' | b'S' => {}
                t => return Err(Self::off_protocol(&mut self.client, t)),
            }
        }
    }

    /// Closes the connection (the server stops streaming and releases the slot).
    pub fn close(self) {
        self.client.close();
    }

    fn error(client: &mut Client, frame: &mut BytesMut) -> PgError {
        match Message::parse(frame) {
            Ok(Some(Message::ErrorResponse(body))) => server_error(&body),
            _ => {
                client.set_broken();
                protocol("an unreadable error response")
            }
        }
    }

    fn off_protocol(client: &mut Client, tag: u8) -> PgError {
        client.set_broken();
        protocol(format!("unexpected message {:?} from the server", char::from(tag)))
    }
}

#[cfg(test)]
#[path = "replication_tests.rs"]
mod tests;
