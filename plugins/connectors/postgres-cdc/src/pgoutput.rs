//! Decoding of one `pgoutput` message (protocol version 1, text values): the payload of an
//! XLogData frame, into a [`Message`].
//!
//! This module owns the byte layout of PostgreSQL's "Logical Replication Message Formats"
//! (and the `M` logical decoding message sent with `messages 'true'`). It keeps no state:
//! matching relations to tables and turning text into values belong to the callers. Any
//! input, however malformed, yields an `Err` naming what is wrong, never a panic.

/// One column value of a tuple.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Datum {
    /// SQL NULL.
    Null,
    /// A TOASTed value the change did not touch, so not sent.
    Unchanged,
    /// The value's text output.
    Text(String),
}

/// A row: one [`Datum`] per column of the relation.
pub type Tuple = Vec<Datum>;

/// A column of a [`Relation`] message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RelationColumn {
    /// Part of the replica identity (key) columns.
    pub key: bool,
    pub name: String,
    pub type_oid: u32,
    pub type_modifier: i32,
}

/// A table description, sent before the first change of a table in a session and after
/// its definition changes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Relation {
    pub oid: u32,
    pub namespace: String,
    pub name: String,
    /// `d` default, `n` nothing, `f` full, `i` index.
    pub replica_identity: char,
    pub columns: Vec<RelationColumn>,
}

/// One decoded message. LSNs are the server's 64-bit positions; timestamps are
/// microseconds since 2000-01-01 (PostgreSQL's epoch).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Message {
    Begin {
        final_lsn: u64,
        commit_ts_us: i64,
        xid: u32,
    },
    Commit {
        commit_lsn: u64,
        end_lsn: u64,
        commit_ts_us: i64,
    },
    Origin {
        lsn: u64,
        name: String,
    },
    Relation(Relation),
    Type {
        oid: u32,
        namespace: String,
        name: String,
    },
    Insert {
        relation: u32,
        new: Tuple,
    },
    /// `old` is the old key (`key_only_old`) or the whole old row (REPLICA IDENTITY FULL),
    /// when the server sent one.
    Update {
        relation: u32,
        old: Option<Tuple>,
        key_only_old: bool,
        new: Tuple,
    },
    Delete {
        relation: u32,
        old: Tuple,
        key_only: bool,
    },
    Truncate {
        cascade: bool,
        restart_identity: bool,
        relations: Vec<u32>,
    },
    /// A logical decoding message (`pg_logical_emit_message`).
    Message {
        transactional: bool,
        lsn: u64,
        prefix: String,
        content: Vec<u8>,
    },
}

/// Microseconds between 1970-01-01 and 2000-01-01.
pub const PG_EPOCH_OFFSET_US: i64 = 946_684_800_000_000;

/// A cursor over the payload; every read checks the length.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], String> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len()).ok_or_else(|| {
            format!("truncated at byte {} reading {what} ({n} bytes wanted)", self.at)
        })?;
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }

    fn u8(&mut self, what: &str) -> Result<u8, String> {
        Ok(self.take(1, what)?[0])
    }

    fn i16(&mut self, what: &str) -> Result<i16, String> {
        let b = self.take(2, what)?;
        Ok(i16::from_be_bytes([b[0], b[1]]))
    }

    fn i32(&mut self, what: &str) -> Result<i32, String> {
        let b = self.take(4, what)?;
        Ok(i32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn u32(&mut self, what: &str) -> Result<u32, String> {
        Ok(self.i32(what)? as u32)
    }

    fn i64(&mut self, what: &str) -> Result<i64, String> {
        let b = self.take(8, what)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(i64::from_be_bytes(a))
    }

    fn u64(&mut self, what: &str) -> Result<u64, String> {
        Ok(self.i64(what)? as u64)
    }

    fn string(&mut self, what: &str) -> Result<String, String> {
        let rest = &self.bytes[self.at..];
        let nul = rest
            .iter()
            .position(|&b| b == 0)
            .ok_or_else(|| format!("unterminated {what} at byte {}", self.at))?;
        let s = std::str::from_utf8(&rest[..nul]).map_err(|_| format!("{what} is not UTF-8"))?;
        self.at += nul + 1;
        Ok(s.to_owned())
    }

    fn tuple(&mut self) -> Result<Tuple, String> {
        let n = self.i16("column count")?;
        let n = usize::try_from(n).map_err(|_| format!("negative column count {n}"))?;
        let mut out = Vec::with_capacity(n.min(1600));
        for i in 0..n {
            out.push(match self.u8("column kind")? {
                b'n' => Datum::Null,
                b'u' => Datum::Unchanged,
                b't' => {
                    let len = self.i32("value length")?;
                    let len =
                        usize::try_from(len).map_err(|_| format!("column {i}: length {len}"))?;
                    let bytes = self.take(len, "column value")?;
                    let text = std::str::from_utf8(bytes)
                        .map_err(|_| format!("column {i}: value is not UTF-8"))?;
                    Datum::Text(text.to_owned())
                }
                b'b' => return Err(format!("column {i}: binary value in protocol version 1")),
                k => return Err(format!("column {i}: unknown kind {:?}", k as char)),
            });
        }
        Ok(out)
    }

    fn done(self, what: char) -> Result<(), String> {
        if self.at == self.bytes.len() {
            Ok(())
        } else {
            Err(format!("{} trailing bytes after {what} message", self.bytes.len() - self.at))
        }
    }
}

/// Decodes one pgoutput message.
pub fn decode(bytes: &[u8]) -> Result<Message, String> {
    let mut r = Reader { bytes, at: 0 };
    let tag = r.u8("message type")?;
    let msg = match tag {
        b'B' => Message::Begin {
            final_lsn: r.u64("final LSN")?,
            commit_ts_us: r.i64("commit timestamp")?,
            xid: r.u32("xid")?,
        },
        b'C' => {
            r.u8("commit flags")?;
            Message::Commit {
                commit_lsn: r.u64("commit LSN")?,
                end_lsn: r.u64("end LSN")?,
                commit_ts_us: r.i64("commit timestamp")?,
            }
        }
        b'O' => Message::Origin { lsn: r.u64("origin LSN")?, name: r.string("origin name")? },
        b'R' => relation(&mut r)?,
        b'Y' => Message::Type {
            oid: r.u32("type OID")?,
            namespace: r.string("type namespace")?,
            name: r.string("type name")?,
        },
        b'I' => {
            let relation = r.u32("relation OID")?;
            match r.u8("tuple marker")? {
                b'N' => Message::Insert { relation, new: r.tuple()? },
                m => return Err(format!("insert: expected N, got {:?}", m as char)),
            }
        }
        b'U' => {
            let relation = r.u32("relation OID")?;
            let (old, key_only_old) = match r.u8("tuple marker")? {
                b'N' => (None, false),
                m @ (b'K' | b'O') => {
                    let old = r.tuple()?;
                    match r.u8("new tuple marker")? {
                        b'N' => (Some(old), m == b'K'),
                        m => return Err(format!("update: expected N, got {:?}", m as char)),
                    }
                }
                m => return Err(format!("update: unknown tuple marker {:?}", m as char)),
            };
            Message::Update { relation, old, key_only_old, new: r.tuple()? }
        }
        b'D' => {
            let relation = r.u32("relation OID")?;
            let key_only = match r.u8("tuple marker")? {
                b'K' => true,
                b'O' => false,
                m => return Err(format!("delete: unknown tuple marker {:?}", m as char)),
            };
            Message::Delete { relation, old: r.tuple()?, key_only }
        }
        b'T' => {
            let n = r.i32("relation count")?;
            let n = usize::try_from(n).map_err(|_| format!("truncate: {n} relations"))?;
            let options = r.u8("truncate options")?;
            let mut relations = Vec::with_capacity(n.min(1024));
            for _ in 0..n {
                relations.push(r.u32("relation OID")?);
            }
            Message::Truncate {
                cascade: options & 1 != 0,
                restart_identity: options & 2 != 0,
                relations,
            }
        }
        b'M' => {
            let transactional = r.u8("message flags")? & 1 != 0;
            let lsn = r.u64("message LSN")?;
            let prefix = r.string("message prefix")?;
            let len = r.i32("content length")?;
            let len = usize::try_from(len).map_err(|_| format!("message: content length {len}"))?;
            Message::Message {
                transactional,
                lsn,
                prefix,
                content: r.take(len, "content")?.to_vec(),
            }
        }
        t => return Err(format!("unknown pgoutput message type {:?} (0x{t:02x})", t as char)),
    };
    r.done(tag as char)?;
    Ok(msg)
}

fn relation(r: &mut Reader) -> Result<Message, String> {
    let oid = r.u32("relation OID")?;
    let namespace = r.string("namespace")?;
    let name = r.string("relation name")?;
    let replica_identity = r.u8("replica identity")? as char;
    let n = r.i16("column count")?;
    let n = usize::try_from(n).map_err(|_| format!("relation: column count {n}"))?;
    let mut columns = Vec::with_capacity(n.min(1600));
    for _ in 0..n {
        columns.push(RelationColumn {
            key: r.u8("column flags")? & 1 != 0,
            name: r.string("column name")?,
            type_oid: r.u32("column type")?,
            type_modifier: r.i32("type modifier")?,
        });
    }
    Ok(Message::Relation(Relation { oid, namespace, name, replica_identity, columns }))
}

#[cfg(test)]
#[path = "pgoutput_tests.rs"]
mod tests;
