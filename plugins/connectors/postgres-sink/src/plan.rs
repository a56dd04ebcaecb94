//! [`plan`]: the statements that write a batch of rows, in record order. Consecutive rows
//! of one table, kind and column list share one statement (a multi-row INSERT or upsert,
//! or one DELETE) of at most `batch.size` rows; a key seen twice starts a new statement,
//! so an upsert never touches a row twice and a delete then insert of one key keeps its
//! order. `update` mode is one UPDATE per row. Pure.

use std::collections::HashSet;

use postgres_wire::Statement;

use crate::config::{InsertMode, Settings};
use crate::rows::{Row, RowKind};
use crate::sql;

/// PostgreSQL's limit on the parameters of one statement.
const MAX_PARAMS: usize = 65_535;

/// A statement and the indices (in the put's records) of the rows it writes.
pub type Planned = (Statement, Vec<usize>);

fn names(row: &Row) -> Vec<&str> {
    row.columns().map(|c| c.name.as_str()).collect()
}

fn same_shape(a: &Row, b: &Row) -> bool {
    a.table == b.table && a.kind == b.kind && names(a) == names(b)
}

/// The statements for `rows` (each with its record index); `single` plans one statement
/// per row (to find which rows the database rejects).
pub fn plan(s: &Settings, rows: &[(usize, Row)], single: bool) -> Vec<Planned> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < rows.len() {
        let first = &rows[start].1;
        let width = first.columns().count().max(1);
        let limit = if single { 1 } else { s.batch_size.min(MAX_PARAMS / width).max(1) };
        let mut keys = HashSet::new();
        let mut end = start;
        while end < rows.len() && end - start < limit && same_shape(first, &rows[end].1) {
            if !first.key.is_empty() && !keys.insert(rows[end].1.key_values()) {
                break;
            }
            end += 1;
        }
        out.extend(statements(s, &rows[start..end]));
        start = end;
    }
    out
}

fn statements(s: &Settings, chunk: &[(usize, Row)]) -> Vec<Planned> {
    let first = &chunk[0].1;
    let indices: Vec<usize> = chunk.iter().map(|(i, _)| *i).collect();
    let key: Vec<&str> = first.key.iter().map(|c| c.name.as_str()).collect();
    if first.kind == RowKind::Delete {
        let params =
            chunk.iter().flat_map(|(_, r)| r.key.iter().map(|c| c.value.clone())).collect();
        return vec![((sql::delete(&first.table, &key, chunk.len()), params), indices)];
    }
    if s.insert_mode == InsertMode::Update {
        let set: Vec<&str> = first.fields.iter().map(|c| c.name.as_str()).collect();
        if set.is_empty() {
            return Vec::new();
        }
        let text = sql::update(&first.table, &set, &key);
        return chunk
            .iter()
            .map(|(i, r)| {
                let params = r.fields.iter().chain(&r.key).map(|c| c.value.clone()).collect();
                ((text.clone(), params), vec![*i])
            })
            .collect();
    }
    let cols = names(first);
    let text = match s.insert_mode {
        InsertMode::Upsert => sql::upsert(&first.table, &cols, &key, chunk.len()),
        _ => sql::insert(&first.table, &cols, chunk.len()),
    };
    let params = chunk.iter().flat_map(|(_, r)| r.columns().map(|c| c.value.clone())).collect();
    vec![((text, params), indices)]
}
