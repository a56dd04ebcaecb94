//! The "validate rejects bad configs" check: the worker's full validation (framework
//! keys, the definition's types and required keys, then the plugin's own `validate`,
//! through [`crate::herder::validate_config`]) accepts the config under test and rejects
//! configs the kit breaks on purpose, each with a problem naming the broken key.
//!
//! Broken configs come from the definition ([`bad_configs`], pure): each required key
//! removed; each INT, LONG, DOUBLE or BOOLEAN key set to text that does not parse; and,
//! when some key is required, a config holding only the framework keys. The point for a
//! plugin author is that `validate` survives them (a trap in `validate` fails the REST
//! validate call for every user) and that its own problems add to, never hide, the
//! worker's.

use super::kit::Kit;
use super::report::{Finding, one_line};
use crate::config::providers::ConfigProviders;
use crate::herder::{RetryPolicy, ValidationRules, validate_config};
use crate::model::OverridePolicy;
use crate::model::{ConfigDef, ConfigType, Properties};

use crate::worker::PluginRegistry;

/// Keys that belong to the framework, kept in the "empty" config.
const FRAMEWORK_KEYS: [&str; 5] =
    ["name", "connector.class", "tasks.max", "topics", "topics.regex"];

/// A config broken on purpose.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadConfig {
    /// What was broken, e.g. `file removed` or `batch.size=not-a-number`.
    pub what: String,
    /// Keys of which at least one must be named by a problem.
    pub expect: Vec<String>,
    /// The config.
    pub config: Properties,
}

/// The broken variants of `good` under `def`.
pub fn bad_configs(def: &ConfigDef, good: &[(String, String)]) -> Vec<BadConfig> {
    let base: Properties = good.iter().cloned().collect();
    let mut out = Vec::new();
    let required: Vec<String> = def
        .keys
        .iter()
        .filter(|k| k.required && k.default_value.is_none())
        .map(|k| k.name.clone())
        .collect();
    for key in &required {
        let mut config = base.clone();
        config.remove(key);
        out.push(BadConfig { what: format!("{key} removed"), expect: vec![key.clone()], config });
    }
    for key in &def.keys {
        let bad = match key.ty {
            ConfigType::Short | ConfigType::Int | ConfigType::Long | ConfigType::Double => {
                "not-a-number"
            }
            ConfigType::Boolean => "maybe",
            ConfigType::String | ConfigType::List | ConfigType::Password | ConfigType::Class => {
                continue;
            }
        };
        let mut config = base.clone();
        config.insert(key.name.clone(), bad.to_owned());
        out.push(BadConfig {
            what: format!("{}={bad}", key.name),
            expect: vec![key.name.clone()],
            config,
        });
    }
    if !required.is_empty() {
        let config =
            base.into_iter().filter(|(k, _)| FRAMEWORK_KEYS.contains(&k.as_str())).collect();
        out.push(BadConfig { what: "empty config".into(), expect: required, config });
    }
    out
}

/// Runs the check.
pub async fn check(kit: &Kit) -> Finding {
    let registry = PluginRegistry::new(vec![kit.plugin.clone()]);
    let policy = RetryPolicy::default();
    let providers = ConfigProviders::default();
    let rules = ValidationRules {
        registry: &registry,
        defaults: &policy,
        overrides: OverridePolicy::All,
        providers: &providers,
        exactly_once: Default::default(),
    };
    let validate = |config: Properties| async move { validate_config(rules, &config).await };
    let mut failures = Vec::new();
    let good: Properties = kit.subject.config.iter().cloned().collect();
    match kit.subject.runnable() {
        Err(why) => failures.push(format!("the config under test cannot validate: {why}")),
        Ok(()) => match validate(good).await {
            Ok(problems) if problems.is_empty() => {}
            Ok(problems) => failures.push(format!(
                "the config under test is rejected: {}",
                problems
                    .iter()
                    .map(|p| format!("{}: {}", p.key, p.message))
                    .collect::<Vec<_>>()
                    .join("; ")
            )),
            Err(e) => failures.push(format!("validating the config under test failed: {e}")),
        },
    }
    let bad = bad_configs(kit.def(), &kit.subject.config);
    let mut rejected = Vec::new();
    for b in &bad {
        match validate(b.config.clone()).await {
            Ok(problems) => {
                let named = problems.iter().any(|p| {
                    b.expect.iter().any(|k| p.key == *k || p.message.contains(k.as_str()))
                });
                if named {
                    rejected.push(b.what.clone());
                } else if problems.is_empty() {
                    failures.push(format!("{}: accepted", b.what));
                } else {
                    failures.push(format!(
                        "{}: no problem names {}",
                        b.what,
                        b.expect.join(" or ")
                    ));
                }
            }
            Err(e) => failures.push(format!(
                "{}: validation failed: {}",
                b.what,
                one_line(&e.to_string())
            )),
        }
    }
    if !failures.is_empty() {
        return Finding::fail(failures.join("; "));
    }
    if bad.is_empty() {
        return Finding::skip(
            "config under test is valid; the definition has no required or typed key to break",
        );
    }
    Finding::pass(format!(
        "config under test is valid; {} of {} broken configs rejected naming the key ({})",
        rejected.len(),
        bad.len(),
        abbreviate(&rejected, 4)
    ))
}

/// The first `n` items, then `…`.
fn abbreviate(items: &[String], n: usize) -> String {
    let mut s = items.iter().take(n).cloned().collect::<Vec<_>>().join(", ");
    if items.len() > n {
        s.push_str(", …");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ConfigKey, Importance};

    fn key(name: &str, ty: ConfigType, default: Option<&str>, required: bool) -> ConfigKey {
        ConfigKey {
            name: name.into(),
            ty,
            default_value: default.map(Into::into),
            importance: Importance::High,
            documentation: String::new(),
            required,
            sensitive: false,
            grant: None,
        }
    }

    fn good() -> Vec<(String, String)> {
        [("name", "c"), ("connector.class", "P"), ("file", "/tmp/x"), ("batch", "5")]
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn required_and_typed_keys_are_broken_one_at_a_time() {
        let def = ConfigDef {
            keys: vec![
                key("file", ConfigType::String, None, true),
                key("batch", ConfigType::Int, Some("10"), false),
                key("on", ConfigType::Boolean, Some("true"), false),
                key("label", ConfigType::String, Some("x"), false),
            ],
        };
        let bad = bad_configs(&def, &good());
        let whats: Vec<&str> = bad.iter().map(|b| b.what.as_str()).collect();
        assert_eq!(whats, ["file removed", "batch=not-a-number", "on=maybe", "empty config"]);
        assert!(!bad[0].config.contains_key("file"));
        assert_eq!(bad[0].config.get("batch").map(String::as_str), Some("5"));
        assert_eq!(bad[2].config.get("on").map(String::as_str), Some("maybe"));
        let empty = &bad[3].config;
        assert_eq!(empty.keys().collect::<Vec<_>>(), ["connector.class", "name"]);
        assert_eq!(bad[3].expect, vec!["file".to_string()]);
    }

    #[test]
    fn nothing_to_break_gives_no_config() {
        let def = ConfigDef { keys: vec![key("label", ConfigType::String, Some("x"), false)] };
        assert!(bad_configs(&def, &good()).is_empty());
    }
}
