//! [`Snapshot`]: the snapshot of the captured tables, read in Debezium's table order inside
//! one `REPEATABLE READ` transaction on an ordinary connection, which imports the snapshot
//! the slot exported when there is one (so the rows are exactly those the stream starts
//! after). Rows come through a cursor, `snapshot.fetch.size` at a time, each with its
//! `source.snapshot` marker (`first`, `first_in_data_collection`, `true`,
//! `last_in_data_collection`, `last`), which needs one row of look-ahead.
//!
//! It owns the snapshot transaction and its cursor; it builds no record (the task does,
//! through the emitter) and never touches the replication connection.

use std::collections::VecDeque;

use postgres_wire::{Client, PgError, quote_ident, quote_literal};

use crate::catalog::TableMeta;
use crate::pgoutput::Datum;
use crate::source_info::SnapshotMarker;

/// One snapshot row: its table (an index into the snapshot's tables), its values aligned
/// with the table's columns, and its marker.
pub struct Row {
    pub table: usize,
    pub values: Vec<Datum>,
    pub marker: SnapshotMarker,
}

/// A snapshot being read.
pub struct Snapshot {
    client: Client,
    tables: Vec<TableMeta>,
    /// The table whose cursor is open (or next to open).
    current: usize,
    open: bool,
    /// Rows fetched and not handed out, with their table.
    ahead: VecDeque<(usize, Vec<Datum>)>,
    /// Whether the current table's cursor is exhausted.
    drained: bool,
    emitted_any: bool,
    /// Rows handed out of the current table.
    emitted_in_table: u64,
    fetch: usize,
    /// The snapshot transaction's id (`txid_current()`).
    pub tx_id: i64,
}

fn datums(row: Vec<Option<String>>) -> Vec<Datum> {
    row.into_iter().map(|v| v.map_or(Datum::Null, Datum::Text)).collect()
}

impl Snapshot {
    /// Opens the snapshot transaction on `client`, importing `exported` when given.
    pub fn begin(
        mut client: Client,
        exported: Option<&str>,
        tables: Vec<TableMeta>,
        fetch: usize,
    ) -> Result<Self, PgError> {
        client.simple_query("BEGIN ISOLATION LEVEL REPEATABLE READ")?;
        if let Some(name) = exported {
            client.simple_query(&format!("SET TRANSACTION SNAPSHOT {}", quote_literal(name)))?;
        }
        let txid = client.simple_query("SELECT txid_current()")?;
        let tx_id = txid.rows.first().and_then(|r| r[0].as_deref()?.parse().ok()).unwrap_or(0);
        Ok(Self {
            client,
            tables,
            current: 0,
            open: false,
            ahead: VecDeque::new(),
            drained: false,
            emitted_any: false,
            emitted_in_table: 0,
            fetch: fetch.max(1),
            tx_id,
        })
    }

    /// The tables, in snapshot order.
    pub fn tables(&self) -> &[TableMeta] {
        &self.tables
    }

    /// Fills the look-ahead with the next rows: at least two when there are that many, so
    /// the last row of a table and of the snapshot is known when it is handed out.
    fn fill(&mut self) -> Result<(), PgError> {
        while self.ahead.len() < 2 && self.current < self.tables.len() {
            let t = &self.tables[self.current];
            if !self.open {
                let columns: Vec<String> = t.columns.iter().map(|c| quote_ident(&c.name)).collect();
                let select =
                    if columns.is_empty() { "NULL".to_owned() } else { columns.join(", ") };
                let sql = format!(
                    "DECLARE wc_snapshot NO SCROLL CURSOR FOR SELECT {select} FROM {}.{}",
                    quote_ident(&t.schema),
                    quote_ident(&t.name)
                );
                self.client.simple_query(&sql)?;
                self.open = true;
                self.drained = false;
            }
            if !self.drained {
                let rows = self
                    .client
                    .simple_query(&format!("FETCH {} FROM wc_snapshot", self.fetch))?
                    .rows;
                self.drained = rows.len() < self.fetch;
                let table = self.current;
                self.ahead.extend(rows.into_iter().map(|r| (table, datums(r))));
            }
            if self.drained {
                self.client.simple_query("CLOSE wc_snapshot")?;
                self.open = false;
                self.current += 1;
            }
        }
        Ok(())
    }

    /// The next rows, at most `max`; empty once the snapshot is over.
    pub fn next(&mut self, max: usize) -> Result<Vec<Row>, PgError> {
        let mut out = Vec::new();
        while out.len() < max {
            self.fill()?;
            let Some((table, values)) = self.ahead.pop_front() else { break };
            let next_table = self.ahead.front().map(|(t, _)| *t);
            let last_overall = next_table.is_none() && self.current >= self.tables.len();
            let last_in_table = next_table != Some(table);
            let first_in_table = self.emitted_in_table == 0;
            let marker = SnapshotMarker::resolve(
                !self.emitted_any,
                last_overall,
                first_in_table,
                last_in_table,
            );
            self.emitted_any = true;
            self.emitted_in_table = if last_in_table { 0 } else { self.emitted_in_table + 1 };
            out.push(Row { table, values, marker });
        }
        Ok(out)
    }

    /// Whether every row was handed out.
    pub fn is_done(&self) -> bool {
        self.ahead.is_empty() && self.current >= self.tables.len()
    }

    /// Ends the snapshot transaction and gives the connection back.
    pub fn finish(mut self) -> Result<Client, PgError> {
        self.client.simple_query("COMMIT")?;
        Ok(self.client)
    }
}
