//! [`PgError`]: what can go wrong talking to PostgreSQL, with the server's SQLSTATE, so a
//! caller tells a record the database rejects (a constraint violation, bad data) from a
//! server that is down or went away (worth retrying on a new connection), and a
//! replication slot that is gone or can no longer serve from one that is busy
//! ([`SlotProblem`]).

use std::fmt;

/// An error of the client or the server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PgError {
    /// The socket failed (refused, reset, closed): the connection is unusable.
    Io(String),
    /// The server answered with an error.
    Server {
        /// SQLSTATE, e.g. `23505` (unique violation).
        code: String,
        /// The primary message.
        message: String,
        /// The detail, if any.
        detail: Option<String>,
    },
    /// The conversation went off the protocol, or authentication is not possible.
    Protocol(String),
}

impl PgError {
    /// The SQLSTATE, if the server sent one.
    pub fn code(&self) -> Option<&str> {
        match self {
            Self::Server { code, .. } => Some(code),
            _ => None,
        }
    }

    /// Whether a later attempt, on a new connection, may succeed: the socket failed, or
    /// the server reports connection trouble (08), lack of resources (53), an operator
    /// intervention such as a shutdown (57), a serialization failure or deadlock (40), a
    /// system error (58) other than WAL a slot needs being gone, or a slot another
    /// connection still streams from (55006).
    pub fn is_transient(&self) -> bool {
        match self.slot_problem() {
            Some(SlotProblem::InUse) => return true,
            Some(_) => return false,
            None => {}
        }
        match self {
            Self::Io(_) => true,
            Self::Server { code, .. } => {
                ["08", "53", "57", "40", "58"].iter().any(|c| code.starts_with(c))
            }
            Self::Protocol(_) => false,
        }
    }

    /// What is wrong with the replication slot or publication a stream asked for, when
    /// this is the server saying so (told by SQLSTATE and the server's message, which
    /// share codes with other errors).
    pub fn slot_problem(&self) -> Option<SlotProblem> {
        let Self::Server { code, message, .. } = self else { return None };
        match code.as_str() {
            "42704" if message.starts_with("replication slot ") => Some(SlotProblem::Missing),
            "42704" if message.starts_with("publication ") => Some(SlotProblem::PublicationMissing),
            "55006" if message.starts_with("replication slot ") => Some(SlotProblem::InUse),
            "55000" if message.contains("replication slot") => Some(SlotProblem::Lost),
            "58P01" if message.starts_with("requested WAL segment") => Some(SlotProblem::Lost),
            _ => None,
        }
    }

    /// Whether the server rejected the data of a statement: data exceptions (22),
    /// integrity constraint violations (23), or a statement that does not fit the table
    /// (42: an unknown column, a wrong type).
    pub fn is_data_error(&self) -> bool {
        matches!(self.code(), Some(c) if c.starts_with("22") || c.starts_with("23") || c.starts_with("42"))
    }
}

/// Why a replication slot cannot serve the stream asked of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlotProblem {
    /// The slot does not exist (never created, or dropped): 42704 `replication slot "…"
    /// does not exist`. Its position is gone with it: a new slot and a new snapshot are
    /// needed, or the changes in between are lost.
    Missing,
    /// The slot exists but cannot serve any more: it was invalidated (it held more WAL
    /// than `max_slot_wal_keep_size`, 55000), or WAL it needs was removed (58P01
    /// `requested WAL segment … has already been removed`). Same remedy as `Missing`,
    /// after dropping it.
    Lost,
    /// Another connection is streaming from the slot (55006 `replication slot "…" is
    /// active for PID …`), such as a previous task's walsender not yet gone.
    InUse,
    /// A publication named in `publication_names` does not exist (42704 `publication
    /// "…" does not exist`; pgoutput says so when it decodes the first change).
    PublicationMissing,
}

impl fmt::Display for PgError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Io(e) => write!(f, "connection error: {e}"),
            Self::Server { code, message, detail } => {
                write!(f, "ERROR {code}: {message}")?;
                if let Some(d) = detail {
                    write!(f, " ({d})")?;
                }
                Ok(())
            }
            Self::Protocol(e) => write!(f, "protocol error: {e}"),
        }
    }
}

impl std::error::Error for PgError {}

impl From<std::io::Error> for PgError {
    fn from(e: std::io::Error) -> Self {
        Self::Io(e.to_string())
    }
}
