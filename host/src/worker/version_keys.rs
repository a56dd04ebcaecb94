//! KIP-891's version keys beside `connector.plugin.version`: `key.converter.plugin.version`,
//! `value.converter.plugin.version`, `header.converter.plugin.version`, and
//! `transforms.<alias>.plugin.version` and `predicates.<alias>.plugin.version`, each read
//! as a [`VersionRequirement`] (unset or `latest`: the newest installed), and the words of
//! a value that is no version or range or that no installed version matches.
//!
//! The converters and the built-in transforms and predicates are part of the worker: one
//! version each, the worker's own ([`BUILTIN_VERSION`]), as `GET /connector-plugins` lists
//! them. Transform plugins may have several versions installed; the chain's spec picks
//! among them with [`pick`].
//!
//! It owns the key names, the reading and the messages; it builds nothing and does not
//! know which class a key's alias names (the chain's spec and the definitions do).

use super::plugin_versions::Versions;
use crate::model::{ConfigProblem, PluginVersion, Properties, VersionRequirement};

/// The suffix of every version key: `<prefix>plugin.version`.
pub const PLUGIN_VERSION: &str = "plugin.version";

/// The version of everything built into the worker (converters, header converters,
/// built-in transforms and predicates).
pub const BUILTIN_VERSION: &str = env!("CARGO_PKG_VERSION");

/// Each converter's class key, its version key, and what a message calls it.
pub const CONVERTER_KEYS: [(&str, &str, &str); 3] = [
    ("key.converter", "key.converter.plugin.version", "key converter"),
    ("value.converter", "value.converter.plugin.version", "value converter"),
    ("header.converter", "header.converter.plugin.version", "header converter"),
];

/// What version `key` of `raw` asks for; `class_key` names the key whose plugin it
/// versions, for the message of a value that is no version or range (Maven's words).
pub fn requirement(
    raw: &Properties,
    key: &str,
    class_key: &str,
) -> Result<VersionRequirement, ConfigProblem> {
    VersionRequirement::parse(raw.get(key).map(String::as_str)).map_err(|e| ConfigProblem {
        key: key.to_owned(),
        message: format!("Invalid version range for {class_key}: {e}"),
    })
}

/// The message for version key value `spec`, which allows none of `installed`; `what`
/// names the plugin (`Plugin <class>`).
pub fn no_match(what: &str, spec: &str, installed: &[String]) -> String {
    format!(
        "{what} has no installed version matching {}; installed versions: {}",
        spec.trim(),
        installed.join(", ")
    )
}

/// The newest of `versions` (of the plugin `what` names, whose class key is `class_key`)
/// that version key `key` of `raw` allows; the key's problem when it is no version or
/// range, or allows none.
pub fn pick<'a, T>(
    raw: &Properties,
    key: &str,
    class_key: &str,
    what: &str,
    versions: &'a Versions<T>,
) -> Result<&'a T, ConfigProblem> {
    versions.pick(&requirement(raw, key, class_key)?).map_err(|installed| ConfigProblem {
        key: key.to_owned(),
        message: no_match(what, raw.get(key).map(String::as_str).unwrap_or_default(), &installed),
    })
}

/// The problem of version key `key` of a plugin built into the worker (`what` names it),
/// whose class key is `class_key`; `None` when the key allows [`BUILTIN_VERSION`].
pub fn builtin_problem(
    raw: &Properties,
    key: &str,
    class_key: &str,
    what: &str,
) -> Option<ConfigProblem> {
    match requirement(raw, key, class_key) {
        Err(problem) => Some(problem),
        Ok(r) if r.allows(&PluginVersion::parse(BUILTIN_VERSION)) => None,
        Ok(_) => Some(ConfigProblem {
            key: key.to_owned(),
            message: no_match(
                what,
                raw.get(key).map(String::as_str).unwrap_or_default(),
                &[BUILTIN_VERSION.to_owned()],
            ),
        }),
    }
}

/// The problems of the three converter version keys: the connector's converter, or the
/// worker's when the connector sets none, is built in, so only [`BUILTIN_VERSION`] is
/// installed.
pub fn converter_problems(raw: &Properties) -> Vec<ConfigProblem> {
    CONVERTER_KEYS
        .iter()
        .filter_map(|(class_key, key, noun)| {
            let what = match raw.get(*class_key).map(|c| c.trim()) {
                Some(class) if !class.is_empty() => format!("Plugin {class}"),
                _ => format!("The worker's {noun}"),
            };
            builtin_problem(raw, key, class_key, &what)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(pairs: &[(&str, &str)]) -> Properties {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn converter_keys_allow_only_the_workers_version() {
        let ok = [
            ("key.converter.plugin.version", BUILTIN_VERSION),
            ("value.converter.plugin.version", "latest"),
            ("header.converter.plugin.version", "[0.0.1,)"),
        ];
        assert_eq!(converter_problems(&raw(&ok)), []);
        assert_eq!(converter_problems(&raw(&[])), []);
        let bad = raw(&[
            ("key.converter", "org.apache.kafka.connect.json.JsonConverter"),
            ("key.converter.plugin.version", "[99.0,)"),
            ("header.converter.plugin.version", "99.1"),
        ]);
        let problems = converter_problems(&bad);
        let keys: Vec<&str> = problems.iter().map(|p| p.key.as_str()).collect();
        assert_eq!(keys, ["key.converter.plugin.version", "header.converter.plugin.version"]);
        assert_eq!(
            problems[0].message,
            format!(
                "Plugin org.apache.kafka.connect.json.JsonConverter has no installed version \
                 matching [99.0,); installed versions: {BUILTIN_VERSION}"
            )
        );
        assert!(problems[1].message.starts_with("The worker's header converter has no"));
    }

    #[test]
    fn a_transform_version_is_the_newest_the_key_allows() {
        let mut versions = Versions::default();
        for v in ["1.0.0", "1.5.0", "2.0.0"] {
            versions.insert(v, format!("file-{v}")).unwrap();
        }
        let key = "transforms.t.plugin.version";
        let pick_for = |spec: Option<&str>| {
            let config = spec.map(|s| raw(&[(key, s)])).unwrap_or_default();
            pick(&config, key, "transforms.t.type", "Plugin T", &versions)
        };
        assert_eq!(pick_for(None).unwrap(), "file-2.0.0");
        assert_eq!(pick_for(Some("[1.0,2.0)")).unwrap(), "file-1.5.0");
        assert_eq!(pick_for(Some("1.0")).unwrap(), "file-1.0.0");
        let miss = pick_for(Some("[3.0,)")).unwrap_err();
        assert_eq!(miss.key, key);
        assert_eq!(
            miss.message,
            "Plugin T has no installed version matching [3.0,); installed versions: 1.0.0, \
             1.5.0, 2.0.0"
        );
        let bad = pick_for(Some("[2.0,1.0]")).unwrap_err();
        assert!(bad.message.starts_with("Invalid version range for transforms.t.type"), "{bad:?}");
    }

    #[test]
    fn a_value_that_is_no_range_is_named_with_its_class_key() {
        let bad = raw(&[("transforms.t.plugin.version", "(1.0")]);
        let p =
            builtin_problem(&bad, "transforms.t.plugin.version", "transforms.t.type", "x").unwrap();
        assert_eq!(p.key, "transforms.t.plugin.version");
        assert_eq!(p.message, "Invalid version range for transforms.t.type: Unbounded range: (1.0");
    }
}
