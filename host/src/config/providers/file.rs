//! The file provider (`FileConfigProvider`): the path is a Java properties file, the
//! keys are its keys. Read with the worker's own properties parser at each resolution, so
//! a changed file is seen when the connector or task starts again.
//!
//! A path outside `allowed.paths` gives no values (the reference stays as written) and a
//! warning naming the path; a file that cannot be read or parsed is an error naming the
//! file, never its content.

use std::collections::{BTreeMap, BTreeSet};

use super::allowed_paths::AllowedPaths;
use crate::config::properties::{self, PropertiesError};

/// The file provider's parameters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileProvider {
    /// `allowed.paths`.
    pub allowed: AllowedPaths,
}

impl FileProvider {
    /// The values of `keys` in the properties file at `path` (missing keys are left out).
    pub fn get(
        &self,
        path: &str,
        keys: &BTreeSet<&str>,
    ) -> Result<BTreeMap<String, String>, String> {
        if path.is_empty() {
            return Ok(BTreeMap::new());
        }
        let Some(file) = self.allowed.check(path) else {
            tracing::warn!(path, "The path is not allowed to be accessed");
            return Ok(BTreeMap::new());
        };
        let entries = properties::read(&file).map_err(|e| {
            let why = match e {
                PropertiesError::Read { source, .. } => source.to_string(),
                // The parser's message may quote the file's text: the line only.
                PropertiesError::Syntax { line, .. } => format!("line {line} is malformed"),
            };
            format!("Could not read properties from file {path}: {why}")
        })?;
        Ok(entries.into_iter().filter(|(k, _)| keys.contains(k.as_str())).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys<'a>(k: &[&'a str]) -> BTreeSet<&'a str> {
        k.iter().copied().collect()
    }

    #[test]
    fn reads_the_keys_asked_for() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("s.properties");
        std::fs::write(&file, "user = admin\npassword=s3cr\\=t\nother=x\n").unwrap();
        let got = FileProvider::default()
            .get(file.to_str().unwrap(), &keys(&["user", "password", "missing"]))
            .unwrap();
        assert_eq!(
            got,
            BTreeMap::from([
                ("password".to_owned(), "s3cr=t".to_owned()),
                ("user".to_owned(), "admin".to_owned())
            ])
        );
        assert!(FileProvider::default().get("", &keys(&["user"])).unwrap().is_empty());
    }

    #[test]
    fn a_file_outside_the_allowed_paths_gives_nothing() {
        let allowed = tempfile::tempdir().unwrap();
        let other = tempfile::tempdir().unwrap();
        let file = other.path().join("s.properties");
        std::fs::write(&file, "password=hunter2\n").unwrap();
        let provider =
            FileProvider { allowed: AllowedPaths::parse(allowed.path().to_str()).unwrap() };
        assert!(provider.get(file.to_str().unwrap(), &keys(&["password"])).unwrap().is_empty());
        let inside = allowed.path().join("s.properties");
        std::fs::write(&inside, "password=hunter2\n").unwrap();
        assert_eq!(provider.get(inside.to_str().unwrap(), &keys(&["password"])).unwrap().len(), 1);
    }

    #[test]
    fn errors_name_the_file_not_its_content() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing.properties");
        let e = FileProvider::default().get(missing.to_str().unwrap(), &keys(&["k"])).unwrap_err();
        assert!(
            e.starts_with(&format!("Could not read properties from file {}", missing.display())),
            "{e}"
        );
        let bad = dir.path().join("bad.properties");
        std::fs::write(&bad, "password=\\uZZsecret\n").unwrap();
        let e =
            FileProvider::default().get(bad.to_str().unwrap(), &keys(&["password"])).unwrap_err();
        assert!(e.ends_with("line 1 is malformed") && !e.contains("ZZ"), "{e}");
    }
}
