//! [`ClientSecurity`]: a Kafka client's security settings read together from its property
//! map (`security.protocol`, `sasl.mechanism`, `sasl.jaas.config`, `ssl.*`), with every
//! problem found ([`ClientSecurity::problems`] is what worker start-up reports).
//!
//! Only what the protocol uses is read: `ssl.*` with `SSL` and `SASL_SSL`, `sasl.*` with
//! the SASL protocols; Kafka ignores the rest, and so does this.

use std::collections::BTreeMap;

use super::error::SecurityError;
use super::jaas::{self, LoginModule, SaslCredentials};
use super::protocol::{SaslMechanism, SecurityProtocol, parse_mechanism};
use super::ssl::SslSettings;

/// `security.protocol`.
pub const SECURITY_PROTOCOL: &str = "security.protocol";
/// `sasl.mechanism`.
pub const SASL_MECHANISM: &str = "sasl.mechanism";
/// `sasl.jaas.config`.
pub const SASL_JAAS_CONFIG: &str = "sasl.jaas.config";

/// How a client authenticates with SASL.
#[derive(Clone, Debug)]
pub enum Sasl {
    /// `sasl.mechanism` and the credentials of `sasl.jaas.config`.
    Jaas(SaslMechanism, SaslCredentials),
    /// `sasl.mechanism` with librdkafka's own `sasl.username` and `sasl.password`, passed
    /// through as they are.
    Native(SaslMechanism),
}

/// One Kafka client's security settings.
#[derive(Clone, Debug)]
pub struct ClientSecurity {
    /// `security.protocol` (default `PLAINTEXT`).
    pub protocol: SecurityProtocol,
    /// The SASL mechanism and credentials, with the SASL protocols.
    pub sasl: Option<Sasl>,
    /// The TLS settings, with `SSL` and `SASL_SSL`.
    pub ssl: Option<SslSettings>,
}

impl ClientSecurity {
    /// Reads the settings; the first problem on error.
    pub fn from_props(props: &BTreeMap<String, String>) -> Result<Self, SecurityError> {
        Self::read(props).map_err(|mut problems| problems.remove(0))
    }

    /// Every problem of the settings, one per key (empty when they are usable).
    pub fn problems(props: &BTreeMap<String, String>) -> Vec<SecurityError> {
        Self::read(props).err().unwrap_or_default()
    }

    fn read(props: &BTreeMap<String, String>) -> Result<Self, Vec<SecurityError>> {
        let mut problems = Vec::new();
        let protocol = match props.get(SECURITY_PROTOCOL) {
            Some(value) => SecurityProtocol::parse(SECURITY_PROTOCOL, value)
                .map_err(|e| problems.push(e))
                .unwrap_or_default(),
            None => SecurityProtocol::Plaintext,
        };
        let sasl = if protocol.uses_sasl() {
            sasl(props, protocol).map_err(|mut e| problems.append(&mut e)).ok()
        } else {
            None
        };
        let ssl = if protocol.uses_tls() {
            SslSettings::from_props(props, "").map_err(|e| problems.push(e)).ok()
        } else {
            None
        };
        if problems.is_empty() { Ok(Self { protocol, sasl, ssl }) } else { Err(problems) }
    }
}

fn sasl(
    props: &BTreeMap<String, String>,
    protocol: SecurityProtocol,
) -> Result<Sasl, Vec<SecurityError>> {
    let mechanism = match props.get(SASL_MECHANISM) {
        Some(value) => parse_mechanism(SASL_MECHANISM, value).map_err(|e| vec![e]),
        None => Err(vec![SecurityError::invalid(
            SASL_MECHANISM,
            format!(
                "missing: required with security.protocol={protocol} (Kafka's default, GSSAPI, \
                 is not supported): PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512"
            ),
        )]),
    };
    let credentials = match props.get(SASL_JAAS_CONFIG) {
        Some(value) => Some(jaas::parse(SASL_JAAS_CONFIG, value)),
        None if props.contains_key("sasl.username") && props.contains_key("sasl.password") => None,
        None => Some(Err(SecurityError::invalid(
            SASL_JAAS_CONFIG,
            format!(
                "missing: required with security.protocol={protocol} (a PlainLoginModule or \
                 ScramLoginModule with username and password)"
            ),
        ))),
    };
    match (mechanism, credentials) {
        (Ok(mechanism), None) => Ok(Sasl::Native(mechanism)),
        (Ok(mechanism), Some(Ok(credentials))) => {
            let fits = match credentials.module {
                LoginModule::Plain => mechanism == SaslMechanism::Plain,
                LoginModule::Scram => mechanism != SaslMechanism::Plain,
            };
            if fits {
                Ok(Sasl::Jaas(mechanism, credentials))
            } else {
                Err(vec![SecurityError::invalid(
                    SASL_JAAS_CONFIG,
                    format!("its login module does not fit sasl.mechanism={mechanism}"),
                )])
            }
        }
        (Ok(_), Some(Err(e))) => Err(vec![e]),
        (Err(mut e), Some(Err(jaas))) => {
            e.push(jaas);
            Err(e)
        }
        (Err(e), _) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLAIN: &str = "org.apache.kafka.common.security.plain.PlainLoginModule required \
                         username=\"u\" password=\"pw\";";

    fn props(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    fn lines(pairs: &[(&str, &str)]) -> Vec<String> {
        ClientSecurity::problems(&props(pairs)).iter().map(ToString::to_string).collect()
    }

    #[test]
    fn plaintext_ignores_ssl_and_sasl_keys() {
        let s = ClientSecurity::from_props(&props(&[
            ("ssl.truststore.type", "JKS"),
            ("sasl.mechanism", "GSSAPI"),
        ]))
        .unwrap();
        assert_eq!(s.protocol, SecurityProtocol::Plaintext);
        assert!(s.sasl.is_none() && s.ssl.is_none());
    }

    #[test]
    fn sasl_needs_a_mechanism_and_a_jaas_config_that_fit() {
        let s = ClientSecurity::from_props(&props(&[
            ("security.protocol", "sasl_plaintext"),
            ("sasl.mechanism", "PLAIN"),
            ("sasl.jaas.config", PLAIN),
        ]))
        .unwrap();
        assert!(
            matches!(s.sasl, Some(Sasl::Jaas(SaslMechanism::Plain, ref c)) if c.username == "u")
        );
        let missing =
            lines(&[("security.protocol", "SASL_SSL"), ("sasl.mechanism", "SCRAM-SHA-512")]);
        assert_eq!(missing.len(), 1, "{missing:?}");
        assert!(
            missing[0]
                .starts_with("sasl.jaas.config: missing: required with security.protocol=SASL_SSL")
        );
        let both = lines(&[("security.protocol", "SASL_PLAINTEXT"), ("sasl.mechanism", "GSSAPI")]);
        assert_eq!(both.len(), 2, "{both:?}");
        let mismatch = lines(&[
            ("security.protocol", "SASL_PLAINTEXT"),
            ("sasl.mechanism", "SCRAM-SHA-256"),
            ("sasl.jaas.config", PLAIN),
        ]);
        assert_eq!(
            mismatch,
            ["sasl.jaas.config: its login module does not fit sasl.mechanism=SCRAM-SHA-256"]
        );
        assert!(!mismatch[0].contains("pw"));
    }

    #[test]
    fn every_bad_key_is_reported() {
        let problems = lines(&[
            ("security.protocol", "SASL_SSL"),
            ("sasl.mechanism", "OAUTHBEARER"),
            ("sasl.jaas.config", "garbage"),
            ("ssl.truststore.location", "/nonexistent/truststore.p12"),
        ]);
        let keys: Vec<&str> = problems.iter().map(|p| p.split(':').next().unwrap()).collect();
        assert_eq!(keys, ["sasl.mechanism", "sasl.jaas.config", "ssl.truststore.location"]);
        assert_eq!(lines(&[("security.protocol", "TLS")]).len(), 1);
    }
}
