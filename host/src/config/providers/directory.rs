//! The directory provider (`DirectoryConfigProvider`): the path is a directory, each key
//! the name of a regular file in it (symbolic links followed, as Kafka's `isRegularFile`
//! does), the value that file's content as UTF-8 (invalid bytes replaced). Keys that name
//! no regular file directly inside the directory are left out.
//!
//! A path outside `allowed.paths`, or one that is not a directory, gives no values and a
//! warning naming the path; a file that cannot be read is an error naming the file.

use std::collections::{BTreeMap, BTreeSet};

use super::allowed_paths::AllowedPaths;

/// The directory provider's parameters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DirectoryProvider {
    /// `allowed.paths`.
    pub allowed: AllowedPaths,
}

impl DirectoryProvider {
    /// The content of the files named by `keys` in the directory `path`.
    pub fn get(
        &self,
        path: &str,
        keys: &BTreeSet<&str>,
    ) -> Result<BTreeMap<String, String>, String> {
        let mut out = BTreeMap::new();
        if path.is_empty() {
            return Ok(out);
        }
        let Some(dir) = self.allowed.check(path) else {
            tracing::warn!(path, "The path is not allowed to be accessed");
            return Ok(out);
        };
        if !dir.is_dir() {
            tracing::warn!(path, "The path is not a directory");
            return Ok(out);
        }
        // Only names of entries of the directory itself: no separator, no `.` or `..`.
        let names =
            keys.iter().filter(|k| !k.is_empty() && !k.contains('/') && **k != "." && **k != "..");
        for name in names {
            let file = dir.join(name);
            if !file.is_file() {
                continue;
            }
            let bytes = std::fs::read(&file).map_err(|e| {
                format!("Could not read file {} for property {name}: {e}", file.display())
            })?;
            out.insert((*name).to_owned(), String::from_utf8_lossy(&bytes).into_owned());
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys<'a>(k: &[&'a str]) -> BTreeSet<&'a str> {
        k.iter().copied().collect()
    }

    #[test]
    fn file_names_are_keys_and_contents_values() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("password"), "hunter2\n").unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::fs::write(dir.path().join("sub/inner"), "x").unwrap();
        let root = dir.path().to_str().unwrap();
        let got = DirectoryProvider::default()
            .get(root, &keys(&["password", "sub", "sub/inner", "missing", ".."]))
            .unwrap();
        // The content as is, newline included, as Kafka reads it.
        assert_eq!(got, BTreeMap::from([("password".to_owned(), "hunter2\n".to_owned())]));
    }

    #[test]
    fn a_path_outside_the_allowed_paths_or_not_a_directory_gives_nothing() {
        let allowed = tempfile::tempdir().unwrap();
        let other = tempfile::tempdir().unwrap();
        std::fs::write(other.path().join("k"), "v").unwrap();
        let provider =
            DirectoryProvider { allowed: AllowedPaths::parse(allowed.path().to_str()).unwrap() };
        assert!(provider.get(other.path().to_str().unwrap(), &keys(&["k"])).unwrap().is_empty());
        let file = other.path().join("k");
        let open = DirectoryProvider::default();
        assert!(open.get(file.to_str().unwrap(), &keys(&["k"])).unwrap().is_empty());
        assert_eq!(open.get(other.path().to_str().unwrap(), &keys(&["k"])).unwrap()["k"], "v");
    }
}
