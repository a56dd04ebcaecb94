//! One outgoing HTTP/1.1 request over a fresh TCP connection, TLS when the scheme is
//! `https`, honouring the guest's request options (connect, first-byte and between-bytes
//! timeouts). Adapted from wasmtime-wasi-http's `default_send_request` (Apache-2.0), with
//! the worker's rustls configuration instead of a compiled-in root list.
//!
//! Only `access` calls this, after its allow-list check; this file checks nothing itself.

use std::future::{Future, poll_fn};
use std::pin::{Pin, pin};
use std::sync::Arc;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use bytes::Bytes;
use http::uri::Scheme;
use http_body_util::BodyExt;
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

/// Sends `req` (whose URI holds the scheme and authority) and awaits the response head.
pub(super) async fn send(
    mut req: http::Request<WasiBody>,
    options: Option<RequestOptions>,
    tls: Option<Arc<ClientConfig>>,
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

    let tcp = tokio::time::timeout(connect_timeout, TcpStream::connect((host.as_str(), port)))
        .await
        .map_err(|_| Error::ConnectionTimeout)?
        .map_err(Error::Connect)?;
    let stream: Box<dyn Stream> = if use_tls {
        let config = tls.ok_or(Error::TlsProtocolError)?;
        let name = ServerName::try_from(host.clone()).map_err(|_| Error::HttpRequestUriInvalid)?;
        let tls = tokio_rustls::TlsConnector::from(config).connect(name, tcp);
        let tls = tokio::time::timeout(connect_timeout, tls)
            .await
            .map_err(|_| Error::ConnectionTimeout)?
            .map_err(Error::Tls)?;
        Box::new(tls)
    } else {
        Box::new(tcp)
    };
    let (mut sender, conn) = tokio::time::timeout(
        connect_timeout,
        hyper::client::conn::http1::Builder::new().handshake(TokioIo::new(stream)),
    )
    .await
    .map_err(|_| Error::ConnectionTimeout)??;

    // On the wire the request line carries only the path (no proxy in between).
    let path = req.uri().path_and_query().map_or("/", |p| p.as_str()).to_owned();
    *req.uri_mut() = http::Uri::builder()
        .path_and_query(path)
        .build()
        .map_err(|_| Error::HttpRequestUriInvalid)?;

    let between_bytes = between_bytes.max(Duration::from_nanos(1));
    let send = async move {
        let res = tokio::time::timeout(first_byte_timeout, sender.send_request(req))
            .await
            .map_err(|_| Error::ConnectionReadTimeout)??;
        let mut timeout = tokio::time::interval(between_bytes);
        timeout.reset();
        Ok::<_, Error>(res.map(|incoming| TimedBody { incoming, timeout }.boxed_unsync()))
    };
    let mut send = pin!(send);
    let mut conn = Some(conn);
    // Wait for the response while driving the connection's I/O.
    let res = poll_fn(|cx| match send.as_mut().poll(cx) {
        Poll::Ready(r) => Poll::Ready(r),
        Poll::Pending => {
            let Some(fut) = conn.as_mut() else { return Poll::Pending };
            let done = ready!(Pin::new(fut).poll(cx));
            conn = None;
            match done {
                Ok(()) => send.as_mut().poll(cx),
                Err(e) => Poll::Ready(Err(Error::from(e))),
            }
        }
    })
    .await?;
    let io = async move {
        match conn.take() {
            None => Ok(()),
            Some(conn) => conn.await.map_err(|e| {
                if e.is_timeout() { Error::HttpResponseTimeout } else { Error::from(e) }
            }),
        }
    };
    Ok((res, Box::new(io)))
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
