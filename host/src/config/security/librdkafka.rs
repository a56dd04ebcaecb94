//! [`librdkafka_props`]: a Kafka client's properties, with Kafka's (Java) security names,
//! turned into librdkafka's. Call it on the merged map of one client (worker settings, role
//! settings, a connector's overrides), so that an override of any security key takes part.
//!
//! - `security.protocol` as is; `sasl.mechanism` → `sasl.mechanisms`;
//! - `sasl.jaas.config` → `sasl.username` + `sasl.password`;
//! - the trust store → `ssl.ca.pem` (none: librdkafka's default, the system's CAs); the key
//!   store → `ssl.certificate.pem` + `ssl.key.pem` (the key decrypted);
//! - `ssl.endpoint.identification.algorithm`: `https` → `https`, empty → `none`;
//! - `ssl.cipher.suites` → OpenSSL's names (TLS 1.2 suites; librdkafka has no setting for
//!   TLS 1.3's);
//! - Java-only keys (`ssl.truststore.type`, `ssl.protocol`, `ssl.enabled.protocols`: librdkafka
//!   has no minimum-version setting, …) are dropped with a debug line, as is any other
//!   `ssl.*`/`sasl.*` key librdkafka does not know (it would refuse the whole client);
//!   librdkafka's own `ssl.*`/`sasl.*` keys pass through.
//!
//! Other keys pass through unchanged. Errors name the key and never show its value.

use std::collections::BTreeMap;

use super::client::{ClientSecurity, SASL_JAAS_CONFIG, SASL_MECHANISM, SECURITY_PROTOCOL, Sasl};
use super::error::SecurityError;
use super::ssl::SSL_KEYS;

/// librdkafka's `ssl.*` and `sasl.*` properties (librdkafka 2.12's CONFIGURATION.md), passed
/// through when set. `ssl.keystore.location`, `ssl.keystore.password` and `ssl.key.password`
/// are Kafka's too, and read as Kafka's.
const LIBRDKAFKA_KEYS: &[&str] = &[
    "sasl.kerberos.keytab",
    "sasl.kerberos.kinit.cmd",
    "sasl.kerberos.min.time.before.relogin",
    "sasl.kerberos.principal",
    "sasl.kerberos.service.name",
    "sasl.mechanisms",
    "sasl.oauthbearer.config",
    "sasl.oauthbearer.method",
    "sasl.password",
    "sasl.username",
    "ssl.ca.certificate.stores",
    "ssl.ca.location",
    "ssl.ca.pem",
    "ssl.certificate.location",
    "ssl.certificate.pem",
    "ssl.crl.location",
    "ssl.curves.list",
    "ssl.engine.id",
    "ssl.engine.location",
    "ssl.key.location",
    "ssl.key.pem",
    "ssl.providers",
    "ssl.sigalgs.list",
];

/// Kafka's properties of one client → librdkafka's.
pub fn librdkafka_props(
    kafka: &BTreeMap<String, String>,
) -> Result<Vec<(String, String)>, SecurityError> {
    let security = ClientSecurity::from_props(kafka)?;
    let mut out = Vec::with_capacity(kafka.len() + 4);
    for (key, value) in kafka {
        let security_key = key.starts_with("ssl.") || key.starts_with("sasl.");
        if key == SECURITY_PROTOCOL || key == SASL_MECHANISM || key == SASL_JAAS_CONFIG {
            continue;
        }
        let librdkafka_own =
            LIBRDKAFKA_KEYS.contains(&key.as_str()) && !SSL_KEYS.contains(&key.as_str());
        if !security_key || librdkafka_own {
            out.push((key.clone(), value.clone()));
        } else if !SSL_KEYS.contains(&key.as_str()) {
            tracing::debug!(key = %key, "Ignored a Kafka client setting librdkafka does not have");
        }
    }
    if kafka.contains_key(SECURITY_PROTOCOL) {
        out.push((SECURITY_PROTOCOL.to_owned(), security.protocol.name().to_owned()));
    }
    match &security.sasl {
        Some(Sasl::Jaas(mechanism, credentials)) => {
            out.push(("sasl.mechanisms".to_owned(), mechanism.name().to_owned()));
            out.push(("sasl.username".to_owned(), credentials.username.clone()));
            out.push(("sasl.password".to_owned(), credentials.password.expose().to_owned()));
        }
        Some(Sasl::Native(mechanism)) => {
            out.push(("sasl.mechanisms".to_owned(), mechanism.name().to_owned()));
        }
        None => {}
    }
    if let Some(ssl) = &security.ssl {
        if let Some(ca) = ssl.trusted_pem()? {
            out.push(("ssl.ca.pem".to_owned(), ca));
        }
        if let Some((chain, key)) = ssl.identity_pem()? {
            out.push(("ssl.certificate.pem".to_owned(), chain));
            out.push(("ssl.key.pem".to_owned(), key));
        }
        let algorithm = if ssl.endpoint_identification() { "https" } else { "none" };
        out.push(("ssl.endpoint.identification.algorithm".to_owned(), algorithm.to_owned()));
        if let Some(ciphers) = ssl.openssl_cipher_list() {
            out.push(("ssl.cipher.suites".to_owned(), ciphers));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use rcgen::{CertificateParams, KeyPair};

    use super::*;

    fn props(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    fn get<'a>(out: &'a [(String, String)], key: &str) -> Option<&'a str> {
        out.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    #[test]
    fn sasl_ssl_with_scram_and_a_pem_trust_store() {
        let key = KeyPair::generate().unwrap();
        let ca = CertificateParams::new(vec!["ca".to_owned()]).unwrap().self_signed(&key).unwrap();
        let out = librdkafka_props(&props(&[
            ("security.protocol", "sasl_ssl"),
            ("sasl.mechanism", "SCRAM-SHA-512"),
            (
                "sasl.jaas.config",
                "org.apache.kafka.common.security.scram.ScramLoginModule required \
                 username=\"connect\" password=\"connect-secret\";",
            ),
            ("ssl.truststore.type", "PEM"),
            ("ssl.truststore.certificates", &ca.pem()),
            ("ssl.endpoint.identification.algorithm", ""),
            ("ssl.enabled.protocols", "TLSv1.2,TLSv1.3"),
            ("ssl.protocol", "TLSv1.3"),
            ("ssl.keymanager.algorithm", "SunX509"),
            ("sasl.login.refresh.window.factor", "0.8"),
            ("acks", "all"),
        ]))
        .unwrap();
        assert_eq!(get(&out, "security.protocol"), Some("SASL_SSL"));
        assert_eq!(get(&out, "sasl.mechanisms"), Some("SCRAM-SHA-512"));
        assert_eq!(get(&out, "sasl.username"), Some("connect"));
        assert_eq!(get(&out, "sasl.password"), Some("connect-secret"));
        assert_eq!(get(&out, "ssl.ca.pem").map(str::trim), Some(ca.pem().trim()));
        assert_eq!(get(&out, "ssl.endpoint.identification.algorithm"), Some("none"));
        assert_eq!(get(&out, "acks"), Some("all"));
        for dropped in [
            "sasl.jaas.config",
            "sasl.mechanism",
            "ssl.truststore.type",
            "ssl.truststore.certificates",
            "ssl.enabled.protocols",
            "ssl.protocol",
            "ssl.keymanager.algorithm",
            "sasl.login.refresh.window.factor",
        ] {
            assert_eq!(get(&out, dropped), None, "{dropped}");
        }
    }

    #[test]
    fn ssl_with_a_client_certificate_and_suites() {
        let key = KeyPair::generate().unwrap();
        let cert =
            CertificateParams::new(vec!["client".to_owned()]).unwrap().self_signed(&key).unwrap();
        let out = librdkafka_props(&props(&[
            ("security.protocol", "SSL"),
            ("ssl.keystore.certificate.chain", &cert.pem()),
            ("ssl.keystore.key", &key.serialize_pem()),
            ("ssl.cipher.suites", "TLS_AES_128_GCM_SHA256,TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"),
            ("ssl.ca.location", "/etc/ssl/certs"),
        ]))
        .unwrap();
        assert_eq!(get(&out, "ssl.certificate.pem").map(str::trim), Some(cert.pem().trim()));
        assert!(get(&out, "ssl.key.pem").unwrap().contains("BEGIN PRIVATE KEY"));
        assert_eq!(get(&out, "ssl.cipher.suites"), Some("ECDHE-RSA-AES128-GCM-SHA256"));
        assert_eq!(get(&out, "ssl.endpoint.identification.algorithm"), Some("https"));
        assert_eq!(get(&out, "ssl.ca.location"), Some("/etc/ssl/certs"), "librdkafka's own key");
        assert_eq!(get(&out, "ssl.ca.pem"), None, "no trust store: librdkafka's default");
        assert_eq!(get(&out, "ssl.keystore.key"), None);
    }

    #[test]
    fn plaintext_passes_through_and_errors_name_the_key() {
        let out = librdkafka_props(&props(&[("client.id", "w1")])).unwrap();
        assert_eq!(out, [("client.id".to_owned(), "w1".to_owned())]);
        let e = librdkafka_props(&props(&[
            ("security.protocol", "SASL_PLAINTEXT"),
            ("sasl.mechanism", "PLAIN"),
            ("sasl.jaas.config", "PlainLoginModule required password=\"hunter2\";"),
        ]))
        .unwrap_err()
        .to_string();
        assert!(e.starts_with("sasl.jaas.config: ") && !e.contains("hunter2"), "{e}");
    }
}
