//! Serving the REST API on one listener: plain HTTP for `http://` listeners, TLS (rustls
//! with the ring provider) for `https://` ones, both through `axum::serve` with its
//! graceful shutdown.
//!
//! HTTPS takes a rustls server config the caller built from the worker's HTTPS listener
//! settings (Kafka Connect's `listeners.https.ssl.*`, else `ssl.*`: the keystore, and the
//! trust store that checks client certificates under `ssl.client.auth`); this module reads
//! no key or certificate file. It offers HTTP/1.1 over TLS. TLS handshakes run in tasks of
//! their own, so a slow client does not hold up the accept loop, and each is bounded by
//! [`HANDSHAKE_TIMEOUT`]. The empty host (`http://:8083`) listens on every interface.

use std::future::Future;
use std::io;
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use tokio::net::{TcpListener, TcpStream};
use tokio::task::{JoinHandle, JoinSet};
use tokio_rustls::TlsAcceptor;
use tokio_rustls::server::TlsStream;

use crate::config::{Listener, Scheme};

/// How long a client may take over its TLS handshake. Long enough for a slow network
/// round trip or two, short enough that half-open connections do not pile up.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

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
/// `https://` listener and unused for an `http://` one. Returns the bound address and the
/// serving task, which ends when the last connection has closed.
pub async fn serve(
    listener: &Listener,
    router: Router,
    tls: Option<&rustls::ServerConfig>,
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
    let task = match acceptor {
        None => {
            tokio::spawn(axum::serve(tcp, router).with_graceful_shutdown(shutdown).into_future())
        }
        Some(acceptor) => {
            let tls = TlsListener { tcp, acceptor, handshakes: JoinSet::new() };
            tokio::spawn(axum::serve(tls, router).with_graceful_shutdown(shutdown).into_future())
        }
    };
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

/// TCP connections that have completed a TLS handshake.
struct TlsListener {
    tcp: TcpListener,
    acceptor: TlsAcceptor,
    /// Handshakes under way; dropped (and so aborted) with the listener.
    handshakes: JoinSet<Option<(TlsStream<TcpStream>, SocketAddr)>>,
}

impl axum::serve::Listener for TlsListener {
    type Io = TlsStream<TcpStream>;
    type Addr = SocketAddr;

    /// Cancel-safe: the accept and the join are, and a spawned handshake stays in the set.
    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        loop {
            tokio::select! {
                accepted = self.tcp.accept() => match accepted {
                    Ok((stream, peer)) => {
                        let handshake = self.acceptor.accept(stream);
                        self.handshakes.spawn(async move {
                            match tokio::time::timeout(HANDSHAKE_TIMEOUT, handshake).await {
                                Ok(Ok(stream)) => Some((stream, peer)),
                                Ok(Err(error)) => {
                                    tracing::debug!(peer = %peer, error = %error, "TLS handshake failed");
                                    None
                                }
                                Err(_) => None,
                            }
                        });
                    }
                    Err(error) => accept_failed(error).await,
                },
                // Not `Some(Ok(Some(..)))`: a failed handshake would disable this branch
                // until the next TCP connection, stalling the handshakes that succeed.
                Some(joined) = self.handshakes.join_next() => {
                    if let Ok(Some(connection)) = joined {
                        return connection;
                    }
                }
            }
        }
    }

    fn local_addr(&self) -> io::Result<SocketAddr> {
        self.tcp.local_addr()
    }
}

/// As `axum::serve` does for TCP: a failed connection is skipped; any other error (out of
/// file descriptors) is logged and retried after a second.
async fn accept_failed(error: io::Error) {
    use io::ErrorKind::{ConnectionAborted, ConnectionRefused, ConnectionReset};
    if !matches!(error.kind(), ConnectionRefused | ConnectionAborted | ConnectionReset) {
        tracing::error!(error = %error, "Cannot accept a REST connection");
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

#[cfg(test)]
#[path = "tls_tests.rs"]
mod tests;
