use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::Path;

use p12_keystore::{Certificate, KeyStore, KeyStoreEntry, PrivateKeyChain};
use pkcs8::der::Decode;
use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair};
use rustls::pki_types::ServerName;
use rustls::pki_types::pem::PemObject;
use rustls::{ClientConnection, ServerConnection};

use super::*;

/// A CA and a leaf certificate for `localhost` it signed.
struct Pki {
    ca_pem: String,
    chain_pem: String,
    key_pem: String,
    key_der: Vec<u8>,
    chain_der: Vec<Vec<u8>>,
}

fn make_pki(name: &str) -> Pki {
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca = CertifiedIssuer::self_signed(ca_params, KeyPair::generate().unwrap()).unwrap();
    let key = KeyPair::generate().unwrap();
    let leaf = CertificateParams::new(vec![name.to_owned()]).unwrap().signed_by(&key, &ca).unwrap();
    Pki {
        ca_pem: ca.pem(),
        chain_pem: leaf.pem(),
        key_pem: key.serialize_pem(),
        key_der: key.serialize_der(),
        chain_der: vec![leaf.der().to_vec()],
    }
}

fn props(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

fn write(dir: &Path, name: &str, bytes: impl AsRef<[u8]>) -> String {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path.to_str().unwrap().to_owned()
}

/// Runs a TLS handshake in memory and sends one message; the error of whichever side
/// failed.
fn handshake(client: &SslSettings, server: &SslSettings, name: &str) -> Result<(), String> {
    let name = ServerName::try_from(name.to_owned()).unwrap();
    let mut c = ClientConnection::new(client.client_config().unwrap(), name).unwrap();
    let mut s = ServerConnection::new(server.server_config().unwrap()).unwrap();
    c.writer().write_all(b"ping").unwrap();
    for _ in 0..10 {
        let mut buf = Vec::new();
        c.write_tls(&mut buf).unwrap();
        s.read_tls(&mut buf.as_slice()).unwrap();
        s.process_new_packets().map_err(|e| format!("server: {e}"))?;
        let mut buf = Vec::new();
        s.write_tls(&mut buf).unwrap();
        c.read_tls(&mut buf.as_slice()).unwrap();
        c.process_new_packets().map_err(|e| format!("client: {e}"))?;
        let mut got = [0u8; 4];
        if !c.is_handshaking() && s.reader().read_exact(&mut got).is_ok() {
            assert_eq!(&got, b"ping");
            return Ok(());
        }
    }
    Err("no message".to_owned())
}

#[test]
fn pem_files_trust_and_identity_handshake() {
    let dir = tempfile::tempdir().unwrap();
    let pki = make_pki("localhost");
    let ca = write(dir.path(), "ca.pem", &pki.ca_pem);
    let keystore = write(dir.path(), "server.pem", format!("{}{}", pki.key_pem, pki.chain_pem));
    let server = SslSettings::from_props(
        &props(&[("ssl.keystore.location", &keystore), ("ssl.keystore.type", "PEM")]),
        "",
    )
    .unwrap();
    let client = SslSettings::from_props(
        &props(&[("ssl.truststore.location", &ca), ("ssl.truststore.type", "pem")]),
        "",
    )
    .unwrap();
    handshake(&client, &server, "localhost").unwrap();
    let wrong_name = handshake(&client, &server, "other.example").unwrap_err();
    assert!(wrong_name.contains("not valid for name"), "{wrong_name}");
    assert_eq!(client.trusted_pem().unwrap().unwrap().trim(), pki.ca_pem.trim());
    assert!(client.identity_pem().unwrap().is_none());
}

#[test]
fn empty_endpoint_algorithm_skips_the_name_but_not_the_chain() {
    let dir = tempfile::tempdir().unwrap();
    let pki = make_pki("broker.internal");
    let ca = write(dir.path(), "ca.pem", &pki.ca_pem);
    let server = SslSettings::from_props(
        &props(&[
            ("ssl.keystore.key", &pki.key_pem),
            ("ssl.keystore.certificate.chain", &pki.chain_pem),
        ]),
        "",
    )
    .unwrap();
    let lenient = SslSettings::from_props(
        &props(&[("ssl.truststore.location", &ca), ("ssl.endpoint.identification.algorithm", "")]),
        "",
    )
    .unwrap();
    assert!(!lenient.endpoint_identification());
    handshake(&lenient, &server, "127.0.0.1.example").unwrap();
    // Another CA: refused, host-name check or not.
    let other = make_pki("broker.internal");
    let other_ca = write(dir.path(), "other.pem", &other.ca_pem);
    let untrusting = SslSettings::from_props(
        &props(&[
            ("ssl.truststore.location", &other_ca),
            ("ssl.endpoint.identification.algorithm", ""),
        ]),
        "",
    )
    .unwrap();
    let refused = handshake(&untrusting, &server, "broker.internal").unwrap_err();
    // Both test CAs have the same (empty) name: the chain is refused by its signature.
    assert!(refused.starts_with("client: invalid peer certificate"), "{refused}");
    let bad =
        SslSettings::from_props(&props(&[("ssl.endpoint.identification.algorithm", "http")]), "");
    assert!(bad.unwrap_err().to_string().starts_with("ssl.endpoint.identification.algorithm:"));
}

#[test]
fn client_certificates_per_client_auth() {
    let dir = tempfile::tempdir().unwrap();
    let server_pki = make_pki("localhost");
    let client_pki = make_pki("client");
    let server_ca = write(dir.path(), "server-ca.pem", &server_pki.ca_pem);
    let client_ca = write(dir.path(), "client-ca.pem", &client_pki.ca_pem);
    let server = |auth: &str| {
        SslSettings::from_props(
            &props(&[
                ("listeners.https.ssl.keystore.key", &server_pki.key_pem),
                ("listeners.https.ssl.keystore.certificate.chain", &server_pki.chain_pem),
                ("listeners.https.ssl.truststore.location", &client_ca),
                ("listeners.https.ssl.client.auth", auth),
            ]),
            "listeners.https.",
        )
        .unwrap()
    };
    let anonymous =
        SslSettings::from_props(&props(&[("ssl.truststore.location", &server_ca)]), "").unwrap();
    let with_cert = SslSettings::from_props(
        &props(&[
            ("ssl.truststore.location", &server_ca),
            ("ssl.keystore.key", &client_pki.key_pem),
            ("ssl.keystore.certificate.chain", &client_pki.chain_pem),
        ]),
        "",
    )
    .unwrap();
    handshake(&anonymous, &server("none"), "localhost").unwrap();
    handshake(&anonymous, &server("requested"), "localhost").unwrap();
    handshake(&with_cert, &server("required"), "localhost").unwrap();
    let refused = handshake(&anonymous, &server("required"), "localhost").unwrap_err();
    assert!(refused.starts_with("server:"), "{refused}");
    let (chain, key) = with_cert.identity_pem().unwrap().unwrap();
    assert_eq!(chain.trim(), client_pki.chain_pem.trim());
    assert!(key.starts_with("-----BEGIN PRIVATE KEY-----"));
    let bad = SslSettings::from_props(&props(&[("ssl.client.auth", "always")]), "");
    assert_eq!(
        bad.unwrap_err().to_string(),
        "ssl.client.auth: expected none, requested or required"
    );
}

#[test]
fn pkcs12_trust_and_key_stores() {
    let dir = tempfile::tempdir().unwrap();
    let pki = make_pki("localhost");
    let ca_der = rustls::pki_types::CertificateDer::from_pem_slice(pki.ca_pem.as_bytes()).unwrap();
    let mut trust = KeyStore::new();
    trust.add_entry("ca", KeyStoreEntry::Certificate(Certificate::from_der(&ca_der).unwrap()));
    let truststore = write(dir.path(), "trust.p12", trust.writer("trust-pw").write().unwrap());
    let chain: Vec<_> = pki.chain_der.iter().map(|d| Certificate::from_der(d).unwrap()).collect();
    let mut keys = KeyStore::new();
    keys.add_entry(
        "server",
        KeyStoreEntry::PrivateKeyChain(PrivateKeyChain::new(&pki.key_der, b"id", chain)),
    );
    let keystore = write(dir.path(), "keys.p12", keys.writer("key-pw").write().unwrap());

    let server = SslSettings::from_props(
        &props(&[
            ("ssl.keystore.location", &keystore),
            ("ssl.keystore.type", "PKCS12"),
            ("ssl.keystore.password", "key-pw"),
        ]),
        "",
    )
    .unwrap();
    // The type is detected when not given.
    let client = SslSettings::from_props(
        &props(&[
            ("ssl.truststore.location", &truststore),
            ("ssl.truststore.password", "trust-pw"),
        ]),
        "",
    )
    .unwrap();
    handshake(&client, &server, "localhost").unwrap();
    let (_, key_pem) = server.identity_pem().unwrap().unwrap();
    assert!(key_pem.contains("BEGIN PRIVATE KEY"));

    let wrong = SslSettings::from_props(
        &props(&[
            ("ssl.truststore.location", &truststore),
            ("ssl.truststore.password", "s3cr3t-guess"),
        ]),
        "",
    )
    .unwrap_err()
    .to_string();
    assert!(wrong.starts_with("ssl.truststore.location: cannot open the PKCS12 store"), "{wrong}");
    assert!(!wrong.contains("s3cr3t-guess"));
}

#[test]
fn encrypted_pkcs8_key_needs_ssl_key_password() {
    let pki = make_pki("localhost");
    let info = pkcs8::PrivateKeyInfo::from_der(&pki.key_der).unwrap();
    let params =
        pkcs8::pkcs5::pbes2::Parameters::pbkdf2_sha256_aes256cbc(2048, b"saltsalt", &[7; 16])
            .unwrap();
    let encrypted = info
        .encrypt_with_params(params, "k3y-pass")
        .unwrap()
        .to_pem("ENCRYPTED PRIVATE KEY", pkcs8::LineEnding::LF)
        .unwrap();
    let with = |password: Option<&str>| {
        let mut p = props(&[
            ("ssl.keystore.key", encrypted.as_str()),
            ("ssl.keystore.certificate.chain", &pki.chain_pem),
        ]);
        if let Some(pw) = password {
            p.insert("ssl.key.password".into(), pw.into());
        }
        SslSettings::from_props(&p, "")
    };
    let settings = with(Some("k3y-pass")).unwrap();
    let (_, key) = settings.identity_pem().unwrap().unwrap();
    assert_eq!(key.trim(), pki.key_pem.trim(), "the key handed on is the decrypted one");
    assert!(settings.server_config().is_ok());
    assert_eq!(
        with(None).unwrap_err().to_string(),
        "ssl.keystore.key: the key is encrypted: set ssl.key.password"
    );
    let wrong = with(Some("n0t-it")).unwrap_err().to_string();
    assert!(wrong.starts_with("ssl.key.password: cannot decrypt"), "{wrong}");
    assert!(!wrong.contains("n0t-it"));
    assert!(!format!("{settings:?}").contains("PRIVATE KEY"));
}

#[test]
fn jks_is_refused_with_the_way_out() {
    let dir = tempfile::tempdir().unwrap();
    let jks = write(dir.path(), "trust.jks", [0xFE, 0xED, 0xFE, 0xED, 0, 0, 0, 2]);
    for p in [
        props(&[("ssl.truststore.location", &jks)]),
        props(&[("ssl.truststore.location", &jks), ("ssl.truststore.type", "JKS")]),
    ] {
        let e = SslSettings::from_props(&p, "").unwrap_err().to_string();
        assert!(e.contains("convert it to PKCS12 or PEM"), "{e}");
    }
    let e = SslSettings::from_props(&props(&[("ssl.keystore.type", "jks")]), "").unwrap_err();
    assert_eq!(e.key(), "ssl.keystore.type");
}

#[test]
fn unreadable_files_and_missing_halves_name_the_key() {
    let e = SslSettings::from_props(
        &props(&[("listeners.https.ssl.truststore.location", "/nonexistent/ca.pem")]),
        "listeners.https.",
    )
    .unwrap_err();
    assert_eq!(e.key(), "listeners.https.ssl.truststore.location");
    assert!(e.to_string().contains("cannot read /nonexistent/ca.pem"));
    let pki = make_pki("localhost");
    let e = SslSettings::from_props(&props(&[("ssl.keystore.key", &pki.key_pem)]), "").unwrap_err();
    assert_eq!(e.key(), "ssl.keystore.certificate.chain");
    let e = SslSettings::from_props(&props(&[("ssl.truststore.certificates", "junk")]), "")
        .unwrap_err();
    assert_eq!(e.to_string(), "ssl.truststore.certificates: holds no PEM certificate");
    let none = SslSettings::from_props(&BTreeMap::new(), "").unwrap();
    assert!(
        none.server_config().unwrap_err().to_string().starts_with("ssl.keystore.location: missing")
    );
}

#[test]
fn protocols_and_suites_limit_the_handshake() {
    let pki = make_pki("localhost");
    let server = SslSettings::from_props(
        &props(&[
            ("ssl.keystore.key", &pki.key_pem),
            ("ssl.keystore.certificate.chain", &pki.chain_pem),
            ("ssl.enabled.protocols", "TLSv1.2"),
        ]),
        "",
    )
    .unwrap();
    let tls13_only = SslSettings::from_props(
        &props(&[
            ("ssl.truststore.certificates", &pki.ca_pem),
            ("ssl.enabled.protocols", "TLSv1.3"),
        ]),
        "",
    )
    .unwrap();
    assert!(handshake(&tls13_only, &server, "localhost").is_err());
    let tls12 = SslSettings::from_props(
        &props(&[
            ("ssl.truststore.certificates", &pki.ca_pem),
            ("ssl.cipher.suites", "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384"),
        ]),
        "",
    )
    .unwrap();
    handshake(&tls12, &server, "localhost").unwrap();
    assert_eq!(tls12.openssl_cipher_list().as_deref(), Some("ECDHE-ECDSA-AES256-GCM-SHA384"));
    let mismatch = SslSettings::from_props(
        &props(&[
            ("ssl.enabled.protocols", "TLSv1.2"),
            ("ssl.cipher.suites", "TLS_AES_128_GCM_SHA256"),
        ]),
        "",
    );
    assert_eq!(mismatch.unwrap_err().key(), "ssl.cipher.suites");
}

#[test]
fn listener_prefix_is_all_or_nothing() {
    let top = props(&[
        ("ssl.truststore.location", "/top/ca.pem"),
        ("ssl.keystore.location", "/top/keys.p12"),
        ("security.protocol", "SSL"),
    ]);
    let used = listener_props(&top, "listeners.https.");
    assert_eq!(
        used,
        props(&[
            ("ssl.truststore.location", "/top/ca.pem"),
            ("ssl.keystore.location", "/top/keys.p12")
        ])
    );
    let mut mixed = top.clone();
    mixed.insert("listeners.https.ssl.keystore.location".into(), "/listener/keys.p12".into());
    let used = listener_props(&mixed, "listeners.https.");
    assert_eq!(
        used,
        props(&[("ssl.keystore.location", "/listener/keys.p12")]),
        "no top-level key leaks in"
    );
}
