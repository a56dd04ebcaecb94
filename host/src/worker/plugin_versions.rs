//! [`Versions`]: the installed versions of one plugin (KIP-891), ordered as Kafka Connect
//! orders them ([`PluginVersion`]), and the choice a version key makes among them
//! ([`VersionRequirement`]). Two files with the same plugin and version cannot both be
//! installed: the second is refused, naming the first.
//!
//! It owns the per-plugin list only; names, aliases and kinds are the registry's.

use crate::model::{PluginVersion, VersionRequirement};

/// The versions of one plugin, ascending.
#[derive(Clone, Debug)]
pub struct Versions<T> {
    entries: Vec<(PluginVersion, T)>,
}

impl<T> Default for Versions<T> {
    fn default() -> Self {
        Self { entries: Vec::new() }
    }
}

impl<T> Versions<T> {
    /// Adds `item` as `version`; a version already there (by Maven's order: `1.0` is
    /// `1.0.0`) is refused with the item that has it.
    pub fn insert(&mut self, version: &str, item: T) -> Result<(), &T> {
        let version = PluginVersion::parse(version);
        match self.entries.binary_search_by(|(v, _)| v.cmp(&version)) {
            Ok(i) => Err(&self.entries[i].1),
            Err(i) => {
                self.entries.insert(i, (version, item));
                Ok(())
            }
        }
    }

    /// The newest version's item.
    pub fn newest(&self) -> Option<&T> {
        self.entries.last().map(|(_, item)| item)
    }

    /// Every item, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.entries.iter().map(|(_, item)| item)
    }

    /// The installed versions as written, oldest first.
    pub fn versions(&self) -> Vec<String> {
        self.entries.iter().map(|(v, _)| v.to_string()).collect()
    }

    /// The newest item `requirement` allows, or the installed versions when none is.
    pub fn pick(&self, requirement: &VersionRequirement) -> Result<&T, Vec<String>> {
        self.entries
            .iter()
            .rev()
            .find(|(v, _)| requirement.allows(v))
            .map(|(_, item)| item)
            .ok_or_else(|| self.versions())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn installed(list: &[&str]) -> Versions<String> {
        let mut v = Versions::default();
        for s in list {
            v.insert(s, format!("file-{s}")).unwrap();
        }
        v
    }

    fn req(spec: &str) -> VersionRequirement {
        VersionRequirement::parse(Some(spec)).unwrap()
    }

    #[test]
    fn versions_are_kept_in_kafka_connects_order() {
        let v = installed(&["1.10.0", "1.2.0", "1.2.0-rc1", "0.9"]);
        assert_eq!(v.versions(), ["0.9", "1.2.0-rc1", "1.2.0", "1.10.0"]);
        assert_eq!(v.newest().map(String::as_str), Some("file-1.10.0"));
        let files: Vec<&str> = v.iter().map(String::as_str).collect();
        assert_eq!(files, ["file-0.9", "file-1.2.0-rc1", "file-1.2.0", "file-1.10.0"]);
    }

    #[test]
    fn the_same_version_twice_is_refused_naming_the_first() {
        let mut v = installed(&["1.0.0"]);
        assert_eq!(v.insert("1.0", "other".to_owned()), Err(&"file-1.0.0".to_owned()));
        assert_eq!(v.versions(), ["1.0.0"], "the first stays");
    }

    #[test]
    fn a_requirement_picks_the_newest_it_allows_or_lists_what_is_installed() {
        let v = installed(&["1.0.0", "1.5.0", "2.0.0"]);
        assert_eq!(v.pick(&VersionRequirement::Latest).unwrap(), "file-2.0.0");
        assert_eq!(v.pick(&req("[1.0,2.0)")).unwrap(), "file-1.5.0");
        assert_eq!(v.pick(&req("1.0.0")).unwrap(), "file-1.0.0");
        assert_eq!(v.pick(&req("3.0")).unwrap_err(), ["1.0.0", "1.5.0", "2.0.0"]);
        assert_eq!(
            Versions::<String>::default().pick(&VersionRequirement::Latest).unwrap_err(),
            Vec::<String>::new()
        );
    }
}
