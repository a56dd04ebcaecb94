//! [`RegistrySettings`]: a Schema Registry converter's keys (prefix stripped), read with
//! Confluent's names and defaults. Every key must be one the registry client, the format
//! or the TLS settings read: an unknown key is an error. Secrets (`basic.auth.user.info`,
//! `bearer.auth.token`, passwords in a URL, store passwords) never appear in an error.

use std::collections::BTreeMap;
use std::time::Duration;

use wasm_connect_formats::SchemaType;
use wasm_connect_registry::{Auth, RegistryConfig, Retry};

use super::subject::SubjectStrategy;
use crate::config::security::{SSL_KEYS, SslSettings};
use crate::worker::convert::ConvertError;

/// The keys of the registry client and the subjects, without the format's and the TLS ones.
pub const KEYS: &[&str] = &[
    "schema.registry.url",
    "auto.register.schemas",
    "use.latest.version",
    "latest.compatibility.strict",
    "key.subject.name.strategy",
    "value.subject.name.strategy",
    "basic.auth.credentials.source",
    "basic.auth.user.info",
    "schema.registry.basic.auth.user.info",
    "bearer.auth.credentials.source",
    "bearer.auth.token",
    "schemas.cache.config",
    "max.retries",
    "retries.wait.ms",
    "retries.max.wait.ms",
    "http.connect.timeout.ms",
    "http.read.timeout.ms",
];

/// The prefix of the registry client's TLS keys (`schema.registry.ssl.truststore.location`).
const SSL_PREFIX: &str = "schema.registry.";

/// What a registry converter is configured with.
#[derive(Debug)]
pub struct RegistrySettings {
    /// The client's configuration.
    pub client: RegistryConfig,
    /// `auto.register.schemas` (true): register a schema not yet under its subject.
    pub auto_register: bool,
    /// `use.latest.version` (false): write with the subject's latest schema.
    pub use_latest: bool,
    /// `latest.compatibility.strict` (true): the latest schema must be able to write the
    /// records' schema.
    pub latest_strict: bool,
    /// The subject naming of this converter's side.
    pub strategy: SubjectStrategy,
    /// `schemas.cache.config` (1000): the cached schemas' bound.
    pub cache_size: usize,
}

/// Reads `values` of a converter of `schema_type` configured under `prefix`
/// (`key.converter` or `value.converter`).
pub fn read(
    schema_type: SchemaType,
    prefix: &str,
    values: &BTreeMap<&str, &str>,
) -> Result<RegistrySettings, ConvertError> {
    let r = Reader { prefix, values };
    let format_keys = wasm_connect_formats::keys(schema_type);
    for (name, value) in values {
        let ssl = name.strip_prefix(SSL_PREFIX).is_some_and(|k| SSL_KEYS.contains(&k));
        if !(KEYS.contains(name) || format_keys.contains(name) || ssl) {
            return Err(r.invalid(name, "Unknown configuration for this converter", value));
        }
    }
    let Some(urls) = values.get("schema.registry.url") else {
        return Err(ConvertError::InvalidSetting {
            key: format!("{prefix}.schema.registry.url"),
            value: String::new(),
            expected: "Missing required configuration which has no default value".into(),
        });
    };
    let (urls, url_credentials) =
        split_urls(urls).map_err(|e| r.secret("schema.registry.url", &e))?;
    let mut client = RegistryConfig::new(urls);
    client.auth = auth(&r, url_credentials)?;
    let ssl: BTreeMap<String, String> = values
        .iter()
        .filter(|(k, _)| k.starts_with("schema.registry.ssl."))
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    if client.urls.iter().any(|u| u.trim_start().starts_with("https://")) || !ssl.is_empty() {
        let tls = SslSettings::from_props(&ssl, SSL_PREFIX)
            .and_then(|s| s.client_config())
            .map_err(|e| ConvertError::InvalidSetting {
                key: format!("{prefix}.{SSL_PREFIX}ssl"),
                value: String::new(),
                expected: e.to_string(),
            })?;
        client.tls = Some(tls);
    }
    client.retry = Retry {
        max_retries: r.count("max.retries", 3)?,
        wait: Duration::from_millis(r.count("retries.wait.ms", 1000)?.into()),
        max_wait: Duration::from_millis(r.count("retries.max.wait.ms", 20_000)?.into()),
    };
    client.connect_timeout =
        Duration::from_millis(r.count("http.connect.timeout.ms", 60_000)?.into());
    client.request_timeout = Duration::from_millis(r.count("http.read.timeout.ms", 60_000)?.into());
    let key_side = prefix.starts_with("key.");
    let strategy_key =
        if key_side { "key.subject.name.strategy" } else { "value.subject.name.strategy" };
    let strategy = match values.get(strategy_key) {
        None => SubjectStrategy::Topic,
        Some(class) => SubjectStrategy::resolve(class).ok_or_else(|| {
            r.invalid(
                strategy_key,
                "Expected TopicNameStrategy, RecordNameStrategy or TopicRecordNameStrategy \
                 (io.confluent.kafka.serializers.subject.*)",
                class,
            )
        })?,
    };
    Ok(RegistrySettings {
        client,
        auto_register: r.boolean("auto.register.schemas", true)?,
        use_latest: r.boolean("use.latest.version", false)?,
        latest_strict: r.boolean("latest.compatibility.strict", true)?,
        strategy,
        cache_size: r.count("schemas.cache.config", 1000)? as usize,
    })
}

/// The comma-separated URLs, user info taken out; the first user info found.
fn split_urls(urls: &str) -> Result<(Vec<String>, Option<String>), String> {
    let mut credentials = None;
    let mut out = Vec::new();
    for url in urls.split(',').map(str::trim).filter(|u| !u.is_empty()) {
        let Some((scheme, rest)) = url.split_once("://") else {
            return Err(format!("not a URL: {}", url.rsplit('@').next().unwrap_or(url)));
        };
        let authority_end = rest.find('/').unwrap_or(rest.len());
        match rest[..authority_end].rsplit_once('@') {
            Some((user_info, host)) => {
                credentials.get_or_insert_with(|| user_info.to_owned());
                out.push(format!("{scheme}://{host}{}", &rest[authority_end..]));
            }
            None => out.push(url.to_owned()),
        }
    }
    if out.is_empty() {
        return Err("no URL given".into());
    }
    Ok((out, credentials))
}

/// The credentials the `basic.auth.*` and `bearer.auth.*` keys give.
fn auth(r: &Reader<'_>, url_credentials: Option<String>) -> Result<Auth, ConvertError> {
    let bearer = r.values.get("bearer.auth.credentials.source").map(|s| s.trim());
    match bearer {
        None => {}
        Some(s) if s.eq_ignore_ascii_case("STATIC_TOKEN") => {
            let Some(token) = r.values.get("bearer.auth.token").filter(|t| !t.is_empty()) else {
                return Err(r.secret(
                    "bearer.auth.token",
                    "bearer.auth.credentials.source=STATIC_TOKEN needs a token",
                ));
            };
            return Ok(Auth::Bearer((*token).to_owned()));
        }
        Some(s) => {
            return Err(r.invalid(
                "bearer.auth.credentials.source",
                "Only STATIC_TOKEN is supported by this worker",
                s,
            ));
        }
    }
    let user_info = |info: &str| match info.split_once(':') {
        Some((user, password)) => Ok(Auth::Basic { user: user.into(), password: password.into() }),
        None => Err(r.secret("basic.auth.user.info", "expected <user>:<password>")),
    };
    let source = r.values.get("basic.auth.credentials.source").map(|s| s.trim());
    match source {
        None | Some("URL") => match url_credentials {
            Some(info) => user_info(&percent_decode(&info)),
            None => Ok(Auth::None),
        },
        Some("USER_INFO") => {
            let info = r
                .values
                .get("basic.auth.user.info")
                .or_else(|| r.values.get("schema.registry.basic.auth.user.info"));
            match info {
                Some(info) if !info.is_empty() => user_info(info),
                _ => Err(r.secret(
                    "basic.auth.user.info",
                    "basic.auth.credentials.source=USER_INFO needs <user>:<password>",
                )),
            }
        }
        Some(other) => Err(r.invalid(
            "basic.auth.credentials.source",
            "Expected URL or USER_INFO (SASL_INHERIT is not supported by this worker)",
            other,
        )),
    }
}

/// `%XX` escapes of URL user info decoded (a password with `@` or `:` is written escaped).
fn percent_decode(text: &str) -> String {
    percent_encoding::percent_decode_str(text).decode_utf8_lossy().into_owned()
}

/// The values, for parsing with errors that name the full key.
struct Reader<'a> {
    prefix: &'a str,
    values: &'a BTreeMap<&'a str, &'a str>,
}

impl Reader<'_> {
    fn invalid(&self, name: &str, expected: &str, value: &str) -> ConvertError {
        ConvertError::InvalidSetting {
            key: format!("{}.{name}", self.prefix),
            value: value.to_owned(),
            expected: expected.to_owned(),
        }
    }

    /// An error about a key whose value is secret: the value is not shown.
    fn secret(&self, name: &str, expected: &str) -> ConvertError {
        self.invalid(name, expected, "[hidden]")
    }

    fn boolean(&self, name: &str, default: bool) -> Result<bool, ConvertError> {
        let Some(value) = self.values.get(name) else { return Ok(default) };
        match value.trim() {
            v if v.eq_ignore_ascii_case("true") => Ok(true),
            v if v.eq_ignore_ascii_case("false") => Ok(false),
            _ => Err(self.invalid(name, "Expected value to be either true or false", value)),
        }
    }

    fn count(&self, name: &str, default: u32) -> Result<u32, ConvertError> {
        let Some(value) = self.values.get(name) else { return Ok(default) };
        value.trim().parse().map_err(|_| self.invalid(name, "Expected a non-negative int", value))
    }
}

#[cfg(test)]
#[path = "settings_tests.rs"]
mod tests;
