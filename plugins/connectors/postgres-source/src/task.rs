//! [`JdbcSourceTask`]: reads its tables (or the query) in turn, each at most every
//! `poll.interval.ms` unless the last read was a full batch, and returns their rows as
//! records with a struct schema.
//!
//! It owns the connection (opened on the first poll, dropped on any error: a database
//! that is down makes `poll` fail retriably, and the worker backs off), the queriers and
//! the column nullability cache. Committed offsets are read once per querier on start.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use postgres_wire::{Client, Column, PgError, Session};
use wasm_connect_sdk::{Config, Error, Result, SourceRecord, SourceTask, info, offsets};

use crate::config::{Mode, Settings};
use crate::querier::{Offset, Querier};
use crate::schema::{payload, struct_schema};

/// The task; nothing until `start`.
#[derive(Default)]
pub struct JdbcSourceTask {
    settings: Option<Settings>,
    session: Option<Session>,
    queriers: Vec<Querier>,
    /// The next querier to look at.
    cursor: usize,
    /// table OID → attribute number → NOT NULL.
    not_null: HashMap<u32, HashMap<i16, bool>>,
}

impl JdbcSourceTask {
    fn client(&mut self) -> std::result::Result<&mut Client, PgError> {
        let session = self.session.as_mut().expect("started");
        let (host, port) = (session.url().host.clone(), session.url().port);
        let (client, opened) = session.client()?;
        if opened {
            info!("Connected to PostgreSQL at {host}:{port}");
        }
        Ok(client)
    }

    /// Whether each column may be null (unknown columns may).
    fn optional(&mut self, columns: &[Column]) -> std::result::Result<Vec<bool>, PgError> {
        for c in columns {
            if c.table_oid != 0 && !self.not_null.contains_key(&c.table_oid) {
                let oid = c.table_oid.to_string();
                let sql = "SELECT attnum::text, attnotnull::text FROM pg_attribute WHERE attrelid = $1::oid AND attnum > 0";
                let rows = self.client()?.query(sql, &[Some(&oid)])?.rows;
                let map = rows
                    .into_iter()
                    .filter_map(|r| {
                        Some((r[0].as_deref()?.parse().ok()?, r[1].as_deref() == Some("true")))
                    })
                    .collect();
                self.not_null.insert(c.table_oid, map);
            }
        }
        Ok(columns
            .iter()
            .map(|c| {
                !self
                    .not_null
                    .get(&c.table_oid)
                    .and_then(|m| m.get(&c.column_id))
                    .copied()
                    .unwrap_or(false)
            })
            .collect())
    }

    /// Reads the next rows of querier `i` into its buffer.
    fn read(&mut self, i: usize) -> std::result::Result<(), Error> {
        let s = self.settings.clone().expect("started");
        let (sql, params) = self.queriers[i].statement(&s);
        let params: Vec<Option<&str>> = params.iter().map(Option::as_deref).collect();
        let result = self.client().and_then(|c| c.query(&sql, &params)).map_err(retriable)?;
        let optional = self.optional(&result.columns).map_err(retriable)?;
        let q = &mut self.queriers[i];
        let schema = struct_schema(q.schema_name(), &result.columns, &optional);
        let full = s.mode != Mode::Bulk
            && s.mode != Mode::Timestamp
            && result.rows.len() >= s.batch_max_rows;
        for row in &result.rows {
            q.advance(&s, &result.columns, row).map_err(Error::fatal)?;
            let value = payload(&result.columns, row).map_err(Error::fatal)?;
            q.buffer.push_back(
                SourceRecord::new(&q.topic, q.partition.clone(), q.offset.to_json())
                    .connect_json_value(&schema, &value),
            );
        }
        let now = Instant::now();
        q.next_at =
            if full { None } else { Some((now + Duration::from_millis(s.poll_interval_ms), now)) };
        Ok(())
    }
}

fn retriable(e: PgError) -> Error {
    Error::retriable(format!("PostgreSQL: {e}"))
}

impl SourceTask for JdbcSourceTask {
    fn start(&mut self, config: Config) -> Result<()> {
        let s = Settings::parse(&config)?;
        let session = s.connection.session();
        let session = session.map_err(|e| Error::config(format!("connection.url: {e}")))?;
        let database = session.url().database.clone();
        let database = database.or_else(|| s.connection.user.clone()).unwrap_or_default();
        self.queriers = match &s.query {
            Some(_) => vec![Querier::new(&s, None, &database)],
            None => s.tables.iter().map(|t| Querier::new(&s, Some(t), &database)).collect(),
        };
        let partitions: Vec<_> = self.queriers.iter().map(|q| q.partition.clone()).collect();
        for (q, committed) in self.queriers.iter_mut().zip(offsets(&partitions)) {
            if let Some(o) = committed {
                q.offset = Offset::from_json(&o);
                info!("Resuming {} from {o}", q.topic);
            }
        }
        self.session = Some(session);
        self.settings = Some(s);
        Ok(())
    }

    fn poll(&mut self, max_records: u32) -> Result<Vec<SourceRecord>> {
        let max = (max_records as usize).max(1);
        if self.queriers.is_empty() {
            return Ok(Vec::new());
        }
        let now = Instant::now();
        for step in 0..self.queriers.len() {
            let i = (self.cursor + step) % self.queriers.len();
            if self.queriers[i].buffer.is_empty()
                && self.queriers[i].due(now)
                && let Err(e) = self.read(i)
            {
                if let Some(session) = &mut self.session {
                    session.close();
                }
                return Err(e);
            }
            let limit = max.min(self.settings.as_ref().map_or(max, |s| s.batch_max_rows));
            let count = self.queriers.len();
            let q = &mut self.queriers[i];
            if !q.buffer.is_empty() {
                let n = limit.min(q.buffer.len());
                self.cursor = (i + 1) % count;
                return Ok(q.buffer.drain(..n).collect());
            }
        }
        Ok(Vec::new())
    }

    fn stop(&mut self) {
        if let Some(session) = &mut self.session {
            session.close();
        }
    }
}
