//! The keys of transforms and predicates as `/connector-plugins/{class}/config` and
//! validate show them: a class's own keys, and for a connector config every alias of
//! `transforms` and `predicates` with Kafka Connect's enriched keys (`transforms.<a>.type`,
//! `.plugin.version`, `.predicate`, `.negate`, then the keys of the class, of the version
//! the alias picks, prefixed), in the group
//! `Transforms: <a>` or `Predicates: <p>`, as `ConnectorConfig.enrich` adds them. REST
//! renders them. It only describes keys; checking values is `validate`'s.

use wasm_connect_transforms::config::{
    Default as KeyDefault, Importance as KeyImportance, KeyDef, KeyType,
};
use wasm_connect_transforms::registry;

use super::connector_keys::{Placed, key};
use super::plugin_version_keys::{alias_key, class_versions};
use crate::model::{
    ConfigKey, ConfigType, Importance, PluginVersion, Properties, VersionRequirement,
};
use crate::runtime::Plugin;
use crate::worker::PluginRegistry;
use crate::worker::transforms::listed_aliases;
use crate::worker::version_keys::{BUILTIN_VERSION, PLUGIN_VERSION};

/// The own keys of the transform or predicate `name` names (a built-in class, its simple
/// name, or a transform plugin: the newest version `requirement` allows), outside any
/// group; `None` when it names none, `Err` with the installed versions when `requirement`
/// allows none of them.
pub fn class_keys(
    name: &str,
    plugins: &PluginRegistry,
    requirement: &VersionRequirement,
) -> Option<Result<Vec<Placed>, Vec<String>>> {
    let ungrouped = |key: ConfigKey| Placed {
        display: key.name.clone(),
        key,
        group: None,
        order: -1,
        width: "NONE",
    };
    let builtin = registry::transform(name)
        .map(|def| def.keys)
        .or_else(|| registry::predicate(name).map(|def| def.keys));
    if let Some(keys) = builtin {
        if !requirement.allows(&PluginVersion::parse(BUILTIN_VERSION)) {
            return Some(Err(vec![BUILTIN_VERSION.to_owned()]));
        }
        return Some(Ok(keys.iter().map(|k| ungrouped(key_of(k, ""))).collect()));
    }
    let plugin = match plugins.transform_versions(name)?.pick(requirement) {
        Ok(plugin) => plugin,
        Err(installed) => return Some(Err(installed)),
    };
    Some(Ok(plugin.info().config_def.keys.iter().cloned().map(ungrouped).collect()))
}

/// The version of its class that an alias's `plugin.version` key picks among transform
/// plugins: the newest it allows, or the newest when it is no version or range or allows
/// none (validate reports that on the key; the definition still shows the class's keys).
fn picked<'a>(
    config: &Properties,
    prefix: &str,
    plugins: &'a PluginRegistry,
) -> Option<&'a Plugin> {
    let class = config.get(&format!("{prefix}type")).map(|c| c.trim()).unwrap_or_default();
    let versions = plugins.transform_versions(class)?;
    let spec = config.get(&format!("{prefix}{PLUGIN_VERSION}")).map(String::as_str);
    VersionRequirement::parse(spec)
        .ok()
        .and_then(|r| versions.pick(&r).ok())
        .or_else(|| versions.newest())
}

/// The enriched keys of every alias `config` lists, in Kafka Connect's order: the
/// transforms' aliases, then the predicates'.
pub fn alias_keys(config: &Properties, plugins: &PluginRegistry) -> Vec<Placed> {
    let mut out = Vec::new();
    for alias in listed_aliases(config, "transforms") {
        let mut g = Group::new(&mut out, "transforms", "Transforms", &alias);
        g.type_key("transformation", "Transformation");
        g.version_key(config, plugins, "transforms", "transformation", "Transformation");
        let predicate_doc =
            "The alias of a predicate used to determine whether to apply this transformation.";
        g.add(key(
            &g.key("predicate"),
            ConfigType::String,
            None,
            Importance::Medium,
            predicate_doc,
        ));
        let negate_doc = "Whether the configured predicate should be negated.";
        g.add(key(
            &g.key("negate"),
            ConfigType::Boolean,
            Some("false"),
            Importance::Medium,
            negate_doc,
        ));
        let class = config.get(&g.key("type")).map(|c| c.trim()).unwrap_or_default();
        if let Some(def) = registry::transform(class) {
            for k in def.keys.iter().filter(|k| !["predicate", "negate"].contains(&k.name)) {
                g.add(key_of(k, &g.prefix));
            }
        } else if let Some(plugin) = picked(config, &g.prefix, plugins) {
            for k in &plugin.info().config_def.keys {
                g.add(ConfigKey { name: g.key(&k.name), ..k.clone() });
            }
        }
    }
    for alias in listed_aliases(config, "predicates") {
        let mut g = Group::new(&mut out, "predicates", "Predicates", &alias);
        g.type_key("predicate", "Predicate");
        g.version_key(config, plugins, "predicates", "predicate", "Predicate");
        let class = config.get(&g.key("type")).map(|c| c.trim()).unwrap_or_default();
        if let Some(def) = registry::predicate(class) {
            for k in def.keys {
                g.add(key_of(k, &g.prefix));
            }
        }
    }
    out
}

/// The keys of one alias, numbered in its group from 0 as `ConfigDef.embed` numbers them.
struct Group<'a> {
    out: &'a mut Vec<Placed>,
    alias: String,
    prefix: String,
    group: String,
    order: i32,
}

impl<'a> Group<'a> {
    fn new(out: &'a mut Vec<Placed>, list: &str, group: &str, alias: &str) -> Self {
        Self {
            out,
            alias: alias.to_owned(),
            prefix: format!("{list}.{alias}."),
            group: format!("{group}: {alias}"),
            order: 0,
        }
    }

    /// The full name of the alias's key `name`.
    fn key(&self, name: &str) -> String {
        format!("{}{name}", self.prefix)
    }

    /// `<prefix>type`: required, a class, shown as `<Kind> type for <alias>`.
    fn type_key(&mut self, kind: &str, display: &str) {
        let doc = format!("Class for the '{}' {kind}.", self.alias);
        let key = ConfigKey {
            required: true,
            ..key(&self.key("type"), ConfigType::Class, None, Importance::High, &doc)
        };
        let display = format!("{display} type for {}", self.alias);
        self.place(key, "LONG", display);
    }

    /// `<prefix>plugin.version` (KIP-891), shown as `<Kind> version for <alias>`, its
    /// default the newest installed version of the class `<prefix>type` names.
    fn version_key(
        &mut self,
        config: &Properties,
        plugins: &PluginRegistry,
        list: &str,
        kind: &str,
        display: &str,
    ) {
        let class = config.get(&self.key("type")).map(|c| c.trim()).unwrap_or_default();
        let installed = class_versions(list, class, plugins);
        let key = alias_key(&self.prefix, &self.alias, kind, installed.last().map(String::as_str));
        let display = format!("{display} version for {}", self.alias);
        self.place(key, "LONG", display);
    }

    /// A key shown by its name without the prefix, as Kafka Connect's embedded keys are.
    fn add(&mut self, key: ConfigKey) {
        let display = key.name.strip_prefix(&self.prefix).unwrap_or(&key.name).to_owned();
        self.place(key, "NONE", display);
    }

    fn place(&mut self, key: ConfigKey, width: &'static str, display: String) {
        let group = Some(self.group.clone());
        self.out.push(Placed { key, group, order: self.order, width, display });
        self.order += 1;
    }
}

/// A built-in class's key as the worker's model holds it, named `prefix` + its name.
fn key_of(k: &KeyDef, prefix: &str) -> ConfigKey {
    let ty = match k.ty {
        KeyType::Boolean => ConfigType::Boolean,
        KeyType::Int => ConfigType::Int,
        KeyType::Long => ConfigType::Long,
        KeyType::Double => ConfigType::Double,
        KeyType::String => ConfigType::String,
        KeyType::List => ConfigType::List,
        KeyType::Password => ConfigType::Password,
    };
    let importance = match k.importance {
        KeyImportance::High => Importance::High,
        KeyImportance::Medium => Importance::Medium,
        KeyImportance::Low => Importance::Low,
    };
    let (required, default_value) = match k.default {
        KeyDefault::Required => (true, None),
        KeyDefault::Null => (false, None),
        KeyDefault::Value(v) => (false, Some(v.to_owned())),
    };
    ConfigKey {
        name: format!("{prefix}{}", k.name),
        ty,
        default_value,
        importance,
        documentation: k.doc.to_owned(),
        required,
        sensitive: k.ty == KeyType::Password,
        grant: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(pairs: &[(&str, &str)]) -> Properties {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn aliases_get_kafka_connects_enriched_keys_in_their_groups() {
        let c = config(&[
            ("transforms", "mask, mask"),
            ("transforms.mask.type", "org.apache.kafka.connect.transforms.MaskField$Value"),
            ("predicates", "p"),
            ("predicates.p.type", "TopicNameMatches"),
        ]);
        let keys = alias_keys(&c, &PluginRegistry::default());
        let names: Vec<(&str, Option<&str>, i32)> =
            keys.iter().map(|p| (p.key.name.as_str(), p.group.as_deref(), p.order)).collect();
        assert_eq!(names[0], ("transforms.mask.type", Some("Transforms: mask"), 0));
        assert_eq!(names[1], ("transforms.mask.plugin.version", Some("Transforms: mask"), 1));
        assert_eq!(names[2], ("transforms.mask.predicate", Some("Transforms: mask"), 2));
        assert_eq!(names[3], ("transforms.mask.negate", Some("Transforms: mask"), 3));
        assert!(
            names.contains(&("transforms.mask.fields", Some("Transforms: mask"), 4)),
            "{names:?}"
        );
        assert!(names.contains(&("predicates.p.type", Some("Predicates: p"), 0)));
        assert!(names.contains(&("predicates.p.plugin.version", Some("Predicates: p"), 1)));
        assert!(names.contains(&("predicates.p.pattern", Some("Predicates: p"), 2)));
        assert_eq!(keys[1].display, "Transformation version for mask");
        assert_eq!(keys[1].key.default_value.as_deref(), Some(BUILTIN_VERSION));
        assert_eq!(keys[1].key.ty, ConfigType::String);
        assert_eq!(keys[0].display, "Transformation type for mask");
        assert!(keys[0].key.required && keys[0].key.ty == ConfigType::Class);
        let fields = keys.iter().find(|p| p.key.name == "transforms.mask.fields").unwrap();
        assert!(fields.key.required && fields.display == "fields");
    }

    #[test]
    fn a_class_is_found_by_its_name_or_simple_name() {
        let none = PluginRegistry::default();
        let latest = VersionRequirement::Latest;
        let regex_router = "org.apache.kafka.connect.transforms.RegexRouter";
        let keys = class_keys(regex_router, &none, &latest).unwrap().unwrap();
        let names: Vec<&str> = keys.iter().map(|p| p.key.name.as_str()).collect();
        assert_eq!(names, ["regex", "replacement"]);
        assert!(class_keys("HasHeaderKey", &none, &latest).is_some());
        assert!(class_keys("org.example.Nope", &none, &latest).is_none());
        // A built-in class has the worker's version only.
        let own = VersionRequirement::parse(Some(BUILTIN_VERSION)).unwrap();
        assert!(class_keys(regex_router, &none, &own).unwrap().is_ok());
        let other = VersionRequirement::parse(Some("[99.0,)")).unwrap();
        assert_eq!(
            class_keys(regex_router, &none, &other).unwrap().err(),
            Some(vec![BUILTIN_VERSION.to_owned()])
        );
    }
}
