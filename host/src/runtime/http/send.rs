//! One outgoing HTTP/1.1 request, over an idle connection of the instance's [`Pool`] to the
//! same origin or a new one (TLS when the scheme is `https`), honouring the guest's request options (connect, first-byte and between-bytes
//! timeouts). Adapted from wasmtime-wasi-http's `default_send_request` (Apache-2.0), with
//! the worker's rustls configuration instead of a compiled-in root list.
//!
//! Only `access` calls this, after its allow-list check; this file checks nothing itself.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, ready};
use std::time::Duration;

use bytes::Bytes;
use http::uri::Scheme;
use http_body_util::BodyExt;
use hyper::client::conn::http1::SendRequest;
use rustls::ClientConfig;
use rustls::pki_types::ServerName;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;
use wasmtime_wasi_http::io::TokioIo;
use wasmtime_wasi_http::{Error, RequestOptions, WasiBody};

/// Timeouts the guest leaves unset: long, as the call's own deadline bounds the wait.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);

trait Stream: AsyncRead + AsyncWrite + Send + Sync + Unpin + 'static {}
impl<T> Stream for T where T: AsyncRead + AsyncWrite + Send + Sync + Unpin + 'static {}

/// The response, and a future that drives the connection until the body is read.
type Sent = (http::Response<WasiBody>, Box<dyn Future<Output = Result<(), Error>> + Send>);

/// Sends `req` (whose URI holds the scheme and authority) and awaits the response head;
/// the connection goes back to `pool` for the next request.
pub(super) async fn send(
    mut req: http::Request<WasiBody>,
    options: Option<RequestOptions>,
    tls: Option<Arc<ClientConfig>>,
    pool: Pool,
) -> Result<Sent, Error> {
    let uri = req.uri();
    let authority = uri.authority().ok_or(Error::HttpRequestUriInvalid)?;
    let use_tls = uri.scheme() == Some(&Scheme::HTTPS);
    let host = authority.host().trim_start_matches('[').trim_end_matches(']').to_owned();
    let port = authority.port_u16().unwrap_or(if use_tls { 443 } else { 80 });
    let options = options.unwrap_or_default();
    let connect_timeout = options.connect_timeout.unwrap_or(DEFAULT_TIMEOUT);
    let first_byte_timeout = options.first_byte_timeout.unwrap_or(DEFAULT_TIMEOUT);
    let between_bytes = options.between_bytes_timeout.unwrap_or(DEFAULT_TIMEOUT);

    let origin = format!("{}://{host}:{port}", if use_tls { "https" } else { "http" });
    let mut sender = match pool.take(&origin) {
        // An idle connection is ready once the previous response was read; one the
        // server closed meanwhile is not, and a new one is opened.
        Some(mut idle) => match tokio::time::timeout(connect_timeout, idle.ready()).await {
            Ok(Ok(())) => Some(idle),
            _ => None,
        },
        None => None,
    };
    if sender.is_none() {
        sender = Some(connect(&host, port, use_tls, tls, connect_timeout).await?);
    }
    let mut sender = sender.expect("set above");

    // On the wire the request line carries only the path (no proxy in between).
    let path = req.uri().path_and_query().map_or("/", |p| p.as_str()).to_owned();
    *req.uri_mut() = http::Uri::builder()
        .path_and_query(path)
        .build()
        .map_err(|_| Error::HttpRequestUriInvalid)?;

    let res = tokio::time::timeout(first_byte_timeout, sender.send_request(req))
        .await
        .map_err(|_| Error::ConnectionReadTimeout)??;
    pool.put(origin, sender);
    let mut timeout = tokio::time::interval(between_bytes.max(Duration::from_nanos(1)));
    timeout.reset();
    let res = res.map(|incoming| TimedBody { incoming, timeout }.boxed_unsync());
    // The connection is driven by its own task (see `connect`).
    Ok((res, Box::new(async { Ok(()) })))
}

/// A new HTTP/1.1 connection to `host:port`, TLS when `use_tls`; its I/O runs in a task
/// of its own, which ends when the connection closes.
async fn connect(
    host: &str,
    port: u16,
    use_tls: bool,
    tls: Option<Arc<ClientConfig>>,
    connect_timeout: Duration,
) -> Result<SendRequest<WasiBody>, Error> {
    let tcp = tokio::time::timeout(connect_timeout, TcpStream::connect((host, port)))
        .await
        .map_err(|_| Error::ConnectionTimeout)?
        .map_err(Error::Connect)?;
    let _ = tcp.set_nodelay(true);
    let stream: Box<dyn Stream> = if use_tls {
        let config = tls.ok_or(Error::TlsProtocolError)?;
        let name =
            ServerName::try_from(host.to_owned()).map_err(|_| Error::HttpRequestUriInvalid)?;
        let tls = tokio_rustls::TlsConnector::from(config).connect(name, tcp);
        let tls = tokio::time::timeout(connect_timeout, tls)
            .await
            .map_err(|_| Error::ConnectionTimeout)?
            .map_err(Error::Tls)?;
        Box::new(tls)
    } else {
        Box::new(tcp)
    };
    let (sender, conn) = tokio::time::timeout(
        connect_timeout,
        hyper::client::conn::http1::Builder::new().handshake(TokioIo::new(stream)),
    )
    .await
    .map_err(|_| Error::ConnectionTimeout)??;
    tokio::spawn(async move {
        if let Err(e) = conn.await {
            tracing::debug!("HTTP connection ended: {e}");
        }
    });
    Ok(sender)
}

/// Idle connections of one instance, by origin (`scheme://host:port`), kept for the next
/// request (HTTP/1.1 keep-alive). Only origins the gate allowed ever get here.
#[derive(Clone, Default)]
pub(super) struct Pool(Arc<Mutex<Idle>>);

/// Idle connections, each with its origin.
type Idle = Vec<(String, SendRequest<WasiBody>)>;

/// Idle connections one instance keeps.
const MAX_IDLE: usize = 4;

impl Pool {
    fn take(&self, origin: &str) -> Option<SendRequest<WasiBody>> {
        let mut idle = self.0.lock().unwrap_or_else(|e| e.into_inner());
        while let Some(i) = idle.iter().position(|(o, _)| o == origin) {
            let (_, sender) = idle.swap_remove(i);
            if !sender.is_closed() {
                return Some(sender);
            }
        }
        None
    }

    fn put(&self, origin: String, sender: SendRequest<WasiBody>) {
        let mut idle = self.0.lock().unwrap_or_else(|e| e.into_inner());
        idle.retain(|(_, s)| !s.is_closed());
        if idle.len() < MAX_IDLE {
            idle.push((origin, sender));
        }
    }
}

/// A response body that fails when no frame arrives within the between-bytes timeout.
struct TimedBody {
    incoming: hyper::body::Incoming,
    timeout: tokio::time::Interval,
}

impl http_body::Body for TimedBody {
    type Data = Bytes;
    type Error = Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, Error>>> {
        match Pin::new(&mut self.incoming).poll_frame(cx) {
            Poll::Ready(None) => Poll::Ready(None),
            Poll::Ready(Some(Err(e))) => Poll::Ready(Some(Err(if e.is_timeout() {
                Error::HttpResponseTimeout
            } else {
                Error::from(e)
            }))),
            Poll::Ready(Some(Ok(frame))) => {
                self.timeout.reset();
                Poll::Ready(Some(Ok(frame)))
            }
            Poll::Pending => {
                ready!(self.timeout.poll_tick(cx));
                Poll::Ready(Some(Err(Error::ConnectionReadTimeout)))
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.incoming.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.incoming.size_hint()
    }
}
