//! [`Transport`]: sends one HTTP request and returns its status. In the component it is
//! [`Wasi`], over `wasi:http/outgoing-handler` (the worker connects, does TLS, and refuses
//! any origin not granted); native tests substitute their own.
//!
//! This module knows nothing of records, retries or configuration keys.

use std::time::Duration;

use crate::url::Url;

/// One request.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub struct Request<'a> {
    pub method: &'a str,
    pub url: &'a Url,
    pub headers: &'a [(String, String)],
    pub body: &'a [u8],
    pub connect_timeout: Duration,
    pub request_timeout: Duration,
}

/// A response: its status, `Location` and the start of its body (for messages).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Response {
    pub status: u16,
    pub location: Option<String>,
    pub body: String,
}

/// Why no response came.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// No connection, or it broke: worth retrying.
    Unreachable(String),
    /// No response within the timeouts: worth retrying.
    Timeout(String),
    /// The worker refused the request: its origin is not granted.
    Denied(String),
    /// Anything else about the request itself.
    Invalid(String),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Unreachable(m) => write!(f, "cannot reach the endpoint: {m}"),
            Failure::Timeout(m) => write!(f, "timed out: {m}"),
            Failure::Denied(m) => write!(f, "refused by the worker's sandbox: {m}"),
            Failure::Invalid(m) => write!(f, "invalid request: {m}"),
        }
    }
}

/// Sends requests.
pub trait Transport {
    /// Sends `request` and waits for the whole response.
    fn send(&mut self, request: &Request<'_>) -> Result<Response, Failure>;

    /// Waits `duration` (the back-off before a retriable failure).
    fn sleep(&mut self, duration: Duration);
}

/// The transport of a task: `wasi:http` in the component, none natively.
pub fn default_transport() -> Box<dyn Transport> {
    #[cfg(target_arch = "wasm32")]
    {
        Box::new(wasi::Wasi)
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        Box::new(Unavailable)
    }
}

/// Natively there is no `wasi:http`: every request fails (tests bring a transport).
#[cfg(not(target_arch = "wasm32"))]
struct Unavailable;

#[cfg(not(target_arch = "wasm32"))]
impl Transport for Unavailable {
    fn send(&mut self, _request: &Request<'_>) -> Result<Response, Failure> {
        Err(Failure::Unreachable("no wasi:http outside a component".into()))
    }

    fn sleep(&mut self, duration: Duration) {
        std::thread::sleep(duration);
    }
}

#[cfg(target_arch = "wasm32")]
mod wasi;
