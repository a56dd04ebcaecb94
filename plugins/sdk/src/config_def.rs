//! [`ConfigDef`]: what a plugin declares about its configuration keys, and
//! [`ConfigProblem`]: what its `validate` reports.
//!
//! This module owns the declaration side (types, defaults, importance, documentation,
//! sandbox grants and [`Validator`]s), built with a small builder, and
//! [`ConfigDef::validate`], the check of a config against it. The SDK runs that check in
//! the plugin's `validate` export before [`Connector::validate`](crate::Connector::validate),
//! so every plugin gets it for free. The worker checks types and required keys too (with
//! the same wording, and reports each problem once) and turns each key's [`Grant`] into a
//! sandbox capability; validators only run in the plugin, since they are code.

use std::fmt::Display;

use crate::{Config, Validator};

/// The type of a config value, as in Kafka Connect's `ConfigDef.Type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ConfigType {
    /// `true` or `false`.
    Boolean,
    /// A 32-bit integer.
    Int,
    /// A 64-bit integer.
    Long,
    /// A floating-point number.
    Double,
    /// Any text.
    String,
    /// A comma-separated list.
    List,
    /// Text that never appears in logs or REST answers.
    Password,
}

/// How much a key matters to a user, as in Kafka Connect's `ConfigDef.Importance`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Importance {
    /// Most users set it.
    High,
    /// Some users set it.
    Medium,
    /// Rarely set.
    Low,
}

/// A sandbox capability the worker grants because a user set a key. Without grants an
/// instance has no file system, network, environment or clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Grant {
    /// The value is a file path to read: its directory is preopened read-only, at the
    /// same path inside the sandbox.
    ReadFile,
    /// The value is a file path to create or append to: its directory is preopened
    /// read-write, at the same path inside the sandbox.
    WriteFile,
    /// The value is a comma-separated list of `host:port` addresses the instance may open
    /// TCP connections to.
    Connect,
    /// When the key is set (to anything but `false`), the wall and monotonic clocks are
    /// real; otherwise both read zero.
    Clock,
}

/// One key of a configuration definition (Kafka Connect's `ConfigKey`). Start with a
/// constructor named after the type, then chain the builder methods:
///
/// ```
/// use wasm_connect_sdk::{ConfigKey, Importance, Range};
///
/// let key = ConfigKey::int("batch.size")
///     .default_value(2000)
///     .ensure(Range::at_least(1))
///     .importance(Importance::Low)
///     .doc("The most records one poll returns.");
/// assert_eq!(key.validators.len(), 1);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigKey {
    /// The key, e.g. `file`.
    pub name: String,
    /// The value's type.
    pub ty: ConfigType,
    /// The default as a user would type it; `None`: no default.
    pub default_value: Option<String>,
    /// How much the key matters; [`Importance::Medium`] unless set.
    pub importance: Importance,
    /// One or two sentences for users.
    pub documentation: String,
    /// Whether the worker rejects a config without this key (and no default).
    pub required: bool,
    /// Whether the value is hidden in logs and REST answers.
    pub sensitive: bool,
    /// The sandbox capability the value grants.
    pub grant: Option<Grant>,
    /// Checks of the value, run by [`ConfigDef::validate`] in order. Never sent to the
    /// worker.
    pub validators: Vec<Validator>,
}

impl ConfigKey {
    /// A key of type `ty`: no default, medium importance, optional, not sensitive.
    pub fn new(name: impl Into<String>, ty: ConfigType) -> Self {
        Self {
            name: name.into(),
            ty,
            default_value: None,
            importance: Importance::Medium,
            documentation: String::new(),
            required: false,
            sensitive: false,
            grant: None,
            validators: Vec::new(),
        }
    }

    /// A [`ConfigType::Boolean`] key.
    pub fn boolean(name: impl Into<String>) -> Self {
        Self::new(name, ConfigType::Boolean)
    }

    /// A [`ConfigType::Int`] key.
    pub fn int(name: impl Into<String>) -> Self {
        Self::new(name, ConfigType::Int)
    }

    /// A [`ConfigType::Long`] key.
    pub fn long(name: impl Into<String>) -> Self {
        Self::new(name, ConfigType::Long)
    }

    /// A [`ConfigType::Double`] key.
    pub fn double(name: impl Into<String>) -> Self {
        Self::new(name, ConfigType::Double)
    }

    /// A [`ConfigType::String`] key.
    pub fn string(name: impl Into<String>) -> Self {
        Self::new(name, ConfigType::String)
    }

    /// A [`ConfigType::List`] key.
    pub fn list(name: impl Into<String>) -> Self {
        Self::new(name, ConfigType::List)
    }

    /// A [`ConfigType::Password`] key; it is also [sensitive](Self::sensitive).
    pub fn password(name: impl Into<String>) -> Self {
        Self::new(name, ConfigType::Password).sensitive()
    }

    /// Sets the default, written as a user would type it (`2000`, `true`, `a,b`).
    pub fn default_value(mut self, value: impl Display) -> Self {
        self.default_value = Some(value.to_string());
        self
    }

    /// Sets the importance.
    pub fn importance(mut self, importance: Importance) -> Self {
        self.importance = importance;
        self
    }

    /// Sets the documentation.
    pub fn doc(mut self, documentation: impl Into<String>) -> Self {
        self.documentation = documentation.into();
        self
    }

    /// Marks the key required: a config without it (and without a default) is invalid.
    pub fn required(mut self) -> Self {
        self.required = true;
        self
    }

    /// Marks the value sensitive: hidden in logs and REST answers.
    pub fn sensitive(mut self) -> Self {
        self.sensitive = true;
        self
    }

    /// Makes the key's value grant a sandbox capability.
    pub fn grant(mut self, grant: Grant) -> Self {
        self.grant = Some(grant);
        self
    }

    /// Adds a validator: one of the ready-made ones ([`Range`](crate::Range),
    /// [`ValidString`](crate::ValidString), [`ValidList`](crate::ValidList),
    /// [`NonEmptyString`](crate::NonEmptyString)) or a [`Validator::new`].
    pub fn ensure(mut self, validator: impl Into<Validator>) -> Self {
        self.validators.push(validator.into());
        self
    }

    /// Adds a custom validator: `check` gets the trimmed value once it parsed as the
    /// key's type and returns what is wrong with it, without naming the key.
    ///
    /// ```
    /// use wasm_connect_sdk::{Config, ConfigDef, ConfigKey};
    ///
    /// let def = ConfigDef::new().define(ConfigKey::string("path").validator(|value| {
    ///     if value.starts_with('/') { Ok(()) } else { Err("Must be an absolute path".into()) }
    /// }));
    /// let problems = def.validate(&Config::new().with("path", "data.txt"));
    /// assert_eq!(
    ///     problems[0].message,
    ///     "Invalid value data.txt for configuration path: Must be an absolute path"
    /// );
    /// ```
    pub fn validator(
        self,
        check: impl Fn(&str) -> Result<(), String> + Send + Sync + 'static,
    ) -> Self {
        self.ensure(Validator::new("custom", check))
    }

    /// Whether the value is hidden: [`sensitive`](Self::sensitive) or a password.
    pub fn is_secret(&self) -> bool {
        self.sensitive || self.ty == ConfigType::Password
    }

    /// The problems with `value` (or with the default when `value` is `None`): a value
    /// that does not parse as the key's type, else each failed validator.
    fn problems(&self, value: Option<&str>) -> Vec<ConfigProblem> {
        let Some(raw) = value.or(self.default_value.as_deref()) else {
            return if self.required {
                vec![ConfigProblem::new(
                    &self.name,
                    format!(
                        "Missing required configuration \"{}\" which has no default value.",
                        self.name
                    ),
                )]
            } else {
                Vec::new()
            };
        };
        let problem = |why: &str| {
            let shown = if self.is_secret() { "[hidden]" } else { raw };
            ConfigProblem::new(
                &self.name,
                format!("Invalid value {shown} for configuration {}: {why}", self.name),
            )
        };
        let value = raw.trim();
        if let Err(why) = parse_as(self.ty, value) {
            return vec![problem(why)];
        }
        self.validators
            .iter()
            .filter_map(|v| v.ensure_valid(value).err())
            .map(|why| problem(&why))
            .collect()
    }
}

/// Checks that `value` (trimmed) parses as `ty`, in Kafka Connect's words.
fn parse_as(ty: ConfigType, value: &str) -> Result<(), &'static str> {
    let ok = match ty {
        ConfigType::Boolean => {
            value.eq_ignore_ascii_case("true") || value.eq_ignore_ascii_case("false")
        }
        ConfigType::Int => value.parse::<i32>().is_ok(),
        ConfigType::Long => value.parse::<i64>().is_ok(),
        ConfigType::Double => value.parse::<f64>().is_ok(),
        ConfigType::String | ConfigType::List | ConfigType::Password => true,
    };
    match (ok, ty) {
        (true, _) => Ok(()),
        (false, ConfigType::Boolean) => Err("Expected value to be either true or false"),
        (false, ConfigType::Int) => Err("Not a number of type INT"),
        (false, ConfigType::Long) => Err("Not a number of type LONG"),
        (false, _) => Err("Not a number of type DOUBLE"),
    }
}

/// A plugin's configuration definition: its keys, in the order users should read them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConfigDef {
    keys: Vec<ConfigKey>,
}

impl ConfigDef {
    /// An empty definition.
    pub fn new() -> Self {
        Self::default()
    }

    /// This definition with `key` added, replacing a key of the same name.
    pub fn define(mut self, key: ConfigKey) -> Self {
        match self.keys.iter_mut().find(|k| k.name == key.name) {
            Some(existing) => *existing = key,
            None => self.keys.push(key),
        }
        self
    }

    /// The keys, in definition order.
    pub fn keys(&self) -> &[ConfigKey] {
        &self.keys
    }

    /// The key called `name`.
    pub fn key(&self, name: &str) -> Option<&ConfigKey> {
        self.keys.iter().find(|k| k.name == name)
    }

    /// The keys, in definition order.
    pub fn into_keys(self) -> Vec<ConfigKey> {
        self.keys
    }

    /// Every problem of `config` with this definition, each naming its key, in
    /// definition order (Kafka Connect's `ConfigDef.validate`):
    ///
    /// - a required key that is not set and has no default;
    /// - a value that does not parse as its key's type (`int`, `long`, `double`,
    ///   `boolean`; `string`, `list` and `password` always parse);
    /// - each failed [`Validator`] of a key whose value parsed. An unset key's validators
    ///   check its default; an unset key without default is not checked.
    ///
    /// Values of secret keys are shown as `[hidden]`. Keys the definition does not
    /// declare are left alone: they may belong to the worker (`connector.class`,
    /// `errors.*`, ...). The SDK runs this in the plugin's `validate` export before
    /// [`Connector::validate`](crate::Connector::validate).
    ///
    /// ```
    /// use wasm_connect_sdk::{Config, ConfigDef, ConfigKey, Range};
    ///
    /// let def = ConfigDef::new()
    ///     .define(ConfigKey::string("topic").required())
    ///     .define(ConfigKey::int("batch.size").default_value(10).ensure(Range::at_least(1)));
    /// let problems = def.validate(&Config::new().with("batch.size", "0"));
    /// assert_eq!(problems.len(), 2);
    /// assert_eq!(problems[0].key, "topic");
    /// assert_eq!(
    ///     problems[1].message,
    ///     "Invalid value 0 for configuration batch.size: Value must be at least 1"
    /// );
    /// ```
    pub fn validate(&self, config: &Config) -> Vec<ConfigProblem> {
        self.keys.iter().flat_map(|k| k.problems(config.get(&k.name))).collect()
    }

    /// `config` with the default of every declared key it does not set added at the end,
    /// as the worker fills them in before `start`.
    pub fn with_defaults(&self, config: &Config) -> Config {
        let mut out = config.clone();
        for key in &self.keys {
            if let Some(default) = &key.default_value
                && !out.contains(&key.name)
            {
                out.set(key.name.clone(), default.clone());
            }
        }
        out
    }
}

/// One problem `validate` found with one key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigProblem {
    /// The offending key.
    pub key: String,
    /// What is wrong, for a user.
    pub message: String,
}

impl ConfigProblem {
    /// A problem with `key`.
    pub fn new(key: impl Into<String>, message: impl Into<String>) -> Self {
        Self { key: key.into(), message: message.into() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{NonEmptyString, Range, ValidString};

    fn def() -> ConfigDef {
        ConfigDef::new()
            .define(ConfigKey::string("file").required().ensure(NonEmptyString))
            .define(ConfigKey::int("batch.size").default_value(2000).ensure(Range::at_least(1)))
            .define(ConfigKey::boolean("flag"))
            .define(ConfigKey::long("count"))
            .define(ConfigKey::double("rate").ensure(Range::between(0, 10)))
            .define(ConfigKey::password("secret").ensure(ValidString::one_of(["a"])))
    }

    fn messages(config: &Config) -> Vec<(String, String)> {
        def().validate(config).into_iter().map(|p| (p.key, p.message)).collect()
    }

    #[test]
    fn a_valid_config_has_no_problem() {
        let c = Config::new().with("file", "/f").with("flag", "TRUE").with("rate", " 2.5 ");
        assert_eq!(messages(&c), []);
    }

    #[test]
    fn missing_keys_and_bad_types_are_named_in_the_workers_words() {
        let c = Config::new()
            .with("batch.size", "lots")
            .with("flag", "yes")
            .with("count", "1.5")
            .with("rate", "x");
        let m = messages(&c);
        let expected = [
            ("file", "Missing required configuration \"file\" which has no default value."),
            (
                "batch.size",
                "Invalid value lots for configuration batch.size: Not a number of type INT",
            ),
            (
                "flag",
                "Invalid value yes for configuration flag: Expected value to be either true or false",
            ),
            ("count", "Invalid value 1.5 for configuration count: Not a number of type LONG"),
            ("rate", "Invalid value x for configuration rate: Not a number of type DOUBLE"),
        ];
        let expected: Vec<(String, String)> =
            expected.iter().map(|(k, m)| (k.to_string(), m.to_string())).collect();
        assert_eq!(m, expected);
    }

    #[test]
    fn validators_run_on_parsed_values_and_defaults_and_hide_secrets() {
        let c = Config::new()
            .with("file", "  ")
            .with("batch.size", "0")
            .with("rate", "11")
            .with("secret", "hunter2");
        let m = messages(&c);
        assert_eq!(m.len(), 4, "{m:?}");
        assert_eq!(m[0].1, "Invalid value    for configuration file: String must be non-empty");
        assert!(m[1].1.ends_with("batch.size: Value must be at least 1"), "{m:?}");
        assert!(m[2].1.ends_with("rate: Value must be between 0 and 10"), "{m:?}");
        assert_eq!(
            m[3].1,
            "Invalid value [hidden] for configuration secret: String must be one of: a"
        );
        let bad_default = ConfigDef::new()
            .define(ConfigKey::int("n").default_value(-5).ensure(Range::at_least(0)));
        assert_eq!(bad_default.validate(&Config::new()).len(), 1, "defaults are checked too");
    }

    #[test]
    fn defaults_fill_only_unset_keys() {
        let filled = def().with_defaults(&Config::new().with("file", "/f"));
        assert_eq!(filled.get("batch.size"), Some("2000"));
        let kept = def().with_defaults(&Config::new().with("batch.size", "5"));
        assert_eq!(kept.get("batch.size"), Some("5"));
    }
}
