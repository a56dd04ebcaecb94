//! wasm-connect: a Kafka Connect compatible worker that runs every connector as a
//! sandboxed WebAssembly component.
//!
//! Layout:
//! - [`model`]: domain types shared by every module (plugin info, config definitions,
//!   connector errors). No I/O.
//! - [`runtime`]: wasmtime. Loads and compiles plugins, runs each instance in its own
//!   Store and thread under memory, CPU and capability limits.
//! - [`config`]: worker `.properties` and standalone connector files, read as Kafka Connect does.
//! - [`cluster`]: traffic between distributed workers: session keys, request signatures
//!   (KIP-507) and the client that forwards requests to other workers.
//! - [`store`]: the backing stores (config log, statuses, offsets) over Kafka topics or
//!   embedded SQLite.
//! - [`telemetry`]: the `tracing` subscriber and run-time log levels (`/admin/loggers`).
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
