//! [`JdbcSinkTask`]: writes each `put` in one transaction, and reports what it could not
//! write per record.
//!
//! A put plans its statements (`plan`), runs them between BEGIN and COMMIT in one round
//! trip, and on a rejected statement rolls back and writes the rows one by one under
//! savepoints, so only the rejected records come back as [`RecordFailure`]s (routed by
//! `errors.tolerance` and the dead letter queue) and the rest commit. A database that is
//! down or goes away is a retriable error: the connection is dropped, the worker delivers
//! the batch again, the task waits `retry.backoff.ms` before the next attempt and fails
//! only after `max.retries` such errors in a row. `pre_commit` returns offsets of
//! committed rows only.
//!
//! This module owns the connection, the table cache and the committed offsets.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use postgres_wire::{Client, PgError, Session};
use wasm_connect_sdk::{
    Config, Error, RecordFailure, Result, SinkRecord, SinkTask, TopicPartition,
    TopicPartitionOffset, info, warn,
};

use crate::config::Settings;
use crate::plan::plan;
use crate::record::Schemas;
use crate::rows::{Row, row};
use crate::tables::{TableError, Tables};

/// The task; nothing until `start`.
#[derive(Default)]
pub struct JdbcSinkTask {
    settings: Option<Settings>,
    session: Option<Session>,
    tables: Tables,
    schemas: Schemas,
    /// Per topic-partition, the offset after the last committed record.
    committed: HashMap<(String, i32), i64>,
    /// Transient errors in a row.
    retries: u32,
    /// No attempt before this instant (and the instant the wait was set, to see a clock
    /// that does not move).
    retry_at: Option<(Instant, Instant)>,
}

impl JdbcSinkTask {
    fn settings(&self) -> Result<&Settings> {
        self.settings.as_ref().ok_or_else(|| Error::fatal("put before start"))
    }

    /// Writes the batch; `Err` only for a failure worth retrying the whole batch.
    fn write(
        &mut self,
        records: &[SinkRecord],
    ) -> std::result::Result<Vec<RecordFailure>, PgError> {
        let s = self.settings.clone().expect("started");
        let mut failures = Vec::new();
        let mut rows: Vec<(usize, Row)> = Vec::with_capacity(records.len());
        let client = connect(self.session.as_mut().expect("started"), &mut self.tables)?;
        for (i, record) in records.iter().enumerate() {
            match row(&s, &mut self.schemas, record) {
                Ok(None) => {}
                Ok(Some(r)) => match self.tables.ensure(client, &s, &r) {
                    Ok(()) => rows.push((i, r)),
                    Err(TableError::Db(e)) => return Err(e),
                    Err(TableError::Row(m)) => failures.push(RecordFailure::new(i, m)),
                },
                Err(m) => failures.push(RecordFailure::new(i, m)),
            }
        }
        if rows.is_empty() {
            return Ok(failures);
        }
        let mut statements = vec![("BEGIN".to_owned(), Vec::new())];
        statements.extend(plan(&s, &rows, false).into_iter().map(|(st, _)| st));
        statements.push(("COMMIT".to_owned(), Vec::new()));
        match client.pipeline(&statements) {
            Ok(_) => return Ok(failures),
            Err((_, e)) if e.is_transient() => return Err(e),
            Err((_, e)) => {
                warn!("A batch of {} rows was rejected ({e}); writing them one by one", rows.len());
                client.simple_query("ROLLBACK")?;
            }
        }
        client.simple_query("BEGIN")?;
        for ((statement, indices), n) in plan(&s, &rows, true).into_iter().zip(0..) {
            let sp = format!("r{n}");
            let steps = [
                (format!("SAVEPOINT {sp}"), Vec::new()),
                statement,
                (format!("RELEASE SAVEPOINT {sp}"), Vec::new()),
            ];
            match client.pipeline(&steps) {
                Ok(_) => {}
                Err((_, e)) if e.is_transient() => return Err(e),
                Err((_, e)) => {
                    client.simple_query(&format!("ROLLBACK TO SAVEPOINT {sp}"))?;
                    failures
                        .extend(indices.into_iter().map(|i| RecordFailure::new(i, e.to_string())));
                }
            }
        }
        client.simple_query("COMMIT")?;
        failures.sort_by_key(|f| f.index);
        Ok(failures)
    }
}

/// The session's connection; the table cache is dropped whenever it is a new one.
fn connect<'s>(
    session: &'s mut Session,
    tables: &mut Tables,
) -> std::result::Result<&'s mut Client, PgError> {
    let (host, port) = (session.url().host.clone(), session.url().port);
    let (client, opened) = session.client()?;
    if opened {
        info!("Connected to PostgreSQL at {host}:{port}");
        tables.clear();
    }
    Ok(client)
}

impl SinkTask for JdbcSinkTask {
    fn start(&mut self, config: Config) -> Result<()> {
        let settings = Settings::parse(&config)?;
        let session = settings.connection.session();
        self.session = Some(session.map_err(|e| Error::config(format!("connection.url: {e}")))?);
        self.settings = Some(settings);
        Ok(())
    }

    fn put(&mut self, records: &[SinkRecord]) -> Result<Vec<RecordFailure>> {
        let (max_retries, backoff) = {
            let s = self.settings()?;
            (s.max_retries, Duration::from_millis(s.retry_backoff_ms))
        };
        if let Some((at, set)) = self.retry_at {
            let now = Instant::now();
            if now < at && now != set {
                return Err(Error::retriable("waiting retry.backoff.ms before the next attempt"));
            }
        }
        match self.write(records) {
            Ok(failures) => {
                self.retries = 0;
                self.retry_at = None;
                for r in records {
                    let (Some(p), Some(o)) = (r.partition, r.offset) else { continue };
                    let slot = self.committed.entry((r.topic.clone(), p)).or_insert(0);
                    *slot = (*slot).max(o + 1);
                }
                Ok(failures)
            }
            Err(e) => {
                if let Some(session) = &mut self.session {
                    session.close();
                }
                self.retries += 1;
                if self.retries > max_retries {
                    return Err(Error::fatal(format!(
                        "PostgreSQL failed {} times in a row (max.retries={max_retries}): {e}",
                        self.retries
                    )));
                }
                let now = Instant::now();
                self.retry_at = Some((now + backoff, now));
                warn!(
                    "Write to PostgreSQL failed (attempt {} of {}), retrying: {e}",
                    self.retries,
                    max_retries + 1
                );
                Err(Error::retriable(e.to_string()))
            }
        }
    }

    fn pre_commit(
        &mut self,
        offsets: Vec<TopicPartitionOffset>,
    ) -> Result<Vec<TopicPartitionOffset>> {
        Ok(offsets
            .into_iter()
            .filter_map(|o| {
                let done = *self.committed.get(&(o.topic.clone(), o.partition))?;
                Some(TopicPartitionOffset { offset: o.offset.min(done), ..o })
            })
            .collect())
    }

    fn close(&mut self, partitions: &[TopicPartition]) -> Result<()> {
        for tp in partitions {
            self.committed.remove(&(tp.topic.clone(), tp.partition));
        }
        Ok(())
    }

    fn stop(&mut self) {
        if let Some(session) = &mut self.session {
            session.close();
        }
    }
}
