//! The seal of a cached artifact: a header (magic and HMAC-SHA256 tag) written before the
//! serialized component, and its check. The tag covers the component's digest, the
//! engine's compatibility hash and the artifact bytes, under the cache's secret key, so an
//! artifact copied from another component, another engine or another cache, or crafted by
//! someone without the key, fails the check before wasmtime ever maps it.
//!
//! This module computes and checks tags; it reads and writes no file.

use hmac::{Hmac, Mac};
use sha2::Sha256;

use super::key::CacheKey;

/// The first bytes of every sealed artifact (format version 1).
const MAGIC: &[u8; 8] = b"wcseal01";
/// Length of an HMAC-SHA256 tag.
const TAG_LEN: usize = 32;
/// Length of the header before the artifact.
pub const HEADER_LEN: usize = MAGIC.len() + TAG_LEN;

/// What an artifact is bound to: the component it was compiled from and the engine.
pub struct Binding<'a> {
    /// SHA-256 of the component bytes, hex.
    pub digest: &'a str,
    /// The engine's compatibility hash.
    pub engine: u64,
}

/// The sealed file's bytes: header, then `artifact`.
pub fn seal(key: &CacheKey, binding: &Binding<'_>, artifact: &[u8]) -> Vec<u8> {
    let tag = mac(key, binding, artifact).finalize().into_bytes();
    let mut out = Vec::with_capacity(HEADER_LEN + artifact.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&tag);
    out.extend_from_slice(artifact);
    out
}

/// The artifact inside `sealed`, if its tag is right for `binding` under `key`.
pub fn open<'s>(key: &CacheKey, binding: &Binding<'_>, sealed: &'s [u8]) -> Option<&'s [u8]> {
    let rest = sealed.strip_prefix(MAGIC.as_slice())?;
    if rest.len() < TAG_LEN {
        return None;
    }
    let (tag, artifact) = rest.split_at(TAG_LEN);
    mac(key, binding, artifact).verify_slice(tag).ok().map(|()| artifact)
}

fn mac(key: &CacheKey, binding: &Binding<'_>, artifact: &[u8]) -> Hmac<Sha256> {
    let mut mac = Hmac::<Sha256>::new_from_slice(key.bytes()).expect("HMAC takes any key length");
    // Length-prefixed fields: no two bindings give the same input.
    for field in [b"wasm-connect artifact".as_slice(), binding.digest.as_bytes()] {
        mac.update(&(field.len() as u64).to_be_bytes());
        mac.update(field);
    }
    mac.update(&binding.engine.to_be_bytes());
    mac.update(&(artifact.len() as u64).to_be_bytes());
    mac.update(artifact);
    mac
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(dir: &std::path::Path, name: &str) -> CacheKey {
        CacheKey::load_or_create(&dir.join(name)).unwrap()
    }

    #[test]
    fn only_the_same_key_component_and_engine_open_a_seal() {
        let tmp = tempfile::tempdir().unwrap();
        let (k, other) = (key(tmp.path(), "a.key"), key(tmp.path(), "b.key"));
        let b = Binding { digest: "aa", engine: 7 };
        let sealed = seal(&k, &b, b"native code");
        assert_eq!(open(&k, &b, &sealed), Some(b"native code".as_slice()));
        assert_eq!(open(&other, &b, &sealed), None);
        assert_eq!(open(&k, &Binding { digest: "ab", engine: 7 }, &sealed), None);
        assert_eq!(open(&k, &Binding { digest: "aa", engine: 8 }, &sealed), None);
        let mut flipped = sealed.clone();
        *flipped.last_mut().unwrap() ^= 1;
        assert_eq!(open(&k, &b, &flipped), None);
        assert_eq!(open(&k, &b, &sealed[..HEADER_LEN - 1]), None);
        assert_eq!(open(&k, &b, b"native code"), None);
    }
}
