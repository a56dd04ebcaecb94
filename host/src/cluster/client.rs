//! [`InterWorkerClient`]: HTTP requests from this worker to another one. REST forwards the
//! requests another worker must execute (`rest/forward`), and the herder sends the task
//! configs it generated to the leader ([`InterWorkerClient::submit_task_configs`]), and asks
//! the leader for a zombie fencing round ([`InterWorkerClient::fence_zombies`]).
//!
//! Kafka Connect's `RestClient` conventions: user agent `kafka-connect`, JSON in and out,
//! no redirects followed, and answers classified the same way (204 → no body, other 2xx →
//! the body, ≥ 400 → the other worker's `{error_code, message}`, anything else → 500).
//! System proxies are not used: workers talk to each other directly. This module decides
//! nothing about where a request goes; callers give the URL.
//!
//! `https://` URLs go over rustls (ring provider) with the client config the caller built
//! from the worker's HTTPS listener settings (Kafka Connect's `listeners.https.ssl.*`, else
//! `ssl.*`): its trust store decides which peers are trusted, its keystore is the client
//! certificate a peer with `ssl.client.auth=required` asks for. A peer that is not trusted
//! fails the request with [`ClientError::Io`], whose message names the TLS problem. This
//! module reads no key or certificate file itself.

use std::error::Error as _;
use std::time::Duration;

use std::sync::Arc;

use bytes::Bytes;
use reqwest::header::{self, HeaderMap, HeaderValue};
use reqwest::{Method, StatusCode};

use super::signature::signature_headers;
use crate::model::{Properties, SessionKey};

/// The user agent of every request (Kafka Connect's).
pub const USER_AGENT: &str = "kafka-connect";

/// How long to wait for a TCP connection to another worker.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// Added to the REST request timeout for a whole request: the other worker bounds its own
/// work by the same timeout, so its own "Request timed out" answer arrives first.
pub const TIMEOUT_MARGIN: Duration = Duration::from_secs(5);

/// Why a request to another worker failed. Every variant becomes an HTTP answer with
/// [`ClientError::status`] and the message (Kafka Connect's wording).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ClientError {
    /// The request could not be sent or the answer not read (500).
    #[error("IO Error trying to forward REST request: {0}")]
    Io(String),
    /// The other worker answered with a status that is neither success nor error (500).
    #[error("Unexpected status code when handling forwarded request: {0}")]
    UnexpectedStatus(u16),
    /// The other worker answered with an error: its status and body, relayed as they are.
    #[error("{message}")]
    Remote {
        /// The HTTP status of its answer.
        status: u16,
        /// `error_code` of its body (normally the status).
        error_code: i64,
        /// `message` of its body.
        message: String,
    },
}

impl ClientError {
    /// The HTTP status this error answers with.
    pub fn status(&self) -> u16 {
        match self {
            Self::Io(_) | Self::UnexpectedStatus(_) => 500,
            Self::Remote { status, .. } => *status,
        }
    }
}

/// A request to send to another worker.
#[derive(Clone, Debug)]
pub struct ForwardRequest {
    /// The method.
    pub method: Method,
    /// The full URL, query included.
    pub url: String,
    /// Headers to copy (credentials, signatures); the client adds its own.
    pub headers: HeaderMap,
    /// The body, sent as JSON when not empty.
    pub body: Bytes,
}

/// A successful answer from another worker.
#[derive(Clone, Debug)]
pub struct ForwardReply {
    /// A 2xx status.
    pub status: StatusCode,
    /// Its `Content-Type`, if any.
    pub content_type: Option<HeaderValue>,
    /// Its `Location` (a create's 201), if any.
    pub location: Option<HeaderValue>,
    /// The body; empty for 204.
    pub body: Bytes,
}

/// The HTTP client; cheap to clone (connections are pooled and shared).
#[derive(Clone, Debug)]
pub struct InterWorkerClient {
    http: reqwest::Client,
}

impl InterWorkerClient {
    /// A client whose requests wait up to `request_timeout` plus [`TIMEOUT_MARGIN`], and
    /// whose `https://` requests use `tls` (trusted peers, client certificate). Without
    /// `tls` it trusts no certificate at all: `https://` requests fail.
    pub fn new(
        request_timeout: Duration,
        tls: Option<Arc<rustls::ClientConfig>>,
    ) -> Result<Self, reqwest::Error> {
        let mut builder = reqwest::Client::builder()
            .user_agent(USER_AGENT)
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .connect_timeout(CONNECT_TIMEOUT)
            .timeout(request_timeout.saturating_add(TIMEOUT_MARGIN));
        builder = match tls {
            Some(config) => builder.use_preconfigured_tls(http1_only(&config)),
            None => builder.tls_built_in_root_certs(false),
        };
        Ok(Self { http: builder.build()? })
    }

    /// Sends `request` and classifies the answer: 2xx is a [`ForwardReply`], anything else
    /// a [`ClientError`].
    pub async fn forward(&self, request: ForwardRequest) -> Result<ForwardReply, ClientError> {
        let mut builder = self
            .http
            .request(request.method, &request.url)
            .headers(request.headers)
            .header(header::ACCEPT, "application/json");
        if !request.body.is_empty() {
            builder = builder.header(header::CONTENT_TYPE, "application/json").body(request.body);
        }
        let response = builder.send().await.map_err(io)?;
        let status = response.status();
        let content_type = response.headers().get(header::CONTENT_TYPE).cloned();
        let location = response.headers().get(header::LOCATION).cloned();
        if status == StatusCode::NO_CONTENT {
            return Ok(ForwardReply { status, content_type: None, location, body: Bytes::new() });
        }
        if !(status.is_success() || status.as_u16() >= 400) {
            return Err(ClientError::UnexpectedStatus(status.as_u16()));
        }
        let body = response.bytes().await.map_err(io)?;
        if status.as_u16() >= 400 {
            return Err(remote_error(status, &body));
        }
        if !body.is_empty() {
            serde_json::from_slice::<serde::de::IgnoredAny>(&body)
                .map_err(|e| ClientError::Io(e.to_string()))?;
        }
        Ok(ForwardReply { status, content_type, location, body })
    }

    /// Sends task configs this worker generated for `connector` to the leader at
    /// `leader_url`: a `POST {leader_url}/connectors/{connector}/tasks?forward=true` whose
    /// JSON array body is signed with `key` (unsigned without one; a leader that requires
    /// signatures then answers 400). The leader may forward it once more.
    pub async fn submit_task_configs(
        &self,
        leader_url: &str,
        connector: &str,
        configs: &[Properties],
        key: Option<&SessionKey>,
    ) -> Result<(), ClientError> {
        let body =
            Bytes::from(serde_json::to_vec(configs).map_err(|e| ClientError::Io(e.to_string()))?);
        let mut headers = HeaderMap::new();
        if let Some(key) = key {
            headers.extend(signature_headers(key, &body));
        }
        let url = format!(
            "{}/connectors/{}/tasks?forward=true",
            leader_url.trim_end_matches('/'),
            path_segment(connector)
        );
        self.forward(ForwardRequest { method: Method::POST, url, headers, body }).await.map(drop)
    }

    /// Asks the leader at `leader_url` for a zombie fencing round for `connector`
    /// (KIP-618): a `PUT {leader_url}/connectors/{connector}/fence?forward=true` with an
    /// empty body signed with `key`, as Kafka Connect's worker sends it before an
    /// exactly-once source task of a new generation starts.
    pub async fn fence_zombies(
        &self,
        leader_url: &str,
        connector: &str,
        key: Option<&SessionKey>,
    ) -> Result<(), ClientError> {
        let body = Bytes::new();
        let mut headers = HeaderMap::new();
        if let Some(key) = key {
            headers.extend(signature_headers(key, &body));
        }
        let url = format!(
            "{}/connectors/{}/fence?forward=true",
            leader_url.trim_end_matches('/'),
            path_segment(connector)
        );
        self.forward(ForwardRequest { method: Method::PUT, url, headers, body }).await.map(drop)
    }
}

/// A copy of `config` that offers HTTP/1.1 only, the one protocol this client speaks (and
/// the listeners serve).
fn http1_only(config: &rustls::ClientConfig) -> rustls::ClientConfig {
    let mut config = config.clone();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    config
}

/// `s` percent-encoded as one path segment.
pub fn path_segment(s: &str) -> String {
    form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>().replace('+', "%20")
}

/// A transport error with its causes ("error sending request …: connection refused").
fn io(e: reqwest::Error) -> ClientError {
    let mut message = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        message.push_str(": ");
        message.push_str(&s.to_string());
        source = s.source();
    }
    ClientError::Io(message)
}

/// An error answer: Kafka Connect's `{"error_code": N, "message": "..."}`; a body that is
/// not one is an I/O error, as in Kafka Connect.
fn remote_error(status: StatusCode, body: &[u8]) -> ClientError {
    #[derive(serde::Deserialize)]
    struct ErrorBody {
        error_code: Option<i64>,
        message: Option<String>,
    }
    match serde_json::from_slice::<ErrorBody>(body) {
        Ok(b) => ClientError::Remote {
            status: status.as_u16(),
            error_code: b.error_code.unwrap_or(i64::from(status.as_u16())),
            message: b.message.unwrap_or_default(),
        },
        Err(e) => ClientError::Io(e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_bodies() {
        let e = remote_error(
            StatusCode::NOT_FOUND,
            br#"{"error_code":404,"message":"Connector c not found"}"#,
        );
        assert_eq!(
            e,
            ClientError::Remote {
                status: 404,
                error_code: 404,
                message: "Connector c not found".into()
            }
        );
        assert_eq!((e.status(), e.to_string().as_str()), (404, "Connector c not found"));
        let e = remote_error(StatusCode::BAD_REQUEST, b"<html>");
        assert!(matches!(&e, ClientError::Io(m) if !m.is_empty()), "{e:?}");
        assert!(e.to_string().starts_with("IO Error trying to forward REST request: "));
        assert_eq!(
            ClientError::UnexpectedStatus(302).to_string(),
            "Unexpected status code when handling forwarded request: 302"
        );
    }

    #[test]
    fn connector_names_are_one_path_segment() {
        assert_eq!(path_segment("a b/c+d"), "a%20b%2Fc%2Bd");
    }
}
