//! Signatures of internal requests (KIP-507): `X-Connect-Authorization` carries
//! base64(HMAC-SHA256(session key, request body)) and
//! `X-Connect-Request-Signature-Algorithm` names the algorithm. The signature covers the
//! body bytes only, not the method or path.
//!
//! Pure: the caller supplies the key (from the [`KeyRing`](super::KeyRing)) and the
//! accepted algorithms (`inter.worker.verification.algorithms`). Signatures are compared
//! in constant time.

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use hmac::{Hmac, Mac};
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use sha2::Sha256;

use crate::model::{HMAC_SHA256, SessionKey};

/// The header holding the signature.
pub const SIGNATURE_HEADER: &str = "X-Connect-Authorization";
/// The header naming the signature algorithm.
pub const ALGORITHM_HEADER: &str = "X-Connect-Request-Signature-Algorithm";

/// Why an internal request was refused; [`VerifyError::status`] is the HTTP answer.
/// Messages are Kafka Connect's.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum VerifyError {
    /// One of the two headers is absent (400).
    #[error("Internal request missing required signature")]
    Missing,
    /// The algorithm is not one this worker accepts (400).
    #[error(
        "This worker does not support the '{algorithm}' key signing algorithm used by other workers. This worker is currently configured to use: [{}]. Check that all workers' configuration files permit the same set of signature algorithms, and correct any misconfigured worker and restart it.",
        .accepted.join(", ")
    )]
    Algorithm {
        /// The algorithm the request names.
        algorithm: String,
        /// What this worker accepts.
        accepted: Vec<String>,
    },
    /// The signature header is not base64 (400).
    #[error("Internal request signature is not valid base64: {0}")]
    Malformed(String),
    /// No session key has been read yet (503).
    #[error(
        "This worker is still starting up and has not been able to read a session key from the config topic yet"
    )]
    NoKey,
    /// The signature does not match the body under the current key (403).
    #[error("Internal request contained invalid signature.")]
    Invalid,
}

impl VerifyError {
    /// The HTTP status of the answer.
    pub fn status(&self) -> u16 {
        match self {
            Self::Missing | Self::Algorithm { .. } | Self::Malformed(_) => 400,
            Self::NoKey => 503,
            Self::Invalid => 403,
        }
    }
}

fn mac(key: &SessionKey) -> Hmac<Sha256> {
    <Hmac<Sha256> as Mac>::new_from_slice(&key.key).expect("HMAC takes keys of any length")
}

/// The `X-Connect-Authorization` value for `body`: base64(HMAC-SHA256(key, body)).
pub fn sign(key: &SessionKey, body: &[u8]) -> String {
    let mut m = mac(key);
    m.update(body);
    BASE64.encode(m.finalize().into_bytes())
}

/// Both signature headers for `body`.
pub fn signature_headers(key: &SessionKey, body: &[u8]) -> [(HeaderName, HeaderValue); 2] {
    let signature =
        HeaderValue::from_str(&sign(key, body)).expect("base64 is a valid header value");
    [
        (HeaderName::from_static("x-connect-authorization"), signature),
        (
            HeaderName::from_static("x-connect-request-signature-algorithm"),
            HeaderValue::from_static(HMAC_SHA256),
        ),
    ]
}

/// Checks the signature of a request with `headers` and `body` against `key` (`None` when
/// no key has been read yet), in Kafka Connect's order: both headers present, an accepted
/// algorithm, a base64 signature, a key, then the signature itself.
pub fn verify(
    headers: &HeaderMap,
    body: &[u8],
    key: Option<&SessionKey>,
    accepted_algorithms: &[String],
) -> Result<(), VerifyError> {
    let (Some(algorithm), Some(signature)) =
        (headers.get(ALGORITHM_HEADER), headers.get(SIGNATURE_HEADER))
    else {
        return Err(VerifyError::Missing);
    };
    let algorithm = String::from_utf8_lossy(algorithm.as_bytes());
    // Only HMAC-SHA256 is implemented, whatever the list says (the config refuses others).
    if algorithm != HMAC_SHA256 || !accepted_algorithms.iter().any(|a| *a == algorithm) {
        return Err(VerifyError::Algorithm {
            algorithm: algorithm.into_owned(),
            accepted: accepted_algorithms.to_vec(),
        });
    }
    let signature =
        BASE64.decode(signature.as_bytes()).map_err(|e| VerifyError::Malformed(e.to_string()))?;
    let key = key.ok_or(VerifyError::NoKey)?;
    let mut m = mac(key);
    m.update(body);
    m.verify_slice(&signature).map_err(|_| VerifyError::Invalid)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(bytes: &[u8]) -> SessionKey {
        SessionKey { key: bytes.to_vec(), algorithm: HMAC_SHA256.into(), created_ms: 0 }
    }

    fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }

    fn accepted() -> Vec<String> {
        vec![HMAC_SHA256.to_owned()]
    }

    fn signed(k: &SessionKey, body: &[u8]) -> HeaderMap {
        signature_headers(k, body).into_iter().collect()
    }

    #[test]
    fn rfc_4231_vectors() {
        // Test case 1.
        let s = sign(&key(&[0x0b; 20]), b"Hi There");
        assert_eq!(
            hex(&BASE64.decode(s).unwrap()),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
        );
        // Test case 2.
        let s = sign(&key(b"Jefe"), b"what do ya want for nothing?");
        assert_eq!(
            hex(&BASE64.decode(&s).unwrap()),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        assert_eq!(s, "W9zBRr9gdU5qBCQmCJV1x1oAPwidJzmDnexYuWTsOEM=");
    }

    #[test]
    fn a_signed_body_verifies() {
        let k = key(b"secret");
        let body = br#"[{"task.class":"X"}]"#;
        let headers = signed(&k, body);
        assert_eq!(headers["X-Connect-Request-Signature-Algorithm"], "HmacSHA256");
        assert_eq!(verify(&headers, body, Some(&k), &accepted()), Ok(()));
    }

    #[test]
    fn every_verification_error() {
        let k = key(b"secret");
        let body = b"[]";
        let good = signed(&k, body);
        let without = |name: &str| {
            let mut h = good.clone();
            h.remove(name);
            h
        };
        for h in [without(SIGNATURE_HEADER), without(ALGORITHM_HEADER), HeaderMap::new()] {
            let e = verify(&h, body, Some(&k), &accepted()).unwrap_err();
            assert_eq!(
                (e.status(), e.to_string().as_str()),
                (400, "Internal request missing required signature")
            );
        }

        let mut h = good.clone();
        h.insert("x-connect-request-signature-algorithm", HeaderValue::from_static("HmacSHA512"));
        let e = verify(&h, body, Some(&k), &accepted()).unwrap_err();
        assert_eq!(e.status(), 400);
        assert_eq!(
            e.to_string(),
            "This worker does not support the 'HmacSHA512' key signing algorithm used by other workers. This worker is currently configured to use: [HmacSHA256]. Check that all workers' configuration files permit the same set of signature algorithms, and correct any misconfigured worker and restart it."
        );
        let e = verify(&good, body, Some(&k), &[]).unwrap_err();
        assert!(matches!(e, VerifyError::Algorithm { .. }), "{e}");

        let mut h = good.clone();
        h.insert("x-connect-authorization", HeaderValue::from_static("not base64!"));
        let e = verify(&h, body, Some(&k), &accepted()).unwrap_err();
        assert!(matches!(e, VerifyError::Malformed(_)) && e.status() == 400, "{e}");

        let e = verify(&good, body, None, &accepted()).unwrap_err();
        assert_eq!(e.status(), 503);
        assert_eq!(
            e.to_string(),
            "This worker is still starting up and has not been able to read a session key from the config topic yet"
        );

        for (k2, b) in [(key(b"other"), &body[..]), (k.clone(), b"[ ]")] {
            let e = verify(&good, b, Some(&k2), &accepted()).unwrap_err();
            assert_eq!(
                (e.status(), e.to_string().as_str()),
                (403, "Internal request contained invalid signature.")
            );
        }
        // A truncated signature is invalid too, not a panic.
        let mut h = good.clone();
        h.insert("x-connect-authorization", HeaderValue::from_static("AAAA"));
        assert_eq!(verify(&h, body, Some(&k), &accepted()), Err(VerifyError::Invalid));
    }
}
