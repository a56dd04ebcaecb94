//! `wasm-connect plugins keygen|sign|verify`: an Ed25519 key pair for signing plugins, the
//! detached signature `<file>.wasm.sig` of each component, and the check a worker with
//! `plugin.signature.required=true` makes, run by hand.
//!
//! This file owns the private key's handling: it is read from a PKCS#8 PEM file or written
//! to one (mode 0600, never over an existing file), and neither it nor its file's content
//! is ever printed or logged. The signature format and the check are the runtime's
//! (`runtime::SignatureFile`, `runtime::Trust`).

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use ed25519_dalek::pkcs8::spki::der::pem::LineEnding;
use ed25519_dalek::pkcs8::{DecodePrivateKey, EncodePrivateKey, EncodePublicKey};
use ed25519_dalek::{Signer, SigningKey};

use crate::runtime::{SignatureFile, Trust, digest, key_text, signature_path};

/// `plugins keygen`.
#[derive(Debug, Args)]
pub struct KeygenArgs {
    /// Writes `<OUT>.key` (the private key, PKCS#8 PEM, mode 0600) and `<OUT>.pub` (the
    /// public key, SubjectPublicKeyInfo PEM). Existing files are never overwritten.
    #[arg(long)]
    out: PathBuf,
}

/// `plugins sign`.
#[derive(Debug, Args)]
pub struct SignArgs {
    /// The private key: an unencrypted PKCS#8 PEM file (`plugins keygen`, or `openssl
    /// genpkey -algorithm ed25519`).
    #[arg(long)]
    key: PathBuf,
    /// The `.wasm` files to sign; each gets `<file>.sig` beside it (replaced if present).
    #[arg(required = true)]
    files: Vec<PathBuf>,
}

/// `plugins verify`.
#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// A trusted public key: a PEM file (SubjectPublicKeyInfo) or the base64 of its 32
    /// bytes. Repeat for several; a file signed by any of them passes.
    #[arg(long = "trusted-key", required = true)]
    trusted_keys: Vec<String>,
    /// The `.wasm` files to check, each against `<file>.sig`.
    #[arg(required = true)]
    files: Vec<PathBuf>,
}

impl KeygenArgs {
    /// Writes the key pair and prints where, with the public key.
    pub fn run(self) -> anyhow::Result<ExitCode> {
        let mut secret = [0u8; 32];
        getrandom::fill(&mut secret).map_err(|e| anyhow::anyhow!("no random source: {e}"))?;
        let key = SigningKey::from_bytes(&secret);
        secret.fill(0);
        let private = key.to_pkcs8_pem(LineEnding::LF).context("encoding the private key")?;
        let public = key.verifying_key();
        let public_pem =
            public.to_public_key_pem(LineEnding::LF).context("encoding the public key")?;
        let (key_file, pub_file) = (with_suffix(&self.out, "key"), with_suffix(&self.out, "pub"));
        for f in [&key_file, &pub_file] {
            anyhow::ensure!(!f.exists(), "{} exists: refusing to overwrite it", f.display());
        }
        write_new(&key_file, private.as_bytes(), 0o600)?;
        write_new(&pub_file, public_pem.as_bytes(), 0o644)?;
        println!("private key: {} (keep it secret)", key_file.display());
        println!("public key:  {}", pub_file.display());
        println!("plugin.trusted.keys entry: {}", key_text(&public));
        Ok(ExitCode::SUCCESS)
    }
}

impl SignArgs {
    /// Signs every file, printing one line for each; stops at the first that fails.
    pub fn run(self) -> anyhow::Result<ExitCode> {
        let key = read_signing_key(&self.key)?;
        for file in &self.files {
            let bytes =
                std::fs::read(file).with_context(|| format!("cannot read {}", file.display()))?;
            let digest = digest(&bytes);
            let signed =
                SignatureFile { key: key.verifying_key(), digest, signature: key.sign(&digest) };
            let sig = signature_path(file);
            std::fs::write(&sig, signed.render())
                .with_context(|| format!("cannot write {}", sig.display()))?;
            println!("signed {} -> {}", file.display(), sig.display());
        }
        Ok(ExitCode::SUCCESS)
    }
}

impl VerifyArgs {
    /// Checks every file, printing one line for each; exits 1 if any fails.
    pub fn run(self) -> anyhow::Result<ExitCode> {
        let trust = Trust::from_entries(&self.trusted_keys).map_err(anyhow::Error::msg)?;
        let mut failed = false;
        for file in &self.files {
            let checked = std::fs::read(file)
                .map_err(|e| format!("{}: cannot read: {e}", file.display()))
                .and_then(|bytes| trust.check(file, &bytes).map_err(|e| e.to_string()));
            match checked {
                Ok(signer) => println!("ok {}: signed by {}", file.display(), key_text(&signer)),
                Err(e) => {
                    failed = true;
                    println!("FAILED {e}");
                }
            }
        }
        Ok(if failed { ExitCode::FAILURE } else { ExitCode::SUCCESS })
    }
}

/// The signing key in the PKCS#8 PEM file `path`. Errors name the file, never its content.
fn read_signing_key(path: &Path) -> anyhow::Result<SigningKey> {
    let pem = zeroize::Zeroizing::new(
        std::fs::read_to_string(path)
            .with_context(|| format!("cannot read the private key {}", path.display()))?,
    );
    SigningKey::from_pkcs8_pem(&pem).map_err(|e| {
        anyhow::anyhow!(
            "{}: not an unencrypted PKCS#8 PEM Ed25519 private key ({e})",
            path.display()
        )
    })
}

/// `<prefix>.<suffix>`.
fn with_suffix(prefix: &Path, suffix: &str) -> PathBuf {
    let mut name = prefix.as_os_str().to_owned();
    name.push(".");
    name.push(suffix);
    PathBuf::from(name)
}

/// Writes `bytes` to the new file `path`, created with `mode` (never over an existing one).
fn write_new(path: &Path, bytes: &[u8], mode: u32) -> anyhow::Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .open(path)
        .with_context(|| format!("cannot create {}", path.display()))?;
    file.write_all(bytes).with_context(|| format!("cannot write {}", path.display()))
}
