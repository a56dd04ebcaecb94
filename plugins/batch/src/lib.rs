//! The `record-batch` encoding of the wasm-connect contract (`wit/types.wit`): version 2
//! written, versions 1 and 2 read.
//!
//! A batch of records crosses the sandbox boundary as one byte string instead of a WIT
//! `list<record>`: the canonical ABI would allocate once per string and list of every
//! record, which costs ~100x more than copying one buffer. This crate owns the encoding
//! for Rust on both sides, the host and the guest SDK; the Python and JavaScript SDKs
//! implement the same layout, documented in the WIT file.
//!
//! It has no dependencies and does no I/O. It must stay in lock-step with the WIT
//! documentation of `record-batch`: a change there is a new version byte here. It does
//! not interpret keys and values: their [`Kind`] is carried, never checked.
//!
//! Layout: [`Record`] (with [`Header`] and the [`Kind`] of its key and value) is the one
//! record type; [`encode`] / [`Encoder`] write a batch; [`decode`] reads one into
//! records, [`records`] without copying it (each a [`RecordRef`] borrowing the batch),
//! with [`DecodeError`] naming what was malformed and where.

mod decode;
mod encode;
mod kind;
mod record;
mod view;

pub use decode::{DecodeError, MIN_VERSION, decode};
pub use encode::{Encoder, encode};
pub use kind::Kind;
pub use record::{Header, Record};
pub use view::{Headers, RecordRef, Records, records};

/// The encoding version this crate writes (and the newest it reads).
pub const VERSION: u8 = 2;

#[cfg(test)]
mod tests;
