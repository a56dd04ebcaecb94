//! The records of [`Emitter`] that are not row changes: logical decoding messages
//! (`<prefix>.message`), transaction BEGIN/END records (`transaction.topic`) and heartbeats
//! (`__debezium-heartbeat.<prefix>`), with Debezium's schemas. None of them carries the
//! `__debezium.context.*` headers (Debezium 3.6.1 adds none).
//!
//! This module owns those schemas and payloads; counting a transaction's events is
//! `transaction`'s job, row changes `envelope`'s.

use serde_json::{Value, json};
use wasm_connect_sdk::SourceRecord;

use crate::envelope::{Emitter, block, block_schema, opt_i64};
use crate::offset::Offset;
use crate::source_info::{self, Source};
use crate::transaction::TxnTracker;

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
        let mut content_schema = match binary {
            crate::settings::BinaryMode::Bytes => json!({"type": "bytes"}),
            _ => json!({"type": "string"}),
        };
        content_schema["optional"] = json!(true);
        content_schema["field"] = json!("content");
        let key_schema = json!({"type": "struct", "name": "io.debezium.connector.postgresql.MessageKey", "version": 1, "optional": false,
                                "fields": [{"type": "string", "optional": true, "field": "prefix"}]});
        let value_schema = json!({"type": "struct", "name": "io.debezium.connector.postgresql.MessageValue", "version": 1, "optional": false,
        "fields": [
            {"type": "string", "optional": false, "field": "op"},
            opt_i64("ts_ms"),
            source_info::schema(),
            block_schema(),
            {"type": "struct", "name": "io.debezium.connector.postgresql.Message", "version": 1, "optional": false, "field": "message",
             "fields": [{"type": "string", "optional": true, "field": "prefix"}, content_schema]},
        ]});
        let value = json!({"op": "m", "ts_ms": now_us.div_euclid(1000), "source": source.payload(&self.settings.topic_prefix),
                           "transaction": block(txn.as_ref()),
                           "message": {"prefix": prefix, "content": crate::value::binary(content, binary)}});
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
        let key_schema = json!({"type": "struct", "name": "io.debezium.connector.common.TransactionMetadataKey", "version": 1,
                                "optional": false, "fields": [{"type": "string", "optional": false, "field": "id"}]});
        let value_schema = json!({"type": "struct", "name": "io.debezium.connector.common.TransactionMetadataValue", "version": 1, "optional": false,
        "fields": [
            {"type": "string", "optional": false, "field": "status"},
            {"type": "string", "optional": false, "field": "id"},
            opt_i64("event_count"),
            {"type": "array", "optional": true, "field": "data_collections", "items":
                {"type": "struct", "name": "event.collection", "version": 1, "optional": true, "fields": [
                    {"type": "string", "optional": false, "field": "data_collection"},
                    {"type": "int64", "optional": false, "field": "event_count"}]}},
            {"type": "int64", "optional": false, "field": "ts_ms"},
        ]});
        let (count, collections) = match counts {
            Some((n, c)) => (
                json!(n),
                Value::Array(
                    c.iter()
                        .map(|(d, n)| json!({"data_collection": d, "event_count": n}))
                        .collect(),
                ),
            ),
            None => (Value::Null, Value::Null),
        };
        let value = json!({"status": status, "id": id, "event_count": count, "data_collections": collections, "ts_ms": ts_ms});
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
        let prefix = &self.settings.topic_prefix;
        self.record(self.settings.heartbeat_topic(), offset)
            .connect_json_key(
                &json!({"type": "struct", "name": "io.debezium.connector.common.ServerNameKey", "version": 1, "optional": false,
                        "fields": [{"type": "string", "optional": false, "field": "serverName"}]}),
                &json!({"serverName": prefix}),
            )
            .connect_json_value(
                &json!({"type": "struct", "name": "io.debezium.connector.common.Heartbeat", "version": 1, "optional": false,
                        "fields": [{"type": "int64", "optional": false, "field": "ts_ms"}]}),
                &json!({"ts_ms": now_ms}),
            )
    }
}
