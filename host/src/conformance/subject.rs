//! [`Subject`]: the connector config a conformance run uses, built from the user's
//! `--config` file (or from nothing) and the plugin's definition.
//!
//! The kit sets `connector.class` to the plugin under test and, for a sink, `topics` when
//! the user gave neither `topics` nor `topics.regex`. It never invents values for the
//! plugin's own required keys: it lists the missing ones, and every check that needs a
//! runnable config fails naming them.

use crate::model::{ConfigDef, PluginKind};

/// The connector name used when no config file gives one.
pub const DEFAULT_NAME: &str = "conformance-test";
/// The topic a sink is given when its config names none.
pub const DEFAULT_TOPIC: &str = "conformance-test";

/// The config under test.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Subject {
    /// The connector name (instances' identity).
    pub name: String,
    /// The connector config as the worker would store it: the user's keys plus
    /// `name`, `connector.class` and (sinks) `topics`; no defaults filled in.
    pub config: Vec<(String, String)>,
    /// The plugin's required keys without a default that the config does not set.
    pub missing: Vec<String>,
    /// The topic a sink's synthetic records come from.
    pub topic: String,
    /// `tasks.max`, or 1.
    pub tasks_max: u32,
}

impl Subject {
    /// The subject for a plugin named `plugin` of `kind` with definition `def`, from the
    /// user's config file (`None`: no file).
    pub fn new(
        plugin: &str,
        kind: PluginKind,
        def: &ConfigDef,
        file: Option<(String, Vec<(String, String)>)>,
    ) -> Self {
        let (name, mut config) = file.unwrap_or_else(|| (DEFAULT_NAME.to_owned(), Vec::new()));
        set(&mut config, "name", &name);
        set(&mut config, "connector.class", plugin);
        let mut topic = DEFAULT_TOPIC.to_owned();
        if kind == PluginKind::Sink {
            match get(&config, "topics") {
                Some(topics) => {
                    if let Some(first) = topics.split(',').map(str::trim).find(|t| !t.is_empty()) {
                        topic = first.to_owned();
                    }
                }
                None if get(&config, "topics.regex").is_none() => {
                    set(&mut config, "topics", &topic)
                }
                None => {}
            }
        }
        let tasks_max =
            get(&config, "tasks.max").and_then(|v| v.parse::<u32>().ok()).unwrap_or(1).max(1);
        let missing = def
            .keys
            .iter()
            .filter(|k| k.required && k.default_value.is_none() && get(&config, &k.name).is_none())
            .map(|k| k.name.clone())
            .collect();
        Self { name, config, missing, topic, tasks_max }
    }

    /// `Err` with the message every check needing a runnable config fails with.
    pub fn runnable(&self) -> Result<(), String> {
        if self.missing.is_empty() {
            Ok(())
        } else {
            Err(format!("pass --config with values for: {}", self.missing.join(", ")))
        }
    }
}

/// The last non-blank value of `key`, trimmed.
fn get(config: &[(String, String)], key: &str) -> Option<String> {
    config
        .iter()
        .rev()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.trim().to_owned())
        .filter(|v| !v.is_empty())
}

/// Sets `key` to `value`, replacing an earlier value.
fn set(config: &mut Vec<(String, String)>, key: &str, value: &str) {
    config.retain(|(k, _)| k != key);
    config.push((key.to_owned(), value.to_owned()));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ConfigKey, ConfigType, Importance};

    fn def() -> ConfigDef {
        let key = |name: &str, default: Option<&str>, required| ConfigKey {
            name: name.into(),
            ty: ConfigType::String,
            default_value: default.map(Into::into),
            importance: Importance::High,
            documentation: "d".into(),
            required,
            sensitive: false,
            grant: None,
        };
        ConfigDef { keys: vec![key("file", None, true), key("topic", None, true)] }
    }

    fn cfg(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn without_a_file_the_required_keys_are_named() {
        let s = Subject::new("P", PluginKind::Source, &def(), None);
        assert_eq!(s.name, DEFAULT_NAME);
        assert_eq!(s.runnable().unwrap_err(), "pass --config with values for: file, topic");
        assert!(s.config.contains(&("connector.class".into(), "P".into())));
    }

    #[test]
    fn a_file_fills_keys_and_a_sink_gets_a_topic() {
        let file =
            ("c".to_string(), cfg(&[("file", "/tmp/x"), ("topic", " "), ("tasks.max", "3")]));
        let s = Subject::new("P", PluginKind::Source, &def(), Some(file));
        assert_eq!(s.missing, vec!["topic".to_string()], "a blank value is missing");
        assert_eq!(s.tasks_max, 3);
        let file = ("c".to_string(), cfg(&[("file", "/tmp/x"), ("topic", "t")]));
        let s = Subject::new("P", PluginKind::Sink, &def(), Some(file));
        assert!(s.runnable().is_ok());
        assert_eq!(s.topic, DEFAULT_TOPIC);
        assert!(s.config.contains(&("topics".into(), DEFAULT_TOPIC.into())));
        let file = ("c".to_string(), cfg(&[("topics", "a, b")]));
        let s = Subject::new("P", PluginKind::Sink, &ConfigDef::default(), Some(file));
        assert_eq!(s.topic, "a");
    }
}
