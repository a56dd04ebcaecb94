//! Whether a directory or file may hold what the cache trusts: the worker's own, and
//! writable by nobody else. Artifacts are native code, so a cache directory another user can
//! write to would let that user run code as the worker.
//!
//! This module only inspects and creates; it decides nothing about what to do when a path
//! is refused (the cache compiles in memory then).

use std::fs::{DirBuilder, Metadata};
use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::path::Path;

/// Creates `dir` (mode 0700) if missing, then checks that it belongs to this process's user
/// and that neither its group nor others may write to it. Follows a symbolic link: what
/// counts is the directory artifacts land in.
pub fn private_dir(dir: &Path) -> Result<(), String> {
    DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|e| format!("cannot create it: {e}"))?;
    let meta = std::fs::metadata(dir).map_err(|e| format!("cannot read its metadata: {e}"))?;
    if !meta.is_dir() {
        return Err("it is not a directory".into());
    }
    owned_and_unwritable(&meta, 0o022, "writable by its group or by others")
}

/// Checks an existing key file: a regular file (not a symbolic link), owned by this
/// process's user, neither readable nor writable by its group or by others.
pub fn private_file(meta: &Metadata) -> Result<(), String> {
    if !meta.file_type().is_file() {
        return Err("it is not a regular file".into());
    }
    owned_and_unwritable(meta, 0o077, "readable or writable by its group or by others")
}

fn owned_and_unwritable(meta: &Metadata, forbidden: u32, what: &str) -> Result<(), String> {
    let me = rustix::process::geteuid().as_raw();
    if meta.uid() != me {
        return Err(format!("it is owned by uid {}, not by this worker's uid {me}", meta.uid()));
    }
    let mode = meta.mode() & 0o7777;
    if mode & forbidden != 0 {
        return Err(format!("its mode {mode:04o} makes it {what}"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    #[test]
    fn a_new_directory_is_private_and_a_shared_one_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("a/b");
        private_dir(&dir).unwrap();
        let mode = std::fs::metadata(&dir).unwrap().mode() & 0o777;
        assert_eq!(mode, 0o700);

        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o775)).unwrap();
        let why = private_dir(&dir).unwrap_err();
        assert!(why.contains("0775") && why.contains("writable"), "{why}");
        // Readable by others is fine for a directory: only writing matters.
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        private_dir(&dir).unwrap();
    }

    #[test]
    fn a_file_in_place_of_the_directory_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("f");
        std::fs::write(&file, b"x").unwrap();
        assert!(private_dir(&file).is_err());
    }
}
