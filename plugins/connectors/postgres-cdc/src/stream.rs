//! [`Stream`]: the streaming phase. It reads the slot through a [`Replication`] connection,
//! decodes each pgoutput message, keeps the relations and the open transaction, and turns
//! changes of captured tables into records through the [`Emitter`], with Debezium's
//! `source` block, transaction block and offset for each (`lsn` the event's, `lsn_proc`,
//! `lsn_commit` the last COMMIT's, `txId`, `ts_usec`, `messageType`).
//!
//! Resuming: events at or before the resume point (a committed offset, ours or
//! Debezium's, or the last record handed out before a reconnect) are dropped: every
//! transaction that committed at or before its `lsn_commit`, and the events of its `txId`
//! up to its `lsn`. So a restart repeats nothing the offsets store holds.
//!
//! It owns the replication connection while streaming and the catalog lookups of
//! relations it meets; it does not decide where streaming starts, confirm positions (the
//! task does, from acknowledgements) or read the snapshot.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use postgres_wire::{Client, Event, PgError, Replication};
use wasm_connect_sdk::SourceRecord;

use crate::catalog::{self, TableMeta};
use crate::envelope::{Emitter, Op};
use crate::offset::Offset;
use crate::pgoutput::{self, Datum, Message, PG_EPOCH_OFFSET_US, Relation};
use crate::settings::Settings;
use crate::source_info::{Source, sequence};
use crate::transaction::{TxnTracker, transaction_id};

/// Where a restart resumes: events at or before it were delivered.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Resume {
    /// Transactions that committed at or before this LSN are done.
    pub lsn_commit: Option<u64>,
    /// The transaction of the last event, and that event's LSN.
    pub tx_id: Option<i64>,
    pub lsn: Option<u64>,
}

impl Resume {
    /// The resume point an offset gives.
    pub fn of(offset: &Offset) -> Self {
        Self {
            lsn_commit: offset.lsn_commit,
            tx_id: offset.tx_id,
            lsn: offset.lsn_proc.or(offset.lsn),
        }
    }

    fn delivered(&self, xid: Option<i64>, final_lsn: Option<u64>, lsn: u64) -> bool {
        // A transaction's commit record starts before the position its COMMIT carries
        // (the record's end); the next one may start exactly there.
        let committed = matches!((self.lsn_commit, final_lsn), (Some(c), Some(f)) if f < c);
        let same_txn = xid.is_some() && xid == self.tx_id && self.lsn.is_some_and(|l| lsn <= l);
        committed || same_txn
    }
}

/// The open transaction.
struct Txn {
    xid: i64,
    final_lsn: u64,
    /// Commit time, Unix microseconds.
    ts_us: i64,
}

/// The streaming state.
pub struct Stream {
    pub repl: Replication,
    relations: HashMap<u32, Relation>,
    /// Captured tables by OID; `None` for a table the filters leave out.
    tables: HashMap<u32, Option<TableMeta>>,
    txn: Option<Txn>,
    tracker: TxnTracker,
    last_commit_lsn: Option<u64>,
    /// The last WAL position received.
    pub received: u64,
    resume: Resume,
    /// The offset of the last record handed out.
    pub last_offset: Option<Offset>,
    db: String,
    /// The server asked for a status update.
    pub reply_due: bool,
}

/// Microseconds since the Unix epoch, from the sandbox's clock.
pub fn now_us() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_micros() as i64)
}

fn pg(e: PgError) -> String {
    format!("PostgreSQL: {e}")
}

impl Stream {
    /// A stream over `repl` (already started), resuming after `resume`.
    pub fn new(repl: Replication, resume: Resume, tables: &[TableMeta], db: &str) -> Self {
        Self {
            repl,
            relations: HashMap::new(),
            tables: tables.iter().map(|t| (t.oid, Some(t.clone()))).collect(),
            txn: None,
            tracker: TxnTracker::new(),
            last_commit_lsn: resume.lsn_commit,
            received: 0,
            resume,
            last_offset: None,
            db: db.to_owned(),
            reply_due: false,
        }
    }

    /// Reads events for at most `wait` (less once records are in hand) and returns the
    /// records they make, at most about `max` (a change can make three).
    pub fn poll(
        &mut self,
        client: &mut Client,
        emitter: &mut Emitter,
        settings: &Settings,
        max: usize,
        wait: Duration,
    ) -> Result<Vec<SourceRecord>, StreamError> {
        let deadline = Instant::now() + wait;
        let mut out = Vec::new();
        while out.len() < max {
            let left = if out.is_empty() {
                deadline.saturating_duration_since(Instant::now())
            } else {
                Duration::from_millis(1)
            };
            if left.is_zero() {
                break;
            }
            let Some(event) = self.repl.next(left).map_err(StreamError::Pg)? else { break };
            match event {
                Event::Keepalive { wal_end, reply_requested, .. } => {
                    self.received = self.received.max(wal_end.as_u64());
                    self.reply_due |= reply_requested;
                }
                Event::XLogData { wal_start, wal_end, data, .. } => {
                    self.received = self.received.max(wal_end.as_u64());
                    let message = pgoutput::decode(&data).map_err(StreamError::Fatal)?;
                    self.handle(client, emitter, settings, wal_start.as_u64(), message, &mut out)?;
                }
            }
        }
        Ok(out)
    }

    fn table(
        &mut self,
        client: &mut Client,
        emitter: &mut Emitter,
        settings: &Settings,
        oid: u32,
    ) -> Result<Option<TableMeta>, StreamError> {
        let stale = match (self.tables.get(&oid), self.relations.get(&oid)) {
            (Some(Some(t)), Some(r)) => !t.matches(r),
            (Some(None), _) => return Ok(None),
            (Some(Some(_)), None) => false,
            (None, _) => true,
        };
        if stale {
            let found = catalog::table(client, oid, settings).map_err(StreamError::Pg)?;
            let found = found.filter(|t| settings.filters.include_table(&t.schema, &t.name));
            emitter.forget(oid);
            self.tables.insert(oid, found);
        }
        Ok(self.tables.get(&oid).cloned().flatten())
    }

    fn source(&self, table: Option<&TableMeta>, lsn: u64, ts_us: i64, xid: Option<i64>) -> Source {
        Source {
            ts_us,
            db: self.db.clone(),
            sequence: Some(sequence(self.last_commit_lsn, Some(lsn))),
            schema: table.map(|t| t.schema.clone()).unwrap_or_default(),
            table: table.map(|t| t.name.clone()).unwrap_or_default(),
            tx_id: xid,
            lsn: Some(lsn),
            ..Source::default()
        }
    }

    fn offset(&self, lsn: u64, xid: Option<i64>, ts_us: i64, kind: &str, meta: bool) -> Offset {
        let mut offset = Offset {
            lsn: Some(lsn),
            lsn_proc: Some(lsn),
            lsn_commit: self.last_commit_lsn,
            tx_id: xid,
            ts_usec: Some(ts_us),
            message_type: Some(kind.to_owned()),
            ..Offset::default()
        };
        if meta {
            self.tracker.store(&mut offset, lsn);
        }
        offset
    }

    #[allow(clippy::too_many_arguments)]
    fn handle(
        &mut self,
        client: &mut Client,
        emitter: &mut Emitter,
        settings: &Settings,
        lsn: u64,
        message: Message,
        out: &mut Vec<SourceRecord>,
    ) -> Result<(), StreamError> {
        let meta = settings.provide_transaction_metadata;
        let now = now_us();
        let (xid, final_lsn, ts_us) = match &self.txn {
            Some(t) => (Some(t.xid), Some(t.final_lsn), t.ts_us),
            None => (None, None, now),
        };
        let delivered = self.resume.delivered(xid, final_lsn, lsn);
        match message {
            Message::Begin { final_lsn, commit_ts_us, xid } => {
                let (xid, ts_us) = (i64::from(xid), commit_ts_us + PG_EPOCH_OFFSET_US);
                self.txn = Some(Txn { xid, final_lsn, ts_us });
                self.tracker.begin(xid);
                if meta && !self.resume.delivered(Some(xid), Some(final_lsn), lsn) {
                    let offset = self.offset(lsn, Some(xid), ts_us, "BEGIN", meta);
                    out.push(emitter.begin(&transaction_id(xid, lsn), ts_us / 1000, &offset));
                }
            }
            Message::Commit { .. } => {
                let (count, collections) = self.tracker.end();
                self.last_commit_lsn = Some(lsn);
                if meta && !delivered {
                    let xid = xid.unwrap_or_default();
                    let offset = self.offset(lsn, Some(xid), ts_us, "COMMIT", false);
                    let id = transaction_id(xid, lsn);
                    out.push(emitter.end(&id, ts_us / 1000, count, &collections, &offset));
                }
                self.txn = None;
            }
            Message::Relation(relation) => {
                let oid = relation.oid;
                self.relations.insert(oid, relation);
                if self.tables.get(&oid).is_some_and(Option::is_some) {
                    self.table(client, emitter, settings, oid)?;
                }
            }
            Message::Insert { relation, new } => {
                self.change(
                    client,
                    emitter,
                    settings,
                    (relation, Op::Create),
                    None,
                    Some(new),
                    lsn,
                    delivered,
                    out,
                )?;
            }
            Message::Update { relation, old, new, .. } => {
                self.change(
                    client,
                    emitter,
                    settings,
                    (relation, Op::Update),
                    old,
                    Some(new),
                    lsn,
                    delivered,
                    out,
                )?;
            }
            Message::Delete { relation, old, .. } => {
                self.change(
                    client,
                    emitter,
                    settings,
                    (relation, Op::Delete),
                    Some(old),
                    None,
                    lsn,
                    delivered,
                    out,
                )?;
            }
            Message::Truncate { relations, .. } => {
                for oid in relations {
                    let Some(table) = self.table(client, emitter, settings, oid)? else { continue };
                    if delivered {
                        continue;
                    }
                    let offset = self.offset(lsn, xid, ts_us, "TRUNCATE", meta);
                    let source = self.source(Some(&table), lsn, ts_us, xid);
                    let tracker = meta.then_some(&mut self.tracker);
                    out.extend(emitter.truncate(&table, &source, tracker, &offset, now));
                }
            }
            Message::Message { transactional, prefix, content, .. } => {
                let (xid, ts_us) = if transactional { (xid, ts_us) } else { (None, now) };
                let delivered = if transactional {
                    delivered
                } else {
                    self.resume.lsn_commit.is_some_and(|c| lsn <= c)
                };
                if !transactional {
                    self.last_commit_lsn = Some(lsn);
                }
                if !delivered && settings.filters.include_message(&prefix) {
                    let offset = self.offset(lsn, xid, ts_us, "MESSAGE", transactional && meta);
                    let source = self.source(None, lsn, ts_us, xid);
                    let block = (transactional && meta).then_some(&mut self.tracker);
                    out.push(emitter.message(&prefix, &content, &source, block, &offset, now));
                    self.last_offset = Some(offset);
                }
            }
            Message::Origin { .. } | Message::Type { .. } => {}
        }
        if let Some(last) = out.last() {
            self.last_offset = Some(Offset::from_json(&last.source_offset));
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn change(
        &mut self,
        client: &mut Client,
        emitter: &mut Emitter,
        settings: &Settings,
        (oid, op): (u32, Op),
        before: Option<Vec<Datum>>,
        after: Option<Vec<Datum>>,
        lsn: u64,
        delivered: bool,
        out: &mut Vec<SourceRecord>,
    ) -> Result<(), StreamError> {
        let Some(table) = self.table(client, emitter, settings, oid)? else { return Ok(()) };
        if delivered {
            return Ok(());
        }
        let relation = self.relations.get(&oid).ok_or_else(|| {
            StreamError::Fatal(format!(
                "a change of relation {oid} came before its Relation message"
            ))
        })?;
        let before = before.map(|t| table.align(relation, &t));
        let after = after.map(|t| table.align(relation, &t));
        let (xid, ts_us) = self.txn.as_ref().map_or((None, now_us()), |t| (Some(t.xid), t.ts_us));
        let meta = settings.provide_transaction_metadata;
        let collection = format!("{}.{}", table.schema, table.name);
        let kind = match op {
            Op::Create => "INSERT",
            Op::Update => "UPDATE",
            Op::Delete => "DELETE",
            Op::Read => "READ",
        };
        let offset = self.offset(lsn, xid, ts_us, kind, meta);
        let source = self.source(Some(&table), lsn, ts_us, xid);
        let block = meta.then_some(&mut self.tracker);
        let records = emitter
            .change(
                &table,
                op,
                before.as_deref(),
                after.as_deref(),
                &source,
                block,
                &offset,
                now_us(),
            )
            .map_err(|e| StreamError::Fatal(format!("{collection}: {e}")))?;
        out.extend(records);
        Ok(())
    }
}

/// Why a poll of the stream ended without its records.
#[derive(Debug)]
pub enum StreamError {
    /// The connection or the server failed.
    Pg(PgError),
    /// A message that cannot be handled.
    Fatal(String),
}

impl StreamError {
    /// In words.
    pub fn message(&self) -> String {
        match self {
            StreamError::Pg(e) => pg(e.clone()),
            StreamError::Fatal(m) => m.clone(),
        }
    }
}
