//! `FileStreamSink`: appends record values to a file, one per line, the wasm-connect
//! equivalent of Kafka Connect's `FileStreamSinkConnector`.
//!
//! Each record's value is written followed by `\n`, printed as Kafka Connect prints the
//! converted value (text as it is, JSON compact, a Connect envelope as its payload, a
//! null value as the text `null`);
//! keys, headers and timestamps are dropped. Writes are buffered and flushed before
//! consumer offsets are committed. The `file` key grants write access to the file's
//! directory, and nothing else is reachable.
//!
//! Layout: `config` (keys), `connector` (one identical config per task), `task` (the
//! writer); `tests` drives both halves through the SDK's native harness.

mod config;
mod connector;
mod task;

wasm_connect_sdk::export_sink!(connector::FileStreamSink, task::FileStreamSinkTask);

#[cfg(test)]
mod tests;
