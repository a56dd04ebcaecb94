//! The messages inside the CopyData of a replication stream ("Streaming Replication
//! Protocol"): [`Event`], what the server sends (XLogData `w` and the primary keepalive
//! `k`), and the standby status update `r` the client sends back, with its clock in
//! microseconds since PostgreSQL's epoch (2000-01-01 UTC).
//!
//! It only encodes and decodes bytes; the payload of XLogData (pgoutput's messages) is
//! passed on undecoded.

use bytes::{Buf, Bytes};

use crate::{Lsn, PgError};

/// Seconds from the Unix epoch to PostgreSQL's (2000-01-01T00:00:00Z).
pub const PG_EPOCH_UNIX_SECS: i64 = 946_684_800;

/// A message of the replication stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// WAL data: with pgoutput, one logical replication message (`B`egin, `R`elation,
    /// `I`nsert, `C`ommit, ...) per event.
    XLogData {
        /// Where this data starts in the WAL (0/0 for messages that have no position of
        /// their own, such as a relation description).
        wal_start: Lsn,
        /// The end of the WAL on the server when it sent this.
        wal_end: Lsn,
        /// The server's clock when it sent this, microseconds since 2000-01-01 UTC.
        server_time_us: i64,
        /// The plugin's message.
        data: Bytes,
    },
    /// The primary's keepalive.
    Keepalive {
        /// The end of the WAL on the server.
        wal_end: Lsn,
        /// The server's clock, microseconds since 2000-01-01 UTC.
        server_time_us: i64,
        /// Whether the server asks for a status update now (it disconnects a client
        /// that stays silent past `wal_sender_timeout`).
        reply_requested: bool,
    },
}

impl Event {
    /// Decodes the payload of one CopyData message of the stream.
    pub fn parse(mut data: Bytes) -> Result<Self, PgError> {
        let short = |what: &str| PgError::Protocol(format!("a truncated {what} message"));
        match data.first().copied() {
            Some(b'w') => {
                if data.len() < 25 {
                    return Err(short("XLogData"));
                }
                data.advance(1);
                let wal_start = Lsn(data.get_u64());
                let wal_end = Lsn(data.get_u64());
                let server_time_us = data.get_i64();
                Ok(Self::XLogData { wal_start, wal_end, server_time_us, data })
            }
            Some(b'k') => {
                if data.len() != 18 {
                    return Err(short("keepalive"));
                }
                data.advance(1);
                let wal_end = Lsn(data.get_u64());
                let server_time_us = data.get_i64();
                Ok(Self::Keepalive { wal_end, server_time_us, reply_requested: data.get_u8() != 0 })
            }
            Some(t) => Err(PgError::Protocol(format!(
                "unexpected replication message {:?}",
                char::from(t)
            ))),
            None => Err(PgError::Protocol("an empty replication message".into())),
        }
    }

    /// The server's end of WAL this message reports.
    pub fn wal_end(&self) -> Lsn {
        match self {
            Self::XLogData { wal_end, .. } | Self::Keepalive { wal_end, .. } => *wal_end,
        }
    }
}

/// The payload of a standby status update: the positions written, flushed (durably kept:
/// what the slot's `confirmed_flush_lsn` becomes) and applied, the client's clock, and
/// whether the server should answer at once with a keepalive.
pub fn status_update(
    written: Lsn,
    flushed: Lsn,
    applied: Lsn,
    now_us: i64,
    reply: bool,
) -> [u8; 34] {
    let mut out = [0u8; 34];
    out[0] = b'r';
    out[1..9].copy_from_slice(&written.0.to_be_bytes());
    out[9..17].copy_from_slice(&flushed.0.to_be_bytes());
    out[17..25].copy_from_slice(&applied.0.to_be_bytes());
    out[25..33].copy_from_slice(&now_us.to_be_bytes());
    out[33] = u8::from(reply);
    out
}

/// Microseconds since PostgreSQL's epoch of `SystemTime::now()` (negative before 2000;
/// a clock before 1970 counts as 1970).
pub fn pg_now_us() -> i64 {
    let unix_us = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_micros()).unwrap_or(i64::MAX));
    unix_us - PG_EPOCH_UNIX_SECS * 1_000_000
}

#[cfg(test)]
#[path = "wal_message_tests.rs"]
mod tests;
