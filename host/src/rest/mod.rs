//! The REST API, compatible with Kafka Connect 4.x: same paths, query parameters, status
//! codes and JSON bodies, so existing tools work.
//!
//! REST only wraps the herder: handlers parse, call the [`HerderHandle`] and map the
//! answer; no handler holds state. Errors always have the body
//! `{"error_code": <status>, "message": "..."}`, malformed input is a 400 that names the
//! problem, every request is logged with method, path, status and duration, bodies over
//! 1 MiB are refused, connections are bounded in number and in time (`connections`,
//! `activity`: `rest.max.connections`, `rest.header.read.timeout.ms`,
//! `rest.idle.timeout.ms`), and every herder call that waits on the herder's loop is bounded by
//! the request timeout ([`RestState::within`]; `/health` by its own 10 s, as Kafka
//! Connect's).
//!
//! In distributed mode a request the herder says another worker must execute is forwarded
//! to it (`forward`, a middleware), and the inter-worker endpoints (`internal`) verify
//! request signatures against the [`KeyRing`].
//!
//! Connector lists are rendered once per snapshot of the herder and shared by concurrent
//! requests (`listing`).
//!
//! Layout: `connectors` (with `listing`, the bodies of connector lists), `plugins` (the keys a
//! definition shows come from the herder; with `peer_plugins`, the leader asking the other
//! workers for theirs in validate), `offsets`, `topics`, `loggers`,
//! `metrics`, `root`, `openapi`, `internal`, `catalog` (one file per resource), `ui` (the
//! web dashboard at `/ui`, embedded files), `forward` (forwarding
//! between workers), `auth` (basic authentication), `tls` (listeners), `connections` (the
//! accept loop, the cap on open connections, one task per connection), `activity` (each
//! connection's header-read and idle timeouts), `dto` (bodies),
//! `extract` (extractors with [`ApiError`] rejections), `error`.

mod activity;
pub mod auth;
mod catalog;
mod connections;
mod connectors;
mod dto;
mod error;
mod extract;
mod forward;
#[cfg(test)]
mod harness;
mod internal;
mod listing;
mod loggers;
mod metrics;
mod offsets;
mod openapi;
mod peer_plugins;
mod plugins;
mod root;
pub mod tls;
mod topics;
mod ui;

use std::future::Future;
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::{DefaultBodyLimit, MatchedPath, Request};
use axum::middleware::{self, Next};
use axum::response::Response;

pub use connections::Connections;
pub use error::ApiError;
pub use internal::InternalRequests;

use crate::cluster::{InterWorkerClient, KeyRing};
use crate::herder::{HerderError, HerderHandle};

/// The largest request body accepted.
pub const MAX_BODY: usize = 1 << 20;

/// What every handler gets.
#[derive(Clone)]
pub struct RestState {
    /// The herder.
    pub herder: HerderHandle,
    /// The Kafka cluster id, when the worker uses Kafka.
    pub kafka_cluster_id: Option<String>,
    /// How long a request may wait for the herder.
    pub request_timeout: Duration,
    /// The Prometheus recorder (`/metrics`), when this process installed it.
    pub metrics: Option<metrics_exporter_prometheus::PrometheusHandle>,
    /// Sends requests this worker cannot execute on to the worker that can.
    pub client: InterWorkerClient,
    /// The current session key (the herder sets it), which internal requests are verified
    /// against.
    pub keyring: KeyRing,
    /// How the internal endpoints answer: refused in standalone mode, signed in distributed
    /// mode.
    pub internal: InternalRequests,
}

impl RestState {
    /// Awaits a herder call within the request timeout (500 `Request timed out` after it).
    pub async fn within<T>(
        &self,
        f: impl Future<Output = Result<T, HerderError>>,
    ) -> Result<T, ApiError> {
        match tokio::time::timeout(self.request_timeout, f).await {
            Ok(r) => r.map_err(ApiError::from),
            Err(_) => Err(ApiError::new(
                axum::http::StatusCode::INTERNAL_SERVER_ERROR,
                "Request timed out",
            )),
        }
    }
}

/// The whole API. Every path also answers with one trailing slash, as Kafka Connect's
/// (JAX-RS) routes do: `/connectors/` is `/connectors`.
pub fn router(state: RestState) -> Router {
    let api = routes(state);
    Router::new().fallback_service(tower::util::MapRequest::new(api, trim_trailing_slash))
}

/// `req` with one trailing slash taken off its path (`/` itself stays), query kept.
fn trim_trailing_slash(mut req: Request) -> Request {
    let uri = req.uri();
    let path = uri.path();
    if path.len() > 1
        && let Some(trimmed) = path.strip_suffix('/')
    {
        let rebuilt = match uri.query() {
            Some(q) => format!("{trimmed}?{q}"),
            None => trimmed.to_owned(),
        };
        let mut parts = uri.clone().into_parts();
        if let Ok(pq) = rebuilt.parse() {
            parts.path_and_query = Some(pq);
            if let Ok(uri) = axum::http::Uri::from_parts(parts) {
                *req.uri_mut() = uri;
            }
        }
    }
    req
}

fn routes(state: RestState) -> Router {
    Router::new()
        .merge(root::routes())
        .merge(connectors::routes())
        .merge(plugins::routes())
        .merge(topics::routes())
        .merge(offsets::routes())
        .merge(openapi::routes())
        .merge(loggers::routes())
        .merge(metrics::routes())
        .merge(internal::routes())
        .merge(catalog::routes())
        .merge(ui::routes())
        .fallback(|| async { ApiError::not_found("HTTP 404 Not Found") })
        .method_not_allowed_fallback(|| async {
            ApiError::new(axum::http::StatusCode::METHOD_NOT_ALLOWED, "HTTP 405 Method Not Allowed")
        })
        // Inside the body limit, which it reads the body under.
        .layer(middleware::from_fn_with_state(state.client.clone(), forward::layer))
        .layer(axum::Extension(std::sync::Arc::new(listing::Listings::default())))
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .layer(middleware::from_fn(log_request))
        .with_state(state)
}

async fn log_request(req: Request, next: Next) -> Response {
    let method = req.method().clone();
    let path = req.extensions().get::<MatchedPath>().map(|p| p.as_str().to_owned());
    let uri = req.uri().path().to_owned();
    let started = Instant::now();
    let response = next.run(req).await;
    tracing::info!(
        target: "rest",
        method = %method,
        path = %uri,
        route = path.as_deref().unwrap_or("-"),
        status = response.status().as_u16(),
        duration_ms = started.elapsed().as_secs_f64() * 1e3,
        "Request"
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trimmed(uri: &str) -> String {
        let req = Request::builder().uri(uri).body(axum::body::Body::empty()).unwrap();
        trim_trailing_slash(req).uri().to_string()
    }

    #[test]
    fn one_trailing_slash_is_trimmed_and_the_query_kept() {
        assert_eq!(trimmed("/connectors/"), "/connectors");
        assert_eq!(trimmed("/connectors/c/?expand=status"), "/connectors/c?expand=status");
        assert_eq!(trimmed("/connectors"), "/connectors");
        assert_eq!(trimmed("/"), "/");
        assert_eq!(trimmed("/connectors//"), "/connectors/");
    }
}
