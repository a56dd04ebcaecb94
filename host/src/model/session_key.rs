//! The session key of a distributed cluster (KIP-507): the secret the leader writes to the
//! config topic (`session-key`) and every worker signs and verifies internal requests with.
//!
//! Data only. Generating a key and deciding when it expires belong to
//! [`crate::cluster::session_key`]; reading and writing the record to `crate::store`.

use std::fmt;

/// The one algorithm this worker generates keys for and signs with (Java's name for
/// HMAC-SHA256, as Kafka Connect writes it in the record and the signature header).
pub const HMAC_SHA256: &str = "HmacSHA256";

/// A session key as the config topic holds it.
#[derive(Clone, PartialEq, Eq)]
pub struct SessionKey {
    /// The raw key bytes (base64 in the record).
    pub key: Vec<u8>,
    /// The key's algorithm (`algorithm` in the record), e.g. [`HMAC_SHA256`].
    pub algorithm: String,
    /// When the leader generated it, in milliseconds since the epoch
    /// (`creation-timestamp`).
    pub created_ms: i64,
}

/// Never prints the key bytes, only their length.
impl fmt::Debug for SessionKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SessionKey")
            .field("key", &format_args!("<{} bytes>", self.key.len()))
            .field("algorithm", &self.algorithm)
            .field("created_ms", &self.created_ms)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_hides_the_secret() {
        let k = SessionKey { key: vec![0xAB; 32], algorithm: HMAC_SHA256.into(), created_ms: 7 };
        let shown = format!("{k:?}");
        assert!(shown.contains("<32 bytes>") && shown.contains("HmacSHA256"), "{shown}");
        assert!(!shown.contains("171"), "{shown}");
    }
}
