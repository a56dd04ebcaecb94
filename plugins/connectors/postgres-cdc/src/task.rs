//! [`CdcTask`]: the source task. On its first poll (and again after any lost connection)
//! it connects twice (a replication connection and an ordinary one), reads the captured
//! tables, makes the publication ready, finds or creates the slot, and decides, as
//! `snapshot.mode` and the committed offset say, whether to snapshot before streaming.
//!
//! Positions: records carry Debezium's offsets; the slot's confirmed position moves only
//! in [`SourceTask::commit`], to the `lsn_commit` of the last record the worker
//! acknowledged ([`Position`]), so the slot never lets go of WAL whose changes are not
//! durable in Kafka. A database that goes away is a retriable error: the connections are
//! dropped, the next poll reconnects and resumes after the last record handed out. A slot
//! that is gone while offsets exist, or a position the slot can no longer serve, fails the
//! task with what to do.
//!
//! It owns the phases and the connections; records are the emitter's, the reading of
//! snapshot and stream their modules'.

use std::time::{Duration, Instant};

use postgres_wire::{Client, ConnectUrl, Lsn, PgError, Replication, SlotProblem};
use wasm_connect_sdk::{
    Config, Error, RecordAck, Result, SourceRecord, SourceTask, info, offsets, warn,
};

use crate::catalog::{self, TableMeta};
use crate::envelope::{Emitter, Op};
use crate::offset::{Offset, partition};
use crate::position::Position;
use crate::publication;
use crate::settings::{Settings, SnapshotMode};
use crate::snapshot::Snapshot;
use crate::source_info::{SnapshotMarker, Source, sequence};
use crate::stream::{Resume, Stream, StreamError, now_us};

/// What the task is doing.
enum Phase {
    /// Not connected: the next poll connects.
    Connect,
    /// Reading the snapshot; the replication connection waits, idle, to stream from `start`.
    Snapshot { snapshot: Snapshot, repl: Replication, start: u64, lsn: u64, ts_us: i64 },
    /// Streaming.
    Stream { stream: Box<Stream>, client: Client },
    /// `snapshot.mode=initial_only`, after the snapshot: nothing more to do.
    Done,
}

struct State {
    settings: Settings,
    url: ConnectUrl,
    emitter: Emitter,
    phase: Phase,
    position: Position,
    /// The offset of the last record handed out (or the committed one at start).
    offset: Option<Offset>,
    /// Whether this task instance completed a snapshot already.
    snapshotted: bool,
    last_status: Instant,
    last_heartbeat: Instant,
}

/// The task; nothing until `start`.
#[derive(Default)]
pub struct CdcTask {
    state: Option<State>,
}

fn retriable(e: PgError) -> Error {
    Error::retriable(format!("PostgreSQL: {e}"))
}

/// A failure of the slot, in words that say what to do.
fn slot_error(settings: &Settings, e: &PgError) -> Option<Error> {
    let slot = &settings.slot_name;
    let advice = match e.slot_problem()? {
        SlotProblem::Missing => format!(
            "Replication slot '{slot}' does not exist. It was dropped while this connector \
             had offsets, so the changes since then are gone. Stop the connector, reset its \
             offsets (DELETE /connectors/<name>/offsets) and resume it to snapshot again, or \
             set snapshot.mode=when_needed"
        ),
        SlotProblem::Lost => format!(
            "Replication slot '{slot}' can no longer serve the position this connector needs \
             (its WAL was removed, e.g. past max_slot_wal_keep_size). Drop the slot, reset \
             the connector's offsets and resume it to snapshot again, or set \
             snapshot.mode=when_needed"
        ),
        SlotProblem::PublicationMissing => format!(
            "Publication '{}' does not exist: create it or set publication.autocreate.mode",
            settings.publication_name
        ),
        SlotProblem::InUse => return None,
    };
    Some(Error::fatal(format!("{advice}: {e}")))
}

fn failed(settings: &Settings, e: PgError) -> Error {
    slot_error(settings, &e).unwrap_or_else(|| match e.is_transient() {
        true => retriable(e),
        false => Error::fatal(format!("PostgreSQL: {e}")),
    })
}

impl State {
    fn snapshot_done(&self) -> bool {
        self.offset
            .as_ref()
            .is_some_and(|o| o.snapshot.is_none() || o.last_snapshot_record || o.snapshot_completed)
    }

    fn connect(&mut self) -> Result<()> {
        let s = &self.settings;
        let (user, password) = (s.user.as_str(), s.password.as_deref().unwrap_or(""));
        let mut client = Client::connect(&self.url, user, password).map_err(|e| failed(s, e))?;
        let mut repl = Replication::connect(&self.url, user, password).map_err(|e| failed(s, e))?;
        let tables = catalog::tables(&mut client, s).map_err(|e| failed(s, e))?;
        publication::prepare(&mut client, &s.publication_name, s.publication_mode, &tables)
            .map_err(Error::fatal)?;
        let slot = repl.slot(&s.slot_name).map_err(|e| failed(s, e))?;
        let snapshot_done = self.snapshot_done();
        let want_snapshot = match s.snapshot_mode {
            SnapshotMode::Always => !self.snapshotted,
            SnapshotMode::Initial | SnapshotMode::InitialOnly => !snapshot_done,
            SnapshotMode::WhenNeeded => !snapshot_done || slot.is_none(),
            SnapshotMode::NoData => false,
        };
        if let Some(slot) = &slot
            && slot.plugin.as_deref().is_some_and(|p| p != "pgoutput")
        {
            return Err(Error::fatal(format!(
                "Replication slot '{}' uses plugin {:?}; this connector reads pgoutput only",
                s.slot_name, slot.plugin
            )));
        }
        let (start, exported, snapshot_lsn) = match slot {
            None if snapshot_done && !want_snapshot && self.offset.is_some() => {
                return Err(slot_error(
                    s,
                    &PgError::Server {
                        code: "42704".into(),
                        message: format!("replication slot \"{}\" does not exist", s.slot_name),
                        detail: None,
                    },
                )
                .expect("a missing slot"));
            }
            None => {
                let created = repl
                    .create_slot(&s.slot_name, "pgoutput", want_snapshot)
                    .map_err(|e| failed(s, e))?;
                info!("Created replication slot '{}' at {}", s.slot_name, created.consistent_point);
                let at = created.consistent_point.as_u64();
                (at, created.snapshot_name, at)
            }
            Some(_) => {
                let start = self.offset.as_ref().and_then(|o| o.lsn_commit.or(o.lsn)).unwrap_or(0);
                let now = if want_snapshot {
                    repl.identify_system().map_err(|e| failed(s, e))?.xlog_pos.as_u64()
                } else {
                    0
                };
                (start, None, now)
            }
        };
        if want_snapshot {
            info!("Snapshot of {} tables at {}", tables.len(), Lsn::from(snapshot_lsn));
            let snapshot =
                Snapshot::begin(client, exported.as_deref(), tables, s.snapshot_fetch_size)
                    .map_err(|e| failed(s, e))?;
            self.phase =
                Phase::Snapshot { snapshot, repl, start, lsn: snapshot_lsn, ts_us: now_us() };
            return Ok(());
        }
        self.stream(repl, client, start, tables)
    }

    fn stream(
        &mut self,
        mut repl: Replication,
        client: Client,
        start: u64,
        tables: Vec<TableMeta>,
    ) -> Result<()> {
        let s = &self.settings;
        if s.snapshot_mode == SnapshotMode::InitialOnly && self.snapshot_done() {
            info!("snapshot.mode=initial_only: the snapshot is complete; nothing is streamed");
            repl.close();
            client.close();
            self.phase = Phase::Done;
            return Ok(());
        }
        let options = [
            ("proto_version", "1"),
            ("publication_names", s.publication_name.as_str()),
            ("messages", "true"),
        ];
        repl.start(&s.slot_name, Lsn::from(start), &options).map_err(|e| failed(s, e))?;
        info!("Streaming from slot '{}' at {}", s.slot_name, Lsn::from(start));
        let resume = self.offset.as_ref().map(Resume::of).unwrap_or_default();
        let stream = Stream::new(repl, resume, &tables, &s.dbname);
        self.phase = Phase::Stream { stream: Box::new(stream), client };
        Ok(())
    }

    fn poll_snapshot(&mut self, max: usize) -> Result<Vec<SourceRecord>> {
        let Phase::Snapshot { snapshot, lsn, ts_us, .. } = &mut self.phase else { unreachable!() };
        let (lsn, ts_us) = (*lsn, *ts_us);
        let rows = snapshot.next(max).map_err(|e| failed(&self.settings, e))?;
        let mut out = Vec::with_capacity(rows.len());
        for row in rows {
            let table = &snapshot.tables()[row.table];
            let source = Source {
                ts_us,
                snapshot: row.marker,
                db: self.settings.dbname.clone(),
                sequence: Some(sequence(None, Some(lsn))),
                schema: table.schema.clone(),
                table: table.name.clone(),
                tx_id: Some(snapshot.tx_id),
                lsn: Some(lsn),
                ..Source::default()
            };
            let offset = Offset {
                lsn: Some(lsn),
                tx_id: Some(snapshot.tx_id),
                ts_usec: Some(ts_us),
                snapshot: Some("INITIAL".into()),
                last_snapshot_record: row.marker == SnapshotMarker::Last,
                ..Offset::default()
            };
            let records = self
                .emitter
                .change(table, Op::Read, None, Some(&row.values), &source, None, &offset, now_us())
                .map_err(Error::fatal)?;
            out.extend(records);
            self.offset = Some(offset);
        }
        if snapshot.is_done() {
            let Phase::Snapshot { snapshot, repl, start, .. } =
                std::mem::replace(&mut self.phase, Phase::Connect)
            else {
                unreachable!()
            };
            let tables = snapshot.tables().to_vec();
            let client = snapshot.finish().map_err(|e| failed(&self.settings, e))?;
            self.snapshotted = true;
            // An empty snapshot still completes: the next start must not snapshot again.
            let done = self.offset.get_or_insert_with(Offset::default);
            done.last_snapshot_record = true;
            info!("Snapshot completed");
            self.stream(repl, client, start, tables)?;
        }
        Ok(out)
    }

    fn poll_stream(&mut self, max: usize) -> Result<Vec<SourceRecord>> {
        let wait = Duration::from_millis(self.settings.poll_interval_ms.clamp(1, 5000));
        let Phase::Stream { stream, client } = &mut self.phase else { unreachable!() };
        let records = match stream.poll(client, &mut self.emitter, &self.settings, max, wait) {
            Ok(records) => records,
            Err(StreamError::Pg(e)) => return Err(failed(&self.settings, e)),
            Err(e) => return Err(Error::fatal(e.message())),
        };
        if let Some(o) = &stream.last_offset {
            self.offset = Some(o.clone());
        }
        let mut out = records;
        let heartbeat = self.settings.heartbeat_interval_ms;
        if heartbeat > 0 && self.last_heartbeat.elapsed() >= Duration::from_millis(heartbeat) {
            self.last_heartbeat = Instant::now();
            if let Some(query) = &self.settings.heartbeat_action_query {
                client.simple_query(query).map_err(|e| failed(&self.settings, e))?;
            }
            let mut offset = self.offset.clone().unwrap_or_default();
            offset.lsn_commit = offset.lsn_commit.max(Some(stream.received).filter(|r| *r > 0));
            out.push(self.emitter.heartbeat(now_us() / 1000, &offset));
        }
        let interval = Duration::from_millis(self.settings.status_update_interval_ms);
        if stream.reply_due || self.last_status.elapsed() >= interval {
            let confirmed = Lsn::from(self.position.confirmed());
            let received = Lsn::from(stream.received.max(self.position.confirmed()));
            stream
                .repl
                .send_status(received, confirmed, confirmed, false)
                .map_err(|e| failed(&self.settings, e))?;
            stream.reply_due = false;
            self.last_status = Instant::now();
        }
        Ok(out)
    }

    fn close(&mut self) {
        match std::mem::replace(&mut self.phase, Phase::Connect) {
            Phase::Snapshot { snapshot, repl, .. } => {
                repl.close();
                if let Ok(c) = snapshot.finish() {
                    c.close();
                }
            }
            Phase::Stream { stream, client } => {
                stream.repl.close();
                client.close();
            }
            Phase::Connect | Phase::Done => {}
        }
    }
}

impl SourceTask for CdcTask {
    fn start(&mut self, config: Config) -> Result<()> {
        let settings = Settings::parse(&config)?;
        let (host, port) = settings
            .address
            .rsplit_once(':')
            .map(|(h, p)| (h.to_owned(), p.parse().unwrap_or(settings.port)))
            .unwrap_or((settings.hostname.clone(), settings.port));
        let url = ConnectUrl {
            host,
            port,
            database: Some(settings.dbname.clone()),
            user: None,
            password: None,
        };
        let committed = offsets(&[partition(&settings.topic_prefix)]).pop().flatten();
        let offset = committed.as_ref().map(Offset::from_json);
        if let Some(o) = &committed {
            info!("Resuming from offset {o}");
        }
        let run_id = format!("{:x}", now_us());
        let emitter = Emitter::new(&settings, run_id);
        let position = Position::new(0);
        self.state = Some(State {
            settings,
            url,
            emitter,
            phase: Phase::Connect,
            position,
            offset,
            snapshotted: false,
            last_status: Instant::now(),
            last_heartbeat: Instant::now(),
        });
        Ok(())
    }

    fn poll(&mut self, max_records: u32) -> Result<Vec<SourceRecord>> {
        let state = self.state.as_mut().expect("started");
        let max = (max_records as usize).clamp(1, state.settings.max_batch_size);
        if matches!(state.phase, Phase::Connect)
            && let Err(e) = state.connect()
        {
            state.close();
            return Err(e);
        }
        let result = match state.phase {
            Phase::Snapshot { .. } => state.poll_snapshot(max),
            Phase::Stream { .. } => state.poll_stream(max),
            Phase::Connect | Phase::Done => Ok(Vec::new()),
        };
        match result {
            Ok(records) => {
                let confirmable = records
                    .last()
                    .map(|r| Offset::from_json(&r.source_offset))
                    .filter(|o| o.snapshot.is_none())
                    .and_then(|o| o.lsn_commit)
                    .unwrap_or(0);
                state.position.returned(records.len(), confirmable);
                Ok(records)
            }
            Err(e) => {
                warn!("{}", e.message());
                state.close();
                Err(e)
            }
        }
    }

    fn commit_record(&mut self, ack: RecordAck) -> Result<()> {
        if let Some(state) = &mut self.state {
            state.position.acknowledged(ack.sequence);
        }
        Ok(())
    }

    fn commit(&mut self) -> Result<()> {
        let Some(state) = &mut self.state else { return Ok(()) };
        let Some(lsn) = state.position.take_confirmable() else { return Ok(()) };
        if let Phase::Stream { stream, .. } = &mut state.phase {
            let (l, r) = (Lsn::from(lsn), Lsn::from(stream.received.max(lsn)));
            if let Err(e) = stream.repl.send_status(r, l, l, false) {
                warn!("Cannot confirm {l} to the slot: {e}");
            }
        }
        Ok(())
    }

    fn stop(&mut self) {
        let Some(mut state) = self.state.take() else { return };
        state.close();
        if state.settings.slot_drop_on_stop {
            let s = &state.settings;
            let dropped =
                Replication::connect(&state.url, &s.user, s.password.as_deref().unwrap_or(""))
                    .and_then(|mut r| r.drop_slot(&s.slot_name));
            match dropped {
                Ok(_) => info!("Dropped replication slot '{}'", s.slot_name),
                Err(e) => warn!("Cannot drop replication slot '{}': {e}", s.slot_name),
            }
        }
    }
}
