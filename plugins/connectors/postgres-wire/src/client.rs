//! [`Client`]: one blocking connection to PostgreSQL. It logs in (SCRAM-SHA-256, md5 or
//! cleartext, whichever the server asks for), then runs simple queries and
//! extended-protocol statements whose parameters and results are all text, letting the
//! server infer parameter types from the statement (so `INSERT ... VALUES ($1)` takes the
//! column's type).
//!
//! It owns the socket, the read/write buffers and the server's startup parameters
//! (`server_version`, ...); it does not reconnect (a caller drops a broken client and
//! connects again) and builds no SQL. Extra startup parameters (`replication=database`)
//! open a replication connection; [`crate::Replication`] drives that conversation through
//! the crate-private frame reader, whose wait can be bounded without breaking the
//! connection (see `replication` for how that works on wasm32-wasip2).
//!
//! Its parts: `login` (startup and password exchange), `reader` (reading whole messages
//! with a bounded wait), `result` ([`QueryResult`], [`Column`] and their decoding).

use std::io::Write;
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

use bytes::BytesMut;
use fallible_iterator::FallibleIterator;
use postgres_protocol::IsNull;
use postgres_protocol::message::backend::{ErrorResponseBody, Message};
use postgres_protocol::message::frontend;

use crate::{ConnectUrl, PgError, frame};

mod login;
mod reader;
mod result;

pub use result::{Column, QueryResult, Statement};
use result::{affected, columns, row};

/// How long a query waits for the server's next bytes unless told otherwise.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(60);
/// The shortest read timeout set on the socket (a zero timeout means "none" to the OS).
const MIN_WAIT: Duration = Duration::from_millis(1);

/// A logged-in connection.
pub struct Client {
    stream: TcpStream,
    read: BytesMut,
    write: BytesMut,
    broken: bool,
    /// The `ParameterStatus` values of the startup (`server_version`, `TimeZone`, ...).
    parameters: Vec<(String, String)>,
    /// The read timeout currently set on the socket.
    socket_timeout: Option<Duration>,
    /// How long a query waits for the server's next bytes.
    command_timeout: Duration,
}

fn protocol(e: impl std::fmt::Display) -> PgError {
    PgError::Protocol(e.to_string())
}

pub(crate) fn server_error(body: &ErrorResponseBody) -> PgError {
    let (mut code, mut message, mut detail) = (String::new(), String::new(), None);
    let mut fields = body.fields();
    while let Ok(Some(f)) = fields.next() {
        match f.type_() {
            b'C' => code = String::from_utf8_lossy(f.value_bytes()).into_owned(),
            b'M' => message = String::from_utf8_lossy(f.value_bytes()).into_owned(),
            b'D' => detail = Some(String::from_utf8_lossy(f.value_bytes()).into_owned()),
            _ => {}
        }
    }
    PgError::Server { code, message, detail }
}

impl Client {
    /// Connects to `url` and logs in as `user`.
    pub fn connect(url: &ConnectUrl, user: &str, password: &str) -> Result<Self, PgError> {
        Self::connect_with(url, user, password, &[])
    }

    /// Connects to `url` and logs in as `user`, sending `extra` startup parameters after
    /// the usual ones (`("replication", "database")` opens a logical replication
    /// connection).
    pub fn connect_with(
        url: &ConnectUrl,
        user: &str,
        password: &str,
        extra: &[(&str, &str)],
    ) -> Result<Self, PgError> {
        let addrs = (url.host.as_str(), url.port)
            .to_socket_addrs()
            .map_err(|e| PgError::Io(format!("cannot resolve {}: {e}", url.host)))?;
        let mut last = PgError::Io(format!("{} resolves to no address", url.host));
        let mut stream = None;
        for addr in addrs {
            match TcpStream::connect(addr) {
                Ok(s) => {
                    stream = Some(s);
                    break;
                }
                Err(e) => last = PgError::Io(format!("cannot connect to {addr}: {e}")),
            }
        }
        let stream = stream.ok_or(last)?;
        let _ = stream.set_nodelay(true);
        let mut client = Self {
            stream,
            read: BytesMut::with_capacity(64 * 1024),
            write: BytesMut::new(),
            broken: false,
            parameters: Vec::new(),
            socket_timeout: None,
            command_timeout: COMMAND_TIMEOUT,
        };
        client.startup(url, user, password, extra).inspect_err(|_| client.broken = true)?;
        Ok(client)
    }

    /// Whether the socket failed: the client must be dropped.
    pub fn is_broken(&self) -> bool {
        self.broken
    }

    /// A parameter the server reported at startup (`server_version`, `TimeZone`, ...).
    pub fn parameter(&self, name: &str) -> Option<&str> {
        self.parameters.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    /// How long a query waits for the server's next bytes before the connection is
    /// declared broken (60 s unless set).
    pub fn set_command_timeout(&mut self, timeout: Duration) {
        self.command_timeout = timeout.max(MIN_WAIT);
    }

    /// Marks the connection unusable (the conversation is out of step).
    pub(crate) fn set_broken(&mut self) {
        self.broken = true;
    }

    /// Sends one frontend message `tag` with `body` at once.
    pub(crate) fn send(&mut self, tag: u8, body: &[u8]) -> Result<(), PgError> {
        frame::encode(tag, body, &mut self.write);
        self.flush()
    }

    fn flush(&mut self) -> Result<(), PgError> {
        let out = self.write.split();
        self.stream.write_all(&out).map_err(|e| {
            self.broken = true;
            PgError::from(e)
        })
    }

    /// Runs `sql` (one or more `;`-separated statements) with the simple protocol and
    /// returns the last statement's result.
    pub fn simple_query(&mut self, sql: &str) -> Result<QueryResult, PgError> {
        frontend::query(sql, &mut self.write)?;
        self.flush()?;
        let mut result = QueryResult::default();
        let mut error = None;
        loop {
            match self.next()? {
                Message::ReadyForQuery(_) => break,
                Message::ErrorResponse(body) => error = Some(server_error(&body)),
                Message::RowDescription(body) => {
                    result = QueryResult::default();
                    result.columns = columns(&body)?;
                }
                Message::DataRow(body) => result.rows.push(row(&body)?),
                Message::CommandComplete(body) => result.affected = affected(body.tag()?),
                _ => {}
            }
        }
        error.map_or(Ok(result), Err)
    }

    /// Runs one statement with text parameters (`$1`, `$2`, ...) and returns its rows.
    pub fn query(&mut self, sql: &str, params: &[Option<&str>]) -> Result<QueryResult, PgError> {
        let owned = params.iter().map(|p| p.map(str::to_owned)).collect();
        let mut results = self.pipeline(&[(sql.to_owned(), owned)]).map_err(|(_, e)| e)?;
        Ok(results.pop().unwrap_or_default())
    }

    /// Runs statements back to back in one round trip (one `Sync` at the end). Outside a
    /// transaction they commit together or not at all. On an error the server skips the
    /// rest; the error comes with the index of the statement that failed.
    pub fn pipeline(
        &mut self,
        statements: &[Statement],
    ) -> Result<Vec<QueryResult>, (usize, PgError)> {
        let at = |e: PgError| (0, e);
        for (sql, params) in statements {
            frontend::parse("", sql, std::iter::empty(), &mut self.write)
                .map_err(|e| at(e.into()))?;
            frontend::bind(
                "",
                "",
                [0i16],
                params.iter(),
                |p, buf| match p {
                    Some(text) => {
                        buf.extend_from_slice(text.as_bytes());
                        Ok(IsNull::No)
                    }
                    None => Ok(IsNull::Yes),
                },
                [0i16],
                &mut self.write,
            )
            .map_err(|_| at(protocol("cannot encode the parameters")))?;
            frontend::describe(b'P', "", &mut self.write).map_err(|e| at(e.into()))?;
            frontend::execute("", 0, &mut self.write).map_err(|e| at(e.into()))?;
        }
        frontend::sync(&mut self.write);
        self.flush().map_err(at)?;
        let mut results = Vec::with_capacity(statements.len());
        let mut current = QueryResult::default();
        let mut error = None;
        loop {
            match self.next().map_err(|e| (results.len(), e))? {
                Message::ReadyForQuery(_) => break,
                Message::ErrorResponse(body) => {
                    error.get_or_insert((results.len(), server_error(&body)));
                }
                Message::RowDescription(body) => {
                    current.columns = columns(&body).map_err(|e| (results.len(), e))?;
                }
                Message::DataRow(body) => current.rows.push(row(&body).map_err(at)?),
                Message::CommandComplete(body) => {
                    current.affected = affected(body.tag().map_err(|e| at(e.into()))?);
                    results.push(std::mem::take(&mut current));
                }
                Message::EmptyQueryResponse => results.push(std::mem::take(&mut current)),
                _ => {}
            }
        }
        error.map_or(Ok(results), Err)
    }

    /// Says goodbye and closes the socket.
    pub fn close(mut self) {
        if !self.broken {
            frontend::terminate(&mut self.write);
            let _ = self.flush();
        }
    }
}
