//! The installed plugins, by name, and Kafka Connect's rules for finding one from a
//! `connector.class` value.

use std::collections::BTreeMap;

use crate::runtime::Plugin;

/// Every plugin this worker loaded from its plugin path.
#[derive(Clone, Default)]
pub struct PluginRegistry {
    by_name: BTreeMap<String, Plugin>,
}

impl PluginRegistry {
    /// A registry of `plugins`; on duplicate names the first wins (and is logged).
    pub fn new(plugins: Vec<Plugin>) -> Self {
        let mut by_name = BTreeMap::new();
        for p in plugins {
            let name = p.info().name.clone();
            if let Some(first) = by_name.get(&name) {
                let first: &Plugin = first;
                tracing::warn!(plugin = %name, kept = %first.info().file.display(), ignored = %p.info().file.display(), "Two plugins have the same name");
                continue;
            }
            by_name.insert(name, p);
        }
        Self { by_name }
    }

    /// All plugins, sorted by name.
    pub fn plugins(&self) -> impl Iterator<Item = &Plugin> {
        self.by_name.values()
    }

    /// The plugin a `connector.class` value names: the plugin name itself, or as Kafka
    /// Connect aliases classes, the last segment of a dotted class name, with or without
    /// a `Connector` suffix (`org.apache.kafka.connect.file.FileStreamSourceConnector` and
    /// `FileStreamSourceConnector` both find `FileStreamSource`).
    pub fn resolve(&self, class: &str) -> Option<&Plugin> {
        let class = class.trim();
        let simple = class.rsplit('.').next().unwrap_or(class);
        [class, simple, simple.strip_suffix("Connector").unwrap_or(simple)]
            .into_iter()
            .find_map(|n| self.by_name.get(n))
    }

    /// Kafka Connect's message for an unknown class.
    pub fn not_found(&self, class: &str) -> String {
        let names: Vec<&str> = self.by_name.keys().map(String::as_str).collect();
        format!(
            "Failed to find any class that implements Connector and which name matches {class}, available connectors are: {}",
            names.join(", ")
        )
    }
}
