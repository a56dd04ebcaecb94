//! wasm-connect: a Kafka Connect compatible worker that runs every connector as a
//! sandboxed WebAssembly component.
//!
//! Layout: by floor, lowest first (a module may use its own floor and those below, never
//! one above; `tests/floors.rs` checks it).
//! - [`model`]: domain types shared by every module (plugin info, config definitions,
//!   states, restart requests, connector errors). No I/O.
//! - [`config`]: worker `.properties` and standalone connector files, read as Kafka Connect
//!   does; client security settings and config providers.
//! - [`telemetry`]: the tracing subscriber, run-time log levels (`/admin/loggers`), and the
//!   events (log line, metric) of the herder's failure handling and of the data path.
//! - [`runtime`]: wasmtime. Loads and compiles plugins and runs each instance in its own
//!   sandboxed Store under memory, CPU and capability limits, its guest calls on a small
//!   shared thread pool.
//! - [`store`]: the backing stores (config log, statuses, offsets) over Kafka topics or
//!   embedded SQLite.
//! - [`cluster`]: traffic between distributed workers: session keys, request signatures
//!   (KIP-507) and the client that forwards requests to other workers.
//! - [`worker`]: runs connector and task instances for the herder: their supervisors, the
//!   data paths, converters, transforms and data topics.
//! - [`herder`]: the single owner of connector state; every control-plane action goes
//!   through its [`HerderHandle`](herder::HerderHandle).
//! - [`rest`]: the Kafka Connect REST API over the herder, and the dashboard.
//! - [`app`]: assembles a worker process from its config and runs it until a signal.
//! - [`conformance`]: the plugin test kit behind `wasm-connect plugins test`.
//! - [`cli`]: the `wasm-connect` command line.
pub mod app;
pub mod cli;
mod cluster;
pub mod config;
mod conformance;
pub mod herder;
pub mod model;
pub mod rest;
pub mod runtime;
pub mod store;
pub mod telemetry;
mod worker;
