//! Serving the REST API on one listener: plain HTTP for `http://` listeners, TLS (rustls
//! with the ring provider) for `https://` ones, both through [`Connections`] (the
//! connection limits, timeouts and graceful shutdown).
//!
//! HTTPS takes a rustls server config the caller built from the worker's HTTPS listener
//! settings (Kafka Connect's `listeners.https.ssl.*`, else `ssl.*`: the keystore, and the
//! trust store that checks client certificates under `ssl.client.auth`); this module reads
//! no key or certificate file. It offers HTTP/1.1 over TLS. TLS handshakes run in each
//! connection's task, so a slow client does not hold up the accept loop, and each is
//! bounded by `rest.header.read.timeout.ms`. The empty host (`http://:8083`) listens on
//! every interface.

use std::future::Future;
use std::io;
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;

use axum::Router;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tokio_rustls::TlsAcceptor;

use super::connections::Connections;
use crate::config::{Listener, Scheme};

/// Why a listener could not start.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// An `https://` listener without a TLS server config.
    #[error("{listener}: an https:// listener needs a keystore (listeners.https.ssl.keystore.*)")]
    NoTls {
        /// The listener.
        listener: String,
    },
    /// The address cannot be bound.
    #[error("cannot listen on {listener}: {source}")]
    Bind {
        /// The listener.
        listener: String,
        /// The I/O error.
        source: io::Error,
    },
}

/// A TLS acceptor for `config`, offering HTTP/1.1 (whatever protocols `config` names).
fn acceptor(config: &rustls::ServerConfig) -> TlsAcceptor {
    let mut config = config.clone();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    TlsAcceptor::from(Arc::new(config))
}

/// Binds `listener` (port 0 picks a free one) and serves `router` on it until `shutdown`
/// completes, then stops accepting and lets open requests finish. `tls` is needed for an
/// `https://` listener and unused for an `http://` one; `connections` holds the limits and
/// counts the connections of every listener. Returns the bound address and the serving
/// task, which ends when the last connection has closed.
pub async fn serve(
    listener: &Listener,
    router: Router,
    tls: Option<&rustls::ServerConfig>,
    connections: Connections,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(SocketAddr, JoinHandle<io::Result<()>>), ServeError> {
    let acceptor = match listener.scheme {
        Scheme::Http => None,
        Scheme::Https => {
            let config = tls.ok_or_else(|| ServeError::NoTls { listener: listener.to_string() })?;
            Some(acceptor(config))
        }
    };
    let bind_error = |source| ServeError::Bind { listener: listener.to_string(), source };
    let tcp = bind(listener).await.map_err(bind_error)?;
    let addr = tcp.local_addr().map_err(bind_error)?;
    let task = tokio::spawn(connections.run(tcp, acceptor, router, shutdown));
    tracing::info!(listener = %listener, address = %addr, "REST listener started");
    Ok((addr, task))
}

/// The empty host is every interface: IPv6 and IPv4 where the system allows it, else IPv4.
async fn bind(listener: &Listener) -> io::Result<TcpListener> {
    if !listener.host.is_empty() {
        return TcpListener::bind((listener.host.as_str(), listener.port)).await;
    }
    match TcpListener::bind((Ipv6Addr::UNSPECIFIED, listener.port)).await {
        Ok(tcp) => Ok(tcp),
        Err(_) => TcpListener::bind((Ipv4Addr::UNSPECIFIED, listener.port)).await,
    }
}

#[cfg(test)]
#[path = "tls_tests.rs"]
mod tests;
