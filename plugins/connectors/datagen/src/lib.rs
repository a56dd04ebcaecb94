//! `Datagen`: a source of deterministic records for demos and benchmarks.
//!
//! Each task emits records numbered from 0: the key is the zero-padded sequence number,
//! the value a rotating `a-z0-9` pattern (see `pattern`), the source partition
//! `{"task": <id>}` and the source offset `{"seq": <n>}`. A restarted task resumes after
//! its committed offset. Keys and values are text (Kafka Connect STRING): the worker's
//! converters decide their bytes on the topic, the text itself with `StringConverter`. `records` is split over the tasks; `rate` paces each task, which
//! needs the clock, so that key grants it. Nothing else is reachable from the sandbox.
//!
//! Layout: `config` (keys, the task split, settings), `connector`, `task` (the emitter),
//! `pattern` (key and value bytes, pure), `pace` (the rate budget, pure); `tests` drives both
//! halves through the SDK's native harness.

mod config;
mod connector;
mod pace;
mod pattern;
mod task;

wasm_connect_sdk::export_source!(connector::Datagen, task::DatagenTask);

#[cfg(test)]
mod tests;
