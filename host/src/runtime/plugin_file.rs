//! Reading one plugin file: a regular file only, at most [`MAX_PLUGIN_BYTES`] (and, the
//! same way, a plugin's signature file, with a smaller bound).
//!
//! The file is opened without blocking (`O_NONBLOCK`: opening a FIFO for reading would
//! otherwise wait for a writer) and checked on the open handle, so a file swapped for a
//! device or FIFO after the plugin path was walked is refused too; the read stops one byte
//! past the bound, so a file that grows, or a device that never ends, costs at most that.
//! It must not interpret the bytes: `plugin.rs` does.

use std::io::Read;
use std::path::Path;

use rustix::fs::{Mode, OFlags};

use super::error::LoadError;

/// The largest plugin file the worker reads: 256 MiB. Generous on purpose: an interpreter
/// guest (a Python or JavaScript plugin) is about 20 MB, a Rust one a few MB; the bound is
/// there so that a file that is not a plugin cannot exhaust the worker's memory at start.
pub const MAX_PLUGIN_BYTES: u64 = 256 << 20;

/// The bytes of the plugin file `path`. Blocking.
pub(super) fn read(path: &Path) -> Result<Vec<u8>, LoadError> {
    read_at_most(path, MAX_PLUGIN_BYTES)
}

/// The bytes of the regular file `path`, at most `limit` of them (a plugin, or its
/// signature file). Blocking.
pub(super) fn read_at_most(path: &Path, limit: u64) -> Result<Vec<u8>, LoadError> {
    let read_err = |source: std::io::Error| LoadError::Read { path: path.to_path_buf(), source };
    let fd =
        rustix::fs::open(path, OFlags::RDONLY | OFlags::NONBLOCK | OFlags::CLOEXEC, Mode::empty())
            .map_err(|e| read_err(e.into()))?;
    let file = std::fs::File::from(fd);
    let meta = file.metadata().map_err(read_err)?;
    if !meta.is_file() {
        return Err(LoadError::not_a_file(path, meta.file_type()));
    }
    let too_large = |size| LoadError::TooLarge { path: path.to_path_buf(), size, limit };
    if meta.len() > limit {
        return Err(too_large(meta.len()));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(limit + 1).read_to_end(&mut bytes).map_err(read_err)?;
    if bytes.len() as u64 > limit {
        return Err(too_large(bytes.len() as u64));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_regular_files_are_read_and_within_the_bound() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe.wasm");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        assert!(read(&fifo).unwrap_err().to_string().contains("a FIFO"));
        let zero = read(Path::new("/dev/zero")).unwrap_err().to_string();
        assert!(zero.contains("a character device"), "{zero}");
        let big = dir.path().join("big.wasm");
        std::fs::File::create(&big).unwrap().set_len(MAX_PLUGIN_BYTES + 1).unwrap();
        assert!(read(&big).unwrap_err().to_string().contains("over the limit"));
        let small = dir.path().join("small.wasm");
        std::fs::write(&small, b"\0asm").unwrap();
        assert_eq!(read(&small).unwrap(), b"\0asm");
    }
}
