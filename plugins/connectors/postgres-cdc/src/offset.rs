//! Debezium's source partition (`{"server": <topic.prefix>}`) and source offset of the
//! PostgreSQL connector ([`Offset`]), to and from JSON, including offsets Debezium itself
//! wrote.
//!
//! This module owns the offset's field names and which appear when (as
//! `PostgresOffsetContext.getOffset`); deciding where to resume is the task's business.
//!
//! What Debezium puts in them: during the snapshot, `lsn` is `pg_current_wal_lsn()` and
//! `txId` `txid_current()` read when the snapshot starts, `ts_usec` the time of the record,
//! `snapshot` `INITIAL`, `last_snapshot_record` true on the snapshot's last record, and
//! no `lsn_proc`/`lsn_commit` yet. While streaming, `lsn` is the event's LSN, `lsn_proc`
//! the last LSN processed completely, `lsn_commit` the last commit's, `txId` and `ts_usec`
//! the transaction's id and commit time, `messageType` the pgoutput message's kind, and
//! `lsn_events_processed` counts the events already emitted at `lsn` (so a restart skips
//! them).

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

/// The source partition of every record.
pub fn partition(topic_prefix: &str) -> Value {
    json!({ "server": topic_prefix })
}

/// The source offset.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Offset {
    /// `lsn`: the event's LSN.
    pub lsn: Option<u64>,
    /// `lsn_proc`: the last LSN processed completely.
    pub lsn_proc: Option<u64>,
    /// `lsn_commit`: the last commit LSN.
    pub lsn_commit: Option<u64>,
    /// `txId`.
    pub tx_id: Option<i64>,
    /// `ts_usec`: commit time, Unix microseconds.
    pub ts_usec: Option<i64>,
    /// `xmin`.
    pub xmin: Option<i64>,
    /// `messageType`: INSERT, UPDATE, DELETE, TRUNCATE, MESSAGE, BEGIN, COMMIT...
    pub message_type: Option<String>,
    /// `snapshot` (`INITIAL` while the initial snapshot runs), with
    /// `last_snapshot_record` and `snapshot_completed`.
    pub snapshot: Option<String>,
    pub last_snapshot_record: bool,
    pub snapshot_completed: bool,
    /// `lsn_events_processed`, written when above zero.
    pub lsn_events_processed: i64,
    /// `transaction_id` of the open transaction (streaming, transaction metadata on).
    pub transaction_id: Option<String>,
    /// `transaction_data_collection_order_<schema.table>` counts.
    pub data_collection_order: BTreeMap<String, i64>,
}

const TX_ORDER_PREFIX: &str = "transaction_data_collection_order_";

impl Offset {
    /// The offset as Debezium writes it.
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        let mut put = |k: &str, v: Value| {
            m.insert(k.to_owned(), v);
        };
        if let Some(v) = self.ts_usec {
            put("ts_usec", json!(v));
        }
        if let Some(v) = self.tx_id {
            put("txId", json!(v));
        }
        if let Some(v) = self.lsn {
            put("lsn", json!(v));
        }
        if let Some(v) = self.xmin {
            put("xmin", json!(v));
        }
        if let Some(s) = &self.snapshot {
            put("snapshot", json!(s));
            put("last_snapshot_record", json!(self.last_snapshot_record));
            put("snapshot_completed", json!(self.snapshot_completed));
        }
        if let Some(v) = self.lsn_proc {
            put("lsn_proc", json!(v));
        }
        if let Some(v) = self.lsn_commit {
            put("lsn_commit", json!(v));
        }
        if let Some(v) = &self.message_type {
            put("messageType", json!(v));
        }
        if self.lsn_events_processed > 0 {
            put("lsn_events_processed", json!(self.lsn_events_processed));
        }
        if self.snapshot.is_none() {
            if let Some(id) = &self.transaction_id {
                put("transaction_id", json!(id));
            }
            for (table, n) in &self.data_collection_order {
                put(&format!("{TX_ORDER_PREFIX}{table}"), json!(n));
            }
        }
        Value::Object(m)
    }

    /// An offset read back (ours or Debezium's; an old boolean `snapshot: true` is the
    /// initial snapshot).
    pub fn from_json(value: &Value) -> Offset {
        let u = |k: &str| value.get(k).and_then(Value::as_u64);
        let i = |k: &str| value.get(k).and_then(Value::as_i64);
        let flag = |k: &str| value.get(k).and_then(Value::as_bool).unwrap_or(false);
        let snapshot = match value.get("snapshot") {
            Some(Value::String(s)) => Some(s.clone()),
            Some(Value::Bool(true)) => Some("INITIAL".to_owned()),
            _ => None,
        };
        let data_collection_order = value
            .as_object()
            .into_iter()
            .flatten()
            .filter_map(|(k, v)| Some((k.strip_prefix(TX_ORDER_PREFIX)?.to_owned(), v.as_i64()?)))
            .collect();
        Offset {
            lsn: u("lsn"),
            lsn_proc: u("lsn_proc"),
            lsn_commit: u("lsn_commit"),
            tx_id: i("txId"),
            ts_usec: i("ts_usec"),
            xmin: i("xmin"),
            message_type: value.get("messageType").and_then(Value::as_str).map(str::to_owned),
            snapshot,
            last_snapshot_record: flag("last_snapshot_record"),
            snapshot_completed: flag("snapshot_completed"),
            lsn_events_processed: i("lsn_events_processed").unwrap_or(0),
            transaction_id: value.get("transaction_id").and_then(Value::as_str).map(str::to_owned),
            data_collection_order,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streaming_offsets_round_trip_with_debeziums_names() {
        let o = Offset {
            lsn: Some(23_803_640),
            lsn_proc: Some(23_803_640),
            lsn_commit: Some(23_803_592),
            tx_id: Some(745),
            ts_usec: Some(1_700_000_000_123_456),
            message_type: Some("UPDATE".into()),
            transaction_id: Some("745:23803592".into()),
            data_collection_order: [("public.t".to_owned(), 2)].into(),
            ..Default::default()
        };
        let j = o.to_json();
        assert_eq!(
            j,
            json!({"lsn": 23_803_640, "lsn_proc": 23_803_640, "lsn_commit": 23_803_592, "txId": 745,
                   "ts_usec": 1_700_000_000_123_456i64, "messageType": "UPDATE",
                   "transaction_id": "745:23803592", "transaction_data_collection_order_public.t": 2})
        );
        assert_eq!(Offset::from_json(&j), o);
    }

    #[test]
    fn snapshot_offsets_carry_the_snapshot_fields_and_no_transaction() {
        let o = Offset {
            lsn: Some(5),
            tx_id: Some(7),
            ts_usec: Some(1),
            snapshot: Some("INITIAL".into()),
            last_snapshot_record: true,
            transaction_id: Some("ignored".into()),
            ..Default::default()
        };
        let j = o.to_json();
        assert_eq!(j["snapshot"], "INITIAL");
        assert_eq!(
            (j["last_snapshot_record"].clone(), j["snapshot_completed"].clone()),
            (json!(true), json!(false))
        );
        assert!(j.get("transaction_id").is_none() && j.get("messageType").is_none());
        let old =
            Offset::from_json(&json!({"lsn": 5, "snapshot": true, "last_snapshot_record": false}));
        assert_eq!(old.snapshot.as_deref(), Some("INITIAL"));
        assert_eq!(partition("pg"), json!({"server": "pg"}));
    }
}
