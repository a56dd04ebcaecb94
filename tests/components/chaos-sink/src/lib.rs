//! `ChaosSink`: a host test fixture. A sink that writes nowhere (it counts records),
//! fails every record whose value contains `chaos.bad.marker` (default `BAD`), and
//! misbehaves on demand like `ChaosSource`: `chaos.mode` says what goes wrong and
//! `chaos.when` where (put, start, task-configs, connector-start, stop).
//!
//! Layout: `connector` (the shared chaos connector plus sink keys), `task` (counting,
//! failing records, misbehaving).

mod connector;
mod task;

wasm_connect_sdk::export_sink!(connector::ChaosSinkConnector, task::ChaosSinkTask);
