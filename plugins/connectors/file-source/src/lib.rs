//! `FileStreamSource`: reads a file line by line into a topic, the wasm-connect
//! equivalent of Kafka Connect's `FileStreamSourceConnector`.
//!
//! One record per line: the value is the line as text (Kafka Connect STRING, UTF-8,
//! without its terminator), the key is null, the source partition is `{"filename": <file>}` and the source offset is
//! `{"position": <byte offset after the line>}`. A restarted task resumes from the
//! committed position; a partial last line waits until it is completed. The `file` key
//! grants read access to the file's directory, and nothing else is reachable.
//!
//! Layout: `config` (keys and parsed settings), `connector` (one task config), `task`
//! (the file reader), `lines` (line splitting, pure); `tests` drives both halves through
//! the SDK's native harness.

mod config;
mod connector;
mod lines;
mod task;

wasm_connect_sdk::export_source!(connector::FileStreamSource, task::FileStreamSourceTask);

#[cfg(test)]
mod tests;
