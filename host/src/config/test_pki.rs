//! Test certificates for the HTTPS settings' tests: [`TestPki`], a CA and one certificate
//! it signed for `127.0.0.1` and `localhost` (server and client use), written as PEM files.
//!
//! Compiled for tests only; generates keys with rcgen and never touches files outside the
//! directory it is given.

use std::path::{Path, PathBuf};

use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose, IsCa,
    KeyPair, KeyUsagePurpose,
};

/// A CA's certificate and a keystore it signed, as PEM files.
pub struct TestPki {
    /// The CA's certificate (a PEM trust store).
    pub truststore: PathBuf,
    /// The leaf's private key, then its certificate and the CA's (a PEM keystore).
    pub keystore: PathBuf,
}

impl TestPki {
    /// A new CA named `name` and a certificate it signed, written as `<name>-ca.pem` and
    /// `<name>-keystore.pem` in `dir`.
    pub fn new(dir: &Path, name: &str) -> TestPki {
        let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
        ca.distinguished_name.push(DnType::CommonName, format!("test CA {name}"));
        ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::DigitalSignature];
        let ca = CertifiedIssuer::self_signed(ca, KeyPair::generate().unwrap()).unwrap();
        let mut leaf =
            CertificateParams::new(["127.0.0.1", "localhost"].map(String::from)).unwrap();
        leaf.extended_key_usages =
            vec![ExtendedKeyUsagePurpose::ServerAuth, ExtendedKeyUsagePurpose::ClientAuth];
        let key = KeyPair::generate().unwrap();
        let cert = leaf.signed_by(&key, &ca).unwrap();
        let pki = TestPki {
            truststore: dir.join(format!("{name}-ca.pem")),
            keystore: dir.join(format!("{name}-keystore.pem")),
        };
        std::fs::write(&pki.truststore, ca.pem()).unwrap();
        let keystore = format!("{}{}{}", key.serialize_pem(), cert.pem(), ca.pem());
        std::fs::write(&pki.keystore, keystore).unwrap();
        pki
    }

    /// The `ssl.*` keys (under `prefix`) of a PEM keystore and trust store with these files.
    pub fn props(&self, prefix: &str) -> Vec<(String, String)> {
        [
            ("ssl.keystore.type", "PEM".to_owned()),
            ("ssl.keystore.location", self.keystore.display().to_string()),
            ("ssl.truststore.type", "PEM".to_owned()),
            ("ssl.truststore.location", self.truststore.display().to_string()),
        ]
        .into_iter()
        .map(|(k, v)| (format!("{prefix}{k}"), v))
        .collect()
    }
}
