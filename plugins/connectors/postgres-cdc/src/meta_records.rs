//! The records of [`Emitter`] that are not row changes: logical decoding messages
//! (`<prefix>.message`), transaction BEGIN/END records (the transaction topic) and heartbeats
//! (`__debezium-heartbeat.<prefix>`), with Debezium's schemas. None of them carries the
//! `__debezium.context.*` headers (Debezium 3.6.1 adds none).
//!
//! This module owns those schemas and payloads; counting a transaction's events is
//! `transaction`'s job, row changes `envelope`'s.

use serde_json::{Value, json};
use wasm_connect_sdk::SourceRecord;

use crate::envelope::{Emitter, block, block_schema, opt_i64};
use crate::offset::Offset;
use crate::schema::struct_schema;
use crate::settings::BinaryMode;
use crate::source_info::{self, Source};
use crate::transaction::TxnTracker;

/// A primitive field of a struct schema.
fn field(ty: &str, optional: bool, name: &str) -> Value {
    json!({"type": ty, "optional": optional, "field": name})
}

/// A struct schema of version 1, as a record's key or value.
fn record_schema(name: &str, fields: Vec<Value>) -> Value {
    struct_schema(name, fields, false, Some(1))
}

impl Emitter {
    /// The record of a logical decoding message on `<prefix>.message`. The caller drops
    /// messages `settings.filters.include_message` refuses, and passes `txn` for a
    /// transactional message only: it counts there as a data collection of its own, as
    /// Debezium counts each message under a fresh `LogicalDecodingMessageId` object.
    pub fn message(
        &self,
        prefix: &str,
        content: &[u8],
        source: &Source,
        txn: Option<&mut TxnTracker>,
        offset: &Offset,
        now_us: i64,
    ) -> SourceRecord {
        let txn = txn.and_then(|t| t.message_event(source.lsn.unwrap_or(0)));
        let binary = self.settings.binary;
        let content_type = if binary == BinaryMode::Bytes { "bytes" } else { "string" };
        let key_schema = record_schema(
            "io.debezium.connector.postgresql.MessageKey",
            vec![field("string", true, "prefix")],
        );
        let mut message_schema = record_schema(
            "io.debezium.connector.postgresql.Message",
            vec![field("string", true, "prefix"), field(content_type, true, "content")],
        );
        message_schema["field"] = json!("message");
        let value_schema = record_schema(
            "io.debezium.connector.postgresql.MessageValue",
            vec![
                field("string", false, "op"),
                opt_i64("ts_ms"),
                source_info::schema(),
                block_schema(),
                message_schema,
            ],
        );
        let value = json!({
            "op": "m",
            "ts_ms": now_us.div_euclid(1000),
            "source": source.payload(&self.settings.topic_prefix),
            "transaction": block(txn.as_ref()),
            "message": {"prefix": prefix, "content": crate::value::binary(content, binary)},
        });
        self.record(self.settings.message_topic(), offset)
            .connect_json_key(&key_schema, &json!({"prefix": prefix}))
            .connect_json_value(&value_schema, &value)
    }

    fn transaction(
        &self,
        id: &str,
        status: &str,
        ts_ms: i64,
        counts: Option<(i64, &[(String, i64)])>,
        offset: &Offset,
    ) -> SourceRecord {
        let key_schema = record_schema(
            "io.debezium.connector.common.TransactionMetadataKey",
            vec![field("string", false, "id")],
        );
        let collection = struct_schema(
            "event.collection",
            vec![field("string", false, "data_collection"), field("int64", false, "event_count")],
            true,
            Some(1),
        );
        let value_schema = record_schema(
            "io.debezium.connector.common.TransactionMetadataValue",
            vec![
                field("string", false, "status"),
                field("string", false, "id"),
                opt_i64("event_count"),
                json!({"type": "array", "items": collection, "optional": true, "field": "data_collections"}),
                field("int64", false, "ts_ms"),
            ],
        );
        let (count, collections) = match counts {
            Some((n, per)) => {
                let per = per.iter().map(|(d, n)| json!({"data_collection": d, "event_count": n}));
                (json!(n), Value::Array(per.collect()))
            }
            None => (Value::Null, Value::Null),
        };
        let value = json!({
            "status": status,
            "id": id,
            "event_count": count,
            "data_collections": collections,
            "ts_ms": ts_ms,
        });
        self.record(self.settings.transaction_topic.clone(), offset)
            .connect_json_key(&key_schema, &json!({"id": id}))
            .connect_json_value(&value_schema, &value)
    }

    /// The BEGIN record of transaction `id` on the transaction topic.
    pub fn begin(&self, id: &str, ts_ms: i64, offset: &Offset) -> SourceRecord {
        self.transaction(id, "BEGIN", ts_ms, None, offset)
    }

    /// The END record: `event_count` events, per `schema.table` counts in order.
    pub fn end(
        &self,
        id: &str,
        ts_ms: i64,
        event_count: i64,
        data_collections: &[(String, i64)],
        offset: &Offset,
    ) -> SourceRecord {
        self.transaction(id, "END", ts_ms, Some((event_count, data_collections)), offset)
    }

    /// A heartbeat record on `__debezium-heartbeat.<prefix>`.
    pub fn heartbeat(&self, now_ms: i64, offset: &Offset) -> SourceRecord {
        let key_schema = record_schema(
            "io.debezium.connector.common.ServerNameKey",
            vec![field("string", false, "serverName")],
        );
        let value_schema = record_schema(
            "io.debezium.connector.common.Heartbeat",
            vec![field("int64", false, "ts_ms")],
        );
        self.record(self.settings.heartbeat_topic(), offset)
            .connect_json_key(&key_schema, &json!({"serverName": self.settings.topic_prefix}))
            .connect_json_value(&value_schema, &json!({"ts_ms": now_ms}))
    }
}
