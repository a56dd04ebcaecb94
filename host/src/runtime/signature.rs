//! Signed plugins: the trusted Ed25519 public keys ([`Trust`]), the detached signature
//! file beside each component ([`SignatureFile`], `<file>.wasm.sig`), and the check that
//! a component's bytes were signed by a trusted key before they are compiled.
//!
//! What is signed is the SHA-256 digest of the whole `.wasm` file: the Ed25519 message is
//! those 32 raw bytes. The signature file is text, one `name: value` field a line:
//!
//! ```text
//! wasm-connect plugin signature v1
//! key: <the signer's public key: base64 of its 32 raw bytes>
//! sha256: <the file's digest, 64 lowercase hex digits>
//! signature: <base64 of the 64-byte Ed25519 signature of the digest's 32 bytes>
//! ```
//!
//! The key line lets a refusal tell an untrusted signer from a bad signature, and the
//! digest line a file changed after signing from a signature that was never valid.
//!
//! This file holds public keys and verifies; it never sees a private key (signing is the
//! command line's, `cli/signing`). It reads only the `.sig` file, bounded, through
//! `plugin_file`; the component's bytes are the caller's, so what is verified is exactly
//! what is compiled.

use std::path::{Path, PathBuf};

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use ed25519_dalek::pkcs8::DecodePublicKey;
use ed25519_dalek::{Signature, VerifyingKey};
use sha2::{Digest, Sha256};

use super::error::LoadError;
use super::plugin_file;

/// The first line of every signature file.
pub const SIGNATURE_HEADER: &str = "wasm-connect plugin signature v1";

/// The largest signature file read: far above the ~250 bytes of a real one.
const MAX_SIGNATURE_BYTES: u64 = 4096;

/// The Ed25519 public keys a plugin may be signed by (`plugin.trusted.keys`). Never empty.
#[derive(Clone, Debug)]
pub struct Trust {
    keys: Vec<VerifyingKey>,
}

impl Trust {
    /// A trust of `keys`; `Err` when there is none (nothing could ever load).
    pub fn new(keys: Vec<VerifyingKey>) -> Result<Self, String> {
        if keys.is_empty() {
            return Err("no trusted key: every plugin would be refused".into());
        }
        Ok(Self { keys })
    }

    /// A trust of the keys `entries` name, each as [`parse_public_key`] reads it.
    pub fn from_entries(entries: &[String]) -> Result<Self, String> {
        let keys = entries.iter().map(|e| parse_public_key(e)).collect::<Result<_, _>>()?;
        Self::new(keys)
    }

    /// The trusted keys.
    pub fn keys(&self) -> &[VerifyingKey] {
        &self.keys
    }

    /// Checks that `bytes`, the content of the plugin file `path`, carry a valid
    /// signature by a trusted key in `<path>.sig`, and returns the signer. Blocking (it
    /// reads the signature file).
    pub fn check(&self, path: &Path, bytes: &[u8]) -> Result<VerifyingKey, LoadError> {
        let text = read_signature(path)?;
        self.verify(path, bytes, &text)
    }

    /// Checks `bytes` (the file `path`) against the signature file's `text`.
    pub fn verify(&self, path: &Path, bytes: &[u8], text: &str) -> Result<VerifyingKey, LoadError> {
        let sig = SignatureFile::parse(text)
            .map_err(|reason| LoadError::MalformedSignature { path: path.to_path_buf(), reason })?;
        if !self.keys.contains(&sig.key) {
            return Err(LoadError::UntrustedSigner {
                path: path.to_path_buf(),
                key: key_text(&sig.key),
            });
        }
        if sig.key.verify_strict(&sig.digest, &sig.signature).is_err() {
            return Err(LoadError::BadSignature {
                path: path.to_path_buf(),
                key: key_text(&sig.key),
            });
        }
        let actual = digest(bytes);
        if actual != sig.digest {
            return Err(LoadError::Modified {
                path: path.to_path_buf(),
                signed: hex::encode(sig.digest),
                actual: hex::encode(actual),
            });
        }
        Ok(sig.key)
    }
}

/// One signature file's fields.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignatureFile {
    /// The signer's public key.
    pub key: VerifyingKey,
    /// The SHA-256 digest of the file that was signed.
    pub digest: [u8; 32],
    /// The Ed25519 signature of the digest's 32 bytes.
    pub signature: Signature,
}

impl SignatureFile {
    /// Reads the text of a signature file: the header line, then the `key`, `sha256` and
    /// `signature` fields once each, in any order; blank lines are skipped.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
        if lines.next() != Some(SIGNATURE_HEADER) {
            return Err(format!("the first line is not {SIGNATURE_HEADER:?}"));
        }
        let (mut key, mut sha, mut signature) = (None, None, None);
        for line in lines {
            let (name, value) =
                line.split_once(':').ok_or_else(|| format!("{line:?} is not `name: value`"))?;
            let slot = match name.trim() {
                "key" => &mut key,
                "sha256" => &mut sha,
                "signature" => &mut signature,
                other => return Err(format!("unknown field {other:?}")),
            };
            if slot.replace(value.trim()).is_some() {
                return Err(format!("the field {:?} appears twice", name.trim()));
            }
        }
        let missing = |name: &str| format!("the field {name:?} is missing");
        let key = parse_key_base64(key.ok_or_else(|| missing("key"))?)?;
        let sha = sha.ok_or_else(|| missing("sha256"))?;
        let digest = hex::decode(sha)
            .ok()
            .and_then(|d| <[u8; 32]>::try_from(d).ok())
            .ok_or_else(|| format!("sha256 {sha:?} is not 64 hex digits"))?;
        let signature = signature.ok_or_else(|| missing("signature"))?;
        let bytes = BASE64
            .decode(signature)
            .ok()
            .and_then(|b| <[u8; 64]>::try_from(b).ok())
            .ok_or_else(|| "the signature is not the base64 of 64 bytes".to_owned())?;
        Ok(Self { key, digest, signature: Signature::from_bytes(&bytes) })
    }

    /// The file's text, as [`SignatureFile::parse`] reads it.
    pub fn render(&self) -> String {
        format!(
            "{SIGNATURE_HEADER}\nkey: {}\nsha256: {}\nsignature: {}\n",
            key_text(&self.key),
            hex::encode(self.digest),
            BASE64.encode(self.signature.to_bytes())
        )
    }
}

/// The SHA-256 digest of `bytes`: what a signature signs.
pub fn digest(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

/// Where the signature of the plugin file `path` is: `<path>.sig`.
pub fn signature_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".sig");
    PathBuf::from(name)
}

/// A public key as it is written in signature files, messages and `plugin.trusted.keys`:
/// the base64 of its 32 raw bytes.
pub fn key_text(key: &VerifyingKey) -> String {
    BASE64.encode(key.as_bytes())
}

/// A public key from a `plugin.trusted.keys` entry: the base64 of its 32 raw bytes (44
/// characters), or else the path of a PEM file holding it as a SubjectPublicKeyInfo
/// (`-----BEGIN PUBLIC KEY-----`, as `plugins keygen` and `openssl pkey -pubout` write it).
pub fn parse_public_key(entry: &str) -> Result<VerifyingKey, String> {
    let entry = entry.trim();
    if let Ok(key) = parse_key_base64(entry) {
        return Ok(key);
    }
    let pem = std::fs::read_to_string(entry).map_err(|e| {
        format!("{entry:?} is neither a base64 Ed25519 public key nor a readable file: {e}")
    })?;
    VerifyingKey::from_public_key_pem(&pem)
        .map_err(|e| format!("{entry}: not a PEM Ed25519 public key (SubjectPublicKeyInfo): {e}"))
}

/// A public key from the base64 of its 32 raw bytes.
fn parse_key_base64(text: &str) -> Result<VerifyingKey, String> {
    let bytes = BASE64
        .decode(text)
        .ok()
        .and_then(|b| <[u8; 32]>::try_from(b).ok())
        .ok_or_else(|| format!("{text:?} is not the base64 of a 32-byte Ed25519 public key"))?;
    VerifyingKey::from_bytes(&bytes).map_err(|_| format!("{text:?} is no Ed25519 public key"))
}

/// The text of `<path>.sig`, read as plugin files are (regular file only, bounded).
fn read_signature(path: &Path) -> Result<String, LoadError> {
    let sig = signature_path(path);
    let malformed = |reason: String| LoadError::MalformedSignature {
        path: path.to_path_buf(),
        reason: format!("{}: {reason}", sig.display()),
    };
    let bytes = match plugin_file::read_at_most(&sig, MAX_SIGNATURE_BYTES) {
        Ok(bytes) => bytes,
        Err(LoadError::Read { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
            return Err(LoadError::Unsigned { path: path.to_path_buf(), signature: sig });
        }
        Err(LoadError::Read { source, .. }) => {
            return Err(malformed(format!("cannot read: {source}")));
        }
        Err(LoadError::NotAFile { kind, .. }) => {
            return Err(malformed(format!("{kind}, not a regular file")));
        }
        Err(LoadError::TooLarge { size, limit, .. }) => {
            return Err(malformed(format!("{size} bytes, over the limit of {limit}")));
        }
        Err(other) => return Err(malformed(other.to_string())),
    };
    String::from_utf8(bytes).map_err(|_| malformed("not UTF-8 text".into()))
}

#[cfg(test)]
#[path = "signature_tests.rs"]
mod tests;
