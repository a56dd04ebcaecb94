//! The REST listeners' connections: the accept loop of each listener, the cap on open
//! connections over all of them (`rest.max.connections`), and one task per connection
//! that serves HTTP/1.1 on it (TLS first, for `https://` listeners) under its timeouts
//! (`activity`).
//!
//! At the cap, a listener stops accepting: further connections wait in the kernel's listen
//! backlog (as Jetty's `ConnectionLimit` does) until a connection closes, which the
//! timeouts guarantee for clients that send nothing. Reaching the cap is logged once per
//! episode, and its end once, with the number of connections that had to wait, never a
//! line per connection. On shutdown a listener stops accepting, connections between
//! requests (or in a request's head, or a TLS handshake) close, and requests being handled
//! finish.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, watch};
use tokio::time::Instant;
use tokio_rustls::TlsAcceptor;
use tower::ServiceExt;

use super::activity::{Activity, Watched, WatchedBody};
use crate::config::RestLimits;

/// The connection limits and the open connections of every listener. Cheap to clone;
/// clones share the count.
#[derive(Clone)]
pub struct Connections {
    limits: RestLimits,
    slots: Arc<Semaphore>,
    episode: Arc<Mutex<Option<Episode>>>,
}

/// A time at the cap: since when, and how many connections waited.
struct Episode {
    since: Instant,
    waited: u64,
}

impl Connections {
    /// No connection open yet.
    pub fn new(limits: RestLimits) -> Self {
        Self {
            limits,
            slots: Arc::new(Semaphore::new(limits.max_connections)),
            episode: Arc::default(),
        }
    }

    fn episode(&self) -> std::sync::MutexGuard<'_, Option<Episode>> {
        self.episode.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A slot for the next connection, waiting for one at the cap.
    async fn slot(&self) -> OwnedSemaphorePermit {
        if let Ok(permit) = self.slots.clone().try_acquire_owned() {
            if let Some(ended) = self.episode().take() {
                tracing::info!(
                    waited = ended.waited,
                    duration_ms = ended.since.elapsed().as_millis() as u64,
                    "REST connections are below rest.max.connections again"
                );
            }
            return permit;
        }
        {
            let mut episode = self.episode();
            match episode.as_mut() {
                Some(e) => e.waited += 1,
                None => {
                    tracing::warn!(
                        max_connections = self.limits.max_connections,
                        "REST connections reached rest.max.connections: new connections wait \
                         in the listen backlog until one closes"
                    );
                    *episode = Some(Episode { since: Instant::now(), waited: 1 });
                }
            }
        }
        self.slots.clone().acquire_owned().await.expect("the semaphore is never closed")
    }

    /// Accepts connections on `tcp` (TLS through `tls` when given) and serves `router` on
    /// each until `shutdown` completes; then waits for the open connections to finish.
    pub async fn run(
        self,
        tcp: TcpListener,
        tls: Option<TlsAcceptor>,
        router: Router,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> io::Result<()> {
        // Dropping the receiver is the signal; connections watch the sender.
        let (signal_tx, signal_rx) = watch::channel(());
        tokio::spawn(async move {
            shutdown.await;
            drop(signal_rx);
        });
        // Every connection holds a receiver: the sender sees them all gone.
        let (close_tx, close_rx) = watch::channel(());
        loop {
            let slot = tokio::select! {
                slot = self.slot() => slot,
                _ = signal_tx.closed() => break,
            };
            let (stream, peer) = tokio::select! {
                accepted = tcp.accept() => match accepted {
                    Ok(accepted) => accepted,
                    Err(error) => {
                        accept_failed(error).await;
                        continue;
                    }
                },
                _ = signal_tx.closed() => break,
            };
            let connection = Connection {
                limits: self.limits,
                router: router.clone(),
                signal: signal_tx.clone(),
                _slot: slot,
                _open: close_rx.clone(),
            };
            tokio::spawn(connection.run(stream, peer, tls.clone()));
        }
        drop(close_rx);
        drop(tcp);
        close_tx.closed().await;
        Ok(())
    }
}

/// One accepted connection, holding its slot until it ends.
struct Connection {
    limits: RestLimits,
    router: Router,
    /// Closed when the listener shuts down.
    signal: watch::Sender<()>,
    _slot: OwnedSemaphorePermit,
    _open: watch::Receiver<()>,
}

impl Connection {
    async fn run(self, stream: TcpStream, peer: SocketAddr, tls: Option<TlsAcceptor>) {
        let activity = Activity::new(self.limits);
        let stream = Watched::new(stream, activity.clone());
        match tls {
            None => self.serve(stream, activity, peer).await,
            Some(acceptor) => {
                // The handshake counts against the first request's head; shutdown ends it.
                let handshake = acceptor.accept(stream);
                let bounded = tokio::time::timeout(self.limits.header_read_timeout, handshake);
                let outcome = tokio::select! {
                    outcome = bounded => outcome,
                    _ = self.signal.closed() => return,
                };
                match outcome {
                    Ok(Ok(stream)) => self.serve(stream, activity, peer).await,
                    Ok(Err(error)) => {
                        tracing::debug!(peer = %peer, error = %error, "TLS handshake failed");
                    }
                    Err(_) => tracing::debug!(
                        peer = %peer,
                        "TLS handshake took longer than rest.header.read.timeout.ms"
                    ),
                }
            }
        }
    }

    async fn serve<T>(self, io: T, activity: Activity, peer: SocketAddr)
    where
        T: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        let router = self.router.clone();
        let watch = activity.clone();
        let service = hyper::service::service_fn(move |req: hyper::Request<Incoming>| {
            let handling = watch.request();
            let req = req.map(|body| Body::new(WatchedBody::new(body, watch.clone())));
            let router = router.clone();
            async move {
                let response = router.oneshot(req).await;
                drop(handling);
                response
            }
        });
        let conn =
            hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(io), service);
        let mut conn = std::pin::pin!(conn);
        let mut signalled = false;
        loop {
            tokio::select! {
                result = conn.as_mut() => {
                    if let Err(error) = result {
                        tracing::trace!(peer = %peer, error = %error, "REST connection ended");
                    }
                    return;
                }
                _ = self.signal.closed(), if !signalled => {
                    // A connection in a request's head (or before its first byte) closes
                    // now: hyper would wait for the head. Otherwise hyper closes it when
                    // idle, or once the request being handled is answered.
                    if activity.in_head() {
                        return;
                    }
                    signalled = true;
                    conn.as_mut().graceful_shutdown();
                }
                expiry = activity.expired() => {
                    tracing::debug!(peer = %peer, reason = expiry.reason(), "Closing a REST connection");
                    return;
                }
            }
        }
    }
}

/// As `axum::serve` does: a failed connection is skipped; any other error (out of file
/// descriptors) is logged and retried after a second.
async fn accept_failed(error: io::Error) {
    use io::ErrorKind::{ConnectionAborted, ConnectionRefused, ConnectionReset};
    if !matches!(error.kind(), ConnectionRefused | ConnectionAborted | ConnectionReset) {
        tracing::error!(error = %error, "Cannot accept a REST connection");
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

#[cfg(test)]
#[path = "connections_tests.rs"]
mod tests;
