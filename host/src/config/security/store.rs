//! Trust and key stores as Kafka names them (`ssl.truststore.*`, `ssl.keystore.*`): PEM files
//! and inline PEM, PKCS12 files (read by `p12-keystore`), and PKCS#8 keys encrypted with a
//! password (read by `pkcs8`). JKS is refused with the way out.
//!
//! This module turns bytes into certificates and keys; it builds no TLS configuration and
//! never puts a password or key into an error.

use std::fmt;

use p12_keystore::{KeyStore, KeyStoreEntry};
use pkcs8::der::Decode;
use pkcs8::der::pem::LineEnding;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

use super::error::SecurityError;

/// The first bytes of a JKS or JCEKS file.
const JKS_MAGIC: [u8; 4] = [0xFE, 0xED, 0xFE, 0xED];
const JCEKS_MAGIC: [u8; 4] = [0xCE, 0xCE, 0xCE, 0xCE];

/// `ssl.truststore.type` / `ssl.keystore.type`: the formats this worker reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoreType {
    /// `PEM`: certificates (and a key) in PEM text.
    Pem,
    /// `PKCS12`: a password-protected PKCS#12 file.
    Pkcs12,
}

impl StoreType {
    /// Reads the value of `key` (case-insensitive, as Kafka's `KeyStore.getInstance`).
    pub fn parse(key: &str, value: &str) -> Result<Self, SecurityError> {
        match value.trim().to_ascii_uppercase().as_str() {
            "PEM" => Ok(Self::Pem),
            "PKCS12" => Ok(Self::Pkcs12),
            "JKS" | "JCEKS" => Err(jks(key)),
            _ => Err(SecurityError::invalid(key, "expected PEM or PKCS12")),
        }
    }

    /// The type of a store file whose type was not given: PEM text or PKCS12 (Kafka's
    /// default, JKS, is refused).
    pub fn detect(key: &str, bytes: &[u8]) -> Result<Self, SecurityError> {
        if bytes.starts_with(&JKS_MAGIC) || bytes.starts_with(&JCEKS_MAGIC) {
            Err(jks(key))
        } else if is_pem(bytes) {
            Ok(Self::Pem)
        } else {
            Ok(Self::Pkcs12)
        }
    }
}

fn jks(key: &str) -> SecurityError {
    SecurityError::invalid(
        key,
        "JKS stores are not supported: convert it to PKCS12 or PEM \
         (keytool -importkeystore -deststoretype PKCS12)",
    )
}

fn is_pem(bytes: &[u8]) -> bool {
    bytes.windows(11).any(|w| w == b"-----BEGIN ")
}

/// A certificate chain (leaf first) and its private key.
pub struct Identity {
    /// The certificates, leaf first.
    pub chain: Vec<CertificateDer<'static>>,
    /// The private key, decrypted.
    pub key: PrivateKeyDer<'static>,
}

impl fmt::Debug for Identity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Identity")
            .field("chain", &format_args!("{} certificate(s)", self.chain.len()))
            .field("key", &super::secret::HIDDEN)
            .finish()
    }
}

impl Clone for Identity {
    fn clone(&self) -> Self {
        Self { chain: self.chain.clone(), key: self.key.clone_key() }
    }
}

impl Identity {
    /// The chain and the key as PEM text (the key unencrypted).
    pub fn to_pem(&self) -> Result<(String, String), SecurityError> {
        let chain = certificates_pem(&self.chain);
        let (label, der) = match &self.key {
            PrivateKeyDer::Pkcs1(k) => ("RSA PRIVATE KEY", k.secret_pkcs1_der()),
            PrivateKeyDer::Sec1(k) => ("EC PRIVATE KEY", k.secret_sec1_der()),
            PrivateKeyDer::Pkcs8(k) => ("PRIVATE KEY", k.secret_pkcs8_der()),
            _ => return Err(SecurityError::invalid("ssl.keystore.key", "unsupported key format")),
        };
        Ok((chain, pem(label, der)))
    }
}

/// Certificates as PEM text, one block each.
pub fn certificates_pem(certs: &[CertificateDer<'_>]) -> String {
    certs.iter().map(|c| pem("CERTIFICATE", c.as_ref())).collect()
}

fn pem(label: &str, der: &[u8]) -> String {
    pkcs8::der::pem::encode_string(label, LineEnding::LF, der)
        .expect("a PEM label and DER bytes always encode")
}

/// Reads the file named by `key`.
pub fn read_file(key: &str, path: &str) -> Result<Vec<u8>, SecurityError> {
    std::fs::read(path.trim())
        .map_err(|e| SecurityError::invalid(key, format!("cannot read {}: {e}", path.trim())))
}

/// Every certificate in PEM text; at least one.
pub fn pem_certificates(
    key: &str,
    bytes: &[u8],
) -> Result<Vec<CertificateDer<'static>>, SecurityError> {
    let certs = CertificateDer::pem_slice_iter(bytes)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| SecurityError::invalid(key, format!("invalid PEM: {e}")))?;
    if certs.is_empty() {
        return Err(SecurityError::invalid(key, "holds no PEM certificate"));
    }
    Ok(certs)
}

/// The private key in PEM text: PKCS#8 (decrypted with `password`, the value of
/// `password_key`, when it is an `ENCRYPTED PRIVATE KEY`), PKCS#1 or SEC1.
pub fn pem_private_key(
    key: &str,
    bytes: &[u8],
    password: Option<&str>,
    password_key: &str,
) -> Result<PrivateKeyDer<'static>, SecurityError> {
    const BEGIN: &str = "-----BEGIN ENCRYPTED PRIVATE KEY-----";
    const END: &str = "-----END ENCRYPTED PRIVATE KEY-----";
    let text = String::from_utf8_lossy(bytes);
    if let Some(start) = text.find(BEGIN) {
        let end = text[start..]
            .find(END)
            .map(|e| start + e + END.len())
            .ok_or_else(|| SecurityError::invalid(key, "invalid PEM: unterminated key"))?;
        let password = password.ok_or_else(|| {
            SecurityError::invalid(key, format!("the key is encrypted: set {password_key}"))
        })?;
        let (_, der) = pkcs8::der::pem::decode_vec(text[start..end].as_bytes())
            .map_err(|_| SecurityError::invalid(key, "invalid PEM encrypted private key"))?;
        let info = pkcs8::EncryptedPrivateKeyInfo::from_der(&der)
            .map_err(|_| SecurityError::invalid(key, "invalid encrypted PKCS#8 private key"))?;
        let plain = info.decrypt(password).map_err(|_| {
            SecurityError::invalid(
                password_key,
                "cannot decrypt the private key: wrong password or unsupported encryption",
            )
        })?;
        return Ok(PrivatePkcs8KeyDer::from(plain.as_bytes().to_vec()).into());
    }
    PrivateKeyDer::from_pem_slice(bytes).map_err(|e| match e {
        rustls::pki_types::pem::Error::NoItemsFound => {
            SecurityError::invalid(key, "holds no PEM private key")
        }
        other => SecurityError::invalid(key, format!("invalid PEM: {other}")),
    })
}

/// Opens a PKCS12 file with its password (Java accepts a missing one: the empty string).
fn pkcs12(key: &str, bytes: &[u8], password: Option<&str>) -> Result<KeyStore, SecurityError> {
    KeyStore::from_pkcs12(bytes, password.unwrap_or("")).map_err(|e| {
        use p12_keystore::error::Error;
        let why = match e {
            Error::DerError(_) | Error::InvalidVersion => "not a PKCS12 file".to_owned(),
            Error::MacError(_) => "cannot open the PKCS12 store: wrong password".to_owned(),
            other => format!("cannot open the PKCS12 store: {other}"),
        };
        SecurityError::invalid(key, why)
    })
}

/// The trusted certificates of a PKCS12 trust store; at least one.
pub fn pkcs12_trusted(
    key: &str,
    bytes: &[u8],
    password: Option<&str>,
) -> Result<Vec<CertificateDer<'static>>, SecurityError> {
    let store = pkcs12(key, bytes, password)?;
    let certs: Vec<_> = store
        .entries()
        .filter_map(|(_, entry)| match entry {
            KeyStoreEntry::Certificate(c) => Some(CertificateDer::from(c.as_der().to_vec())),
            _ => None,
        })
        .collect();
    if certs.is_empty() {
        return Err(SecurityError::invalid(key, "the PKCS12 store holds no trusted certificate"));
    }
    Ok(certs)
}

/// The private key and chain of a PKCS12 key store (its first key entry).
pub fn pkcs12_identity(
    key: &str,
    bytes: &[u8],
    password: Option<&str>,
) -> Result<Identity, SecurityError> {
    let store = pkcs12(key, bytes, password)?;
    let (_, chain) = store
        .private_key_chain()
        .ok_or_else(|| SecurityError::invalid(key, "the PKCS12 store holds no private key"))?;
    Ok(Identity {
        chain: chain.chain().iter().map(|c| CertificateDer::from(c.as_der().to_vec())).collect(),
        key: key_from_der(chain.key()),
    })
}

/// A PKCS#8 DER key, as PKCS12 stores keys.
fn key_from_der(der: &[u8]) -> PrivateKeyDer<'static> {
    PrivatePkcs8KeyDer::from(der.to_vec()).into()
}

/// Inline PEM as a `.properties` file gives it: a value continued over several lines loses
/// its line breaks (`-----BEGIN CERTIFICATE----- MIIB... -----END CERTIFICATE-----`). Each
/// block is laid out again, 64 base64 characters a line; text already in lines is kept.
pub fn normalize_pem(text: &str) -> String {
    if text.trim().lines().count() > 2 {
        return text.to_owned();
    }
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("-----BEGIN ") {
        let after = &rest[start + 11..];
        let Some(label_end) = after.find("-----") else { break };
        let label = &after[..label_end];
        let end_marker = format!("-----END {label}-----");
        let body_start = start + 11 + label_end + 5;
        let Some(body_len) = rest[body_start..].find(&end_marker) else { break };
        let body: String = rest[body_start..body_start + body_len].split_whitespace().collect();
        out.push_str(&format!("-----BEGIN {label}-----\n"));
        for line in body.as_bytes().chunks(64) {
            out.push_str(&String::from_utf8_lossy(line));
            out.push('\n');
        }
        out.push_str(&end_marker);
        out.push('\n');
        rest = &rest[body_start + body_len + end_marker.len()..];
    }
    if out.is_empty() { text.to_owned() } else { out }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pem_on_one_line_is_laid_out_again() {
        let key = rcgen::KeyPair::generate().unwrap();
        let cert =
            rcgen::CertificateParams::new(vec!["a".to_owned()]).unwrap().self_signed(&key).unwrap();
        let multi = format!("{}{}", cert.pem(), key.serialize_pem());
        // As a `.properties` value continued over lines arrives: one line.
        let one_line = multi.split_whitespace().collect::<Vec<_>>().join(" ");
        let fixed = normalize_pem(&one_line);
        assert_eq!(
            pem_certificates("k", fixed.as_bytes()).unwrap()[0].as_ref(),
            cert.der().as_ref()
        );
        assert!(pem_private_key("k", fixed.as_bytes(), None, "p").is_ok());
        assert_eq!(normalize_pem(&multi), multi, "PEM in lines is kept");
    }
}
