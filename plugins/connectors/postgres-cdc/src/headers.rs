//! The headers Debezium adds to data records: the `__debezium.context.*` headers (when
//! `extended.headers.enabled`) and `__debezium.newkey` / `__debezium.oldkey` on the
//! records of a primary key change.
//!
//! Header bytes are what Kafka Connect's default `SimpleHeaderConverter` writes: a string
//! header is its UTF-8 text, a struct header its JSON text. This module owns the header
//! names and encodings only.

use serde_json::Value;
use wasm_connect_sdk::Header;

pub const CONNECTOR_LOGICAL_NAME: &str = "__debezium.context.connectorLogicalName";
pub const TASK_ID: &str = "__debezium.context.taskId";
pub const CONNECTOR_NAME: &str = "__debezium.context.connectorName";
pub const RUN_ID: &str = "__debezium.context.runId";
pub const NEW_KEY: &str = "__debezium.newkey";
pub const OLD_KEY: &str = "__debezium.oldkey";

fn header(key: &str, value: impl Into<Vec<u8>>) -> Header {
    Header { key: key.to_owned(), value: Some(value.into()) }
}

/// The context headers: the logical name (`topic.prefix`), task `0`, connector type
/// `postgresql`, and the run id.
pub fn context(logical_name: &str, run_id: &str) -> Vec<Header> {
    vec![
        header(CONNECTOR_LOGICAL_NAME, logical_name),
        header(TASK_ID, "0"),
        header(CONNECTOR_NAME, "postgresql"),
        header(RUN_ID, run_id),
    ]
}

/// A key header (`__debezium.newkey` or `.oldkey`): the key struct's JSON text.
pub fn key(name: &str, key_payload: &Value) -> Header {
    header(name, key_payload.to_string())
}
