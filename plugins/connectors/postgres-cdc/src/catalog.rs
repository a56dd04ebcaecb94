//! Table and type metadata read from the database's catalog: [`TableMeta`] and
//! [`ColumnMeta`], with each column's [`PgType`] resolved (enums with their labels, arrays
//! with their element, domains as their base type).
//!
//! A table read here is matched with the `Relation` messages of the stream by
//! [`TableMeta::matches`] and [`TableMeta::align`].
//!
//! This module owns the catalog queries (`pg_class`, `pg_attribute`, `pg_index`,
//! `pg_type`, `pg_enum`) and which columns form the key. It does not filter columns or
//! convert values; it only reads, through a `postgres_wire::Client`.

use std::collections::HashMap;

use postgres_wire::{Client, PgError};

use crate::pgoutput::{Datum, Relation};
use crate::pgtype::PgType;
use crate::settings::Settings;

/// A column of a table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ColumnMeta {
    pub name: String,
    /// `attnum`, from 1.
    pub position: i16,
    pub type_oid: u32,
    /// `atttypmod`: -1 when the type has none.
    pub type_modifier: i32,
    /// As `format_type` writes it, e.g. `character varying(255)`.
    pub type_name: String,
    pub not_null: bool,
    /// The default expression as `pg_get_expr` writes it.
    pub default_expr: Option<String>,
    /// Part of the record key: a primary key column, else a replica identity index
    /// column, or a `message.key.columns` column.
    pub key: bool,
    pub ty: PgType,
}

/// An ordinary or partitioned table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableMeta {
    pub oid: u32,
    pub schema: String,
    pub name: String,
    /// `relreplident`: `d` default, `f` full, `n` nothing, `i` index.
    pub replica_identity: char,
    /// In table order.
    pub columns: Vec<ColumnMeta>,
}

impl TableMeta {
    /// Whether any column is a key column.
    pub fn has_key(&self) -> bool {
        self.columns.iter().any(|c| c.key)
    }

    /// Whether a pgoutput `Relation` describes this table as read: same name, and the same
    /// column names and type OIDs in order. When not, read the table again.
    pub fn matches(&self, relation: &Relation) -> bool {
        self.schema == relation.namespace
            && self.name == relation.name
            && self.columns.len() == relation.columns.len()
            && self
                .columns
                .iter()
                .zip(&relation.columns)
                .all(|(c, r)| c.name == r.name && c.type_oid == r.type_oid)
    }

    /// A tuple of `relation` (one datum per relation column) rearranged to this table's
    /// columns, matched by name; a column the relation lacks is `Datum::Null`.
    pub fn align(&self, relation: &Relation, tuple: &[Datum]) -> Vec<Datum> {
        self.columns
            .iter()
            .map(|c| {
                relation
                    .columns
                    .iter()
                    .position(|r| r.name == c.name)
                    .and_then(|i| tuple.get(i).cloned())
                    .unwrap_or(Datum::Null)
            })
            .collect()
    }
}

const TABLES: &str = "SELECT c.oid, n.nspname, c.relname, c.relreplident FROM pg_class c \
     JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('r', 'p')";

const COLUMNS: &str = "SELECT a.attrelid, a.attname, a.attnum, a.atttypid, a.atttypmod, \
     format_type(a.atttypid, a.atttypmod), a.attnotnull, pg_get_expr(d.adbin, d.adrelid) \
     FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum \
     WHERE a.attrelid = ANY($1::oid[]) AND a.attnum > 0 AND NOT a.attisdropped \
     ORDER BY a.attrelid, a.attnum";

const KEYS: &str = "SELECT i.indrelid, i.indisprimary, array_to_string(i.indkey, ' ') FROM pg_index i \
     WHERE i.indrelid = ANY($1::oid[]) AND (i.indisprimary OR i.indisreplident)";

const TYPE: &str = "SELECT t.typtype, t.typname, t.typelem, t.typbasetype, t.typcategory, \
     (SELECT json_agg(e.enumlabel ORDER BY e.enumsortorder) FROM pg_enum e WHERE e.enumtypid = t.oid) \
     FROM pg_type t WHERE t.oid = $1";

fn cell(row: &[Option<String>], i: usize) -> &str {
    row.get(i).and_then(|c| c.as_deref()).unwrap_or("")
}

fn num<T: std::str::FromStr + Default>(row: &[Option<String>], i: usize) -> T {
    cell(row, i).parse().unwrap_or_default()
}

/// Every table `settings` captures, in name order of `schema.table`.
pub fn tables(client: &mut Client, settings: &Settings) -> Result<Vec<TableMeta>, PgError> {
    let rows = client.simple_query(TABLES)?.rows;
    let mut out: Vec<TableMeta> = rows
        .iter()
        .map(|r| TableMeta {
            oid: num(r, 0),
            schema: cell(r, 1).to_owned(),
            name: cell(r, 2).to_owned(),
            replica_identity: cell(r, 3).chars().next().unwrap_or('d'),
            columns: Vec::new(),
        })
        .filter(|t| settings.filters.include_table(&t.schema, &t.name))
        .collect();
    out.sort_by_key(|t| format!("{}.{}", t.schema, t.name));
    fill_columns(client, &mut out, settings)?;
    Ok(out)
}

/// The table with OID `oid` (filters not applied), or `None` when it does not exist.
pub fn table(
    client: &mut Client,
    oid: u32,
    settings: &Settings,
) -> Result<Option<TableMeta>, PgError> {
    let sql = format!("{TABLES} AND c.oid = {oid}");
    let rows = client.simple_query(&sql)?.rows;
    let Some(r) = rows.first() else { return Ok(None) };
    let mut out = vec![TableMeta {
        oid,
        schema: cell(r, 1).to_owned(),
        name: cell(r, 2).to_owned(),
        replica_identity: cell(r, 3).chars().next().unwrap_or('d'),
        columns: Vec::new(),
    }];
    fill_columns(client, &mut out, settings)?;
    Ok(out.pop())
}

fn fill_columns(
    client: &mut Client,
    tables: &mut [TableMeta],
    settings: &Settings,
) -> Result<(), PgError> {
    if tables.is_empty() {
        return Ok(());
    }
    let oids: Vec<String> = tables.iter().map(|t| t.oid.to_string()).collect();
    let array = format!("{{{}}}", oids.join(","));
    let columns = client.query(COLUMNS, &[Some(&array)])?.rows;
    let keys = client.query(KEYS, &[Some(&array)])?.rows;
    let mut types = TypeCache::default();
    let index: HashMap<u32, usize> = tables.iter().enumerate().map(|(i, t)| (t.oid, i)).collect();
    for r in &columns {
        let Some(&t) = index.get(&num::<u32>(r, 0)) else { continue };
        let type_oid: u32 = num(r, 3);
        let ty = types.resolve(client, type_oid)?;
        tables[t].columns.push(ColumnMeta {
            name: cell(r, 1).to_owned(),
            position: num(r, 2),
            type_oid,
            type_modifier: cell(r, 4).parse().unwrap_or(-1),
            type_name: cell(r, 5).to_owned(),
            not_null: cell(r, 6) == "t",
            default_expr: r.get(7).cloned().flatten(),
            key: false,
            ty,
        });
    }
    for table in tables.iter_mut() {
        let of_table: Vec<_> = keys.iter().filter(|r| num::<u32>(r, 0) == table.oid).collect();
        let chosen = of_table.iter().find(|r| cell(r, 1) == "t").or(of_table.first());
        let positions: Vec<i16> = chosen
            .map(|r| cell(r, 2).split_whitespace().filter_map(|p| p.parse().ok()).collect())
            .unwrap_or_default();
        let custom = settings.key_columns_of(&table.schema, &table.name);
        for c in &mut table.columns {
            c.key = match custom {
                Some(names) => names.iter().any(|n| n == &c.name),
                None => positions.contains(&c.position),
            };
        }
    }
    Ok(())
}

/// Resolved types by OID, for one catalog read.
#[derive(Default)]
struct TypeCache(HashMap<u32, PgType>);

impl TypeCache {
    fn resolve(&mut self, client: &mut Client, oid: u32) -> Result<PgType, PgError> {
        if let Some(t) = PgType::builtin(oid).or_else(|| self.0.get(&oid).cloned()) {
            return Ok(t);
        }
        let ty = self.lookup(client, oid, 0)?;
        self.0.insert(oid, ty.clone());
        Ok(ty)
    }

    fn lookup(&mut self, client: &mut Client, oid: u32, depth: u8) -> Result<PgType, PgError> {
        if let Some(t) = PgType::builtin(oid) {
            return Ok(t);
        }
        let oid_text = oid.to_string();
        let rows = client.query(TYPE, &[Some(&oid_text)])?.rows;
        let Some(r) = rows.first() else { return Ok(PgType::Unknown(oid_text)) };
        let name = cell(r, 1).to_owned();
        if depth > 8 {
            return Ok(PgType::Unknown(name));
        }
        Ok(match (cell(r, 0), cell(r, 4)) {
            ("e", _) => PgType::Enum(serde_json::from_str(cell(r, 5)).unwrap_or_default()),
            ("d", _) => self.lookup(client, num(r, 3), depth + 1)?,
            (_, "A") => PgType::Array(Box::new(self.lookup(client, num(r, 2), depth + 1)?)),
            _ if name == "hstore" => PgType::Hstore,
            _ if name == "citext" => PgType::Text,
            _ => PgType::Unknown(name),
        })
    }
}

#[cfg(test)]
#[path = "catalog_tests.rs"]
mod tests;
