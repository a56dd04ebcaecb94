//! [`CacheKey`]: the secret that binds cached artifacts to the components they were compiled
//! from. 32 random bytes in a file beside the cache directory, never inside it, so whoever
//! can replace artifacts cannot read or replace the key with them.
//!
//! The file is created mode 0600 and published whole (written under a temporary name, then
//! hard-linked into place, which fails if another worker won the race; the winner's key is
//! then read). An existing file that is a link, another user's, or open to others is
//! refused. This module never logs the key and its `Debug` does not show it.

use std::fmt;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use super::dir;

/// Length of the key in bytes (HMAC-SHA256's block-safe key size).
pub const KEY_LEN: usize = 32;

/// The cache's MAC key.
#[derive(Clone)]
pub struct CacheKey([u8; KEY_LEN]);

impl fmt::Debug for CacheKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("CacheKey(..)")
    }
}

impl CacheKey {
    /// The key file of the cache directory `dir`: `<dir>.key`, beside it.
    pub fn path_for(dir: &Path) -> PathBuf {
        let mut name = dir.file_name().map(|n| n.to_os_string()).unwrap_or_else(|| "cache".into());
        name.push(".key");
        dir.with_file_name(name)
    }

    /// Reads the key in `path`, creating it first if there is none.
    pub fn load_or_create(path: &Path) -> Result<Self, String> {
        if let Some(key) = Self::read(path)? {
            return Ok(key);
        }
        create(path)?;
        Self::read(path)?.ok_or_else(|| "it vanished after it was created".to_owned())
    }

    /// The key in `path`; `None` when there is no such file.
    fn read(path: &Path) -> Result<Option<Self>, String> {
        let meta = match std::fs::symlink_metadata(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(format!("cannot read its metadata: {e}")),
            Ok(meta) => meta,
        };
        dir::private_file(&meta)?;
        let bytes = std::fs::read(path).map_err(|e| format!("cannot read it: {e}"))?;
        let key: [u8; KEY_LEN] = bytes
            .try_into()
            .map_err(|b: Vec<u8>| format!("it holds {} bytes, not {KEY_LEN}", b.len()))?;
        Ok(Some(Self(key)))
    }

    /// The key bytes, for the MAC.
    pub fn bytes(&self) -> &[u8] {
        &self.0
    }
}

fn create(path: &Path) -> Result<(), String> {
    let mut key = [0u8; KEY_LEN];
    getrandom::fill(&mut key).map_err(|e| format!("no random source: {e}"))?;
    let tmp = path.with_extension(format!("key.tmp{}", std::process::id()));
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&tmp)
        .and_then(|mut f| f.write_all(&key).and_then(|()| f.sync_all()));
    if let Err(e) = written {
        // A leftover of a crashed start under the same process id is removed, so the next
        // start succeeds.
        let _ = std::fs::remove_file(&tmp);
        return Err(format!("cannot write {}: {e}", tmp.display()));
    }
    let linked = std::fs::hard_link(&tmp, path);
    let _ = std::fs::remove_file(&tmp);
    match linked {
        Ok(()) => Ok(()),
        // Another worker created it first: use theirs.
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(format!("cannot create it: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};

    use super::*;

    #[test]
    fn a_new_key_is_private_random_and_read_back() {
        let tmp = tempfile::tempdir().unwrap();
        let path = CacheKey::path_for(&tmp.path().join("cache"));
        assert_eq!(path, tmp.path().join("cache.key"));
        let first = CacheKey::load_or_create(&path).unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().mode() & 0o777, 0o600);
        let again = CacheKey::load_or_create(&path).unwrap();
        assert_eq!(first.bytes(), again.bytes());
        let other = CacheKey::load_or_create(&tmp.path().join("other.key")).unwrap();
        assert_ne!(first.bytes(), other.bytes());
        assert_eq!(format!("{first:?}"), "CacheKey(..)");
    }

    #[test]
    fn a_symbolic_link_or_a_short_file_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let real = tmp.path().join("real.key");
        CacheKey::load_or_create(&real).unwrap();
        let link = tmp.path().join("link.key");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        assert!(CacheKey::load_or_create(&link).unwrap_err().contains("regular file"));

        let short = tmp.path().join("short.key");
        std::fs::write(&short, b"abc").unwrap();
        std::fs::set_permissions(&short, std::fs::Permissions::from_mode(0o600)).unwrap();
        assert!(CacheKey::load_or_create(&short).unwrap_err().contains("3 bytes"));
    }
}
