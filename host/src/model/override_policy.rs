//! [`OverridePolicy`]: `connector.client.config.override.policy`, which of a connector's
//! `producer.override.*`, `consumer.override.*` and `admin.override.*` keys the worker
//! accepts, as Kafka Connect's three built-in policies decide (default `All`).
//!
//! This module judges keys; it applies no override and reads no worker file.

use std::str::FromStr;

use crate::model::{ConfigProblem, Properties};

/// The prefixes of a connector's client overrides.
const OVERRIDE_PREFIXES: [&str; 3] =
    ["producer.override.", "consumer.override.", "admin.override."];

/// The client keys the `Principal` policy lets a connector override.
const PRINCIPAL_KEYS: [&str; 3] = ["sasl.jaas.config", "sasl.mechanism", "security.protocol"];

/// Which client overrides a connector may set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OverridePolicy {
    /// None at all.
    None,
    /// Only the client's principal: `security.protocol`, `sasl.mechanism`, `sasl.jaas.config`.
    Principal,
    /// Every key (Kafka Connect's default since 3.0).
    #[default]
    All,
}

impl FromStr for OverridePolicy {
    type Err = ();

    /// Kafka Connect's names: the alias (`None`), the simple class name
    /// (`NoneConnectorClientConfigOverridePolicy`) and the full class name in
    /// `org.apache.kafka.connect.connector.policy`.
    fn from_str(s: &str) -> Result<Self, ()> {
        let simple = s.trim().strip_prefix("org.apache.kafka.connect.connector.policy.");
        let simple = simple.unwrap_or(s.trim());
        let base = simple.strip_suffix("ConnectorClientConfigOverridePolicy").unwrap_or(simple);
        match base {
            "None" => Ok(Self::None),
            "Principal" => Ok(Self::Principal),
            "All" => Ok(Self::All),
            _ => Err(()),
        }
    }
}

impl OverridePolicy {
    /// The policy's name in its messages.
    pub fn name(self) -> &'static str {
        match self {
            Self::None => "None",
            Self::Principal => "Principal",
            Self::All => "All",
        }
    }

    /// One problem per override key of `config` this policy refuses, with Kafka Connect's
    /// message, under the full key.
    pub fn problems(self, config: &Properties) -> Vec<ConfigProblem> {
        let mut problems = Vec::new();
        for key in config.keys() {
            let Some(client_key) = OVERRIDE_PREFIXES.iter().find_map(|p| key.strip_prefix(p))
            else {
                continue;
            };
            let allowed = match self {
                Self::None => false,
                Self::Principal => PRINCIPAL_KEYS.contains(&client_key),
                Self::All => true,
            };
            if !allowed {
                problems.push(ConfigProblem {
                    key: key.clone(),
                    message: format!(
                        "The '{}' policy does not allow '{client_key}' to be overridden in the connector configuration.",
                        self.name()
                    ),
                });
            }
        }
        problems
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(keys: &[&str]) -> Properties {
        keys.iter().map(|k| (k.to_string(), "x".to_string())).collect()
    }

    #[test]
    fn names_and_class_names_are_read_as_kafka_connect_writes_them() {
        for (text, policy) in [
            ("All", OverridePolicy::All),
            ("None", OverridePolicy::None),
            ("PrincipalConnectorClientConfigOverridePolicy", OverridePolicy::Principal),
            (
                "org.apache.kafka.connect.connector.policy.AllConnectorClientConfigOverridePolicy",
                OverridePolicy::All,
            ),
        ] {
            assert_eq!(text.parse(), Ok(policy), "{text}");
        }
        for bad in ["Some", "NonePolicy", "org.example.AllConnectorClientConfigOverridePolicy"] {
            assert_eq!(bad.parse::<OverridePolicy>(), Err(()), "{bad}");
        }
        assert_eq!(OverridePolicy::default(), OverridePolicy::All);
    }

    #[test]
    fn each_policy_refuses_what_kafka_connects_refuses() {
        let c = config(&[
            "producer.override.acks",
            "consumer.override.security.protocol",
            "admin.override.sasl.jaas.config",
            "topics",
        ]);
        assert!(OverridePolicy::All.problems(&c).is_empty());
        let principal = OverridePolicy::Principal.problems(&c);
        assert_eq!(principal.len(), 1);
        assert_eq!(principal[0].key, "producer.override.acks");
        assert_eq!(
            principal[0].message,
            "The 'Principal' policy does not allow 'acks' to be overridden in the connector configuration."
        );
        let none = OverridePolicy::None.problems(&c);
        let keys: Vec<&str> = none.iter().map(|p| p.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "admin.override.sasl.jaas.config",
                "consumer.override.security.protocol",
                "producer.override.acks"
            ]
        );
    }
}
