//! A plugin's configuration definition (Kafka Connect's `ConfigDef`) and the checks the
//! worker makes against it before the plugin's own `validate` runs.

use std::fmt;

/// The type of a config value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum ConfigType {
    /// `true` or `false`.
    Boolean,
    /// 16-bit integer (framework keys only: the contract has no such type).
    Short,
    /// 32-bit integer.
    Int,
    /// 64-bit integer.
    Long,
    /// Floating point.
    Double,
    /// Any string.
    String,
    /// Comma-separated list.
    List,
    /// A secret string.
    Password,
    /// A class name, such as a converter's (framework keys only).
    Class,
}

impl fmt::Display for ConfigType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Boolean => "BOOLEAN",
            Self::Short => "SHORT",
            Self::Int => "INT",
            Self::Long => "LONG",
            Self::Double => "DOUBLE",
            Self::String => "STRING",
            Self::List => "LIST",
            Self::Class => "CLASS",
            Self::Password => "PASSWORD",
        })
    }
}

/// How much a key matters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Importance {
    /// High.
    High,
    /// Medium.
    Medium,
    /// Low.
    Low,
}

impl fmt::Display for Importance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::High => "HIGH",
            Self::Medium => "MEDIUM",
            Self::Low => "LOW",
        })
    }
}

/// A sandbox capability a key's value grants (see `grant` in the WIT).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Grant {
    /// Read the named file: its directory is preopened read-only.
    ReadFile,
    /// Write the named file: its directory is preopened read-write.
    WriteFile,
    /// Connect to the listed `host:port` addresses.
    Connect,
    /// Read the clocks.
    Clock,
}

impl fmt::Display for Grant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::ReadFile => "read-file",
            Self::WriteFile => "write-file",
            Self::Connect => "connect",
            Self::Clock => "clock",
        })
    }
}

/// One key of a config definition.
#[derive(Clone, Debug, PartialEq)]
pub struct ConfigKey {
    /// Key name.
    pub name: String,
    /// Value type.
    pub ty: ConfigType,
    /// Default as text; `None` when there is none.
    pub default_value: Option<String>,
    /// Importance.
    pub importance: Importance,
    /// Documentation.
    pub documentation: String,
    /// Whether a value must be given (when there is no default).
    pub required: bool,
    /// Whether the value is secret.
    pub sensitive: bool,
    /// The capability the value grants.
    pub grant: Option<Grant>,
}

impl ConfigKey {
    /// Whether the value must be hidden from logs and REST answers.
    pub fn is_secret(&self) -> bool {
        self.sensitive || self.ty == ConfigType::Password
    }
}

/// One problem with one key of a config.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ConfigProblem {
    /// The key.
    pub key: String,
    /// What is wrong.
    pub message: String,
}

/// A plugin's config definition.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ConfigDef {
    /// Keys in the order the plugin declared them.
    pub keys: Vec<ConfigKey>,
}

impl ConfigDef {
    /// The key named `name`, if declared.
    pub fn key(&self, name: &str) -> Option<&ConfigKey> {
        self.keys.iter().find(|k| k.name == name)
    }

    /// Checks types and required keys. Keys the definition does not declare are left
    /// alone: they may belong to the worker (`connector.class`, `errors.*`, …).
    pub fn check(&self, config: &[(String, String)]) -> Vec<ConfigProblem> {
        let mut problems = Vec::new();
        for key in &self.keys {
            let value = config.iter().find(|(k, _)| *k == key.name).map(|(_, v)| v);
            match value {
                None if key.required && key.default_value.is_none() => {
                    problems.push(ConfigProblem {
                        key: key.name.clone(),
                        message: format!(
                            "Missing required configuration \"{}\" which has no default value.",
                            key.name
                        ),
                    })
                }
                Some(v) => {
                    if let Err(why) = parse_as(key.ty, v) {
                        problems.push(ConfigProblem {
                            key: key.name.clone(),
                            message: format!(
                                "Invalid value {} for configuration {}: {why}",
                                if key.is_secret() { "[hidden]" } else { v },
                                key.name
                            ),
                        });
                    }
                }
                None => {}
            }
        }
        problems
    }

    /// The config with defaults filled in for declared keys the user did not set.
    pub fn with_defaults(&self, config: &[(String, String)]) -> Vec<(String, String)> {
        let mut out = config.to_vec();
        for key in &self.keys {
            if let Some(d) = &key.default_value
                && !out.iter().any(|(k, _)| *k == key.name)
            {
                out.push((key.name.clone(), d.clone()));
            }
        }
        out
    }
}

/// Checks that `value` parses as `ty`; the error says why not.
fn parse_as(ty: ConfigType, value: &str) -> Result<(), String> {
    let v = value.trim();
    match ty {
        ConfigType::Boolean => match v.to_ascii_lowercase().as_str() {
            "true" | "false" => Ok(()),
            _ => Err("Expected value to be either true or false".into()),
        },
        ConfigType::Short => {
            v.parse::<i16>().map(drop).map_err(|_| "Not a number of type SHORT".into())
        }
        ConfigType::Int => {
            v.parse::<i32>().map(drop).map_err(|_| "Not a number of type INT".into())
        }
        ConfigType::Long => {
            v.parse::<i64>().map(drop).map_err(|_| "Not a number of type LONG".into())
        }
        ConfigType::Double => {
            v.parse::<f64>().map(drop).map_err(|_| "Not a number of type DOUBLE".into())
        }
        ConfigType::String | ConfigType::List | ConfigType::Password | ConfigType::Class => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn def() -> ConfigDef {
        let key = |name: &str, ty, default: Option<&str>, required| ConfigKey {
            name: name.into(),
            ty,
            default_value: default.map(Into::into),
            importance: Importance::High,
            documentation: String::new(),
            required,
            sensitive: false,
            grant: None,
        };
        ConfigDef {
            keys: vec![
                key("file", ConfigType::String, None, true),
                key("batch.size", ConfigType::Int, Some("2000"), false),
                key("secret", ConfigType::Password, None, false),
            ],
        }
    }

    fn cfg(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn missing_required_key_and_bad_type_are_named() {
        let problems = def().check(&cfg(&[("batch.size", "lots")]));
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert_eq!(problems[0].key, "file");
        assert!(problems[1].message.contains("INT"), "{problems:?}");
    }

    #[test]
    fn secrets_never_appear_in_problems() {
        let mut d = def();
        d.keys[2].ty = ConfigType::Int;
        d.keys[2].sensitive = true;
        let problems = d.check(&cfg(&[("file", "f"), ("secret", "hunter2")]));
        assert_eq!(problems.len(), 1);
        assert!(!problems[0].message.contains("hunter2"));
    }

    #[test]
    fn defaults_fill_only_unset_keys() {
        let out = def().with_defaults(&cfg(&[("file", "f")]));
        assert!(out.contains(&("batch.size".into(), "2000".into())));
        let out = def().with_defaults(&cfg(&[("batch.size", "5")]));
        assert!(!out.contains(&("batch.size".into(), "2000".into())));
    }
}
