//! [`KeyRing`]: this worker's current session key, shared by the herder (which sets it when
//! it reads or writes a `session-key` record), REST (which verifies internal requests with
//! it) and the inter-worker client (which signs with it).
//!
//! A `tokio::sync::watch` channel behind an `Arc`: reads take a short read lock and clone
//! the key, never wait on the herder, and can subscribe to changes. The herder is the only
//! writer.

use std::sync::Arc;

use tokio::sync::watch;

use crate::model::SessionKey;

/// The current session key; cheap to clone, every clone sees the same key.
#[derive(Clone, Debug)]
pub struct KeyRing {
    current: Arc<watch::Sender<Option<SessionKey>>>,
}

impl Default for KeyRing {
    fn default() -> Self {
        Self { current: Arc::new(watch::Sender::new(None)) }
    }
}

impl KeyRing {
    /// A ring with no key yet (internal requests answer 503 until one is set).
    pub fn new() -> Self {
        Self::default()
    }

    /// Replaces the key; returns whether it changed. Subscribers are woken only on a
    /// change, so the herder may call this after every batch of config records.
    pub fn set(&self, key: Option<SessionKey>) -> bool {
        self.current.send_if_modified(|current| {
            if *current == key {
                return false;
            }
            *current = key;
            true
        })
    }

    /// The current key, if one has been set.
    pub fn current(&self) -> Option<SessionKey> {
        self.current.borrow().clone()
    }

    /// A receiver that sees every later change.
    pub fn subscribe(&self) -> watch::Receiver<Option<SessionKey>> {
        self.current.subscribe()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn clones_share_the_key_and_changes_are_announced() {
        let ring = KeyRing::new();
        let other = ring.clone();
        let mut changes = ring.subscribe();
        assert_eq!(other.current(), None);
        let k = SessionKey { key: vec![1], algorithm: "HmacSHA256".into(), created_ms: 1 };
        assert!(ring.set(Some(k.clone())));
        assert_eq!(other.current(), Some(k.clone()));
        changes.changed().await.unwrap();
        assert!(!other.set(Some(k)), "the same key is no change");
        assert!(!changes.has_changed().unwrap());
        assert!(other.set(None));
        assert_eq!(ring.current(), None);
    }
}
