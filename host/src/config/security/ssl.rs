//! [`SslSettings`]: Kafka's `ssl.*` settings of one client or listener (trust store, key
//! store, protocols, cipher suites, host-name check, client authentication), read once from
//! a property map under a prefix (`""` for the Kafka clients, `listeners.https.` for the REST
//! listeners), with the stores loaded and checked at that moment. It builds rustls client and
//! server configurations, and hands PEM text to librdkafka.
//!
//! With no trust store, the operating system's roots are trusted (`rustls-native-certs`):
//! Kafka trusts the JVM's default store, which the operator manages on the machine, and
//! librdkafka (OpenSSL) trusts the system's store by default, so both client stacks of this
//! worker then trust the same authorities, a CA added by the operator included. A root list
//! compiled into the binary (webpki-roots) would ignore both.
//!
//! Errors name the full key (prefix included) and never show a password or a key.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, OnceLock};

use rustls::client::WebPkiServerVerifier;
use rustls::crypto::CryptoProvider;
use rustls::pki_types::CertificateDer;
use rustls::server::WebPkiClientVerifier;
use rustls::{ClientConfig, RootCertStore, ServerConfig};

use super::error::SecurityError;
use super::store::{self, Identity, StoreType};
use super::suites::{self, Suite, TlsVersion};
use super::verifier::ChainOnlyVerifier;

/// Kafka's `ssl.*` keys this module reads (after the prefix).
pub const SSL_KEYS: &[&str] = &[
    TRUSTSTORE_TYPE,
    TRUSTSTORE_LOCATION,
    TRUSTSTORE_PASSWORD,
    TRUSTSTORE_CERTIFICATES,
    KEYSTORE_TYPE,
    KEYSTORE_LOCATION,
    KEYSTORE_PASSWORD,
    KEY_PASSWORD,
    KEYSTORE_CHAIN,
    KEYSTORE_KEY,
    ENDPOINT_IDENTIFICATION,
    ENABLED_PROTOCOLS,
    CIPHER_SUITES,
    CLIENT_AUTH,
];

const TRUSTSTORE_TYPE: &str = "ssl.truststore.type";
const TRUSTSTORE_LOCATION: &str = "ssl.truststore.location";
const TRUSTSTORE_PASSWORD: &str = "ssl.truststore.password";
const TRUSTSTORE_CERTIFICATES: &str = "ssl.truststore.certificates";
const KEYSTORE_TYPE: &str = "ssl.keystore.type";
const KEYSTORE_LOCATION: &str = "ssl.keystore.location";
const KEYSTORE_PASSWORD: &str = "ssl.keystore.password";
const KEY_PASSWORD: &str = "ssl.key.password";
const KEYSTORE_CHAIN: &str = "ssl.keystore.certificate.chain";
const KEYSTORE_KEY: &str = "ssl.keystore.key";
const ENDPOINT_IDENTIFICATION: &str = "ssl.endpoint.identification.algorithm";
const ENABLED_PROTOCOLS: &str = "ssl.enabled.protocols";
const CIPHER_SUITES: &str = "ssl.cipher.suites";
const CLIENT_AUTH: &str = "ssl.client.auth";

/// Kafka's default `ssl.enabled.protocols`.
const DEFAULT_PROTOCOLS: &str = "TLSv1.2,TLSv1.3";

/// `ssl.client.auth`: whether a server asks its clients for a certificate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ClientAuth {
    /// `none` (default): no client certificate.
    #[default]
    None,
    /// `requested`: verified when given, not required.
    Requested,
    /// `required`: every client must present a trusted certificate.
    Required,
}

/// One client's or listener's TLS settings, with its stores loaded.
#[derive(Clone)]
pub struct SslSettings {
    /// The prefix the keys were read under, for error messages.
    prefix: String,
    /// The trust store's certificates; `None`: the system's roots.
    trusted: Option<Vec<CertificateDer<'static>>>,
    /// The key store's chain and key, and the key that named it.
    identity: Option<(Identity, &'static str)>,
    /// Whether the server's certificate must match its host name.
    endpoint_identification: bool,
    /// Enabled TLS versions.
    protocols: Vec<TlsVersion>,
    /// Enabled cipher suites; `None`: the provider's defaults.
    suites: Option<Vec<&'static Suite>>,
    /// A server's client-certificate policy.
    client_auth: ClientAuth,
}

impl fmt::Debug for SslSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SslSettings")
            .field("prefix", &self.prefix)
            .field("trusted", &self.trusted.as_ref().map(Vec::len))
            .field("identity", &self.identity.as_ref().map(|(i, _)| i))
            .field("endpoint_identification", &self.endpoint_identification)
            .field("protocols", &self.protocols)
            .field(
                "suites",
                &self.suites.as_ref().map(|s| s.iter().map(|s| s.name).collect::<Vec<_>>()),
            )
            .field("client_auth", &self.client_auth)
            .finish()
    }
}

/// Kafka's "all or nothing" rule for a listener's settings: when any key starts with
/// `prefix` (`listeners.https.`), only those keys are used, prefix stripped; otherwise the
/// top-level `ssl.*` keys are.
pub fn listener_props(all: &BTreeMap<String, String>, prefix: &str) -> BTreeMap<String, String> {
    let prefixed: BTreeMap<String, String> = all
        .iter()
        .filter_map(|(k, v)| k.strip_prefix(prefix).map(|k| (k.to_owned(), v.clone())))
        .filter(|(k, _)| !k.is_empty())
        .collect();
    if !prefixed.is_empty() {
        return prefixed;
    }
    all.iter().filter(|(k, _)| k.starts_with("ssl.")).map(|(k, v)| (k.clone(), v.clone())).collect()
}

impl SslSettings {
    /// Reads the `ssl.*` keys under `prefix` (`""` or `listeners.https.`) and loads the
    /// stores they name.
    pub fn from_props(
        props: &BTreeMap<String, String>,
        prefix: &str,
    ) -> Result<SslSettings, SecurityError> {
        let r = Props { props, prefix };
        let protocols = suites::parse_protocols(
            &r.key(ENABLED_PROTOCOLS),
            r.get(ENABLED_PROTOCOLS).unwrap_or(DEFAULT_PROTOCOLS),
        )?;
        let suites = r.get(CIPHER_SUITES).map(|v| suites::parse_suites(&r.key(CIPHER_SUITES), v));
        let suites = suites.transpose()?.flatten();
        if let Some(suites) = &suites
            && !suites.iter().any(|s| protocols.iter().any(|p| p.fits(s)))
        {
            return Err(SecurityError::invalid(
                r.key(CIPHER_SUITES),
                "no listed suite belongs to a protocol of ssl.enabled.protocols",
            ));
        }
        let endpoint_identification = match r.raw(ENDPOINT_IDENTIFICATION).map(str::trim) {
            None => true,
            Some("") => false,
            Some(v) if v.eq_ignore_ascii_case("https") => true,
            Some(_) => {
                return Err(SecurityError::invalid(
                    r.key(ENDPOINT_IDENTIFICATION),
                    "expected https, or empty to skip the host-name check",
                ));
            }
        };
        let client_auth = match r.get(CLIENT_AUTH).map(str::to_ascii_lowercase).as_deref() {
            None | Some("none") => ClientAuth::None,
            Some("requested") => ClientAuth::Requested,
            Some("required") => ClientAuth::Required,
            Some(_) => {
                return Err(SecurityError::invalid(
                    r.key(CLIENT_AUTH),
                    "expected none, requested or required",
                ));
            }
        };
        Ok(SslSettings {
            prefix: prefix.to_owned(),
            trusted: r.trust_store()?,
            identity: r.key_store()?,
            endpoint_identification,
            protocols,
            suites,
            client_auth,
        })
    }

    /// A rustls client configuration: the trust store (or the system's roots), the key
    /// store's certificate when there is one, the protocols and suites, and the host-name
    /// check unless `ssl.endpoint.identification.algorithm` is empty.
    pub fn client_config(&self) -> Result<Arc<ClientConfig>, SecurityError> {
        let provider = Arc::new(self.provider());
        let builder = ClientConfig::builder_with_provider(provider.clone())
            .with_protocol_versions(&self.versions())
            .map_err(|e| self.tls(ENABLED_PROTOCOLS, e))?;
        let roots = Arc::new(self.roots()?);
        let builder = if self.endpoint_identification {
            builder.with_root_certificates(roots)
        } else {
            let webpki =
                WebPkiServerVerifier::builder_with_provider(roots, provider).build().map_err(
                    |e| SecurityError::invalid(self.key(TRUSTSTORE_LOCATION), e.to_string()),
                )?;
            builder
                .dangerous()
                .with_custom_certificate_verifier(Arc::new(ChainOnlyVerifier(webpki)))
        };
        let config = match &self.identity {
            Some((identity, key)) => builder
                .with_client_auth_cert(identity.chain.clone(), identity.key.clone_key())
                .map_err(|e| self.tls(key, e))?,
            None => builder.with_no_client_auth(),
        };
        Ok(Arc::new(config))
    }

    /// A rustls server configuration: the key store (required), the protocols and suites,
    /// and client certificates per `ssl.client.auth`, checked against the trust store (or
    /// the system's roots).
    pub fn server_config(&self) -> Result<Arc<ServerConfig>, SecurityError> {
        let Some((identity, key)) = &self.identity else {
            return Err(SecurityError::invalid(
                self.key(KEYSTORE_LOCATION),
                "missing: a TLS server needs a key store (ssl.keystore.location, or \
                 ssl.keystore.key and ssl.keystore.certificate.chain)",
            ));
        };
        let provider = Arc::new(self.provider());
        let builder = ServerConfig::builder_with_provider(provider.clone())
            .with_protocol_versions(&self.versions())
            .map_err(|e| self.tls(ENABLED_PROTOCOLS, e))?;
        let builder = match self.client_auth {
            ClientAuth::None => builder.with_no_client_auth(),
            auth => {
                let roots = Arc::new(self.roots()?);
                let mut verifier = WebPkiClientVerifier::builder_with_provider(roots, provider);
                if auth == ClientAuth::Requested {
                    verifier = verifier.allow_unauthenticated();
                }
                let verifier = verifier
                    .build()
                    .map_err(|e| SecurityError::invalid(self.key(CLIENT_AUTH), e.to_string()))?;
                builder.with_client_cert_verifier(verifier)
            }
        };
        let config = builder
            .with_single_cert(identity.chain.clone(), identity.key.clone_key())
            .map_err(|e| self.tls(key, e))?;
        Ok(Arc::new(config))
    }

    /// The trust store's certificates as PEM text (librdkafka's `ssl.ca.pem`); `None` when
    /// no trust store is configured (the system's roots apply).
    pub fn trusted_pem(&self) -> Result<Option<String>, SecurityError> {
        Ok(self.trusted.as_deref().map(store::certificates_pem))
    }

    /// The key store's chain and unencrypted key as PEM text (librdkafka's
    /// `ssl.certificate.pem` and `ssl.key.pem`); `None` without a key store.
    pub fn identity_pem(&self) -> Result<Option<(String, String)>, SecurityError> {
        self.identity.as_ref().map(|(identity, _)| identity.to_pem()).transpose()
    }

    /// Whether the server's host name is checked against its certificate.
    pub fn endpoint_identification(&self) -> bool {
        self.endpoint_identification
    }

    /// The suites' OpenSSL names for librdkafka (TLS 1.2 suites only: librdkafka has no
    /// setting for TLS 1.3's); `None` for the defaults.
    pub fn openssl_cipher_list(&self) -> Option<String> {
        let suites = self.suites.as_ref()?;
        let names: Vec<&str> = suites.iter().filter_map(|s| s.openssl).collect();
        (!names.is_empty()).then(|| names.join(":"))
    }

    fn key(&self, name: &str) -> String {
        format!("{}{name}", self.prefix)
    }

    fn tls(&self, name: &str, source: rustls::Error) -> SecurityError {
        SecurityError::Tls { key: self.key(name), source }
    }

    fn versions(&self) -> Vec<&'static rustls::SupportedProtocolVersion> {
        self.protocols.iter().map(|v| v.rustls()).collect()
    }

    /// ring, limited to the listed suites.
    fn provider(&self) -> CryptoProvider {
        let mut provider = rustls::crypto::ring::default_provider();
        if let Some(suites) = &self.suites {
            provider.cipher_suites = suites.iter().map(|s| s.rustls).collect();
        }
        provider
    }

    fn roots(&self) -> Result<RootCertStore, SecurityError> {
        let mut roots = RootCertStore::empty();
        match &self.trusted {
            Some(certs) => {
                for cert in certs {
                    roots.add(cert.clone()).map_err(|e| self.tls(TRUSTSTORE_LOCATION, e))?;
                }
            }
            None => {
                roots.add_parsable_certificates(system_roots().iter().cloned());
                if roots.is_empty() {
                    return Err(SecurityError::invalid(
                        self.key(TRUSTSTORE_LOCATION),
                        "missing: no trust store is configured and the system has no CA \
                         certificates",
                    ));
                }
            }
        }
        Ok(roots)
    }
}

/// The operating system's trusted roots, read once per process.
fn system_roots() -> &'static [CertificateDer<'static>] {
    static ROOTS: OnceLock<Vec<CertificateDer<'static>>> = OnceLock::new();
    ROOTS.get_or_init(|| {
        let found = rustls_native_certs::load_native_certs();
        for error in &found.errors {
            tracing::debug!(error = %error, "Skipped a system CA certificate");
        }
        found.certs
    })
}

/// The property map seen under a prefix.
struct Props<'a> {
    props: &'a BTreeMap<String, String>,
    prefix: &'a str,
}

impl Props<'_> {
    fn key(&self, name: &str) -> String {
        format!("{}{name}", self.prefix)
    }

    /// The value as written.
    fn raw(&self, name: &str) -> Option<&str> {
        self.props.get(&self.key(name)).map(String::as_str)
    }

    /// The value, trimmed; empty counts as unset.
    fn get(&self, name: &str) -> Option<&str> {
        self.raw(name).map(str::trim).filter(|v| !v.is_empty())
    }

    /// A password: untrimmed; empty counts as unset.
    fn password(&self, name: &str) -> Option<&str> {
        self.raw(name).filter(|v| !v.is_empty())
    }

    fn store_type(&self, name: &str) -> Result<Option<StoreType>, SecurityError> {
        self.get(name).map(|v| StoreType::parse(&self.key(name), v)).transpose()
    }

    fn trust_store(&self) -> Result<Option<Vec<CertificateDer<'static>>>, SecurityError> {
        let declared = self.store_type(TRUSTSTORE_TYPE)?;
        match (self.get(TRUSTSTORE_LOCATION), self.get(TRUSTSTORE_CERTIFICATES)) {
            (Some(_), Some(_)) => Err(SecurityError::invalid(
                self.key(TRUSTSTORE_CERTIFICATES),
                "set either ssl.truststore.location or ssl.truststore.certificates, not both",
            )),
            (Some(path), None) => {
                let key = self.key(TRUSTSTORE_LOCATION);
                let bytes = store::read_file(&key, path)?;
                let kind = match declared {
                    Some(kind) => kind,
                    None => StoreType::detect(&key, &bytes)?,
                };
                match kind {
                    StoreType::Pem => store::pem_certificates(&key, &bytes),
                    StoreType::Pkcs12 => {
                        store::pkcs12_trusted(&key, &bytes, self.password(TRUSTSTORE_PASSWORD))
                    }
                }
                .map(Some)
            }
            (None, Some(pem)) => {
                if declared == Some(StoreType::Pkcs12) {
                    return Err(SecurityError::invalid(
                        self.key(TRUSTSTORE_TYPE),
                        "inline ssl.truststore.certificates need the PEM type",
                    ));
                }
                let pem = store::normalize_pem(pem);
                store::pem_certificates(&self.key(TRUSTSTORE_CERTIFICATES), pem.as_bytes())
                    .map(Some)
            }
            (None, None) => Ok(None),
        }
    }

    fn key_store(&self) -> Result<Option<(Identity, &'static str)>, SecurityError> {
        let declared = self.store_type(KEYSTORE_TYPE)?;
        let key_password = self.password(KEY_PASSWORD);
        let key_password_key = self.key(KEY_PASSWORD);
        let inline =
            (self.get(KEYSTORE_CHAIN), self.raw(KEYSTORE_KEY).filter(|k| !k.trim().is_empty()));
        match (self.get(KEYSTORE_LOCATION), inline) {
            (Some(_), (Some(_), _) | (_, Some(_))) => Err(SecurityError::invalid(
                self.key(KEYSTORE_LOCATION),
                "set either ssl.keystore.location or ssl.keystore.key and \
                 ssl.keystore.certificate.chain, not both",
            )),
            (Some(path), (None, None)) => {
                let key = self.key(KEYSTORE_LOCATION);
                let bytes = store::read_file(&key, path)?;
                let kind = match declared {
                    Some(kind) => kind,
                    None => StoreType::detect(&key, &bytes)?,
                };
                let identity = match kind {
                    StoreType::Pem => Identity {
                        chain: store::pem_certificates(&key, &bytes)?,
                        key: store::pem_private_key(&key, &bytes, key_password, &key_password_key)?,
                    },
                    StoreType::Pkcs12 => {
                        store::pkcs12_identity(&key, &bytes, self.password(KEYSTORE_PASSWORD))?
                    }
                };
                Ok(Some((identity, KEYSTORE_LOCATION)))
            }
            (None, (Some(chain), Some(pem_key))) => {
                if declared == Some(StoreType::Pkcs12) {
                    return Err(SecurityError::invalid(
                        self.key(KEYSTORE_TYPE),
                        "an inline ssl.keystore.key needs the PEM type",
                    ));
                }
                let (chain, pem_key) = (store::normalize_pem(chain), store::normalize_pem(pem_key));
                let identity = Identity {
                    chain: store::pem_certificates(&self.key(KEYSTORE_CHAIN), chain.as_bytes())?,
                    key: store::pem_private_key(
                        &self.key(KEYSTORE_KEY),
                        pem_key.as_bytes(),
                        key_password,
                        &key_password_key,
                    )?,
                };
                Ok(Some((identity, KEYSTORE_KEY)))
            }
            (None, (Some(_), None)) => Err(SecurityError::invalid(
                self.key(KEYSTORE_KEY),
                "missing: required with ssl.keystore.certificate.chain",
            )),
            (None, (None, Some(_))) => Err(SecurityError::invalid(
                self.key(KEYSTORE_CHAIN),
                "missing: required with ssl.keystore.key",
            )),
            (None, (None, None)) => Ok(None),
        }
    }
}

#[cfg(test)]
#[path = "ssl_tests.rs"]
mod tests;
