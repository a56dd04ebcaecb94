//! How the group client secures its connections to the brokers: TLS, a SASL login, both
//! (Kafka's `SASL_SSL`) or neither (`PLAINTEXT`, the default).
//!
//! Plain values that the host fills in from the worker's `security.protocol`,
//! `sasl.mechanism`, `sasl.jaas.config` and `ssl.*` properties: this crate parses no Kafka
//! property, loads no file and builds no trust store; a [`Tls`] carries a ready rustls
//! configuration. The password never shows: [`Sasl`]'s `Debug` hides it, and no error of
//! this crate quotes it.

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

/// The security of every connection to the brokers. The default is `PLAINTEXT`.
#[derive(Clone, Debug, Default)]
pub struct Security {
    /// TLS around each connection (`SSL`, `SASL_SSL`); `None` for plain TCP.
    pub tls: Option<Tls>,
    /// The SASL login after connecting (`SASL_PLAINTEXT`, `SASL_SSL`); `None` for none.
    pub sasl: Option<Sasl>,
}

impl Security {
    /// Kafka's `security.protocol` name for this combination.
    pub fn protocol(&self) -> &'static str {
        match (self.tls.is_some(), self.sasl.is_some()) {
            (false, false) => "PLAINTEXT",
            (true, false) => "SSL",
            (false, true) => "SASL_PLAINTEXT",
            (true, true) => "SASL_SSL",
        }
    }
}

/// TLS to the brokers. The server name checked against each broker's certificate is the
/// host of the address connected to (an IP address is checked as one); whether and how
/// the certificate is verified, and the client certificate if any, are the configuration's.
#[derive(Clone)]
pub struct Tls {
    /// The rustls client configuration (trust store, client certificate, verifier).
    pub config: Arc<rustls::ClientConfig>,
}

impl Tls {
    /// TLS with `config`.
    pub fn new(config: Arc<rustls::ClientConfig>) -> Self {
        Self { config }
    }
}

impl fmt::Debug for Tls {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tls")
            .field("client_certificate", &self.config.client_auth_cert_resolver.has_certs())
            .finish_non_exhaustive()
    }
}

/// A SASL login: a mechanism and the user's credentials.
#[derive(Clone, PartialEq, Eq)]
pub struct Sasl {
    /// The mechanism (`sasl.mechanism`).
    pub mechanism: SaslMechanism,
    /// The user name.
    pub username: String,
    /// The password; never logged or shown.
    pub password: String,
}

impl fmt::Debug for Sasl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sasl")
            .field("mechanism", &self.mechanism)
            .field("username", &self.username)
            .field("password", &"[hidden]")
            .finish()
    }
}

/// The SASL mechanisms the group client speaks, by Kafka's names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SaslMechanism {
    /// `PLAIN` (RFC 4616): the password itself, so only over TLS in earnest.
    Plain,
    /// `SCRAM-SHA-256` (RFC 7677).
    ScramSha256,
    /// `SCRAM-SHA-512`.
    ScramSha512,
}

impl SaslMechanism {
    /// Every mechanism, in the order of their names in messages.
    pub const ALL: [Self; 3] = [Self::Plain, Self::ScramSha256, Self::ScramSha512];

    /// Kafka's name: `PLAIN`, `SCRAM-SHA-256` or `SCRAM-SHA-512`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Plain => "PLAIN",
            Self::ScramSha256 => "SCRAM-SHA-256",
            Self::ScramSha512 => "SCRAM-SHA-512",
        }
    }
}

impl fmt::Display for SaslMechanism {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A mechanism name the group client does not speak.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unsupported SASL mechanism {0:?}: expected PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512")]
pub struct UnknownMechanism(pub String);

impl FromStr for SaslMechanism {
    type Err = UnknownMechanism;

    /// Kafka's names, exactly (Kafka's clients match them case-sensitively too).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL.into_iter().find(|m| m.name() == s).ok_or_else(|| UnknownMechanism(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mechanisms_use_kafkas_names_both_ways() {
        for (name, mechanism) in [
            ("PLAIN", SaslMechanism::Plain),
            ("SCRAM-SHA-256", SaslMechanism::ScramSha256),
            ("SCRAM-SHA-512", SaslMechanism::ScramSha512),
        ] {
            assert_eq!(name.parse::<SaslMechanism>(), Ok(mechanism));
            assert_eq!(mechanism.to_string(), name);
        }
        for wrong in ["plain", "GSSAPI", "SCRAM-SHA-1", "OAUTHBEARER", ""] {
            let error = wrong.parse::<SaslMechanism>().unwrap_err();
            assert!(error.to_string().contains("unsupported SASL mechanism"), "{error}");
        }
    }

    #[test]
    fn debug_hides_the_password() {
        let sasl = Sasl {
            mechanism: SaslMechanism::ScramSha512,
            username: "connect".to_owned(),
            password: "s3cr3t-pa55".to_owned(),
        };
        let security = Security { tls: None, sasl: Some(sasl) };
        for shown in [format!("{security:?}"), format!("{security:#?}")] {
            assert!(!shown.contains("s3cr3t"), "{shown}");
            assert!(shown.contains("connect") && shown.contains("[hidden]"), "{shown}");
        }
    }

    #[test]
    fn protocol_names_follow_kafka() {
        let sasl = Sasl {
            mechanism: SaslMechanism::Plain,
            username: "u".to_owned(),
            password: "p".to_owned(),
        };
        let tls = Tls::new(Arc::new(
            rustls::ClientConfig::builder_with_provider(Arc::new(
                rustls::crypto::ring::default_provider(),
            ))
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_root_certificates(rustls::RootCertStore::empty())
            .with_no_client_auth(),
        ));
        assert_eq!(Security::default().protocol(), "PLAINTEXT");
        let ssl = Security { tls: Some(tls.clone()), sasl: None };
        assert_eq!(ssl.protocol(), "SSL");
        let sasl_plaintext = Security { tls: None, sasl: Some(sasl.clone()) };
        assert_eq!(sasl_plaintext.protocol(), "SASL_PLAINTEXT");
        assert_eq!(Security { tls: Some(tls), sasl: Some(sasl) }.protocol(), "SASL_SSL");
    }
}
