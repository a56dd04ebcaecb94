//! [`RegistryClient`]: the requests of Confluent's Schema Registry API this worker sends.
//!
//! Each request tries the base URLs in turn, starting from the last one that answered
//! (Confluent's client fails over the same way). A URL that cannot be reached, times out,
//! or answers 5xx, 408 or 429 sends the request to the next one; once every URL failed,
//! the round is repeated after the `retries.wait.ms` back-off, up to `max.retries` times,
//! then the request fails as [`RegistryError::Unavailable`]. Any other error answer fails
//! it at once as [`RegistryError::Refused`]. No request is cached here.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use reqwest::header::{self, HeaderMap, HeaderValue};
use reqwest::{Method, StatusCode, Url};
use serde::de::DeserializeOwned;
use wasm_connect_backoff::Backoff;

use crate::api::{CompatibilityAnswer, ErrorAnswer, IdAnswer, Registered, SchemaRequest};
use crate::{Auth, RegistryConfig, RegistryError};

/// The media type of the API's bodies.
const CONTENT_TYPE: &str = "application/vnd.schemaregistry.v1+json";
/// What the client accepts, as Confluent's client asks.
const ACCEPT: &str = "application/vnd.schemaregistry.v1+json, application/vnd.schemaregistry+json; qs=0.9, application/json; qs=0.5";

/// A Schema Registry client; cheap to share behind an `Arc`.
pub struct RegistryClient {
    http: reqwest::Client,
    urls: Vec<Url>,
    /// The URL the next request tries first: the last that answered.
    current: AtomicUsize,
    retry: crate::Retry,
    requests: AtomicU64,
}

/// How one attempt at one URL ended, when it did not succeed.
enum Failed {
    /// Worth another URL or a retry: why.
    Unavailable(String),
    /// The answer: final.
    Final(RegistryError),
}

impl RegistryClient {
    /// A client for `config`: the URLs must parse as `http(s)://` URLs without user info.
    pub fn new(config: &RegistryConfig) -> Result<Self, RegistryError> {
        if config.urls.is_empty() {
            return Err(RegistryError::Config("no schema registry URL".into()));
        }
        let urls = config
            .urls
            .iter()
            .map(|u| {
                let url = Url::parse(u.trim()).map_err(|e| {
                    RegistryError::Config(format!("invalid schema registry URL {u}: {e}"))
                })?;
                if !matches!(url.scheme(), "http" | "https") || url.cannot_be_a_base() {
                    return Err(RegistryError::Config(format!(
                        "invalid schema registry URL {u}: not an http or https URL"
                    )));
                }
                if !url.username().is_empty() || url.password().is_some() {
                    return Err(RegistryError::Config(
                        "a schema registry URL holds credentials: take them out of the URL \
                         (basic.auth.credentials.source=URL reads them for you)"
                            .into(),
                    ));
                }
                Ok(url)
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mut headers = HeaderMap::new();
        headers.insert(header::ACCEPT, HeaderValue::from_static(ACCEPT));
        if let Some(mut value) = auth_header(&config.auth)? {
            value.set_sensitive(true);
            headers.insert(header::AUTHORIZATION, value);
        }
        let mut builder = reqwest::Client::builder()
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(config.connect_timeout)
            .timeout(config.request_timeout)
            .default_headers(headers);
        if let Some(tls) = &config.tls {
            builder = builder.use_preconfigured_tls((**tls).clone());
        } else if urls.iter().any(|u| u.scheme() == "https") {
            return Err(RegistryError::Config(
                "an https:// schema registry URL needs a TLS configuration".into(),
            ));
        }
        let http = builder.build().map_err(|e| RegistryError::Config(e.to_string()))?;
        Ok(Self {
            http,
            urls,
            current: AtomicUsize::new(0),
            retry: config.retry,
            requests: AtomicU64::new(0),
        })
    }

    /// The HTTP requests sent so far (every attempt counts).
    pub fn requests(&self) -> u64 {
        self.requests.load(Ordering::Relaxed)
    }

    /// Registers `schema` (of `schema_type`, `None` for AVRO) under `subject` and returns
    /// its id; the id it already has when registered before.
    pub async fn register(
        &self,
        subject: &str,
        schema: &str,
        schema_type: Option<&str>,
    ) -> Result<u32, RegistryError> {
        let body = SchemaRequest { schema, schema_type };
        let answer: IdAnswer =
            self.call(Method::POST, &["subjects", subject, "versions"], Some(&body)).await?;
        Ok(answer.id)
    }

    /// The id (and version) of `schema` under `subject`, which must be registered there.
    pub async fn lookup(
        &self,
        subject: &str,
        schema: &str,
        schema_type: Option<&str>,
    ) -> Result<Registered, RegistryError> {
        let body = SchemaRequest { schema, schema_type };
        self.call(Method::POST, &["subjects", subject], Some(&body)).await
    }

    /// The schema with id `id`.
    pub async fn schema(&self, id: u32) -> Result<Registered, RegistryError> {
        let mut registered: Registered =
            self.call(Method::GET, &["schemas", "ids", &id.to_string()], None).await?;
        registered.id = id;
        Ok(registered)
    }

    /// The latest version registered under `subject`.
    pub async fn latest(&self, subject: &str) -> Result<Registered, RegistryError> {
        self.call(Method::GET, &["subjects", subject, "versions", "latest"], None).await
    }

    /// Whether `schema` is compatible with the latest version under `subject`, by the
    /// subject's compatibility level.
    pub async fn is_compatible(
        &self,
        subject: &str,
        schema: &str,
        schema_type: Option<&str>,
    ) -> Result<bool, RegistryError> {
        let body = SchemaRequest { schema, schema_type };
        let path = ["compatibility", "subjects", subject, "versions", "latest"];
        let answer: CompatibilityAnswer = self.call(Method::POST, &path, Some(&body)).await?;
        Ok(answer.is_compatible)
    }

    /// Sends one request with fail-over and retries.
    async fn call<T: DeserializeOwned>(
        &self,
        method: Method,
        path: &[&str],
        body: Option<&SchemaRequest<'_>>,
    ) -> Result<T, RegistryError> {
        let body = body.map(|b| serde_json::to_vec(b).expect("a request body serializes"));
        let mut attempts = Backoff::doubling(self.retry.wait, self.retry.max_wait).attempts();
        let mut last = String::new();
        for round in 0..=self.retry.max_retries {
            if round > 0 {
                tokio::time::sleep(attempts.next_delay()).await;
            }
            let start = self.current.load(Ordering::Relaxed);
            for i in 0..self.urls.len() {
                let index = (start + i) % self.urls.len();
                match self.once(index, method.clone(), path, body.as_deref()).await {
                    Ok(answer) => {
                        self.current.store(index, Ordering::Relaxed);
                        return Ok(answer);
                    }
                    Err(Failed::Final(e)) => {
                        self.current.store(index, Ordering::Relaxed);
                        return Err(e);
                    }
                    Err(Failed::Unavailable(reason)) => {
                        tracing::debug!(url = %self.urls[index], %reason, "Schema registry request failed");
                        last = reason;
                    }
                }
            }
        }
        let urls = self.urls.iter().map(Url::as_str).collect::<Vec<_>>().join(", ");
        Err(RegistryError::Unavailable { urls, reason: last })
    }

    /// One attempt at URL number `index`.
    async fn once<T: DeserializeOwned>(
        &self,
        index: usize,
        method: Method,
        path: &[&str],
        body: Option<&[u8]>,
    ) -> Result<T, Failed> {
        let mut url = self.urls[index].clone();
        url.path_segments_mut().expect("checked to be a base URL").pop_if_empty().extend(path);
        let mut request = self.http.request(method, url.clone());
        if let Some(body) = body {
            request = request.header(header::CONTENT_TYPE, CONTENT_TYPE).body(body.to_vec());
        }
        self.requests.fetch_add(1, Ordering::Relaxed);
        let answer = request.send().await.map_err(|e| Failed::Unavailable(describe(&e)))?;
        let status = answer.status();
        let bytes = answer.bytes().await.map_err(|e| Failed::Unavailable(describe(&e)))?;
        if status.is_success() {
            return serde_json::from_slice(&bytes)
                .map_err(|e| Failed::Final(RegistryError::BadAnswer(format!("{url}: {e}"))));
        }
        let error: Option<ErrorAnswer> = serde_json::from_slice(&bytes).ok();
        let message = error
            .as_ref()
            .and_then(|e| e.message.clone())
            .unwrap_or_else(|| String::from_utf8_lossy(&bytes).chars().take(300).collect());
        if status.is_server_error()
            || status == StatusCode::REQUEST_TIMEOUT
            || status == StatusCode::TOO_MANY_REQUESTS
        {
            return Err(Failed::Unavailable(format!("{url} answered {status}: {message}")));
        }
        Err(Failed::Final(RegistryError::Refused {
            status: status.as_u16(),
            error_code: error.and_then(|e| e.error_code).unwrap_or(i64::from(status.as_u16())),
            message,
        }))
    }
}

/// The `Authorization` header of `auth`; credentials a header cannot carry (a line break)
/// are refused, without showing them.
fn auth_header(auth: &Auth) -> Result<Option<HeaderValue>, RegistryError> {
    let value = match auth {
        Auth::None => return Ok(None),
        Auth::Basic { user, password } => {
            format!("Basic {}", BASE64.encode(format!("{user}:{password}")))
        }
        Auth::Bearer(token) => format!("Bearer {token}"),
    };
    HeaderValue::from_str(&value).map(Some).map_err(|_| {
        RegistryError::Config(
            "the schema registry credentials hold characters HTTP headers cannot carry".into(),
        )
    })
}

/// A transport error with its causes (reqwest's own message is often only "error sending
/// request").
fn describe(e: &reqwest::Error) -> String {
    use std::error::Error as _;
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
