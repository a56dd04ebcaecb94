//! Session keys: generating one from the OS's random source, and the leader's rule for
//! when the current key must be replaced (Kafka Connect's key rotation).
//!
//! Pure apart from the random bytes and the clock read by [`now_ms`]. Writing the key to
//! the config topic and scheduling the rotation are the herder's.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::model::{HMAC_SHA256, SessionKey};

/// Default `inter.worker.key.ttl.ms`: one hour.
pub const DEFAULT_KEY_TTL: Duration = Duration::from_secs(3600);

/// Default key length: 256 bits, what Java's `HmacSHA256` key generator makes.
pub const DEFAULT_KEY_BITS: u32 = 256;

/// How the leader makes keys (`inter.worker.key.*`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeySettings {
    /// `inter.worker.key.ttl.ms`: how long a key is used before the leader writes a new one.
    pub ttl: Duration,
    /// Key length in bytes (`inter.worker.key.size` is in bits, rounded up to whole bytes
    /// as Java's key generator does).
    pub size_bytes: usize,
}

impl Default for KeySettings {
    fn default() -> Self {
        Self::new(DEFAULT_KEY_TTL, None)
    }
}

impl KeySettings {
    /// Settings from the worker config's TTL and optional key size in bits.
    pub fn new(ttl: Duration, size_bits: Option<u32>) -> Self {
        let bits = size_bits.unwrap_or(DEFAULT_KEY_BITS);
        Self { ttl, size_bytes: bits.div_ceil(8) as usize }
    }

    /// A fresh `HmacSHA256` key created at `now_ms`.
    pub fn generate(&self, now_ms: i64) -> Result<SessionKey, getrandom::Error> {
        let mut key = vec![0u8; self.size_bytes];
        getrandom::fill(&mut key)?;
        Ok(SessionKey { key, algorithm: HMAC_SHA256.to_owned(), created_ms: now_ms })
    }

    /// Whether the leader must write a new key at `now_ms`: there is none yet, it has
    /// expired, or it was made with another algorithm or size than these settings ask for.
    pub fn needs_new_key(&self, current: Option<&SessionKey>, now_ms: i64) -> bool {
        match current {
            None => true,
            Some(k) => {
                k.is_expired(now_ms, self.ttl)
                    || k.algorithm != HMAC_SHA256
                    || k.key.len() != self.size_bytes
            }
        }
    }
}

impl SessionKey {
    /// When this key expires under `ttl`, in milliseconds since the epoch.
    pub fn expires_at(&self, ttl: Duration) -> i64 {
        let ttl_ms = i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX);
        self.created_ms.saturating_add(ttl_ms)
    }

    /// Whether this key has expired at `now_ms` (Kafka Connect: expiry at or before now).
    pub fn is_expired(&self, now_ms: i64, ttl: Duration) -> bool {
        self.expires_at(ttl) <= now_ms
    }
}

/// The wall clock in milliseconds since the epoch, as session keys record time.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_keys_are_random_and_sized() {
        let s = KeySettings::default();
        assert_eq!(s.size_bytes, 32);
        let (a, b) = (s.generate(5).unwrap(), s.generate(5).unwrap());
        assert_eq!((a.key.len(), a.algorithm.as_str(), a.created_ms), (32, "HmacSHA256", 5));
        assert_ne!(a.key, b.key);
        assert_eq!(KeySettings::new(DEFAULT_KEY_TTL, Some(129)).generate(0).unwrap().key.len(), 17);
    }

    #[test]
    fn expiry() {
        let s = KeySettings::new(Duration::from_millis(1000), None);
        let k = s.generate(10_000).unwrap();
        assert_eq!(k.expires_at(s.ttl), 11_000);
        assert!(!k.is_expired(10_999, s.ttl));
        assert!(k.is_expired(11_000, s.ttl));
        assert_eq!(k.expires_at(Duration::MAX), i64::MAX);
    }

    #[test]
    fn the_leader_replaces_missing_expired_and_mismatched_keys() {
        let s = KeySettings::new(Duration::from_millis(1000), None);
        let k = s.generate(0).unwrap();
        assert!(s.needs_new_key(None, 0));
        assert!(!s.needs_new_key(Some(&k), 999));
        assert!(s.needs_new_key(Some(&k), 1000));
        let other_algorithm = SessionKey { algorithm: "HmacSHA512".into(), ..k.clone() };
        assert!(s.needs_new_key(Some(&other_algorithm), 1));
        let short = SessionKey { key: vec![1; 16], ..k };
        assert!(s.needs_new_key(Some(&short), 1));
    }

    #[test]
    fn the_clock_is_in_milliseconds() {
        assert!(now_ms() > 1_600_000_000_000);
    }
}
