//! [`PgError`]: what can go wrong talking to PostgreSQL, with the server's SQLSTATE, so a
//! caller tells a record the database rejects (a constraint violation, bad data) from a
//! server that is down or went away (worth retrying on a new connection).

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
    /// intervention such as a shutdown (57), a serialization failure or deadlock (40).
    pub fn is_transient(&self) -> bool {
        match self {
            Self::Io(_) => true,
            Self::Server { code, .. } => {
                ["08", "53", "57", "40", "58"].iter().any(|c| code.starts_with(c))
            }
            Self::Protocol(_) => false,
        }
    }

    /// Whether the server rejected the data of a statement: data exceptions (22),
    /// integrity constraint violations (23), or a statement that does not fit the table
    /// (42: an unknown column, a wrong type).
    pub fn is_data_error(&self) -> bool {
        matches!(self.code(), Some(c) if c.starts_with("22") || c.starts_with("23") || c.starts_with("42"))
    }
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
