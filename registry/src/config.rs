//! [`RegistryConfig`]: where the registry is and how to reach it, as the converter's keys
//! say (`schema.registry.url`, `basic.auth.*`, `bearer.auth.*`, `max.retries`,
//! `retries.wait.ms`, `retries.max.wait.ms`, the HTTP timeouts). Secrets are kept out of
//! `Debug`. Parsing the keys is the caller's.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

/// How requests authenticate.
#[derive(Clone, Default)]
pub enum Auth {
    /// No credentials.
    #[default]
    None,
    /// HTTP basic authentication.
    Basic {
        /// The user name.
        user: String,
        /// The password.
        password: String,
    },
    /// A bearer token (`Authorization: Bearer …`).
    Bearer(String),
}

impl fmt::Debug for Auth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Auth::None => f.write_str("None"),
            Auth::Basic { user, .. } => write!(f, "Basic {{ user: {user:?}, password: [hidden] }}"),
            Auth::Bearer(_) => f.write_str("Bearer([hidden])"),
        }
    }
}

/// The retry schedule of a registry that cannot be reached or answers 5xx, 408 or 429:
/// Confluent's `max.retries`, `retries.wait.ms` and `retries.max.wait.ms`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Retry {
    /// Retries after the first round over every URL (`max.retries`, default 3).
    pub max_retries: u32,
    /// The first wait (`retries.wait.ms`, default 1000 ms), doubling.
    pub wait: Duration,
    /// The longest wait (`retries.max.wait.ms`, default 20000 ms).
    pub max_wait: Duration,
}

impl Default for Retry {
    fn default() -> Self {
        Self { max_retries: 3, wait: Duration::from_secs(1), max_wait: Duration::from_secs(20) }
    }
}

/// A registry client's configuration.
#[derive(Clone, Debug)]
pub struct RegistryConfig {
    /// The base URLs (e.g. `http://host:8081` or Apicurio's
    /// `http://host:8080/apis/ccompat/v7`), without user info; tried in turn.
    pub urls: Vec<String>,
    /// The credentials.
    pub auth: Auth,
    /// TLS for `https://` URLs: the trust and key stores. `None`: the system's roots.
    pub tls: Option<Arc<rustls::ClientConfig>>,
    /// The TCP connect timeout (`http.connect.timeout.ms`, default 60 s).
    pub connect_timeout: Duration,
    /// The whole request's timeout (`http.read.timeout.ms`, default 60 s).
    pub request_timeout: Duration,
    /// The retry schedule.
    pub retry: Retry,
}

impl RegistryConfig {
    /// A configuration for `urls` with the defaults.
    pub fn new(urls: Vec<String>) -> Self {
        Self {
            urls,
            auth: Auth::None,
            tls: None,
            connect_timeout: Duration::from_secs(60),
            request_timeout: Duration::from_secs(60),
            retry: Retry::default(),
        }
    }
}
