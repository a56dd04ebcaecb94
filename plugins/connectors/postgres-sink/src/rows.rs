//! [`Row`]: what one record does to its table under the sink's settings: write its
//! columns (key columns first, by `pk.mode` and `pk.fields`, then the value's fields
//! narrowed by `fields.whitelist`) or delete the row of its key (a tombstone with
//! `delete.enabled`). Pure: no SQL and no I/O.

use wasm_connect_sdk::SinkRecord;

use crate::config::{PkMode, Settings};
use crate::record::{Column, Data, Schemas, data};

/// Write or delete.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RowKind {
    Write,
    Delete,
}

/// One record as a row of a table.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub table: String,
    pub kind: RowKind,
    /// The primary key columns (empty with pk.mode=none).
    pub key: Vec<Column>,
    /// The other columns (empty for a delete).
    pub fields: Vec<Column>,
}

impl Row {
    /// All columns, key first.
    pub fn columns(&self) -> impl Iterator<Item = &Column> {
        self.key.iter().chain(&self.fields)
    }

    /// The key's values, to tell two rows of one key apart from others.
    pub fn key_values(&self) -> Vec<Option<String>> {
        self.key.iter().map(|c| c.value.clone()).collect()
    }
}

fn fixed(name: &str, ty: &str, value: String) -> Column {
    Column { name: name.into(), sql_type: Some(ty.into()), optional: false, value: Some(value) }
}

/// The row of `record`; `Ok(None)` for a tombstone that is not a delete (skipped, as
/// the JDBC sink does), `Err` with the reason a record cannot be written.
pub fn row(
    s: &Settings,
    schemas: &mut Schemas,
    record: &SinkRecord,
) -> Result<Option<Row>, String> {
    let table = s.table(&record.topic);
    let value = data(record, false, schemas)?;
    let tombstone = value == Data::Null;
    if tombstone && !s.delete_enabled {
        return Ok(None);
    }
    let mut key = match s.pk_mode {
        PkMode::None => Vec::new(),
        PkMode::Kafka => vec![
            fixed(&s.pk_fields[0], "TEXT", record.topic.clone()),
            fixed(&s.pk_fields[1], "INT", record.partition.unwrap_or(0).to_string()),
            fixed(&s.pk_fields[2], "BIGINT", record.offset.unwrap_or(0).to_string()),
        ],
        PkMode::RecordKey => match data(record, true, schemas)? {
            Data::Null => return Err("pk.mode=record_key but the record has no key".into()),
            Data::Primitive(mut c) => {
                if s.pk_fields.len() > 1 {
                    return Err("a primitive key needs exactly one name in pk.fields".into());
                }
                c.name = s.pk_fields.first().cloned().unwrap_or_else(|| "__connect_key".into());
                vec![c]
            }
            Data::Struct(fields) => pick(fields, &s.pk_fields, "key")?,
        },
        PkMode::RecordValue => match &value {
            Data::Struct(fields) => pick(fields.clone(), &s.pk_fields, "value")?,
            _ => return Err("pk.mode=record_value needs a struct or map value".into()),
        },
    };
    for c in &mut key {
        c.optional = false;
    }
    if tombstone {
        return Ok(Some(Row { table, kind: RowKind::Delete, key, fields: Vec::new() }));
    }
    let Data::Struct(fields) = value else {
        return Err("the value must be a struct (a schema'd record) or a JSON object".into());
    };
    let fields = fields
        .into_iter()
        .filter(|c| s.fields_whitelist.is_empty() || s.fields_whitelist.contains(&c.name))
        .filter(|c| !key.iter().any(|k| k.name == c.name))
        .collect();
    Ok(Some(Row { table, kind: RowKind::Write, key, fields }))
}

/// The fields named in `names` (in that order), or all of them if `names` is empty.
fn pick(fields: Vec<Column>, names: &[String], what: &str) -> Result<Vec<Column>, String> {
    if names.is_empty() {
        return Ok(fields);
    }
    names
        .iter()
        .map(|n| {
            fields
                .iter()
                .find(|c| &c.name == n)
                .cloned()
                .ok_or_else(|| format!("the {what} has no field {n:?} (pk.fields)"))
        })
        .collect()
}
