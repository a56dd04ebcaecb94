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
        let Self::Server { code, message, detail } = self else { return None };
        let invalidated = message.starts_with("can no longer get changes from replication slot")
            || message.starts_with("cannot read from logical replication slot")
            || detail.as_deref().is_some_and(|d| d.contains("invalidated"));
        match code.as_str() {
            "42704" if message.starts_with("replication slot ") => Some(SlotProblem::Missing),
            "42704" if message.starts_with("publication ") => Some(SlotProblem::PublicationMissing),
            "55006" if message.starts_with("replication slot ") => Some(SlotProblem::InUse),
            "55000" if invalidated => Some(SlotProblem::Lost),
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
    /// than `max_slot_wal_keep_size`: 55000 `can no longer get changes from replication
    /// slot "…"` on PostgreSQL 15, `cannot read from…` on 13–14), or WAL it needs was
    /// removed (58P01
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

#[cfg(test)]
mod tests {
    use super::*;

    fn server(code: &str, message: &str, detail: Option<&str>) -> PgError {
        PgError::Server {
            code: code.into(),
            message: message.into(),
            detail: detail.map(Into::into),
        }
    }

    #[test]
    fn slot_problems_are_told_by_code_and_message() {
        let cases = [
            (
                server("42704", "replication slot \"s\" does not exist", None),
                Some(SlotProblem::Missing),
            ),
            (
                server("42704", "publication \"p\" does not exist", None),
                Some(SlotProblem::PublicationMissing),
            ),
            (server("42704", "type \"x\" does not exist", None), None),
            (
                server("55006", "replication slot \"s\" is active for PID 42", None),
                Some(SlotProblem::InUse),
            ),
            (
                server(
                    "55000",
                    "can no longer get changes from replication slot \"s\"",
                    Some(
                        "This slot has been invalidated because it exceeded the maximum reserved size.",
                    ),
                ),
                Some(SlotProblem::Lost),
            ),
            (
                server("55000", "cannot read from logical replication slot \"s\"", None),
                Some(SlotProblem::Lost),
            ),
            (
                server("55000", "replication slot \"s\" was not created in this database", None),
                None,
            ),
            (
                server(
                    "58P01",
                    "requested WAL segment 000000010000000000000002 has already been removed",
                    None,
                ),
                Some(SlotProblem::Lost),
            ),
            (server("58P01", "could not open file \"x\"", None), None),
            (PgError::Io("reset".into()), None),
        ];
        for (error, problem) in cases {
            assert_eq!(error.slot_problem(), problem, "{error}");
        }
        assert!(
            server("55006", "replication slot \"s\" is active for PID 42", None).is_transient()
        );
        assert!(
            !server("58P01", "requested WAL segment 1 has already been removed", None)
                .is_transient()
        );
        assert!(server("58P01", "could not open file \"x\"", None).is_transient());
    }
}
