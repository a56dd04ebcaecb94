//! Traffic between the workers of a distributed cluster: the session key the leader
//! distributes through the config topic (KIP-507), the signatures of internal requests, the
//! ring that holds the current key, and the HTTP client that forwards REST requests and
//! sends task configs to the leader.
//!
//! This module owns no cluster state. The herder decides when a key is generated or read
//! and puts it in the [`KeyRing`]; REST verifies internal requests against the ring and
//! forwards requests with the [`InterWorkerClient`]. It depends only on `model` types and
//! must not depend on the herder or on REST.
//!
//! Layout: `session_key` (generation and expiry), `signature` (sign and verify),
//! `keyring` (the shared current key), `client` (requests to other workers).

mod client;
mod keyring;
pub mod session_key;
mod signature;

pub use client::{ClientError, ForwardReply, ForwardRequest, InterWorkerClient};
pub use keyring::KeyRing;
pub use session_key::{KeySettings, now_ms};
#[cfg(test)]
pub use signature::signature_headers;
pub use signature::{ALGORITHM_HEADER, SIGNATURE_HEADER, VerifyError, verify};

pub use crate::model::HMAC_SHA256;
