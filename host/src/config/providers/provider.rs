//! [`Provider`]: one configured provider, of one of Kafka's three built-in classes, known
//! by the class names Kafka Connect accepts: the full name, the simple name, and the simple
//! name without `ConfigProvider` (`org.apache.kafka.common.config.provider.FileConfigProvider`,
//! `FileConfigProvider`, `File`).

use std::collections::{BTreeMap, BTreeSet};

use super::allowed_paths::{ALLOWED_PATHS, AllowedPaths};
use super::directory::DirectoryProvider;
use super::env::{ALLOWLIST_PATTERN, EnvProvider};
use super::file::FileProvider;

/// The error of parameter `name`.
fn at(name: &'static str) -> impl Fn(String) -> (String, String) {
    move |message| (name.to_owned(), message)
}

/// The package of Kafka's built-in providers.
const PACKAGE: &str = "org.apache.kafka.common.config.provider.";

/// The simple names of the built-in provider classes.
pub const CLASSES: [&str; 3] =
    ["FileConfigProvider", "EnvVarConfigProvider", "DirectoryConfigProvider"];

/// A configured provider.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Provider {
    /// `FileConfigProvider`.
    File(FileProvider),
    /// `EnvVarConfigProvider`.
    Env(EnvProvider),
    /// `DirectoryConfigProvider`.
    Directory(DirectoryProvider),
}

impl Provider {
    /// The simple class name `class` stands for, if it names a built-in provider.
    pub fn class_of(class: &str) -> Option<&'static str> {
        match class.strip_prefix(PACKAGE) {
            Some(simple) => CLASSES.into_iter().find(|c| *c == simple),
            None => CLASSES
                .into_iter()
                .find(|c| *c == class || c.strip_suffix("ConfigProvider") == Some(class)),
        }
    }

    /// Builds the provider of simple class `class` from its `param.*` settings (names
    /// without the prefix); an error names the parameter at fault.
    pub fn build(class: &str, params: &BTreeMap<String, String>) -> Result<Self, (String, String)> {
        let known: &[&str] = match class {
            "EnvVarConfigProvider" => &[ALLOWLIST_PATTERN],
            _ => &[ALLOWED_PATHS],
        };
        if let Some(unknown) = params.keys().find(|p| !known.contains(&p.as_str())) {
            return Err((
                unknown.clone(),
                format!("unknown parameter of {class}; it takes {}", known.join(", ")),
            ));
        }
        let param = |name: &str| params.get(name).map(String::as_str);
        Ok(match class {
            "EnvVarConfigProvider" => Self::Env(
                EnvProvider::new(param(ALLOWLIST_PATTERN)).map_err(at(ALLOWLIST_PATTERN))?,
            ),
            _ => {
                let allowed =
                    AllowedPaths::parse(param(ALLOWED_PATHS)).map_err(at(ALLOWED_PATHS))?;
                match class {
                    "FileConfigProvider" => Self::File(FileProvider { allowed }),
                    _ => Self::Directory(DirectoryProvider { allowed }),
                }
            }
        })
    }

    /// The values of `keys` at `path`; a key without a value is left out.
    pub fn get(
        &self,
        path: &str,
        keys: &BTreeSet<&str>,
    ) -> Result<BTreeMap<String, String>, String> {
        match self {
            Self::File(p) => p.get(path, keys),
            Self::Env(p) => p.get(path, keys),
            Self::Directory(p) => p.get(path, keys),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kafka_connects_class_names_and_aliases() {
        for (name, class) in [
            ("org.apache.kafka.common.config.provider.FileConfigProvider", "FileConfigProvider"),
            ("FileConfigProvider", "FileConfigProvider"),
            ("File", "FileConfigProvider"),
            (
                "org.apache.kafka.common.config.provider.EnvVarConfigProvider",
                "EnvVarConfigProvider",
            ),
            ("EnvVar", "EnvVarConfigProvider"),
            ("DirectoryConfigProvider", "DirectoryConfigProvider"),
            ("Directory", "DirectoryConfigProvider"),
        ] {
            assert_eq!(Provider::class_of(name), Some(class), "{name}");
        }
        for name in ["file", "Env", "org.apache.kafka.common.config.provider.File", "Vault", ""] {
            assert_eq!(Provider::class_of(name), None, "{name}");
        }
    }

    #[test]
    fn parameters_are_checked_by_name() {
        let params = |k: &str, v: &str| BTreeMap::from([(k.to_owned(), v.to_owned())]);
        let e =
            Provider::build("FileConfigProvider", &params("allowlist.pattern", "x")).unwrap_err();
        assert_eq!(e.0, "allowlist.pattern");
        assert!(e.1.contains("it takes allowed.paths"), "{}", e.1);
        let e = Provider::build("DirectoryConfigProvider", &params("allowed.paths", "rel"))
            .unwrap_err();
        assert_eq!(e, ("allowed.paths".to_owned(), "Path rel is not absolute".to_owned()));
        let e =
            Provider::build("EnvVarConfigProvider", &params("allowlist.pattern", "(")).unwrap_err();
        assert_eq!(e.0, "allowlist.pattern");
        assert!(matches!(
            Provider::build("EnvVarConfigProvider", &BTreeMap::new()),
            Ok(Provider::Env(_))
        ));
    }
}
