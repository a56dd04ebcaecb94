//! Which files of a plugin path are plugin candidates: every `.wasm` file under its
//! directories (searched recursively, entries in name order) and every file it names
//! directly, in the order the path lists them.
//!
//! The walk stays finite and reads nothing: a directory reached a second time (a symbolic
//! link loop such as `a -> .`, or a link to a directory searched already) is not searched
//! again, and a file reached a second time (through a link, a hard link or a looping
//! directory) is a candidate once, under the first path found; both are reported as
//! [`Repeat`]s, once each. Candidates must be regular files once links are followed: a
//! device (`/dev/zero`), a FIFO or a socket is refused with [`LoadError::NotAFile`], so
//! that loading never waits on or reads without end from something that is not a file.
//! Files are told apart by device and inode, so every real file is loaded once.
//! It must not open or read files: `plugin_file.rs` does, with a bound.

use std::collections::HashMap;
use std::fs::Metadata;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use super::error::LoadError;

/// A path that leads to a file or directory the walk met before under another path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Repeat {
    /// The path skipped.
    pub path: PathBuf,
    /// The path under which the same file or directory was found first.
    pub first: PathBuf,
}

impl std::fmt::Display for Repeat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: the same file or directory as {}", self.path.display(), self.first.display())
    }
}

/// What a walk of the plugin path found.
#[derive(Debug, Default)]
pub(super) struct Candidates {
    /// Regular files to load, each real file once, in path order.
    pub files: Vec<PathBuf>,
    /// Paths skipped because they lead somewhere met before.
    pub repeats: Vec<Repeat>,
    /// Entries refused: not a regular file, or unreadable.
    pub failures: Vec<LoadError>,
}

/// Walks `paths` (files or directories).
pub(super) fn candidates(paths: &[PathBuf]) -> Candidates {
    let mut walk = Walk::default();
    for path in paths {
        walk.visit(path, true);
    }
    walk.found
}

#[derive(Default)]
struct Walk {
    found: Candidates,
    /// (device, inode) → the first path that reached it, for directories and files alike.
    seen: HashMap<(u64, u64), PathBuf>,
}

impl Walk {
    /// Visits `path`; `named` when the plugin path lists it itself (any file name counts).
    fn visit(&mut self, path: &Path, named: bool) {
        let wanted = named || path.extension().is_some_and(|e| e == "wasm");
        // `metadata` follows links; it never opens the file, so a FIFO cannot block it.
        let meta = match std::fs::metadata(path) {
            Ok(meta) => meta,
            Err(source) => {
                if wanted {
                    self.found.failures.push(LoadError::Read { path: path.to_path_buf(), source });
                }
                return;
            }
        };
        if !meta.is_dir() && !wanted {
            return;
        }
        if let Some(first) = self.first_visit(path, &meta) {
            self.found.repeats.push(Repeat { path: path.to_path_buf(), first });
            return;
        }
        if meta.is_dir() {
            self.directory(path);
        } else if meta.is_file() {
            self.found.files.push(path.to_path_buf());
        } else {
            self.found.failures.push(LoadError::not_a_file(path, meta.file_type()));
        }
    }

    /// `None` the first time the file or directory of `meta` is met, else its first path.
    fn first_visit(&mut self, path: &Path, meta: &Metadata) -> Option<PathBuf> {
        match self.seen.entry((meta.dev(), meta.ino())) {
            std::collections::hash_map::Entry::Occupied(first) => Some(first.get().clone()),
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(path.to_path_buf());
                None
            }
        }
    }

    /// Visits the entries of the directory `dir`, in name order.
    fn directory(&mut self, dir: &Path) {
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(source) => {
                self.found.failures.push(LoadError::Read { path: dir.to_path_buf(), source });
                return;
            }
        };
        let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        paths.sort();
        for path in paths {
            self.visit(&path, false);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::symlink;

    use super::*;

    fn names(paths: &[PathBuf], root: &Path) -> Vec<String> {
        paths.iter().map(|p| p.strip_prefix(root).unwrap().display().to_string()).collect()
    }

    #[test]
    fn loops_and_links_end_and_find_each_file_once() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("good.wasm"), b"x").unwrap();
        std::fs::write(root.join("notes.txt"), b"x").unwrap();
        symlink(".", root.join("a")).unwrap();
        symlink(".", root.join("b")).unwrap();
        symlink("good.wasm", root.join("link.wasm")).unwrap();
        std::fs::hard_link(root.join("good.wasm"), root.join("hard.wasm")).unwrap();
        let found = candidates(&[root.to_path_buf()]);
        assert_eq!(names(&found.files, root), ["good.wasm"]);
        assert!(found.failures.is_empty(), "{:?}", found.failures);
        let mut repeats: Vec<String> = found
            .repeats
            .iter()
            .map(|r| r.path.strip_prefix(root).unwrap().display().to_string())
            .collect();
        repeats.sort();
        assert_eq!(repeats, ["a", "b", "hard.wasm", "link.wasm"]);
    }

    #[test]
    fn devices_and_fifos_are_refused_by_kind() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        symlink("/dev/zero", root.join("zero.wasm")).unwrap();
        let made = std::process::Command::new("mkfifo").arg(root.join("pipe.wasm")).status();
        assert!(made.unwrap().success());
        let found = candidates(&[root.to_path_buf(), PathBuf::from("/dev/null")]);
        assert!(found.files.is_empty());
        let shown: Vec<String> = found.failures.iter().map(ToString::to_string).collect();
        assert_eq!(shown.len(), 3, "{shown:?}");
        assert!(shown[0].contains("pipe.wasm") && shown[0].contains("a FIFO"), "{shown:?}");
        assert!(shown[1].contains("zero.wasm") && shown[1].contains("a character device"));
        assert!(shown[2].contains("/dev/null") && shown[2].contains("a character device"));
    }
}
