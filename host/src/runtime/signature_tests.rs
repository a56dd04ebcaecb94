//! Tests of the signature file and the trust check: a round trip, a changed file, a forged
//! signature, an untrusted signer, malformed and missing signature files, and key parsing.

use std::path::Path;

use ed25519_dalek::pkcs8::EncodePublicKey;
use ed25519_dalek::pkcs8::spki::der::pem::LineEnding;
use ed25519_dalek::{Signer, SigningKey};

use super::*;

fn signer(seed: u8) -> SigningKey {
    SigningKey::from_bytes(&[seed; 32])
}

/// The signature file `key` makes for `bytes`.
fn sign(key: &SigningKey, bytes: &[u8]) -> String {
    let digest = digest(bytes);
    SignatureFile { key: key.verifying_key(), digest, signature: key.sign(&digest) }.render()
}

fn trust(keys: &[&SigningKey]) -> Trust {
    Trust::new(keys.iter().map(|k| k.verifying_key()).collect()).unwrap()
}

const FILE: &[u8] = b"\0asm\x0d\0\x01\0 a component";

#[test]
fn a_file_signed_by_a_trusted_key_verifies_and_names_its_signer() {
    let (a, b) = (signer(1), signer(2));
    let text = sign(&b, FILE);
    let parsed = SignatureFile::parse(&text).unwrap();
    assert_eq!(parsed.render(), text);
    assert_eq!(parsed.digest, <[u8; 32]>::from(Sha256::digest(FILE)));
    let signer = trust(&[&a, &b]).verify(Path::new("p.wasm"), FILE, &text).unwrap();
    assert_eq!(signer, b.verifying_key());
}

#[test]
fn a_changed_file_is_refused_with_both_digests() {
    let a = signer(1);
    let text = sign(&a, FILE);
    let mut changed = FILE.to_vec();
    changed[9] ^= 1;
    let e = trust(&[&a]).verify(Path::new("p.wasm"), &changed, &text).unwrap_err();
    assert!(matches!(e, LoadError::Modified { .. }), "{e}");
    let line = e.to_string();
    assert!(line.starts_with("p.wasm: refused: the file changed after it was signed"), "{line}");
    assert!(line.contains(&hex::encode(digest(&changed))), "{line}");
    assert!(line.contains(&hex::encode(digest(FILE))), "{line}");
}

#[test]
fn a_signature_made_with_another_key_is_refused_as_invalid() {
    let (a, b) = (signer(1), signer(2));
    // Signed by `b`, but claiming to be `a`'s.
    let d = digest(FILE);
    let forged = SignatureFile { key: a.verifying_key(), digest: d, signature: b.sign(&d) };
    let e = trust(&[&a]).verify(Path::new("p.wasm"), FILE, &forged.render()).unwrap_err();
    assert!(matches!(e, LoadError::BadSignature { .. }), "{e}");
    assert!(e.to_string().contains(&key_text(&a.verifying_key())), "{e}");
    // A valid signature with its digest line edited to match another file.
    let other = b"\0asm\x0d\0\x01\0 another component";
    let mut edited = SignatureFile::parse(&sign(&a, FILE)).unwrap();
    edited.digest = digest(other);
    let e = trust(&[&a]).verify(Path::new("p.wasm"), other, &edited.render()).unwrap_err();
    assert!(matches!(e, LoadError::BadSignature { .. }), "{e}");
}

#[test]
fn a_signer_outside_the_trusted_keys_is_refused_by_name() {
    let (a, b) = (signer(1), signer(2));
    let e = trust(&[&a]).verify(Path::new("p.wasm"), FILE, &sign(&b, FILE)).unwrap_err();
    let LoadError::UntrustedSigner { key, .. } = &e else { panic!("{e}") };
    assert_eq!(key, &key_text(&b.verifying_key()));
    assert!(e.to_string().ends_with("which is not in plugin.trusted.keys"), "{e}");
}

#[test]
fn malformed_signature_files_are_refused_with_the_reason() {
    let a = signer(1);
    let good = sign(&a, FILE);
    let cases: Vec<(String, &str)> = vec![
        (String::new(), "the first line is not"),
        (good.replacen("v1", "v2", 1), "the first line is not"),
        (good.replace("sha256:", "sha512:"), "unknown field \"sha512\""),
        (format!("{good}key: {}\n", key_text(&a.verifying_key())), "appears twice"),
        (
            good.lines().filter(|l| !l.starts_with("signature")).collect::<Vec<_>>().join("\n"),
            "\"signature\" is missing",
        ),
        (good.replace("sha256: ", "sha256: zz"), "is not 64 hex digits"),
        (good.replace("signature: ", "signature: AAAA"), "not the base64 of 64 bytes"),
        (good.replace("key: ", "key: AAAA"), "32-byte Ed25519 public key"),
        (format!("{SIGNATURE_HEADER}\njust words\n"), "is not `name: value`"),
    ];
    for (text, want) in cases {
        let e = trust(&[&a]).verify(Path::new("p.wasm"), FILE, &text).unwrap_err();
        assert!(matches!(e, LoadError::MalformedSignature { .. }), "{text:?}: {e}");
        assert!(e.to_string().contains(want), "{text:?}: {e}");
    }
    // CRLF line ends and blank lines are read.
    let crlf = format!("\n{}", good.replace('\n', "\r\n"));
    assert!(trust(&[&a]).verify(Path::new("p.wasm"), FILE, &crlf).is_ok());
}

#[test]
fn check_reads_the_signature_beside_the_file_and_tells_a_missing_one() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("p.wasm");
    std::fs::write(&file, FILE).unwrap();
    let a = signer(1);
    let e = trust(&[&a]).check(&file, FILE).unwrap_err();
    let LoadError::Unsigned { signature, .. } = &e else { panic!("{e}") };
    assert_eq!(signature, &dir.path().join("p.wasm.sig"));
    assert!(e.to_string().contains("not signed"), "{e}");

    std::fs::write(signature_path(&file), sign(&a, FILE)).unwrap();
    assert_eq!(trust(&[&a]).check(&file, FILE).unwrap(), a.verifying_key());

    std::fs::write(signature_path(&file), vec![b'x'; 5000]).unwrap();
    let e = trust(&[&a]).check(&file, FILE).unwrap_err();
    assert!(matches!(e, LoadError::MalformedSignature { .. }), "{e}");
    assert!(e.to_string().contains("over the limit"), "{e}");

    std::fs::remove_file(signature_path(&file)).unwrap();
    std::fs::create_dir(signature_path(&file)).unwrap();
    let e = trust(&[&a]).check(&file, FILE).unwrap_err();
    assert!(e.to_string().contains("a directory, not a regular file"), "{e}");
}

#[test]
fn public_keys_are_read_from_base64_or_pem_files() {
    let a = signer(7).verifying_key();
    assert_eq!(parse_public_key(&format!(" {} ", key_text(&a))).unwrap(), a);
    let dir = tempfile::tempdir().unwrap();
    let pem = dir.path().join("a.pub");
    std::fs::write(&pem, a.to_public_key_pem(LineEnding::LF).unwrap()).unwrap();
    assert_eq!(parse_public_key(pem.to_str().unwrap()).unwrap(), a);

    let missing = dir.path().join("missing.pub");
    let e = parse_public_key(missing.to_str().unwrap()).unwrap_err();
    assert!(e.contains("neither a base64 Ed25519 public key nor a readable file"), "{e}");
    let junk = dir.path().join("junk.pub");
    std::fs::write(&junk, "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n").unwrap();
    let e = parse_public_key(junk.to_str().unwrap()).unwrap_err();
    assert!(e.contains("not a PEM Ed25519 public key"), "{e}");

    let e = Trust::from_entries(&[key_text(&a), missing.display().to_string()]).unwrap_err();
    assert!(e.contains("missing.pub"), "{e}");
    assert!(Trust::from_entries(&[]).unwrap_err().contains("no trusted key"));
    let t = Trust::from_entries(&[key_text(&a), pem.display().to_string()]).unwrap();
    assert_eq!(t.keys(), [a, a]);
}

#[test]
fn the_signature_path_appends_sig() {
    assert_eq!(signature_path(Path::new("/p/x.wasm")), Path::new("/p/x.wasm.sig"));
}
