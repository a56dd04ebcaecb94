//! The installed plugins, by name, and Kafka Connect's rules for finding one from a
//! `connector.class` value.
//!
//! A plugin's name (its `name` export) is either a short name (`Datagen`) or, for a plugin
//! that stands in for a Kafka Connect connector, that connector's class name
//! (`org.apache.kafka.connect.file.FileStreamSourceConnector`). Like Kafka Connect, the
//! registry derives aliases from a class name: its simple name
//! (`FileStreamSourceConnector`) and the simple name without `Connector`
//! (`FileStreamSource`). An alias two plugins would share, or that is another plugin's
//! name, is not registered (and is logged).
//!
//! Transform plugins (the `transform` world) are kept apart: `connector.class` never
//! finds one, and `transforms.<alias>.type` finds one by its name or its simple name.
//!
//! Several versions of one plugin may be installed side by side (KIP-891; the version the
//! component reports identifies it, not its file name): a name resolves to the newest, and
//! [`PluginRegistry::resolve_version`] to the one a version key asks for
//! ([`Versions`]). A second file with a name and version already installed is refused and
//! logged, naming both files.
//!
//! A registry is a value: the plugin path rescanned makes a new one (`plugin_watch`), and
//! whoever holds the old one keeps it. While a scan loads files, it publishes registries
//! that say which files are still loading ([`PluginRegistry::loading`]), so a plugin
//! missing then is not yet known to be missing.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::plugin_versions::Versions;
use crate::model::{PluginKind, VersionRequirement};
use crate::runtime::Plugin;

/// Every plugin this worker loaded from its plugin path. Cheap to clone.
#[derive(Clone, Default)]
pub struct PluginRegistry {
    inner: Arc<Inner>,
}

#[derive(Clone, Default)]
struct Inner {
    by_name: BTreeMap<String, Versions<Plugin>>,
    /// Transform plugins, by name.
    transforms: BTreeMap<String, Versions<Plugin>>,
    /// Alias → the name of the plugin it stands for.
    aliases: BTreeMap<String, String>,
    /// The files on the plugin path that did not load, each with why.
    failures: Vec<String>,
    /// While a scan loads files: those it has not finished (empty while it walks the
    /// path). `None` when no scan is loading anything.
    loading: Option<Vec<String>>,
}

impl PluginRegistry {
    /// A registry of `plugins`; a second file with a name and version already there is
    /// left out (and logged as an error naming both).
    pub fn new(plugins: Vec<Plugin>) -> Self {
        let mut by_name: BTreeMap<String, Versions<Plugin>> = BTreeMap::new();
        let mut transforms: BTreeMap<String, Versions<Plugin>> = BTreeMap::new();
        for p in plugins {
            let name = p.info().name.clone();
            let version = p.info().version.clone();
            let map =
                if p.info().kind == PluginKind::Transform { &mut transforms } else { &mut by_name };
            let file = p.info().file.clone();
            if let Err(first) = map.entry(name.clone()).or_default().insert(&version, p) {
                tracing::error!(plugin = %name, version = %version, kept = %first.info().file.display(), refused = %file.display(), "Two files hold the same plugin and version: the second is not loaded");
            }
        }
        let aliases = derive_aliases(by_name.keys().map(String::as_str));
        let inner = Inner { by_name, transforms, aliases, failures: Vec::new(), loading: None };
        Self { inner: Arc::new(inner) }
    }

    /// This registry while a scan still loads `files` (`None`: nothing is loading).
    pub fn with_loading(mut self, files: Option<Vec<String>>) -> Self {
        Arc::make_mut(&mut self.inner).loading = files;
        self
    }

    /// The files a scan is still loading, when one is (an empty list: it is walking the
    /// path). A plugin missing now may be among them.
    pub fn loading(&self) -> Option<&[String]> {
        self.inner.loading.as_deref()
    }

    /// This registry, noting the files of its plugin path that did not load.
    pub fn with_failures(mut self, failures: Vec<String>) -> Self {
        Arc::make_mut(&mut self.inner).failures = failures;
        self
    }

    /// Whether `plugin` (this very load of it) is installed here.
    pub fn holds(&self, plugin: &Plugin) -> bool {
        let map = if plugin.info().kind == PluginKind::Transform {
            &self.inner.transforms
        } else {
            &self.inner.by_name
        };
        map.get(&plugin.info().name).is_some_and(|v| v.iter().any(|p| p.same(plugin)))
    }

    /// The files of the plugin path that did not load, each with why.
    pub fn failures(&self) -> &[String] {
        &self.inner.failures
    }

    /// All connector plugins, every version, sorted by name, then version.
    pub fn plugins(&self) -> impl Iterator<Item = &Plugin> {
        self.inner.by_name.values().flat_map(Versions::iter)
    }

    /// All transform plugins, every version, sorted by name, then version.
    pub fn transforms(&self) -> impl Iterator<Item = &Plugin> {
        self.inner.transforms.values().flat_map(Versions::iter)
    }

    /// The transform plugin a `transforms.<alias>.type` value names (its newest version):
    /// its name, or the last segment of a dotted name.
    pub fn resolve_transform(&self, class: &str) -> Option<&Plugin> {
        self.transform_versions(class).and_then(Versions::newest)
    }

    /// The installed versions of the transform plugin a `transforms.<alias>.type` value
    /// names, as [`PluginRegistry::resolve_transform`] finds it.
    pub fn transform_versions(&self, class: &str) -> Option<&Versions<Plugin>> {
        let class = class.trim();
        self.inner.transforms.get(class).or_else(|| {
            let mut by_simple =
                self.inner.transforms.iter().filter(|(name, _)| simple_name(name) == class);
            match (by_simple.next(), by_simple.next()) {
                (Some((_, versions)), None) => Some(versions),
                _ => None,
            }
        })
    }

    /// The aliases of the plugin named `name`, sorted.
    pub fn aliases_of(&self, name: &str) -> Vec<&str> {
        self.inner.aliases.iter().filter(|(_, n)| *n == name).map(|(a, _)| a.as_str()).collect()
    }

    /// The plugin a `connector.class` value names: a plugin name or alias, or, as Kafka
    /// Connect aliases classes, the last segment of a dotted class name, with or without
    /// a `Connector` suffix (`FileStreamSourceConnector` and `FileStreamSource` both find
    /// `org.apache.kafka.connect.file.FileStreamSourceConnector`).
    pub fn resolve(&self, class: &str) -> Option<&Plugin> {
        self.versions(class).and_then(Versions::newest)
    }

    /// The installed versions of the plugin a `connector.class` value names.
    pub fn versions(&self, class: &str) -> Option<&Versions<Plugin>> {
        let class = class.trim();
        let simple = simple_name(class);
        [class, simple, pruned_name(simple)].into_iter().find_map(|n| {
            self.inner
                .by_name
                .get(n)
                .or_else(|| self.inner.aliases.get(n).and_then(|p| self.inner.by_name.get(p)))
        })
    }

    /// The version of the plugin `class` names that `requirement` picks (KIP-891): the
    /// newest it allows. `Ok(None)` when no such plugin is installed; `Err` with the
    /// installed versions when none is allowed.
    pub fn resolve_version(
        &self,
        class: &str,
        requirement: &VersionRequirement,
    ) -> Result<Option<&Plugin>, Vec<String>> {
        match self.versions(class) {
            None => Ok(None),
            Some(versions) => versions.pick(requirement).map(Some),
        }
    }

    /// Kafka Connect's message for an unknown class; while a scan loads files, it says
    /// how many are not loaded yet.
    pub fn not_found(&self, class: &str) -> String {
        let names: Vec<&str> = self.inner.by_name.keys().map(String::as_str).collect();
        let mut message = format!(
            "Failed to find any class that implements Connector and which name matches {class}, available connectors are: {}",
            names.join(", ")
        );
        if let Some(files) = self.loading() {
            message.push_str(&format!(
                " (the plugin path is still loading: {} file(s) not loaded yet)",
                files.len()
            ));
        }
        message
    }
}

/// The last segment of a dotted class name.
fn simple_name(class: &str) -> &str {
    class.rsplit('.').next().unwrap_or(class)
}

/// A simple name without its `Connector` suffix (Kafka Connect's "pruned" alias).
fn pruned_name(simple: &str) -> &str {
    simple.strip_suffix("Connector").filter(|s| !s.is_empty()).unwrap_or(simple)
}

/// The unambiguous aliases of plugins named `names`: alias → name.
fn derive_aliases<'a>(names: impl Iterator<Item = &'a str> + Clone) -> BTreeMap<String, String> {
    let taken: Vec<&str> = names.clone().collect();
    let mut candidates: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for name in names {
        let simple = simple_name(name);
        let mut own = vec![simple, pruned_name(simple)];
        own.dedup();
        for alias in own.into_iter().filter(|a| *a != name) {
            candidates.entry(alias).or_default().push(name);
        }
    }
    let mut aliases = BTreeMap::new();
    for (alias, owners) in candidates {
        if owners.len() > 1 || taken.contains(&alias) {
            tracing::warn!(alias, plugins = ?owners, "Not registering an ambiguous plugin alias");
            continue;
        }
        aliases.insert(alias.to_owned(), owners[0].to_owned());
    }
    aliases
}

#[cfg(test)]
mod tests {
    use super::*;

    fn aliases(names: &[&str]) -> Vec<(String, String)> {
        derive_aliases(names.iter().copied()).into_iter().collect()
    }

    #[test]
    fn class_names_get_kafka_connect_aliases() {
        let got = aliases(&["org.apache.kafka.connect.file.FileStreamSourceConnector", "Datagen"]);
        let full = "org.apache.kafka.connect.file.FileStreamSourceConnector".to_string();
        assert_eq!(
            got,
            vec![
                ("FileStreamSource".to_string(), full.clone()),
                ("FileStreamSourceConnector".to_string(), full)
            ]
        );
    }

    #[test]
    fn ambiguous_aliases_and_aliases_that_are_names_are_dropped() {
        let got = aliases(&["a.FooConnector", "b.FooConnector", "Bar", "x.BarConnector"]);
        // `FooConnector`/`Foo` are shared; `Bar` is a plugin's own name.
        assert_eq!(got, vec![("BarConnector".to_string(), "x.BarConnector".to_string())]);
    }

    #[test]
    fn a_bare_connector_suffix_is_not_pruned_to_nothing() {
        assert_eq!(pruned_name("Connector"), "Connector");
        assert_eq!(pruned_name("SinkConnector"), "Sink");
    }
}
