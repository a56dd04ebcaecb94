//! Single message transforms on the data path: a connector config's chain read and
//! checked ([`ChainSpec`], `spec`) and run for one task ([`Chain`], `chain`), built-in
//! classes from `wasm-connect-transforms` and transform plugins alike.
//!
//! The task loops call a chain between the plugin and the converter (source: poll →
//! transforms → converter → produce) or between the converter and the plugin (sink:
//! consume → converter → transforms → put) and route its failures as KIP-298's
//! TRANSFORMATION stage. This module must not decide what a failure costs, touch topics,
//! or know which side of the data path it serves.
//!
//! Layout: `spec` ([`ChainSpec`]), `chain` ([`Chain`]).

mod chain;
mod spec;

pub use chain::{Chain, Outcome, from_batch, to_batch};
pub use spec::{ChainSpec, listed_aliases};
