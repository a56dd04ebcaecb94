//! [`HttpAccess`]: one instance's `wasi:http` context, and the gate every outgoing request
//! passes: its origin must be one the config granted, or the host refuses it before
//! opening anything.
//!
//! This file owns the allow-list check and the TLS configuration requests are sent with;
//! `send` does the sending. It decides nothing about retries: the guest sees each outcome.

use std::collections::{BTreeMap, BTreeSet};
use std::future::Future;
use std::sync::Arc;

use http::uri::Scheme;
use rustls::ClientConfig;
use wasmtime::component::ResourceTable;
use wasmtime_wasi_http::p2::bindings::http::types::ErrorCode;
use wasmtime_wasi_http::{
    Error, RequestOptions, WasiBody, WasiHttpCtx, WasiHttpCtxView, WasiHttpHooks,
};

use super::send;
use crate::config::security::SslSettings;

/// The prefix of the config keys that configure TLS to a granted `https://` origin
/// (`https.ssl.truststore.location`, …), as the Confluent HTTP sink names them.
pub const TLS_PREFIX: &str = "https.";

/// One instance's outgoing HTTP: the origins it may reach and how TLS is verified.
pub struct HttpAccess {
    ctx: WasiHttpCtx,
    gate: Gate,
}

/// The hooks wasmtime-wasi-http calls: the allow-list check, then [`send::send`].
struct Gate {
    /// The instance, for the log line of a refused request.
    who: String,
    /// Granted origins, `scheme://host:port`, lower case.
    origins: Arc<BTreeSet<String>>,
    /// TLS for `https` origins; `None` when no origin is granted.
    tls: Option<Arc<ClientConfig>>,
    /// Idle connections to granted origins.
    pool: send::Pool,
}

impl HttpAccess {
    /// Access that refuses every request: what an instance granted no URL gets.
    pub fn denied(who: impl Into<String>) -> Self {
        Self::new(who, BTreeSet::new(), None)
    }

    /// Access to exactly `origins` (each `scheme://host:port`), with `tls` for `https`.
    pub fn new(
        who: impl Into<String>,
        origins: BTreeSet<String>,
        tls: Option<Arc<ClientConfig>>,
    ) -> Self {
        let gate =
            Gate { who: who.into(), origins: Arc::new(origins), tls, pool: send::Pool::default() };
        Self { ctx: WasiHttpCtx::new(), gate }
    }

    /// The TLS configuration the `https.ssl.*` keys of `props` describe (trust store,
    /// key store, protocols, host-name check), or the system's roots without them. The
    /// error names the key.
    pub fn tls(props: &BTreeMap<String, String>) -> Result<Arc<ClientConfig>, (String, String)> {
        SslSettings::from_props(props, TLS_PREFIX)
            .and_then(|s| s.client_config())
            .map_err(|e| (e.key().to_owned(), e.message()))
    }

    /// The view the generated `wasi:http` host traits work on.
    pub fn view<'a>(&'a mut self, table: &'a mut ResourceTable) -> WasiHttpCtxView<'a> {
        WasiHttpCtxView { ctx: &mut self.ctx, table, hooks: &mut self.gate }
    }
}

/// The origin of a request URI, `scheme://host:port` in lower case with the scheme's
/// default port, or `None` when it has no scheme or host.
fn origin(uri: &http::Uri) -> Option<String> {
    let scheme = uri.scheme()?;
    let host = uri.host()?.to_ascii_lowercase();
    let port = uri.port_u16().or(if *scheme == Scheme::HTTPS {
        Some(443)
    } else if *scheme == Scheme::HTTP {
        Some(80)
    } else {
        None
    })?;
    Some(format!("{}://{host}:{port}", scheme.as_str().to_ascii_lowercase()))
}

type Sent = Box<
    dyn Future<
            Output = Result<
                (http::Response<WasiBody>, Box<dyn Future<Output = Result<(), Error>> + Send>),
                Error,
            >,
        > + Send,
>;

impl WasiHttpHooks for Gate {
    fn send_request(
        &mut self,
        request: http::Request<WasiBody>,
        options: Option<RequestOptions>,
        _fut: Box<dyn Future<Output = Result<(), Error>> + Send>,
    ) -> Sent {
        let origin = origin(request.uri());
        let allowed = origin.as_ref().is_some_and(|o| self.origins.contains(o));
        if !allowed {
            tracing::warn!(
                instance = %self.who,
                origin = origin.as_deref().unwrap_or("(none)"),
                "refused an HTTP request to an origin its config does not grant"
            );
            return Box::new(async { Err(Error::HttpRequestDenied) });
        }
        let tls = self.tls.clone();
        Box::new(send::send(request, options, tls, self.pool.clone()))
    }

    fn p2_error_from_connect(&mut self, err: &std::io::Error) -> ErrorCode {
        tracing::debug!(instance = %self.who, "HTTP connect error: {err}");
        ErrorCode::ConnectionRefused
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use http_body_util::{BodyExt, Empty};
    use tokio::net::TcpListener;

    use super::*;

    fn request(uri: &str) -> http::Request<WasiBody> {
        let body = Empty::<bytes::Bytes>::new().map_err(|never| match never {}).boxed_unsync();
        http::Request::post(uri).body(body).unwrap()
    }

    async fn send(access: &mut HttpAccess, uri: &str) -> Result<u16, Error> {
        let sent = access.gate.send_request(request(uri), None, Box::new(async { Ok(()) }));
        Box::into_pin(sent).await.map(|(response, _)| response.status().as_u16())
    }

    /// Whether a connection reaches `listener` within a short wait.
    async fn reached(listener: &TcpListener) -> bool {
        tokio::time::timeout(Duration::from_millis(200), listener.accept()).await.is_ok()
    }

    #[tokio::test]
    async fn only_granted_origins_are_reached() {
        let target = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = target.local_addr().unwrap().port();
        let granted = format!("http://127.0.0.1:{}", port.wrapping_add(1).max(1));
        let mut access = HttpAccess::new("t", [granted].into(), None);
        // Another port, another scheme, another host: refused before any connection.
        for uri in [
            format!("http://127.0.0.1:{port}/x"),
            format!("https://127.0.0.1:{port}/x"),
            format!("http://localhost:{port}/x"),
        ] {
            let e = send(&mut access, &uri).await.unwrap_err();
            assert!(matches!(e, Error::HttpRequestDenied), "{uri}: {e}");
        }
        assert!(!reached(&target).await, "a refused request opened a connection");
        let mut denied = HttpAccess::denied("t");
        assert!(matches!(
            send(&mut denied, "http://127.0.0.1:1/").await,
            Err(Error::HttpRequestDenied)
        ));

        // The granted origin is reached (the listener accepts; nobody answers).
        let mut access = HttpAccess::new("t", [format!("http://127.0.0.1:{port}")].into(), None);
        let pending =
            tokio::spawn(
                async move { send(&mut access, &format!("http://127.0.0.1:{port}/")).await },
            );
        assert!(reached(&target).await, "the granted origin was not reached");
        pending.abort();
    }

    fn o(uri: &str) -> Option<String> {
        origin(&uri.parse().unwrap())
    }

    #[test]
    fn origins_carry_the_scheme_default_port_in_lower_case() {
        assert_eq!(o("http://127.0.0.1:8080/x?y").as_deref(), Some("http://127.0.0.1:8080"));
        assert_eq!(o("https://API.example.com/v1").as_deref(), Some("https://api.example.com:443"));
        assert_eq!(o("HTTP://h/").as_deref(), Some("http://h:80"));
        assert_eq!(o("http://[::1]:9/").as_deref(), Some("http://[::1]:9"));
        assert_eq!(o("/relative"), None);
    }
}
