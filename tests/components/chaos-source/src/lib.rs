//! `ChaosSource`: a host test fixture. A counting source that misbehaves on demand:
//! `chaos.mode` says what goes wrong (trap, panic, loop, oom, recurse, huge, or a sandbox
//! probe: open-file, socket, env, clock) and `chaos.when` where (poll, start,
//! task-configs, connector-start, stop). See `chaos-common` for the shared keys.
//!
//! Layout: `connector` (the shared chaos connector plus source keys), `task` (counting,
//! misbehaving, probing).

mod connector;
mod task;

wasm_connect_sdk::export_source!(connector::ChaosSourceConnector, task::ChaosSourceTask);
