//! [`SecurityProtocol`] (`security.protocol`) and [`SaslMechanism`] (`sasl.mechanism`): the
//! names Kafka accepts, case-insensitively for the protocol as Kafka does, and which of them
//! this worker supports.

use std::fmt;

use super::error::SecurityError;

/// `security.protocol`: how a Kafka client talks to the brokers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SecurityProtocol {
    /// `PLAINTEXT` (Kafka's default): no TLS, no authentication.
    #[default]
    Plaintext,
    /// `SSL`: TLS, authenticated by certificates only.
    Ssl,
    /// `SASL_PLAINTEXT`: SASL authentication without TLS.
    SaslPlaintext,
    /// `SASL_SSL`: SASL authentication over TLS.
    SaslSsl,
}

impl SecurityProtocol {
    /// Kafka's name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Plaintext => "PLAINTEXT",
            Self::Ssl => "SSL",
            Self::SaslPlaintext => "SASL_PLAINTEXT",
            Self::SaslSsl => "SASL_SSL",
        }
    }

    /// Reads the value of `key`, case-insensitively (Kafka upper-cases it).
    pub fn parse(key: &str, value: &str) -> Result<Self, SecurityError> {
        let all = [Self::Plaintext, Self::Ssl, Self::SaslPlaintext, Self::SaslSsl];
        all.into_iter().find(|p| p.name().eq_ignore_ascii_case(value.trim())).ok_or_else(|| {
            SecurityError::invalid(key, "expected PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL")
        })
    }

    /// Whether the connection is encrypted with TLS.
    pub fn uses_tls(self) -> bool {
        matches!(self, Self::Ssl | Self::SaslSsl)
    }

    /// Whether the client authenticates with SASL.
    pub fn uses_sasl(self) -> bool {
        matches!(self, Self::SaslPlaintext | Self::SaslSsl)
    }
}

impl fmt::Display for SecurityProtocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// `sasl.mechanism`: the SASL mechanisms this worker supports, the group client's own type,
/// so the group client and the librdkafka clients name them alike.
pub use wasm_connect_group::SaslMechanism;

/// Mechanisms Kafka knows that this worker does not support.
const UNSUPPORTED: &[&str] = &["GSSAPI", "OAUTHBEARER", "AWS_MSK_IAM"];

/// Reads the `sasl.mechanism` value of `key`. Mechanism names are case-sensitive, as in
/// Kafka; one Kafka knows but this worker does not is named as unsupported.
pub fn parse_mechanism(key: &str, value: &str) -> Result<SaslMechanism, SecurityError> {
    let value = value.trim();
    value.parse().map_err(|_| {
        let message = if UNSUPPORTED.contains(&value) {
            format!("{value} is not supported: use PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512")
        } else {
            "expected PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512".to_owned()
        };
        SecurityError::invalid(key, message)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn protocols_are_case_insensitive() {
        let p = |v| SecurityProtocol::parse("security.protocol", v);
        assert_eq!(p("SASL_SSL").unwrap(), SecurityProtocol::SaslSsl);
        assert_eq!(p(" sasl_plaintext ").unwrap(), SecurityProtocol::SaslPlaintext);
        assert_eq!(p("Ssl").unwrap(), SecurityProtocol::Ssl);
        assert_eq!(p("plaintext").unwrap(), SecurityProtocol::Plaintext);
        let e = p("TLS").unwrap_err();
        assert_eq!(
            e.to_string(),
            "security.protocol: expected PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL"
        );
        assert!(SecurityProtocol::SaslSsl.uses_tls() && SecurityProtocol::SaslSsl.uses_sasl());
        assert!(!SecurityProtocol::Ssl.uses_sasl() && !SecurityProtocol::SaslPlaintext.uses_tls());
    }

    #[test]
    fn mechanisms() {
        let m = |v| parse_mechanism("sasl.mechanism", v);
        assert_eq!(m("PLAIN").unwrap(), SaslMechanism::Plain);
        assert_eq!(m("SCRAM-SHA-256").unwrap(), SaslMechanism::ScramSha256);
        assert_eq!(m("SCRAM-SHA-512").unwrap(), SaslMechanism::ScramSha512);
        assert_eq!(
            m("GSSAPI").unwrap_err().to_string(),
            "sasl.mechanism: GSSAPI is not supported: use PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512"
        );
        assert!(m("OAUTHBEARER").unwrap_err().to_string().contains("OAUTHBEARER is not supported"));
        assert!(m("plain").is_err(), "mechanism names are case-sensitive");
    }
}
