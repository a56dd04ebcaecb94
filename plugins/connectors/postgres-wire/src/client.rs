//! [`Client`]: one blocking connection to PostgreSQL. It logs in (SCRAM-SHA-256, md5 or
//! cleartext, whichever the server asks for), then runs simple queries and
//! extended-protocol statements whose parameters and results are all text, letting the
//! server infer parameter types from the statement (so `INSERT ... VALUES ($1)` takes the
//! column's type).
//!
//! It owns the socket and the read/write buffers; it does not reconnect (a caller drops a
//! broken client and connects again) and builds no SQL.

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

use bytes::BytesMut;
use fallible_iterator::FallibleIterator;
use postgres_protocol::IsNull;
use postgres_protocol::authentication::md5_hash;
use postgres_protocol::authentication::sasl::{ChannelBinding, SCRAM_SHA_256, ScramSha256};
use postgres_protocol::message::backend::{ErrorResponseBody, Message};
use postgres_protocol::message::frontend;

use crate::{ConnectUrl, PgError};

/// A column of a result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Column {
    /// Its name.
    pub name: String,
    /// Its type's OID (`pg_type.oid`: 23 is `int4`, 1184 `timestamptz`, ...).
    pub type_oid: u32,
    /// The type modifier (`numeric(p,s)` holds `((p << 16) | s) + 4`), -1 if none.
    pub type_modifier: i32,
    /// The OID of the table it comes from, 0 if none.
    pub table_oid: u32,
    /// Its attribute number in that table, 0 if none.
    pub column_id: i16,
}

/// The rows of a query (text values, `None` for NULL) and the rows a command affected.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct QueryResult {
    /// The result's columns (empty for a command).
    pub columns: Vec<Column>,
    /// The rows.
    pub rows: Vec<Vec<Option<String>>>,
    /// The count of the command tag (`INSERT 0 5` → 5).
    pub affected: u64,
}

/// One statement of a pipeline: SQL with `$n` placeholders, and its text parameters.
pub type Statement = (String, Vec<Option<String>>);

/// A logged-in connection.
pub struct Client {
    stream: TcpStream,
    read: BytesMut,
    write: BytesMut,
    broken: bool,
}

fn protocol(e: impl std::fmt::Display) -> PgError {
    PgError::Protocol(e.to_string())
}

fn server_error(body: &ErrorResponseBody) -> PgError {
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
        let _ = stream.set_read_timeout(Some(Duration::from_secs(60)));
        let mut client = Self {
            stream,
            read: BytesMut::with_capacity(64 * 1024),
            write: BytesMut::new(),
            broken: false,
        };
        client.startup(url, user, password).inspect_err(|_| client.broken = true)?;
        Ok(client)
    }

    fn startup(&mut self, url: &ConnectUrl, user: &str, password: &str) -> Result<(), PgError> {
        let database = url.database.as_deref().unwrap_or(user);
        let params = [
            ("user", user),
            ("database", database),
            ("client_encoding", "UTF8"),
            ("DateStyle", "ISO"),
            ("TimeZone", "UTC"),
            ("application_name", "wasm-connect"),
        ];
        frontend::startup_message(params, &mut self.write)?;
        self.flush()?;
        let mut scram = None;
        loop {
            match self.next()? {
                Message::AuthenticationOk => {}
                Message::AuthenticationCleartextPassword => {
                    frontend::password_message(password.as_bytes(), &mut self.write)?;
                    self.flush()?;
                }
                Message::AuthenticationMd5Password(body) => {
                    let hash = md5_hash(user.as_bytes(), password.as_bytes(), body.salt());
                    frontend::password_message(hash.as_bytes(), &mut self.write)?;
                    self.flush()?;
                }
                Message::AuthenticationSasl(body) => {
                    let mut mechanisms = body.mechanisms();
                    let mut found = false;
                    while let Some(m) = mechanisms.next()? {
                        found |= m == SCRAM_SHA_256;
                    }
                    if !found {
                        return Err(protocol("the server offers no SASL mechanism we speak"));
                    }
                    let s = ScramSha256::new(password.as_bytes(), ChannelBinding::unsupported());
                    frontend::sasl_initial_response(SCRAM_SHA_256, s.message(), &mut self.write)?;
                    self.flush()?;
                    scram = Some(s);
                }
                Message::AuthenticationSaslContinue(body) => {
                    let s = scram.as_mut().ok_or_else(|| protocol("unexpected SASL continue"))?;
                    s.update(body.data()).map_err(protocol)?;
                    frontend::sasl_response(s.message(), &mut self.write)?;
                    self.flush()?;
                }
                Message::AuthenticationSaslFinal(body) => {
                    let s = scram.as_mut().ok_or_else(|| protocol("unexpected SASL final"))?;
                    s.finish(body.data()).map_err(protocol)?;
                }
                Message::ErrorResponse(body) => return Err(server_error(&body)),
                Message::ReadyForQuery(_) => return Ok(()),
                Message::ParameterStatus(_)
                | Message::BackendKeyData(_)
                | Message::NoticeResponse(_) => {}
                _ => return Err(protocol("unexpected message during startup")),
            }
        }
    }

    /// Whether the socket failed: the client must be dropped.
    pub fn is_broken(&self) -> bool {
        self.broken
    }

    fn flush(&mut self) -> Result<(), PgError> {
        let out = self.write.split();
        self.stream.write_all(&out).map_err(|e| {
            self.broken = true;
            PgError::from(e)
        })
    }

    fn next(&mut self) -> Result<Message, PgError> {
        loop {
            match Message::parse(&mut self.read) {
                Ok(Some(m)) => return Ok(m),
                Ok(None) => {}
                Err(e) => {
                    self.broken = true;
                    return Err(protocol(e));
                }
            }
            let len = self.read.len();
            self.read.resize(len + 64 * 1024, 0);
            match self.stream.read(&mut self.read[len..]) {
                Ok(0) => {
                    self.read.truncate(len);
                    self.broken = true;
                    return Err(PgError::Io("the server closed the connection".into()));
                }
                Ok(n) => self.read.truncate(len + n),
                Err(e) => {
                    self.read.truncate(len);
                    self.broken = true;
                    return Err(e.into());
                }
            }
        }
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

fn columns(
    body: &postgres_protocol::message::backend::RowDescriptionBody,
) -> Result<Vec<Column>, PgError> {
    let mut out = Vec::new();
    let mut fields = body.fields();
    while let Some(f) = fields.next()? {
        out.push(Column {
            name: f.name().to_owned(),
            type_oid: f.type_oid(),
            type_modifier: f.type_modifier(),
            table_oid: f.table_oid(),
            column_id: f.column_id(),
        });
    }
    Ok(out)
}

fn row(
    body: &postgres_protocol::message::backend::DataRowBody,
) -> Result<Vec<Option<String>>, PgError> {
    let buf = body.buffer();
    let mut out = Vec::new();
    let mut ranges = body.ranges();
    while let Some(r) = ranges.next()? {
        out.push(match r {
            Some(r) => Some(
                std::str::from_utf8(&buf[r])
                    .map_err(|_| protocol("a text value is not UTF-8"))?
                    .to_owned(),
            ),
            None => None,
        });
    }
    Ok(out)
}

fn affected(tag: &str) -> u64 {
    tag.rsplit(' ').next().and_then(|n| n.parse().ok()).unwrap_or(0)
}
