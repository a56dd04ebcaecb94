//! `ssl.enabled.protocols` and `ssl.cipher.suites`: Kafka's (Java's) names mapped to rustls'
//! protocol versions and ring cipher suites, and to OpenSSL's names for librdkafka.
//!
//! This module owns the tables; it builds no configuration.

use rustls::SupportedCipherSuite;
use rustls::SupportedProtocolVersion;
use rustls::crypto::ring::cipher_suite as ring;

use super::error::SecurityError;

/// One cipher suite: its IANA name (Java's), the rustls suite, and OpenSSL's name for the
/// TLS 1.2 ones (`None` for TLS 1.3: librdkafka has no setting for those).
#[derive(Debug)]
pub struct Suite {
    /// The IANA name, as Kafka's `ssl.cipher.suites` lists it.
    pub name: &'static str,
    /// The rustls suite (ring provider).
    pub rustls: SupportedCipherSuite,
    /// OpenSSL's name, for librdkafka's `ssl.cipher.suites`.
    pub openssl: Option<&'static str>,
}

/// Every suite rustls' ring provider implements.
pub const SUITES: &[Suite] = &[
    Suite { name: "TLS_AES_128_GCM_SHA256", rustls: ring::TLS13_AES_128_GCM_SHA256, openssl: None },
    Suite { name: "TLS_AES_256_GCM_SHA384", rustls: ring::TLS13_AES_256_GCM_SHA384, openssl: None },
    Suite {
        name: "TLS_CHACHA20_POLY1305_SHA256",
        rustls: ring::TLS13_CHACHA20_POLY1305_SHA256,
        openssl: None,
    },
    Suite {
        name: "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
        rustls: ring::TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
        openssl: Some("ECDHE-ECDSA-AES128-GCM-SHA256"),
    },
    Suite {
        name: "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
        rustls: ring::TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
        openssl: Some("ECDHE-ECDSA-AES256-GCM-SHA384"),
    },
    Suite {
        name: "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
        rustls: ring::TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
        openssl: Some("ECDHE-ECDSA-CHACHA20-POLY1305"),
    },
    Suite {
        name: "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
        rustls: ring::TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
        openssl: Some("ECDHE-RSA-AES128-GCM-SHA256"),
    },
    Suite {
        name: "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
        rustls: ring::TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
        openssl: Some("ECDHE-RSA-AES256-GCM-SHA384"),
    },
    Suite {
        name: "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
        rustls: ring::TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
        openssl: Some("ECDHE-RSA-CHACHA20-POLY1305"),
    },
];

/// Reads `ssl.cipher.suites` (comma-separated IANA names); an empty list means the
/// defaults (`None`).
pub fn parse_suites(key: &str, value: &str) -> Result<Option<Vec<&'static Suite>>, SecurityError> {
    let mut suites = Vec::new();
    for name in value.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        let suite = SUITES.iter().find(|s| s.name.eq_ignore_ascii_case(name)).ok_or_else(|| {
            SecurityError::invalid(
                key,
                format!(
                    "unknown or unsupported cipher suite {name}: expected any of {}",
                    SUITES.iter().map(|s| s.name).collect::<Vec<_>>().join(", ")
                ),
            )
        })?;
        if !suites.iter().any(|s: &&Suite| s.name == suite.name) {
            suites.push(suite);
        }
    }
    Ok((!suites.is_empty()).then_some(suites))
}

/// A TLS version Kafka names in `ssl.enabled.protocols`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TlsVersion {
    /// `TLSv1.2`.
    Tls12,
    /// `TLSv1.3`.
    Tls13,
}

impl TlsVersion {
    /// rustls' version.
    pub fn rustls(self) -> &'static SupportedProtocolVersion {
        match self {
            Self::Tls12 => &rustls::version::TLS12,
            Self::Tls13 => &rustls::version::TLS13,
        }
    }

    /// Whether `suite` belongs to this version.
    pub fn fits(self, suite: &Suite) -> bool {
        let v13 = matches!(suite.rustls, SupportedCipherSuite::Tls13(_));
        v13 == (self == Self::Tls13)
    }
}

/// Reads `ssl.enabled.protocols` (Kafka's default `TLSv1.2,TLSv1.3`). `TLSv1` and `TLSv1.1`
/// are accepted and left disabled, as current JVMs leave them; at least one of `TLSv1.2`
/// and `TLSv1.3` must remain.
pub fn parse_protocols(key: &str, value: &str) -> Result<Vec<TlsVersion>, SecurityError> {
    let mut versions = Vec::new();
    for name in value.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        let version = match name {
            "TLSv1.3" => TlsVersion::Tls13,
            "TLSv1.2" => TlsVersion::Tls12,
            "TLSv1.1" | "TLSv1" | "SSLv3" => continue,
            _ => {
                return Err(SecurityError::invalid(
                    key,
                    format!("unknown protocol {name}: expected TLSv1.2 or TLSv1.3"),
                ));
            }
        };
        if !versions.contains(&version) {
            versions.push(version);
        }
    }
    if versions.is_empty() {
        return Err(SecurityError::invalid(key, "enables neither TLSv1.2 nor TLSv1.3"));
    }
    Ok(versions)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suites_by_iana_name() {
        let key = "ssl.cipher.suites";
        let s = parse_suites(key, "TLS_AES_128_GCM_SHA256, TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384")
            .unwrap()
            .unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!(s[1].openssl, Some("ECDHE-RSA-AES256-GCM-SHA384"));
        assert!(parse_suites(key, "").unwrap().is_none());
        let e = parse_suites(key, "TLS_RSA_WITH_AES_128_CBC_SHA").unwrap_err().to_string();
        assert!(e.starts_with("ssl.cipher.suites: unknown or unsupported cipher suite"), "{e}");
    }

    #[test]
    fn protocols() {
        let key = "ssl.enabled.protocols";
        assert_eq!(
            parse_protocols(key, "TLSv1.2,TLSv1.3").unwrap(),
            [TlsVersion::Tls12, TlsVersion::Tls13]
        );
        assert_eq!(parse_protocols(key, "TLSv1.3,TLSv1.1").unwrap(), [TlsVersion::Tls13]);
        assert!(parse_protocols(key, "TLSv1.1").is_err());
        assert!(parse_protocols(key, "TLSv9").unwrap_err().to_string().contains("TLSv9"));
        assert!(TlsVersion::Tls13.fits(&SUITES[0]) && !TlsVersion::Tls12.fits(&SUITES[0]));
    }
}
