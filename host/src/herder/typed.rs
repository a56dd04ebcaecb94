//! Each connector's parsed config ([`Parsed`]), kept beside the [`ConfigState`] it comes
//! from: parsed when the config topic brings a new or changed config, dropped when the
//! connector goes. The herder reads framework keys here (its plugin, `tasks.max`, the
//! retry and restart policies) and hands the parsed config to every instance it starts.
//!
//! A config is parsed again when it changes, and when the installed plugins change
//! ([`Typed::resync`]): then only the configs that named no installed plugin, or whose
//! plugin is no longer installed. A connector that runs keeps the plugin it started with,
//! and a new version installed changes nothing for a connector until its config changes
//! (an upgrade is a config change).

use std::collections::BTreeMap;

use crate::model::RetryPolicy;
use crate::store::ConfigState;
use crate::worker::PluginRegistry;
use crate::worker::connector_config::{Framework, Parsed, parse};

/// The parsed config of every connector in the config state.
#[derive(Default)]
pub(super) struct Typed {
    by_name: BTreeMap<String, Parsed>,
}

impl Typed {
    /// Parses what `config` holds that is new or changed; forgets removed connectors.
    pub fn sync(
        &mut self,
        config: &ConfigState,
        registry: &PluginRegistry,
        defaults: &RetryPolicy,
    ) {
        self.by_name.retain(|name, _| config.contains(name));
        for name in config.connectors() {
            let Some(raw) = config.connector_config(name) else { continue };
            let current = self.by_name.get(name).map(|p| &framework_of(p).raw);
            if current != Some(raw) {
                self.by_name.insert(name.to_owned(), parse(name, raw, registry, defaults));
            }
        }
    }

    /// Parses again, with the plugins now installed, each config that named no installed
    /// plugin and each whose plugin `registry` no longer holds. Returns the connectors
    /// that now have a plugin and had none.
    pub fn resync(
        &mut self,
        config: &ConfigState,
        registry: &PluginRegistry,
        defaults: &RetryPolicy,
    ) -> Vec<String> {
        let mut found = Vec::new();
        for (name, parsed) in &mut self.by_name {
            let stale = match parsed {
                Ok(c) => !registry.holds(&c.plugin),
                Err(_) => true,
            };
            let Some(raw) = config.connector_config(name).filter(|_| stale) else { continue };
            let before = parsed.is_ok();
            *parsed = parse(name, raw, registry, defaults);
            if !before && parsed.is_ok() {
                found.push(name.clone());
            }
        }
        found
    }

    /// The connectors whose config was rejected (no plugin, a bad key, …).
    pub fn rejected(&self) -> Vec<String> {
        self.by_name.iter().filter(|(_, p)| p.is_err()).map(|(n, _)| n.clone()).collect()
    }

    /// `name`'s parsed config.
    pub fn get(&self, name: &str) -> Option<&Parsed> {
        self.by_name.get(name)
    }

    /// `name`'s framework keys, whether or not a plugin serves its class.
    pub fn framework(&self, name: &str) -> Option<&Framework> {
        self.by_name.get(name).map(framework_of)
    }
}

fn framework_of(parsed: &Parsed) -> &Framework {
    match parsed {
        Ok(config) => &config.framework,
        Err(rejected) => &rejected.framework,
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::model::Properties;
    use crate::store::ConfigRecord;

    fn put(state: &mut ConfigState, name: &str, pairs: &[(&str, &str)]) {
        let config: Properties =
            pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        state.apply(ConfigRecord::Connector { name: name.into(), config: Some(config) });
    }

    fn rejected(typed: &Typed, name: &str) -> Arc<crate::worker::Rejected> {
        typed.get(name).unwrap().clone().unwrap_err()
    }

    #[test]
    fn a_config_is_parsed_again_only_when_it_changes() {
        let (registry, defaults) = (PluginRegistry::default(), RetryPolicy::default());
        let mut state = ConfigState::default();
        let mut typed = Typed::default();
        put(&mut state, "a", &[("connector.class", "A"), ("tasks.max", "2")]);
        put(&mut state, "b", &[("connector.class", "B")]);
        typed.sync(&state, &registry, &defaults);
        let first = rejected(&typed, "a");
        assert_eq!(typed.framework("a").unwrap().tasks_max, 2);
        assert_eq!(typed.framework("b").unwrap().class.as_deref(), Some("B"));

        // Another connector's change leaves this one's parse as it was.
        put(&mut state, "b", &[("connector.class", "B"), ("tasks.max", "5")]);
        typed.sync(&state, &registry, &defaults);
        assert!(Arc::ptr_eq(&first, &rejected(&typed, "a")));
        assert_eq!(typed.framework("b").unwrap().tasks_max, 5);

        put(&mut state, "a", &[("connector.class", "A"), ("tasks.max", "3")]);
        typed.sync(&state, &registry, &defaults);
        assert!(!Arc::ptr_eq(&first, &rejected(&typed, "a")));
        assert_eq!(typed.framework("a").unwrap().tasks_max, 3);

        state.apply(ConfigRecord::Connector { name: "a".into(), config: None });
        typed.sync(&state, &registry, &defaults);
        assert!(typed.get("a").is_none());
        assert!(typed.get("b").is_some());
    }
}
