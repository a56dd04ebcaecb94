//! Where the test broker's secure listeners are and how to log in to them: the addresses
//! and TLS files `scripts/test.sh` exports from `scripts/kafka.sh` (`KAFKA_SASL_SSL_BOOTSTRAP`,
//! `KAFKA_SSL_BOOTSTRAP`, `KAFKA_SASL_PLAINTEXT_BOOTSTRAP`, `KAFKA_TLS_DIR`) and its one user.
//! A variable that is not set fails the test with a message saying so; nothing skips.

use std::path::PathBuf;
use std::sync::Arc;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use wasm_connect_group::{Sasl, SaslMechanism, Security, Tls};

/// The user `scripts/kafka.sh` creates for every mechanism, and its password.
pub const USER: &str = "connect";
pub const PASSWORD: &str = "connect-secret";

/// The value of `name`, or a failure naming it.
fn required(name: &str) -> String {
    std::env::var(name).ok().filter(|v| !v.is_empty()).unwrap_or_else(|| {
        panic!(
            "{name} is not set: the TLS and SASL tests need the secure listeners of \
             scripts/kafka.sh's broker (scripts/test.sh exports KAFKA_SASL_SSL_BOOTSTRAP, \
             KAFKA_SSL_BOOTSTRAP, KAFKA_SASL_PLAINTEXT_BOOTSTRAP and KAFKA_TLS_DIR; \
             `scripts/kafka.sh status` prints them)"
        )
    })
}

/// The SASL_SSL listener, `host:port`.
pub fn sasl_ssl_bootstrap() -> String {
    required("KAFKA_SASL_SSL_BOOTSTRAP")
}

/// The SSL listener.
pub fn ssl_bootstrap() -> String {
    required("KAFKA_SSL_BOOTSTRAP")
}

/// The SASL_PLAINTEXT listener.
pub fn sasl_plaintext_bootstrap() -> String {
    required("KAFKA_SASL_PLAINTEXT_BOOTSTRAP")
}

/// A file of the broker's TLS directory.
fn tls_file(name: &str) -> PathBuf {
    let path = PathBuf::from(required("KAFKA_TLS_DIR")).join(name);
    assert!(path.is_file(), "{} is missing (KAFKA_TLS_DIR)", path.display());
    path
}

fn builder() -> rustls::ConfigBuilder<rustls::ClientConfig, rustls::WantsVerifier> {
    rustls::ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .with_safe_default_protocol_versions()
        .unwrap()
}

fn roots(certificates: impl IntoIterator<Item = CertificateDer<'static>>) -> rustls::RootCertStore {
    let mut roots = rustls::RootCertStore::empty();
    for certificate in certificates {
        roots.add(certificate).unwrap();
    }
    roots
}

/// The broker's test CA (`ca.pem`).
fn test_ca() -> rustls::RootCertStore {
    let path = tls_file("ca.pem");
    roots(CertificateDer::pem_file_iter(&path).unwrap().map(Result::unwrap))
}

/// TLS trusting the broker's test CA, without a client certificate.
pub fn tls() -> Tls {
    Tls::new(Arc::new(builder().with_root_certificates(test_ca()).with_no_client_auth()))
}

/// TLS trusting the test CA and presenting the test client certificate (`client.pem`).
pub fn tls_with_client_certificate() -> Tls {
    let chain = CertificateDer::pem_file_iter(tls_file("client.pem"))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let key = PrivateKeyDer::from_pem_file(tls_file("client.key")).unwrap();
    let config = builder().with_root_certificates(test_ca()).with_client_auth_cert(chain, key);
    Tls::new(Arc::new(config.unwrap()))
}

/// TLS trusting only a CA of its own, which signed nothing the broker has.
pub fn tls_trusting_a_stranger() -> Tls {
    let key = rcgen::KeyPair::generate().unwrap();
    let mut params = rcgen::CertificateParams::new(Vec::new()).unwrap();
    params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    params.distinguished_name.push(rcgen::DnType::CommonName, "a stranger CA");
    let ca = params.self_signed(&key).unwrap();
    let roots = roots([ca.der().clone()]);
    Tls::new(Arc::new(builder().with_root_certificates(roots).with_no_client_auth()))
}

/// The test user's login with `mechanism`.
pub fn login(mechanism: SaslMechanism) -> Sasl {
    Sasl { mechanism, username: USER.to_owned(), password: PASSWORD.to_owned() }
}

/// `SASL_SSL` with `sasl`.
pub fn sasl_ssl(sasl: Sasl) -> Security {
    Security { tls: Some(tls()), sasl: Some(sasl) }
}
