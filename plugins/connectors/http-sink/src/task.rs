//! [`HttpSinkTask`]: sends each `put`'s records in requests of at most `batch.max.size`,
//! in order, and decides what a failed request means.
//!
//! A request that cannot be sent, times out, or gets a status of `retry.on.status.codes`
//! makes `put` wait `retry.backoff.ms` and fail retriably: the worker delivers the same
//! records again, and the requests this task already had accepted for them are skipped
//! (it remembers how far the pending batch got). After `max.retries` failed attempts of
//! one request, or at once for another non-2xx status or a request the sandbox refused,
//! the request's records are handled per `behavior.on.error`. Redirects (301, 302, 303,
//! 307, 308) are followed up to [`MAX_REDIRECTS`] times with the same method and body;
//! the worker refuses any that leaves the granted origin.
//!
//! Every request is answered before `put` returns, so `pre-commit` commits what it is
//! given.

use wasm_connect_sdk::{Config, Error, RecordFailure, Result, SinkRecord, SinkTask, info, warn};

use crate::body;
use crate::config::{Auth, OnError, Settings};
use crate::transport::{self, Failure, Request, Response, Transport};

/// Redirects followed for one request.
pub const MAX_REDIRECTS: usize = 3;

/// The task; no settings until `start`.
pub struct HttpSinkTask {
    settings: Option<Settings>,
    /// Headers of every request: `headers`, the content type and authentication.
    headers: Vec<(String, String)>,
    transport: Box<dyn Transport>,
    /// How far the batch that failed retriably got.
    pending: Option<Pending>,
}

impl Default for HttpSinkTask {
    fn default() -> Self {
        Self::with_transport(transport::default_transport())
    }
}

/// A batch being delivered again: its identity, the records already accepted, and the
/// failed attempts of the next request.
#[derive(Debug, PartialEq, Eq)]
struct Pending {
    key: BatchKey,
    sent: usize,
    attempts: u32,
}

/// What tells a redelivered batch from a new one.
#[derive(Debug, PartialEq, Eq)]
struct BatchKey {
    topic: String,
    partition: Option<i32>,
    offset: Option<i64>,
    len: usize,
}

impl BatchKey {
    fn of(records: &[SinkRecord]) -> Self {
        let first = &records[0];
        Self {
            topic: first.topic.clone(),
            partition: first.partition,
            offset: first.offset,
            len: records.len(),
        }
    }
}

/// Why one request failed.
enum Failed {
    /// Worth another attempt.
    Retriable(String),
    /// Not worth one.
    Final(String),
}

impl HttpSinkTask {
    /// A task sending through `transport` (tests bring their own).
    pub fn with_transport(transport: Box<dyn Transport>) -> Self {
        Self { settings: None, headers: Vec::new(), transport, pending: None }
    }

    fn settings(&self) -> Result<&Settings> {
        self.settings.as_ref().ok_or_else(|| Error::fatal("HttpSinkTask used before start"))
    }

    /// Sends one request for `records`, following redirects.
    fn send(&mut self, records: &[SinkRecord]) -> std::result::Result<(), Failed> {
        let settings = self.settings.as_ref().expect("started");
        let body = body::body(records, settings);
        let mut url = settings.url.clone();
        for _ in 0..=MAX_REDIRECTS {
            let request = Request {
                method: &settings.method,
                url: &url,
                headers: &self.headers,
                body: &body,
                connect_timeout: settings.connect_timeout,
                request_timeout: settings.request_timeout,
            };
            let Response { status, location, body: answer } =
                self.transport.send(&request).map_err(|f| match f {
                    Failure::Unreachable(_) | Failure::Timeout(_) => {
                        Failed::Retriable(format!("{url}: {f}"))
                    }
                    Failure::Denied(_) | Failure::Invalid(_) => {
                        Failed::Final(format!("{url}: {f}"))
                    }
                })?;
            match status {
                200..=299 => return Ok(()),
                301 | 302 | 303 | 307 | 308 if location.is_some() => {
                    let location = location.unwrap_or_default();
                    url = url.join(&location).map_err(|e| {
                        Failed::Final(format!("{url}: redirect to {location:?}: {e}"))
                    })?;
                }
                s => {
                    let message = format!("{url}: HTTP {s}: {}", answer.trim());
                    return Err(if settings.retry_codes.contains(s) {
                        Failed::Retriable(message)
                    } else {
                        Failed::Final(message)
                    });
                }
            }
        }
        Err(Failed::Final(format!("more than {MAX_REDIRECTS} redirects from {}", settings.url)))
    }

    /// Handles the records `range` of `records` that failed for good.
    fn give_up(
        &self,
        records: &[SinkRecord],
        range: std::ops::Range<usize>,
        reason: &str,
        failures: &mut Vec<RecordFailure>,
    ) {
        let on_error = self.settings.as_ref().map_or(OnError::Fail, |s| s.on_error);
        match on_error {
            OnError::Fail => failures.extend(range.map(|i| RecordFailure::new(i, reason))),
            OnError::Log => {
                for r in &records[range] {
                    warn!(
                        "Skipping the record {}-{}@{}: {reason}",
                        r.topic,
                        r.partition.unwrap_or(-1),
                        r.offset.unwrap_or(-1)
                    );
                }
            }
            OnError::Ignore => {}
        }
    }
}

/// The `Authorization` header of `auth`, if any.
fn authorization(auth: &Auth) -> Option<String> {
    match auth {
        Auth::None => None,
        Auth::Basic { user, password } => {
            Some(format!("Basic {}", base64(format!("{user}:{password}").as_bytes())))
        }
        Auth::Bearer { token } => Some(format!("Bearer {token}")),
    }
}

/// Standard base64 with padding (RFC 4648), for basic authentication.
fn base64(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

impl SinkTask for HttpSinkTask {
    fn start(&mut self, config: Config) -> Result<()> {
        let settings = Settings::parse(&config)?;
        let mut headers = settings.headers.clone();
        let has = |h: &[(String, String)], name: &str| {
            h.iter().any(|(k, _)| k.eq_ignore_ascii_case(name))
        };
        if !has(&headers, "content-type") {
            let ty =
                if settings.json_body { "application/json" } else { "text/plain; charset=utf-8" };
            headers.push(("Content-Type".into(), ty.into()));
        }
        if let Some(value) = authorization(&settings.auth) {
            headers.retain(|(k, _)| !k.eq_ignore_ascii_case("authorization"));
            headers.push(("Authorization".into(), value));
        }
        info!(
            "Sending records to {} ({} requests of at most {} records)",
            settings.url, settings.method, settings.batch_max_size
        );
        self.headers = headers;
        self.settings = Some(settings);
        Ok(())
    }

    fn put(&mut self, records: &[SinkRecord]) -> Result<Vec<RecordFailure>> {
        let batch = self.settings()?.batch_max_size;
        if records.is_empty() {
            return Ok(Vec::new());
        }
        let key = BatchKey::of(records);
        let mut pending = match self.pending.take() {
            Some(p) if p.key == key => p,
            _ => Pending { key, sent: 0, attempts: 0 },
        };
        let mut failures = Vec::new();
        while pending.sent < records.len() {
            let range = pending.sent..(pending.sent + batch).min(records.len());
            match self.send(&records[range.clone()]) {
                Ok(()) => {}
                Err(Failed::Retriable(reason)) => {
                    let settings = self.settings()?;
                    if pending.attempts < settings.max_retries {
                        pending.attempts += 1;
                        let (attempt, backoff) = (pending.attempts, settings.retry_backoff);
                        self.pending = Some(pending);
                        self.transport.sleep(backoff);
                        return Err(Error::retriable(format!(
                            "{reason} (attempt {attempt}, retrying)"
                        )));
                    }
                    let reason = format!("{reason} (after {} retries)", settings.max_retries);
                    self.give_up(records, range.clone(), &reason, &mut failures);
                }
                Err(Failed::Final(reason)) => {
                    self.give_up(records, range.clone(), &reason, &mut failures)
                }
            }
            pending.sent = range.end;
            pending.attempts = 0;
        }
        Ok(failures)
    }

    fn stop(&mut self) {
        self.pending = None;
    }
}

#[cfg(test)]
mod tests {
    use super::base64;

    #[test]
    fn base64_pads_as_rfc_4648() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"user:pass"), "dXNlcjpwYXNz");
    }
}
