//! [`ConfigDef`]: what a plugin declares about its configuration keys, and
//! [`ConfigProblem`]: what its `validate` reports.
//!
//! This module owns the declaration side (types, defaults, importance, documentation and
//! sandbox grants), built with a small builder. It does not check configs: the worker
//! checks types, required keys and defaults against the definition before calling the
//! plugin, and turns each key's [`Grant`] into a sandbox capability.

use std::fmt::Display;

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
/// constructor named after the type, then chain the builder methods.
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
