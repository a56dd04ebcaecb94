//! The "config definition" check: a plugin's self-description is sane. Pure: it reads
//! the [`PluginInfo`] the runtime got at load and calls no plugin code.
//!
//! Failures: an empty version; an empty, duplicated or `wasm.`-prefixed key name (the
//! worker reserves `wasm.*` for sandbox settings); a default that does not parse as the
//! key's type (checked with the worker's own [`ConfigDef::check`]); a required key with
//! a default (it can never be missing, so "required" means nothing); a key with a grant
//! and a default (a default would be a capability the user never gave: the worker grants
//! only from keys the user set, so the plugin would run with a value it cannot use).
//!
//! Warning only: a key without documentation. Kafka Connect accepts undocumented keys
//! and the worker runs them fine, but users see the text in `plugins inspect` and the
//! REST validate answer, so the row passes and its detail names the keys.

use std::collections::BTreeSet;

use super::report::Finding;
use crate::model::{ConfigDef, PluginInfo};

/// Judges `info`'s name, version and config definition.
pub fn check(info: &PluginInfo) -> Finding {
    let def = &info.config_def;
    let mut problems = Vec::new();
    if info.name.trim().is_empty() {
        problems.push("name() is empty".to_owned());
    }
    if info.version.trim().is_empty() {
        problems.push("version() is empty".to_owned());
    }
    let mut seen = BTreeSet::new();
    for key in &def.keys {
        let name = key.name.as_str();
        if name.trim().is_empty() {
            problems.push("a key has an empty name".to_owned());
            continue;
        }
        if !seen.insert(name) {
            problems.push(format!("key {name:?} is declared twice"));
        }
        if name.starts_with("wasm.") {
            problems.push(format!("key {name:?} uses the worker's reserved prefix wasm."));
        }
        if let Some(default) = &key.default_value {
            let alone = ConfigDef { keys: vec![key.clone()] };
            if let Some(p) = alone.check(&[(key.name.clone(), default.clone())]).first() {
                problems.push(format!("default of {name:?}: {}", p.message));
            }
            if key.required {
                problems.push(format!("required key {name:?} has a default"));
            }
            if let Some(grant) = key.grant {
                problems.push(format!(
                    "key {name:?} grants {grant} but has a default (grants come only from \
                     values the user sets)"
                ));
            }
        }
    }
    let undocumented: Vec<&str> = def
        .keys
        .iter()
        .filter(|k| k.documentation.trim().is_empty() && !k.name.trim().is_empty())
        .map(|k| k.name.as_str())
        .collect();
    if !problems.is_empty() {
        return Finding::fail(problems.join("; "));
    }
    let required = def.keys.iter().filter(|k| k.required).count();
    let granted = def.keys.iter().filter(|k| k.grant.is_some()).count();
    let mut detail = format!(
        "{} {} v{}: {} keys ({required} required, {granted} with a grant)",
        info.kind,
        info.name,
        info.version,
        def.keys.len()
    );
    if !undocumented.is_empty() {
        detail.push_str(&format!("; warning: no documentation on {}", undocumented.join(", ")));
    }
    Finding::pass(detail)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformance::report::Outcome;
    use crate::model::{ConfigKey, ConfigType, Grant, Importance, Language, PluginKind};

    fn key(name: &str, ty: ConfigType, default: Option<&str>) -> ConfigKey {
        ConfigKey {
            name: name.into(),
            ty,
            default_value: default.map(Into::into),
            importance: Importance::High,
            documentation: "Some text.".into(),
            required: false,
            sensitive: false,
            grant: None,
        }
    }

    fn info(keys: Vec<ConfigKey>) -> PluginInfo {
        PluginInfo {
            name: "P".into(),
            version: "1.0".into(),
            kind: PluginKind::Source,
            language: Language::Rust,
            file: "p.wasm".into(),
            digest: String::new(),
            config_def: ConfigDef { keys },
            imports: Vec::new(),
        }
    }

    #[test]
    fn a_sane_definition_passes() {
        let mut file = key("file", ConfigType::String, None);
        file.required = true;
        file.grant = Some(Grant::ReadFile);
        let f = check(&info(vec![file, key("batch", ConfigType::Int, Some("10"))]));
        assert_eq!(f.outcome, Outcome::Pass, "{}", f.detail);
        assert!(f.detail.contains("2 keys (1 required, 1 with a grant)"), "{}", f.detail);
    }

    #[test]
    fn each_insane_declaration_is_named() {
        let mut required = key("req", ConfigType::String, Some("x"));
        required.required = true;
        let mut granted = key("out", ConfigType::String, Some("/tmp/out"));
        granted.grant = Some(Grant::WriteFile);
        let mut i = info(vec![
            key("a", ConfigType::Int, None),
            key("a", ConfigType::String, None),
            key("", ConfigType::String, None),
            key("wasm.x", ConfigType::String, None),
            key("n", ConfigType::Int, Some("ten")),
            key("b", ConfigType::Boolean, Some("yes")),
            required,
            granted,
        ]);
        i.version = " ".into();
        let f = check(&i);
        assert_eq!(f.outcome, Outcome::Fail);
        for expected in [
            "version() is empty",
            "key \"a\" is declared twice",
            "empty name",
            "reserved prefix",
            "default of \"n\": Invalid value ten for configuration n: Not a number of type INT",
            "default of \"b\"",
            "required key \"req\" has a default",
            "key \"out\" grants write-file but has a default",
        ] {
            assert!(f.detail.contains(expected), "{expected:?} missing from {}", f.detail);
        }
    }

    #[test]
    fn missing_documentation_is_a_warning() {
        let mut k = key("quiet", ConfigType::String, None);
        k.documentation = " ".into();
        let f = check(&info(vec![k]));
        assert_eq!(f.outcome, Outcome::Pass);
        assert!(f.detail.contains("warning: no documentation on quiet"), "{}", f.detail);
    }
}
