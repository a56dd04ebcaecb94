//! The answers of queries as values: [`QueryResult`] (text rows and the affected count)
//! with its [`Column`]s, and their decoding from `RowDescription`, `DataRow` and
//! `CommandComplete` bodies. It decodes; it reads no socket.

use fallible_iterator::FallibleIterator;
use postgres_protocol::message::backend::{DataRowBody, RowDescriptionBody};

use super::protocol;
use crate::PgError;

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

pub(super) fn columns(body: &RowDescriptionBody) -> Result<Vec<Column>, PgError> {
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

pub(super) fn row(body: &DataRowBody) -> Result<Vec<Option<String>>, PgError> {
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

pub(super) fn affected(tag: &str) -> u64 {
    tag.rsplit(' ').next().and_then(|n| n.parse().ok()).unwrap_or(0)
}
