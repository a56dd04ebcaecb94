//! The `source` block of Debezium's PostgreSQL events
//! (`io.debezium.connector.postgresql.Source`): its schema, [`Source`] (the values of one
//! event) and the [`SnapshotMarker`] of a snapshot record.
//!
//! This module owns the block's fields, types and optionality (Debezium's
//! `SchemaFactory.sourceInfoSchemaBuilder` plus `PostgresSourceInfoStructMaker`); deciding
//! the values (which LSN, which snapshot marker) is the caller's.

use serde_json::{Value, json};

/// The Debezium version this connector's records match.
pub const DEBEZIUM_VERSION: &str = "3.6.1.Final";

/// `source.snapshot`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SnapshotMarker {
    True,
    First,
    FirstInDataCollection,
    LastInDataCollection,
    Last,
    #[default]
    False,
}

impl SnapshotMarker {
    /// The marker of a snapshot record from its place, as Debezium resolves it: the last
    /// record of the snapshot `last`, else its first `first`, else the last or first of its
    /// table, else `true`.
    pub fn resolve(
        first_in_snapshot: bool,
        last_in_snapshot: bool,
        first_in_table: bool,
        last_in_table: bool,
    ) -> SnapshotMarker {
        match (last_in_snapshot, first_in_snapshot, last_in_table, first_in_table) {
            (true, ..) => SnapshotMarker::Last,
            (_, true, ..) => SnapshotMarker::First,
            (_, _, true, _) => SnapshotMarker::LastInDataCollection,
            (_, _, _, true) => SnapshotMarker::FirstInDataCollection,
            _ => SnapshotMarker::True,
        }
    }

    /// As written in the block.
    pub fn as_str(self) -> &'static str {
        match self {
            SnapshotMarker::True => "true",
            SnapshotMarker::First => "first",
            SnapshotMarker::FirstInDataCollection => "first_in_data_collection",
            SnapshotMarker::LastInDataCollection => "last_in_data_collection",
            SnapshotMarker::Last => "last",
            SnapshotMarker::False => "false",
        }
    }
}

/// The values of one event's `source` block.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Source {
    /// Commit (streaming) or read (snapshot) time, Unix microseconds.
    pub ts_us: i64,
    pub snapshot: SnapshotMarker,
    pub db: String,
    /// `[lastCommitLsn, lsn]`: see [`sequence`].
    pub sequence: Option<String>,
    /// `""` for logical decoding messages.
    pub schema: String,
    pub table: String,
    pub tx_id: Option<i64>,
    pub lsn: Option<u64>,
    pub xmin: Option<i64>,
    pub origin: Option<String>,
    pub origin_lsn: Option<u64>,
}

/// `source.sequence`: a JSON array of the last commit LSN and this event's LSN, each a
/// string or null, as text.
pub fn sequence(last_commit_lsn: Option<u64>, lsn: Option<u64>) -> String {
    let s = |v: Option<u64>| v.map_or(Value::Null, |v| Value::String(v.to_string()));
    Value::Array(vec![s(last_commit_lsn), s(lsn)]).to_string()
}

fn f(ty: &str, optional: bool, name: &str) -> Value {
    json!({"type": ty, "optional": optional, "field": name})
}

/// The block's schema, as a field of the envelope called `source`.
pub fn schema() -> Value {
    json!({
        "type": "struct",
        "name": "io.debezium.connector.postgresql.Source",
        "version": 1,
        "optional": false,
        "field": "source",
        "fields": [
            f("string", false, "version"),
            f("string", false, "connector"),
            f("string", false, "name"),
            f("int64", false, "ts_ms"),
            {"type": "string", "optional": true, "name": "io.debezium.data.Enum", "version": 1,
             "parameters": {"allowed": "true,first,first_in_data_collection,last_in_data_collection,last,false,incremental"},
             "default": "false", "field": "snapshot"},
            f("string", false, "db"),
            f("string", true, "sequence"),
            f("int64", true, "ts_us"),
            f("int64", true, "ts_ns"),
            f("string", false, "schema"),
            f("string", false, "table"),
            f("int64", true, "txId"),
            f("int64", true, "lsn"),
            f("int64", true, "xmin"),
            f("string", true, "origin"),
            f("int64", true, "origin_lsn"),
        ]
    })
}

impl Source {
    /// The block's payload; `name` is `topic.prefix`.
    pub fn payload(&self, name: &str) -> Value {
        json!({
            "version": DEBEZIUM_VERSION,
            "connector": "postgresql",
            "name": name,
            "ts_ms": self.ts_us.div_euclid(1000),
            "snapshot": self.snapshot.as_str(),
            "db": self.db,
            "sequence": self.sequence,
            "ts_us": self.ts_us,
            "ts_ns": self.ts_us.saturating_mul(1000),
            "schema": self.schema,
            "table": self.table,
            "txId": self.tx_id,
            "lsn": self.lsn,
            "xmin": self.xmin,
            "origin": self.origin,
            "origin_lsn": self.origin_lsn,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snapshot_markers_as_debezium_wrote_them() {
        // Three tables of 4, 2 and 3 rows: what Debezium 3.6.1 wrote for the scenario.
        let mut got = Vec::new();
        let sizes = [4, 2, 3];
        for (t, &n) in sizes.iter().enumerate() {
            for r in 0..n {
                let (first_t, last_t) = (t == 0, t == sizes.len() - 1);
                got.push(
                    SnapshotMarker::resolve(
                        first_t && r == 0,
                        last_t && r == n - 1,
                        r == 0,
                        r == n - 1,
                    )
                    .as_str(),
                );
            }
        }
        assert_eq!(
            got,
            [
                "first",
                "true",
                "true",
                "last_in_data_collection",
                "first_in_data_collection",
                "last_in_data_collection",
                "first_in_data_collection",
                "true",
                "last"
            ]
        );
    }

    #[test]
    fn sequence_is_json_text_of_two_strings_or_nulls() {
        assert_eq!(sequence(None, Some(23)), r#"[null,"23"]"#);
        assert_eq!(sequence(Some(1), Some(2)), r#"["1","2"]"#);
    }

    #[test]
    fn payload_times_and_field_order_of_the_schema() {
        let s = Source {
            ts_us: 1_500_001,
            db: "d".into(),
            schema: "public".into(),
            table: "t".into(),
            ..Default::default()
        };
        let p = s.payload("pg");
        assert_eq!(
            (p["ts_ms"].clone(), p["ts_ns"].clone()),
            (json!(1500), json!(1_500_001_000i64))
        );
        assert_eq!(
            (p["snapshot"].clone(), p["connector"].clone(), p["name"].clone()),
            (json!("false"), json!("postgresql"), json!("pg"))
        );
        let names: Vec<_> = schema()["fields"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["field"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(
            names,
            [
                "version",
                "connector",
                "name",
                "ts_ms",
                "snapshot",
                "db",
                "sequence",
                "ts_us",
                "ts_ns",
                "schema",
                "table",
                "txId",
                "lsn",
                "xmin",
                "origin",
                "origin_lsn"
            ]
        );
    }
}
