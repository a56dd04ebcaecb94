//! [`AllowedPaths`]: the `allowed.paths` parameter of the file and directory providers,
//! with Kafka's rules (`AllowedPaths`): each entry must be absolute and exist when the
//! worker starts; a path asked for is normalised (`.` and `..` removed, without touching
//! the file system) and allowed when it starts, component by component, with an entry.
//! Without the parameter every path is allowed, as given.
//!
//! This file checks paths; it reads no file.

use std::path::{Component, Path, PathBuf};

/// The parameter's name.
pub const ALLOWED_PATHS: &str = "allowed.paths";

/// Where a provider may read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AllowedPaths {
    /// `None`: no restriction.
    entries: Option<Vec<PathBuf>>,
}

impl AllowedPaths {
    /// Reads the parameter's value (a comma-separated list; absent or empty: no
    /// restriction). The error says which entry is wrong.
    pub fn parse(value: Option<&str>) -> Result<Self, String> {
        let Some(value) = value.filter(|v| !v.trim().is_empty()) else {
            return Ok(Self::default());
        };
        let mut entries = Vec::new();
        for entry in value.split(',').map(str::trim) {
            let path = normalize(Path::new(entry));
            if !path.is_absolute() {
                return Err(format!("Path {} is not absolute", path.display()));
            }
            if !path.exists() {
                return Err(format!("Path {} does not exist", path.display()));
            }
            entries.push(path);
        }
        Ok(Self { entries: Some(entries) })
    }

    /// The path to read for `asked`, or `None` when it lies outside every entry.
    pub fn check(&self, asked: &str) -> Option<PathBuf> {
        let Some(entries) = &self.entries else { return Some(PathBuf::from(asked)) };
        let path = normalize(Path::new(asked));
        entries.iter().any(|e| path.starts_with(e)).then_some(path)
    }
}

/// Java's `Path.normalize`: drops `.`, and removes each `..` with the name before it
/// (a `..` at the root stays at the root; a leading one in a relative path stays).
fn normalize(path: &Path) -> PathBuf {
    let mut out: Vec<Component<'_>> = Vec::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => match out.last() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir | Component::Prefix(_)) => {}
                _ => out.push(c),
            },
            _ => out.push(c),
        }
    }
    out.iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalisation_is_lexical() {
        assert_eq!(normalize(Path::new("/a/./b/../c")), PathBuf::from("/a/c"));
        assert_eq!(normalize(Path::new("/../etc")), PathBuf::from("/etc"));
        assert_eq!(normalize(Path::new("../x/y/..")), PathBuf::from("../x"));
    }

    #[test]
    fn entries_must_be_absolute_and_exist() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(AllowedPaths::parse(None).unwrap(), AllowedPaths::default());
        assert_eq!(AllowedPaths::parse(Some("")).unwrap(), AllowedPaths::default());
        assert_eq!(
            AllowedPaths::parse(Some("relative/dir")).unwrap_err(),
            "Path relative/dir is not absolute"
        );
        let missing = dir.path().join("missing");
        assert_eq!(
            AllowedPaths::parse(Some(missing.to_str().unwrap())).unwrap_err(),
            format!("Path {} does not exist", missing.display())
        );
        let both = format!("{}, /tmp", dir.path().display());
        assert!(AllowedPaths::parse(Some(&both)).is_ok());
    }

    #[test]
    fn only_paths_under_an_entry_are_allowed() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_str().unwrap();
        let allowed = AllowedPaths::parse(Some(root)).unwrap();
        assert_eq!(
            allowed.check(&format!("{root}/a.properties")),
            Some(dir.path().join("a.properties"))
        );
        assert_eq!(allowed.check(&format!("{root}/sub/../b")), Some(dir.path().join("b")));
        // `..` cannot climb out, and a sibling sharing the prefix is not inside.
        assert_eq!(allowed.check(&format!("{root}/../etc/passwd")), None);
        assert_eq!(allowed.check(&format!("{root}-other/x")), None);
        assert_eq!(allowed.check("relative"), None);
        // No entries: anything, as given.
        assert_eq!(AllowedPaths::default().check("a/../b"), Some(PathBuf::from("a/../b")));
    }
}
