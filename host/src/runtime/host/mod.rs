//! Implementations of the contract's host imports, one file per WIT interface. Each
//! delegates to plain Rust: `tracing` for logs, the injected `InstanceHost` for the rest.
//! They must never block or panic on guest input: sizes are capped, text is taken as is.
//!
//! Layout: `logging` (the contract's host interface: log lines and connector-context
//! callbacks), `offsets` (the `offset-reader` interface), `transactions` (the
//! `transaction-context` interface).

mod logging;
mod offsets;
mod transactions;

use super::bindings::types;
use super::state::InstanceState;

impl types::Host for InstanceState {}
