//! KIP-891's version keys as a definition shows them, as Kafka Connect 4.1 defines them:
//! `connector.plugin.version` and the three `<converter>.plugin.version` keys among the
//! framework's Common keys, each after the key of the class it versions; an alias's
//! `transforms.<a>.plugin.version` or `predicates.<p>.plugin.version` after its `type`;
//! and the values validate recommends for each (the installed versions of the plugin the
//! config names). It only describes keys; checking values is the worker's
//! (`worker::version_keys`, `connector_config`, the chain's spec).

use wasm_connect_transforms::registry;

use crate::model::{ConfigKey, ConfigType, Importance, Properties};
use crate::worker::PluginRegistry;
use crate::worker::version_keys::{BUILTIN_VERSION, CONVERTER_KEYS, PLUGIN_VERSION};

/// The connector's version key.
pub const CONNECTOR_VERSION: &str = "connector.plugin.version";

/// A STRING version key: optional, not secret, granting nothing.
fn version_key(name: &str, default: Option<&str>, importance: Importance, doc: &str) -> ConfigKey {
    ConfigKey {
        name: name.to_owned(),
        ty: ConfigType::String,
        default_value: default.map(str::to_owned),
        importance,
        documentation: doc.to_owned(),
        required: false,
        sensitive: false,
        grant: None,
    }
}

/// The framework version key that follows class key `class_key` (`connector.class` or a
/// converter's), if one does; `latest` is the connector plugin's newest installed version
/// (the default of `connector.plugin.version`).
pub fn after_class_key(class_key: &str, latest: Option<&str>) -> Option<ConfigKey> {
    if class_key == "connector.class" {
        let doc = "Version of the connector: a version, a Maven version range such as \
                   [1.0,2.0), or latest; the newest installed version it allows runs.";
        return Some(version_key(CONNECTOR_VERSION, latest, Importance::Medium, doc));
    }
    let (_, key, noun) = CONVERTER_KEYS.iter().find(|(class, _, _)| *class == class_key)?;
    let doc = format!(
        "Version of the {noun}: a version, a Maven version range, or latest. The converters \
         are built into the worker: its version is the only one installed."
    );
    Some(version_key(key, Some(BUILTIN_VERSION), Importance::Low, &doc))
}

/// The width and display name Kafka Connect gives a framework version key.
pub fn layout(name: &str) -> Option<(&'static str, &'static str)> {
    Some(match name {
        CONNECTOR_VERSION => ("MEDIUM", "Connector version"),
        "key.converter.plugin.version" => ("SHORT", "Key converter version"),
        "value.converter.plugin.version" => ("SHORT", "Value converter version"),
        "header.converter.plugin.version" => ("SHORT", "Header converter version"),
        _ => return None,
    })
}

/// The version key of alias `alias` of a `kind` (`transformation` or `predicate`) whose
/// keys start with `prefix`; `default` is the newest installed version of its class.
pub fn alias_key(prefix: &str, alias: &str, kind: &str, default: Option<&str>) -> ConfigKey {
    let name = format!("{prefix}{PLUGIN_VERSION}");
    let doc = format!("Version of the '{alias}' {kind}.");
    version_key(&name, default, Importance::High, &doc)
}

/// The installed versions of the transformation (`transforms`) or predicate
/// (`predicates`) class `class`, oldest first: the worker's for a built-in class, every
/// installed version for a transform plugin, none when nothing is installed under it.
pub fn class_versions(list: &str, class: &str, plugins: &PluginRegistry) -> Vec<String> {
    let builtin = match list {
        "transforms" => registry::transform(class).is_some(),
        _ => registry::predicate(class).is_some(),
    };
    if builtin {
        return vec![BUILTIN_VERSION.to_owned()];
    }
    match (list, plugins.transform_versions(class)) {
        ("transforms", Some(versions)) => versions.versions(),
        _ => Vec::new(),
    }
}

/// The values validate recommends for version key `key` of `config`: the installed
/// versions of the plugin the config names for it; `None` when `key` is no version key.
pub fn recommended(
    key: &str,
    config: &Properties,
    plugins: &PluginRegistry,
) -> Option<Vec<String>> {
    let class_of = |k: &str| config.get(k).map(|c| c.trim().to_owned()).unwrap_or_default();
    if key == CONNECTOR_VERSION {
        let class = class_of("connector.class");
        return Some(plugins.versions(&class).map(|v| v.versions()).unwrap_or_default());
    }
    if CONVERTER_KEYS.iter().any(|(_, k, _)| *k == key) {
        return Some(vec![BUILTIN_VERSION.to_owned()]);
    }
    let suffix = format!(".{PLUGIN_VERSION}");
    ["transforms", "predicates"].into_iter().find_map(|list| {
        let alias = key.strip_prefix(list)?.strip_prefix('.')?.strip_suffix(&suffix)?;
        let class = class_of(&format!("{list}.{alias}.type"));
        Some(class_versions(list, &class, plugins))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(pairs: &[(&str, &str)]) -> Properties {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn each_version_key_recommends_the_versions_of_its_plugin() {
        let none = PluginRegistry::default();
        let c = config(&[
            ("connector.class", "Nope"),
            ("transforms.m.type", "org.apache.kafka.connect.transforms.MaskField$Value"),
            ("transforms.x.type", "org.example.Unknown"),
            ("predicates.p.type", "TopicNameMatches"),
        ]);
        let builtin = Some(vec![BUILTIN_VERSION.to_owned()]);
        assert_eq!(recommended("connector.plugin.version", &c, &none), Some(vec![]));
        assert_eq!(recommended("value.converter.plugin.version", &c, &none), builtin);
        assert_eq!(recommended("transforms.m.plugin.version", &c, &none), builtin);
        assert_eq!(recommended("predicates.p.plugin.version", &c, &none), builtin);
        assert_eq!(recommended("transforms.x.plugin.version", &c, &none), Some(vec![]));
        assert_eq!(recommended("transforms.m.type", &c, &none), None);
        assert_eq!(recommended("tasks.max", &c, &none), None);
    }

    #[test]
    fn framework_version_keys_follow_their_class_keys() {
        let connector = after_class_key("connector.class", Some("2.0.0")).unwrap();
        assert_eq!(connector.name, CONNECTOR_VERSION);
        assert_eq!(connector.default_value.as_deref(), Some("2.0.0"));
        assert_eq!(connector.importance, Importance::Medium);
        let header = after_class_key("header.converter", None).unwrap();
        assert_eq!(header.name, "header.converter.plugin.version");
        assert_eq!(header.default_value.as_deref(), Some(BUILTIN_VERSION));
        assert!(after_class_key("tasks.max", None).is_none());
        assert_eq!(
            layout("key.converter.plugin.version"),
            Some(("SHORT", "Key converter version"))
        );
    }
}
