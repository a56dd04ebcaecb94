//! [`Tables`]: the columns of each destination table this task has seen, read from
//! `information_schema.columns` once, and the DDL of `auto.create` and `auto.evolve`
//! when a row needs a table or columns that do not exist.
//!
//! It owns the cache only; statements for the rows themselves are `sql`'s.

use std::collections::{HashMap, HashSet};

use postgres_wire::{Client, PgError};

use crate::config::Settings;
use crate::rows::Row;
use crate::sql;

/// Why a row's table is not ready.
pub enum TableError {
    /// The database failed; the batch may be tried again.
    Db(PgError),
    /// This row cannot be written (no schema to create from, a missing column without
    /// `auto.evolve`, ...).
    Row(String),
}

impl From<PgError> for TableError {
    fn from(e: PgError) -> Self {
        if e.is_transient() { Self::Db(e) } else { Self::Row(e.to_string()) }
    }
}

/// Known tables and their columns.
#[derive(Default)]
pub struct Tables {
    columns: HashMap<String, HashSet<String>>,
}

impl Tables {
    /// Forgets everything (after a reconnect, the tables may have changed).
    pub fn clear(&mut self) {
        self.columns.clear();
    }

    fn load(client: &mut Client, table: &str) -> Result<HashSet<String>, PgError> {
        let (schema, name) = match table.split_once('.') {
            Some((s, n)) => (Some(s), n),
            None => (None, table),
        };
        let sql = "SELECT column_name::text FROM information_schema.columns \
                   WHERE table_schema = COALESCE($1::text, current_schema()) AND table_name = $2::text";
        let result = client.query(sql, &[schema, Some(name)])?;
        Ok(result.rows.into_iter().filter_map(|mut r| r.pop().flatten()).collect())
    }

    /// Makes sure `row`'s table has its columns: creates or evolves it if allowed.
    pub fn ensure(
        &mut self,
        client: &mut Client,
        s: &Settings,
        row: &Row,
    ) -> Result<(), TableError> {
        if !self.columns.contains_key(&row.table) {
            let cols = Self::load(client, &row.table)?;
            self.columns.insert(row.table.clone(), cols);
        }
        let known = self.columns.get_mut(&row.table).expect("loaded above");
        if known.is_empty() {
            if !s.auto_create {
                return Err(TableError::Row(format!(
                    "table {} does not exist and auto.create is false",
                    row.table
                )));
            }
            let cols: Vec<_> = row.columns().collect();
            if cols.iter().any(|c| c.sql_type.is_none()) {
                return Err(TableError::Row(format!(
                    "cannot create table {} from a record without a schema",
                    row.table
                )));
            }
            let key: Vec<&str> = row.key.iter().map(|c| c.name.as_str()).collect();
            client.simple_query(&sql::create_table(&row.table, &cols, &key))?;
            *known = Self::load(client, &row.table)?;
            return Ok(());
        }
        for c in row.columns() {
            if known.contains(&c.name) {
                continue;
            }
            if !s.auto_evolve {
                return Err(TableError::Row(format!(
                    "table {} has no column {} and auto.evolve is false",
                    row.table, c.name
                )));
            }
            if c.sql_type.is_none() {
                return Err(TableError::Row(format!(
                    "cannot add column {} without a schema",
                    c.name
                )));
            }
            if !c.optional {
                return Err(TableError::Row(format!(
                    "cannot add the non-optional column {} to {}",
                    c.name, row.table
                )));
            }
            client.simple_query(&sql::add_column(&row.table, c))?;
            known.insert(c.name.clone());
        }
        Ok(())
    }
}
