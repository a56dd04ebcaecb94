//! The configuration of `HttpSink`: its keys, their definition, and [`Settings`], the
//! parsed form a task works with. Key names follow the Confluent HTTP sink connector.
//!
//! This module owns key names, defaults and documentation; it sends nothing.

use std::time::Duration;

use wasm_connect_sdk::{
    Config, ConfigDef, ConfigKey, Error, Grant, Importance, NonEmptyString, Range, Result,
    ValidString,
};

use crate::status_codes::StatusCodes;
use crate::url::Url;

pub const URL: &str = "http.api.url";
pub const METHOD: &str = "request.method";
pub const HEADERS: &str = "headers";
pub const HEADER_SEPARATOR: &str = "header.separator";
pub const AUTH_TYPE: &str = "auth.type";
pub const USER: &str = "connection.user";
pub const PASSWORD: &str = "connection.password";
pub const BEARER_TOKEN: &str = "bearer.token";
pub const BODY_FORMAT: &str = "request.body.format";
pub const BATCH_MAX_SIZE: &str = "batch.max.size";
pub const BATCH_PREFIX: &str = "batch.prefix";
pub const BATCH_SUFFIX: &str = "batch.suffix";
pub const BATCH_SEPARATOR: &str = "batch.separator";
pub const RETRY_CODES: &str = "retry.on.status.codes";
pub const MAX_RETRIES: &str = "max.retries";
pub const RETRY_BACKOFF_MS: &str = "retry.backoff.ms";
pub const BEHAVIOR_ON_ERROR: &str = "behavior.on.error";
pub const CONNECT_TIMEOUT_MS: &str = "http.connect.timeout.ms";
pub const REQUEST_TIMEOUT_MS: &str = "http.request.timeout.ms";
pub const TOPICS: &str = "topics";
// TLS to https:// endpoints: read by the worker (which makes the requests), as Kafka's
// `ssl.*` keys under the prefix `https.`.
const TRUSTSTORE_LOCATION: &str = "https.ssl.truststore.location";
const TRUSTSTORE_TYPE: &str = "https.ssl.truststore.type";
const TRUSTSTORE_PASSWORD: &str = "https.ssl.truststore.password";
const TRUSTSTORE_CERTIFICATES: &str = "https.ssl.truststore.certificates";
const KEYSTORE_LOCATION: &str = "https.ssl.keystore.location";
const KEYSTORE_PASSWORD: &str = "https.ssl.keystore.password";
const ENDPOINT_IDENTIFICATION: &str = "https.ssl.endpoint.identification.algorithm";
/// The worker's guest call budget (a framework key): back-offs stay well within it.
const CALL_TIMEOUT_MS: &str = "wasm.call.timeout.ms";
const DEFAULT_CALL_TIMEOUT_MS: u64 = 10_000;

/// How the records of a request that cannot be delivered are handled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnError {
    /// Reported as failed records: `errors.tolerance` decides (the task fails by
    /// default; with `all`, they are logged or sent to the dead letter queue).
    Fail,
    /// Logged (topic, partition, offset and the reason) and skipped.
    Log,
    /// Skipped silently.
    Ignore,
}

/// How requests authenticate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Auth {
    None,
    Basic { user: String, password: String },
    Bearer { token: String },
}

/// The parsed configuration of a task.
#[derive(Clone, Debug)]
pub struct Settings {
    pub url: Url,
    pub method: String,
    /// Headers sent with every request (`headers`), without authentication.
    pub headers: Vec<(String, String)>,
    pub auth: Auth,
    /// Whether string values are sent as JSON strings (`json`) or as they are (`string`).
    pub json_body: bool,
    pub batch_max_size: usize,
    pub batch_prefix: String,
    pub batch_suffix: String,
    pub batch_separator: String,
    pub retry_codes: StatusCodes,
    pub max_retries: u32,
    /// What `put` waits before it fails retriably (capped to a quarter of the call budget).
    pub retry_backoff: Duration,
    pub on_error: OnError,
    pub connect_timeout: Duration,
    pub request_timeout: Duration,
}

fn millis(config: &Config, key: &str, default: i64) -> Result<Duration> {
    let ms = config.get_i64(key)?.unwrap_or(default);
    u64::try_from(ms)
        .map(Duration::from_millis)
        .map_err(|_| Error::config(format!("{key} must not be negative")))
}

impl Settings {
    /// Parses `config` (defaults applied for absent keys); errors name the key.
    pub fn parse(config: &Config) -> Result<Settings> {
        let config = &definition().with_defaults(config);
        let url =
            Url::parse(config.require(URL)?).map_err(|e| Error::config(format!("{URL}: {e}")))?;
        let separator = config.get_or(HEADER_SEPARATOR, "|");
        let mut headers = Vec::new();
        for h in config.get_or(HEADERS, "").split(separator).filter(|h| !h.trim().is_empty()) {
            let (name, value) = h
                .split_once(':')
                .ok_or_else(|| Error::config(format!("{HEADERS}: {h:?} is not Name:Value")))?;
            headers.push((name.trim().to_owned(), value.trim().to_owned()));
        }
        let auth = match config.get_or(AUTH_TYPE, "none").trim().to_ascii_lowercase().as_str() {
            "none" => Auth::None,
            "basic" => Auth::Basic {
                user: config.require(USER)?.to_owned(),
                password: config.get_or(PASSWORD, "").to_owned(),
            },
            "bearer" => Auth::Bearer { token: config.require(BEARER_TOKEN)?.trim().to_owned() },
            other => {
                return Err(Error::config(format!(
                    "{AUTH_TYPE}: {other:?} is not none, basic or bearer"
                )));
            }
        };
        let retry_codes = config
            .get_or(RETRY_CODES, "")
            .parse()
            .map_err(|e| Error::config(format!("{RETRY_CODES}: {e}")))?;
        let on_error = match config.get_or(BEHAVIOR_ON_ERROR, "fail").trim().to_ascii_lowercase() {
            s if s == "fail" => OnError::Fail,
            s if s == "log" => OnError::Log,
            s if s == "ignore" => OnError::Ignore,
            other => {
                return Err(Error::config(format!(
                    "{BEHAVIOR_ON_ERROR}: {other:?} is not fail, log or ignore"
                )));
            }
        };
        let budget = millis(config, CALL_TIMEOUT_MS, DEFAULT_CALL_TIMEOUT_MS as i64)?;
        let batch_max_size = config.get_i32(BATCH_MAX_SIZE)?.unwrap_or(1);
        Ok(Settings {
            url,
            method: config.get_or(METHOD, "POST").trim().to_ascii_uppercase(),
            headers,
            auth,
            json_body: config.get_or(BODY_FORMAT, "json").trim().eq_ignore_ascii_case("json"),
            batch_max_size: usize::try_from(batch_max_size.max(1)).unwrap_or(1),
            batch_prefix: config.get_or(BATCH_PREFIX, "[").to_owned(),
            batch_suffix: config.get_or(BATCH_SUFFIX, "]").to_owned(),
            batch_separator: config.get_or(BATCH_SEPARATOR, ",").to_owned(),
            retry_codes,
            max_retries: u32::try_from(config.get_i32(MAX_RETRIES)?.unwrap_or(10).max(0))
                .unwrap_or(0),
            retry_backoff: millis(config, RETRY_BACKOFF_MS, 3000)?.min(budget / 4),
            on_error,
            connect_timeout: millis(config, CONNECT_TIMEOUT_MS, 2000)?,
            request_timeout: millis(config, REQUEST_TIMEOUT_MS, 5000)?,
        })
    }
}

/// The keys of the connector.
pub fn definition() -> ConfigDef {
    let s = |name: &str, importance, doc: &str| {
        ConfigKey::string(name).importance(importance).doc(doc.to_owned())
    };
    let int = |name: &str, default: i64, min: i64, doc: &str| {
        ConfigKey::int(name)
            .default_value(default)
            .ensure(Range::at_least(min))
            .importance(Importance::Medium)
            .doc(doc.to_owned())
    };
    ConfigDef::new()
        .define(
            s(URL, Importance::High, "The URL requests go to (http:// or https://). The worker \
               grants HTTP requests to this URL's origin (scheme, host and port) and nothing \
               else.")
            .required()
            .ensure(NonEmptyString)
            .grant(Grant::Connect),
        )
        .define(
            s(METHOD, Importance::High, "The HTTP method of every request.")
                .default_value("POST")
                .ensure(ValidString::one_of(["POST", "PUT", "PATCH", "DELETE"]).ignore_case()),
        )
        .define(s(
            HEADERS,
            Importance::Medium,
            "Headers sent with every request, Name:Value, separated by header.separator \
             (Content-Type:application/json|X-Team:data).",
        ))
        .define(
            s(HEADER_SEPARATOR, Importance::Low, "The separator between the entries of headers.")
                .default_value("|"),
        )
        .define(
            s(AUTH_TYPE, Importance::High, "Authentication: none, basic (connection.user and \
               connection.password) or bearer (bearer.token).")
            .default_value("none")
            .ensure(ValidString::one_of(["none", "basic", "bearer"]).ignore_case()),
        )
        .define(s(USER, Importance::High, "The user name of basic authentication."))
        .define(
            ConfigKey::password(PASSWORD)
                .importance(Importance::High)
                .doc("The password of basic authentication."),
        )
        .define(
            ConfigKey::password(BEARER_TOKEN)
                .importance(Importance::High)
                .doc("The token of bearer authentication (Authorization: Bearer <token>)."),
        )
        .define(
            s(BODY_FORMAT, Importance::Medium, "json: each record's value is a JSON value (text \
               values as JSON strings, a Connect envelope as its payload); string: values are \
               sent as they are.")
            .default_value("json")
            .ensure(ValidString::one_of(["json", "string"]).ignore_case()),
        )
        .define(int(BATCH_MAX_SIZE, 1, 1, "Most records in one request. 1 sends each record's \
             value alone as the body; more joins the values with batch.prefix, \
             batch.separator and batch.suffix (a JSON array by default)."))
        .define(s(BATCH_PREFIX, Importance::Low, "Text before the values of a batch.").default_value("["))
        .define(s(BATCH_SUFFIX, Importance::Low, "Text after the values of a batch.").default_value("]"))
        .define(
            s(BATCH_SEPARATOR, Importance::Low, "Text between the values of a batch.")
                .default_value(","),
        )
        .define(
            s(RETRY_CODES, Importance::Medium, "Response statuses retried like a connection \
               failure: codes, ranges (500-599, 500-) and classes (5xx), comma-separated. Other \
               non-2xx statuses are not retried.")
            .default_value("408,429,5xx")
            .validator(|v| v.parse::<StatusCodes>().map(|_| ())),
        )
        .define(int(MAX_RETRIES, 10, 0, "Failed attempts of one request that are retried; \
             the next failure is handled per behavior.on.error."))
        .define(int(RETRY_BACKOFF_MS, 3000, 0, "How long put waits after a failed attempt \
             before it hands the records back to the worker to deliver again (at most a \
             quarter of wasm.call.timeout.ms); the worker adds its own errors.retry back-off."))
        .define(
            s(BEHAVIOR_ON_ERROR, Importance::Medium, "What happens to the records of a request \
               that failed for good: fail (they are failed records: with errors.tolerance=none \
               the task fails, with all they are skipped or go to the dead letter queue), log \
               (logged and skipped) or ignore (skipped).")
            .default_value("fail")
            .ensure(ValidString::one_of(["fail", "log", "ignore"]).ignore_case()),
        )
        .define(int(CONNECT_TIMEOUT_MS, 2000, 1, "How long to wait for a connection \
             (TLS handshake included)."))
        .define(int(REQUEST_TIMEOUT_MS, 5000, 1, "How long to wait for the response to \
             begin, and then between its parts. Keep connect plus request timeouts and the \
             back-off below wasm.call.timeout.ms (10 s by default)."))
        .define(s(TRUSTSTORE_LOCATION, Importance::Medium, "A trust store file (PEM or PKCS12) with the CA certificates an https:// endpoint must chain to; \
             without one the system's roots are trusted. Read by the worker, which does TLS."))
        .define(s(TRUSTSTORE_TYPE, Importance::Low, "PEM or PKCS12; detected from the file \
             when absent."))
        .define(
            ConfigKey::password(TRUSTSTORE_PASSWORD)
                .importance(Importance::Low)
                .doc("The password of a PKCS12 trust store."),
        )
        .define(s(TRUSTSTORE_CERTIFICATES, Importance::Low, "CA certificates as PEM text, \
             instead of https.ssl.truststore.location (with https.ssl.truststore.type=PEM)."))
        .define(s(KEYSTORE_LOCATION, Importance::Low, "A key store (PEM or PKCS12) whose \
             certificate and key the worker presents when the endpoint asks for one."))
        .define(
            ConfigKey::password(KEYSTORE_PASSWORD)
                .importance(Importance::Low)
                .doc("The password of the key store."),
        )
        .define(s(ENDPOINT_IDENTIFICATION, Importance::Low, "https (default) checks that the \
             endpoint's certificate names its host; empty skips that check (the chain is \
             still verified)."))
        .define(
            ConfigKey::list(TOPICS)
                .importance(Importance::High)
                .doc("The topics to consume, comma-separated."),
        )
}
