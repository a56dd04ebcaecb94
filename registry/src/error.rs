//! [`RegistryError`]: why a registry request failed, split the way callers act on it: an
//! unavailable registry is worth retrying later, an answer refusing the request is not.
//! Messages never hold credentials.

/// A failed registry request.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RegistryError {
    /// No URL could be reached, or every one answered 5xx, 408 or 429, after the retries.
    #[error("the schema registry is unavailable at {urls}: {reason}")]
    Unavailable {
        /// The URLs tried, comma-separated.
        urls: String,
        /// The last failure.
        reason: String,
    },
    /// The registry answered with an error: its HTTP status, `error_code` and `message`
    /// (e.g. 404/40403 "Schema 7 not found", 409 an incompatible schema, 401 bad
    /// credentials).
    #[error(
        "the schema registry refused the request ({status}, error code {error_code}): {message}"
    )]
    Refused {
        /// The HTTP status.
        status: u16,
        /// The body's `error_code` (the status when the body has none).
        error_code: i64,
        /// The body's `message`.
        message: String,
    },
    /// The registry answered 2xx with a body that is not what the API returns.
    #[error("the schema registry's answer could not be read: {0}")]
    BadAnswer(String),
    /// The configuration cannot make a client (bad URL, TLS setup).
    #[error("invalid schema registry configuration: {0}")]
    Config(String),
}

impl RegistryError {
    /// Whether trying again later may succeed.
    pub fn is_retriable(&self) -> bool {
        matches!(self, RegistryError::Unavailable { .. })
    }

    /// Whether this is the registry's "not found" (404) for a subject, a version or a
    /// schema.
    pub fn is_not_found(&self) -> bool {
        matches!(self, RegistryError::Refused { status: 404, .. })
    }
}
