//! [`SecurityError`]: why a Kafka client security setting cannot be used. Every error names
//! its key and never echoes the value (a password, a JAAS config or a key could be in it).

/// Why a security setting cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum SecurityError {
    /// The key's value is wrong, missing, or names something unreadable or unsupported.
    #[error("{key}: {message}")]
    Invalid {
        /// The full key, prefix included.
        key: String,
        /// What is wrong, without the value.
        message: String,
    },
    /// rustls refused the settings (e.g. a key that does not match its certificate).
    #[error("{key}: {source}")]
    Tls {
        /// The key whose material rustls refused.
        key: String,
        /// rustls' error (it carries no key material).
        source: rustls::Error,
    },
}

impl SecurityError {
    /// An [`Invalid`](Self::Invalid) error.
    pub fn invalid(key: impl Into<String>, message: impl Into<String>) -> Self {
        Self::Invalid { key: key.into(), message: message.into() }
    }

    /// The key at fault.
    pub fn key(&self) -> &str {
        match self {
            Self::Invalid { key, .. } | Self::Tls { key, .. } => key,
        }
    }

    /// What is wrong, without the key.
    pub fn message(&self) -> String {
        match self {
            Self::Invalid { message, .. } => message.clone(),
            Self::Tls { source, .. } => source.to_string(),
        }
    }
}
