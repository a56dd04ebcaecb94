//! [`Emitter`]: builds the `SourceRecord`s Debezium's PostgreSQL connector writes: row
//! changes (with tombstones and primary-key changes), truncates, logical decoding
//! messages, transaction BEGIN/END records and heartbeats, in `JsonConverter`'s form.
//!
//! Records that are not row changes (messages, transaction BEGIN/END, heartbeats) are
//! built in `meta_records`.
//!
//! It owns the per-table key/value/envelope schemas (cached by table OID; [`Emitter::forget`]
//! drops one when a Relation message changes it) and the rules for `before`/`after`. It
//! does not decide offsets or snapshot markers, nor keep transaction counts: the caller
//! passes [`Source`], [`Offset`] and its [`TxnTracker`].

use std::collections::HashMap;

use serde_json::{Map, Value, json};
use wasm_connect_sdk::SourceRecord;

use crate::catalog::{ColumnMeta, TableMeta};
use crate::headers;
use crate::offset::{Offset, partition};
use crate::pgoutput::Datum;
use crate::schema::{Conv, field_schema, struct_schema};
use crate::settings::Settings;
use crate::source_info::{self, Source};
use crate::transaction::TxnTracker;
use crate::value::{convert_in, unavailable, zero};

/// A row change's operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Create,
    Update,
    Delete,
    /// A snapshot read.
    Read,
}

impl Op {
    fn code(self) -> &'static str {
        match self {
            Op::Create => "c",
            Op::Update => "u",
            Op::Delete => "d",
            Op::Read => "r",
        }
    }
}

/// The `transaction` block of an event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TxnBlock {
    /// `txId:lsn` of the event.
    pub id: String,
    pub total_order: i64,
    pub data_collection_order: i64,
}

/// A struct field: the column's index, its conversion, and what a NULL becomes: the schema
/// default when there is one (Kafka's JsonConverter writes a null as the default,
/// `replace.null.with.default`), else the type's zero value for a NOT NULL column
/// (Debezium's fallback), else null.
type Field = (usize, Conv, Value);

/// One table's schemas: which columns are emitted and how.
struct TableSchema {
    /// The columns the schemas were built from; other columns rebuild them.
    columns: Vec<ColumnMeta>,
    /// (column index, conversion, value when NULL arrives) of each Value field.
    value_fields: Vec<Field>,
    key_fields: Vec<Field>,
    key_schema: Option<Value>,
    envelope_schema: Value,
}

/// Builds records; one per task.
pub struct Emitter {
    pub(crate) settings: Settings,
    run_id: String,
    tables: HashMap<u32, TableSchema>,
}

/// The `transaction` field's schema (`event.block`).
pub(crate) fn block_schema() -> Value {
    let fields = vec![
        json!({"type": "string", "optional": false, "field": "id"}),
        json!({"type": "int64", "optional": false, "field": "total_order"}),
        json!({"type": "int64", "optional": false, "field": "data_collection_order"}),
    ];
    with_field(struct_schema("event.block", fields, true, Some(1)), "transaction")
}

/// The `transaction` field's payload.
pub(crate) fn block(txn: Option<&TxnBlock>) -> Value {
    txn.map_or(Value::Null, |t| {
        let (total, per_collection) = (t.total_order, t.data_collection_order);
        json!({"id": t.id, "total_order": total, "data_collection_order": per_collection})
    })
}

fn with_field(mut schema: Value, field: &str) -> Value {
    schema["field"] = json!(field);
    schema
}

/// An envelope's payload; `now_us` is when the connector processed the event.
fn envelope_payload(
    op: &str,
    before: Value,
    after: Value,
    source: Value,
    txn: Option<&TxnBlock>,
    now_us: i64,
) -> Value {
    json!({
        "before": before,
        "after": after,
        "source": source,
        "transaction": block(txn),
        "op": op,
        "ts_ms": now_us.div_euclid(1000),
        "ts_us": now_us,
        "ts_ns": now_us.saturating_mul(1000),
    })
}

pub(crate) fn opt_i64(field: &str) -> Value {
    json!({"type": "int64", "optional": true, "field": field})
}

impl Emitter {
    /// An emitter for `settings`; `run_id` is the `__debezium.context.runId` header.
    pub fn new(settings: &Settings, run_id: impl Into<String>) -> Self {
        Self { settings: settings.clone(), run_id: run_id.into(), tables: HashMap::new() }
    }

    /// Drops the cached schemas of table `oid` (its columns changed).
    pub fn forget(&mut self, oid: u32) {
        self.tables.remove(&oid);
    }

    fn schemas(&mut self, table: &TableMeta) {
        if self.tables.get(&table.oid).is_none_or(|t| t.columns != table.columns) {
            let built = self.build(table);
            self.tables.insert(table.oid, built);
        }
    }

    fn build(&self, table: &TableMeta) -> TableSchema {
        let s = &self.settings;
        let base = format!("{}.{}.{}", s.topic_prefix, table.schema, table.name);
        let (mut value_fields, mut value_schemas, mut key_fields, mut key_schemas) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for (i, c) in table.columns.iter().enumerate() {
            if !s.filters.include_column(&table.schema, &table.name, &c.name) && !c.key {
                continue;
            }
            let Some((schema, conv)) = field_schema(c, s, false) else { continue };
            let on_null = match (schema.get("default"), c.not_null) {
                (Some(default), _) => default.clone(),
                (None, true) => zero(&conv),
                (None, false) => Value::Null,
            };
            if c.key {
                key_fields.push((i, conv.clone(), on_null.clone()));
                key_schemas.push(schema.clone());
            }
            if s.filters.include_column(&table.schema, &table.name, &c.name) {
                value_fields.push((i, conv, on_null));
                value_schemas.push(schema);
            }
        }
        let value = struct_schema(&format!("{base}.Value"), value_schemas, true, None);
        let key_schema = (!key_fields.is_empty())
            .then(|| struct_schema(&format!("{base}.Key"), key_schemas, false, None));
        let envelope_schema = struct_schema(
            &format!("{base}.Envelope"),
            vec![
                with_field(value.clone(), "before"),
                with_field(value, "after"),
                source_info::schema(),
                block_schema(),
                json!({"type": "string", "optional": false, "field": "op"}),
                opt_i64("ts_ms"),
                opt_i64("ts_us"),
                opt_i64("ts_ns"),
            ],
            false,
            Some(2),
        );
        TableSchema {
            columns: table.columns.clone(),
            value_fields,
            key_fields,
            key_schema,
            envelope_schema,
        }
    }

    /// A struct payload of `fields` from `row` (read by a snapshot when `snapshot`): a NULL
    /// becomes the field's default or zero value (see [`Field`]), which also fills a
    /// REPLICA IDENTITY DEFAULT delete's `before`.
    fn row(
        fields: &[Field],
        table: &TableMeta,
        row: &[Datum],
        snapshot: bool,
    ) -> Result<Value, String> {
        let mut m = Map::new();
        for (i, conv, on_null) in fields {
            let v = match row.get(*i) {
                Some(Datum::Text(t)) => convert_in(conv, t, snapshot).map_err(|e| {
                    format!("{}.{}.{}: {e}", table.schema, table.name, table.columns[*i].name)
                })?,
                Some(Datum::Unchanged) => unavailable(conv),
                Some(Datum::Null) | None => on_null.clone(),
            };
            m.insert(table.columns[*i].name.clone(), v);
        }
        Ok(Value::Object(m))
    }

    pub(crate) fn record(&self, topic: String, offset: &Offset) -> SourceRecord {
        SourceRecord::new(topic, partition(&self.settings.topic_prefix), offset.to_json())
    }

    fn with_context(&self, mut r: SourceRecord) -> SourceRecord {
        if self.settings.extended_headers {
            r.headers.extend(headers::context(&self.settings.topic_prefix, &self.run_id));
        }
        r
    }

    /// The records of one row change: `before` and `after` are aligned with
    /// `table.columns`. An update whose key changed becomes delete, tombstone, create (with
    /// `__debezium.newkey`/`oldkey` headers); a delete is followed by a tombstone when
    /// `tombstones.on.delete`. Operations in `skipped.operations` yield nothing. With a
    /// `txn` (transaction metadata on, inside a transaction), each data record (not the
    /// tombstones) is counted there at `source.lsn` and carries its block.
    #[allow(clippy::too_many_arguments)]
    pub fn change(
        &mut self,
        table: &TableMeta,
        op: Op,
        before: Option<&[Datum]>,
        after: Option<&[Datum]>,
        source: &Source,
        mut txn: Option<&mut TxnTracker>,
        offset: &Offset,
        now_us: i64,
    ) -> Result<Vec<SourceRecord>, String> {
        let skipped = self.settings.skipped;
        if matches!(
            (op, skipped.create, skipped.update, skipped.delete),
            (Op::Create, true, _, _) | (Op::Update, _, true, _) | (Op::Delete, _, _, true)
        ) {
            return Ok(Vec::new());
        }
        let (topic, prefix) = (
            self.settings.table_topic(&table.schema, &table.name),
            self.settings.topic_prefix.clone(),
        );
        let snapshot = op == Op::Read;
        let tombstones = self.settings.tombstones_on_delete;
        self.schemas(table);
        let ts = &self.tables[&table.oid];
        let key_of = |row: Option<&[Datum]>| -> Result<Option<Value>, String> {
            match (row, &ts.key_schema) {
                (Some(r), Some(_)) => Ok(Some(Self::row(&ts.key_fields, table, r, snapshot)?)),
                _ => Ok(None),
            }
        };
        let value_of = |row: Option<&[Datum]>| {
            row.map_or(Ok(Value::Null), |r| Self::row(&ts.value_fields, table, r, snapshot))
        };
        let collection = format!("{}.{}", table.schema, table.name);
        let lsn = source.lsn.unwrap_or(0);
        let mut next_block = || txn.as_deref_mut().and_then(|t| t.event(&collection, lsn));
        let envelope = |op: Op, before: Value, after: Value, txn: Option<TxnBlock>| {
            let source = source.payload(&prefix);
            envelope_payload(op.code(), before, after, source, txn.as_ref(), now_us)
        };
        let keyed = |r: SourceRecord, key: &Option<Value>| match (key, &ts.key_schema) {
            (Some(k), Some(s)) => r.connect_json_key(s, k),
            _ => r,
        };
        let mut out = Vec::new();
        let (old_key, new_key) = (key_of(before)?, key_of(after)?);
        let key_changed = op == Op::Update && old_key.is_some() && old_key != new_key;
        let make = |op: Op, key: &Option<Value>, b: Value, a: Value, txn: Option<TxnBlock>| {
            keyed(self.record(topic.clone(), offset), key)
                .connect_json_value(&ts.envelope_schema, &envelope(op, b, a, txn))
        };
        let tombstone = |key: &Option<Value>| keyed(self.record(topic.clone(), offset), key);
        if key_changed {
            let new_header =
                headers::key(headers::NEW_KEY, new_key.as_ref().unwrap_or(&Value::Null));
            let old_header =
                headers::key(headers::OLD_KEY, old_key.as_ref().unwrap_or(&Value::Null));
            let mut d = make(Op::Delete, &old_key, value_of(before)?, Value::Null, next_block());
            d.headers.push(new_header.clone());
            out.push(self.with_context(d));
            if tombstones {
                let mut t = tombstone(&old_key);
                t.headers.push(new_header);
                out.push(self.with_context(t));
            }
            let mut c = make(Op::Create, &new_key, Value::Null, value_of(after)?, next_block());
            c.headers.push(old_header);
            out.push(self.with_context(c));
            return Ok(out);
        }
        match op {
            Op::Delete => {
                let b = value_of(before)?;
                out.push(self.with_context(make(
                    Op::Delete,
                    &old_key,
                    b,
                    Value::Null,
                    next_block(),
                )));
                if tombstones {
                    out.push(self.with_context(tombstone(&old_key)));
                }
            }
            Op::Update => {
                let before = if before.is_some() { value_of(before)? } else { Value::Null };
                let after = value_of(after)?;
                out.push(self.with_context(make(
                    Op::Update,
                    &new_key,
                    before,
                    after,
                    next_block(),
                )));
            }
            Op::Create | Op::Read => {
                let after = value_of(after)?;
                out.push(self.with_context(make(op, &new_key, Value::Null, after, next_block())));
            }
        }
        Ok(out)
    }

    /// The record of a TRUNCATE of `table` (null key), unless truncates are skipped;
    /// counted in `txn` as `change` counts.
    pub fn truncate(
        &mut self,
        table: &TableMeta,
        source: &Source,
        txn: Option<&mut TxnTracker>,
        offset: &Offset,
        now_us: i64,
    ) -> Vec<SourceRecord> {
        if self.settings.skipped.truncate {
            return Vec::new();
        }
        let topic = self.settings.table_topic(&table.schema, &table.name);
        let prefix = self.settings.topic_prefix.clone();
        self.schemas(table);
        let schema = self.tables[&table.oid].envelope_schema.clone();
        let collection = format!("{}.{}", table.schema, table.name);
        let txn = txn.and_then(|t| t.event(&collection, source.lsn.unwrap_or(0)));
        let value = envelope_payload(
            "t",
            Value::Null,
            Value::Null,
            source.payload(&prefix),
            txn.as_ref(),
            now_us,
        );
        vec![self.with_context(self.record(topic, offset).connect_json_value(&schema, &value))]
    }
}

#[cfg(test)]
#[path = "envelope_tests.rs"]
mod tests;
