//! Reading a [`Client`]'s socket: whole backend messages, with a wait bounded by the
//! command timeout (after which the connection counts as broken) or by a caller's
//! deadline (after which it stays usable, keeping any partial message buffered).
//! `set_read_timeout` bounds each read, on wasm32-wasip2 as natively (see `replication`).

use std::io::{ErrorKind, Read};
use std::time::{Duration, Instant};

use bytes::BytesMut;
use postgres_protocol::message::backend::Message;

use super::{Client, MIN_WAIT, protocol};
use crate::{PgError, frame};

impl Client {
    pub(super) fn next(&mut self) -> Result<Message, PgError> {
        let mut whole = self.next_frame(None)?.expect("waits without a deadline");
        match Message::parse(&mut whole) {
            Ok(Some(m)) => Ok(m),
            Ok(None) => unreachable!("a whole message"),
            Err(e) => {
                self.broken = true;
                Err(protocol(e))
            }
        }
    }

    /// The next whole backend message (tag, length and body). Without a `deadline` it
    /// waits up to the command timeout, then fails and marks the connection broken. With
    /// one it returns `None` when a read waited out what was left of it, or when the
    /// deadline passed after a read brought part of a message; what part of a message it
    /// read stays buffered for the next call, and the connection stays usable.
    pub(crate) fn next_frame(
        &mut self,
        deadline: Option<Instant>,
    ) -> Result<Option<BytesMut>, PgError> {
        let mut tried = false;
        loop {
            match frame::split(&mut self.read) {
                Ok(Some(m)) => return Ok(Some(m)),
                Ok(None) => {}
                Err(e) => {
                    self.broken = true;
                    return Err(e);
                }
            }
            let wait = match deadline {
                None => self.command_timeout,
                Some(d) => {
                    let left = d.saturating_duration_since(Instant::now());
                    if left.is_zero() && tried {
                        return Ok(None);
                    }
                    left.max(MIN_WAIT)
                }
            };
            tried = true;
            if !self.fill(wait)? {
                // The socket waited out all that was left: done, whatever the guest's
                // clock says (a sandbox without the clock grant sees it frozen, while
                // the host times the socket's wait with its own).
                if deadline.is_some() {
                    return Ok(None);
                }
                self.broken = true;
                return Err(PgError::Io(format!("no answer from the server within {wait:?}")));
            }
        }
    }

    /// Reads what the socket has within `wait`: false when nothing came in time (the
    /// buffer is unchanged and the connection usable).
    fn fill(&mut self, wait: Duration) -> Result<bool, PgError> {
        if self.socket_timeout != Some(wait) {
            self.stream.set_read_timeout(Some(wait)).map_err(|e| {
                self.broken = true;
                PgError::Io(format!("cannot set the socket's read timeout: {e}"))
            })?;
            self.socket_timeout = Some(wait);
        }
        let len = self.read.len();
        self.read.resize(len + 64 * 1024, 0);
        let result = self.stream.read(&mut self.read[len..]);
        self.read.truncate(len + *result.as_ref().unwrap_or(&0));
        match result {
            Ok(0) => {
                self.broken = true;
                Err(PgError::Io("the server closed the connection".into()))
            }
            Ok(_) => Ok(true),
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => Ok(false),
            Err(e) if e.kind() == ErrorKind::Interrupted => Ok(true),
            Err(e) => {
                self.broken = true;
                Err(e.into())
            }
        }
    }
}
