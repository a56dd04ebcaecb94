//! The byte stream under a connection: plain TCP, or TLS over it.
//!
//! [`open`] connects and, with [`Tls`], runs the handshake against the server name taken
//! from the address's host (an IP address is checked as one). It sorts TLS failures into
//! those retrying cannot cure (a certificate refused on either side, a host that cannot be
//! a server name: [`OpenError::Certificate`]) and the rest. Owns no Kafka framing.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use rustls::AlertDescription;
use rustls::pki_types::ServerName;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use tokio_rustls::client::TlsStream;

use crate::security::Tls;

/// A connected stream.
#[derive(Debug)]
pub(crate) enum BrokerStream {
    /// `PLAINTEXT`, `SASL_PLAINTEXT`.
    Tcp(TcpStream),
    /// `SSL`, `SASL_SSL`.
    Tls(Box<TlsStream<TcpStream>>),
}

/// Why a stream could not be opened.
#[derive(Debug)]
pub(crate) enum OpenError {
    /// The TCP connection failed.
    Connect(io::Error),
    /// The TLS handshake failed for a reason retrying cannot cure.
    Certificate(String),
    /// The TLS handshake failed otherwise (the connection dropped midway, say).
    Handshake(io::Error),
}

/// Connects to `addr` (`host:port`), with TLS when `tls` is set.
pub(crate) async fn open(addr: &str, tls: Option<&Tls>) -> Result<BrokerStream, OpenError> {
    // The server name is checked before connecting: a host that cannot be one is fatal.
    let server_name = match tls {
        Some(_) => Some(server_name(addr).map_err(OpenError::Certificate)?),
        None => None,
    };
    let tcp = TcpStream::connect(addr).await.map_err(OpenError::Connect)?;
    // Group requests are small and latency-bound.
    let _ = tcp.set_nodelay(true);
    let (Some(tls), Some(server_name)) = (tls, server_name) else {
        return Ok(BrokerStream::Tcp(tcp));
    };
    let connector = TlsConnector::from(tls.config.clone());
    match connector.connect(server_name, tcp).await {
        Ok(stream) => Ok(BrokerStream::Tls(Box::new(stream))),
        Err(error) => Err(classify(error)),
    }
}

/// The TLS server name of `addr`'s host: `host` of `host:port`, `::1` of `[::1]:port`.
fn server_name(addr: &str) -> Result<ServerName<'static>, String> {
    let host = addr.rsplit_once(':').map_or(addr, |(host, _)| host);
    let host = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')).unwrap_or(host);
    ServerName::try_from(host.to_owned())
        .map_err(|_| format!("{host:?} is neither a DNS name nor an IP address to check the broker's certificate against"))
}

/// Sorts a handshake error: certificate problems on either side are permanent.
fn classify(error: io::Error) -> OpenError {
    let permanent = error
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<rustls::Error>())
        .and_then(|tls| match tls {
            rustls::Error::InvalidCertificate(_)
            | rustls::Error::NoCertificatesPresented
            | rustls::Error::UnsupportedNameType
            | rustls::Error::InvalidCertRevocationList(_) => {
                Some(format!("the broker's certificate was refused: {tls}"))
            }
            rustls::Error::AlertReceived(
                alert @ (AlertDescription::BadCertificate
                | AlertDescription::UnsupportedCertificate
                | AlertDescription::CertificateRevoked
                | AlertDescription::CertificateExpired
                | AlertDescription::CertificateUnknown
                | AlertDescription::UnknownCA
                | AlertDescription::CertificateRequired
                | AlertDescription::AccessDenied),
            ) => Some(format!("the broker refused this client's certificate ({alert:?})")),
            _ => None,
        });
    match permanent {
        Some(reason) => OpenError::Certificate(reason),
        None => OpenError::Handshake(error),
    }
}

impl AsyncRead for BrokerStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Self::Tcp(s) => Pin::new(s).poll_read(cx, buf),
            Self::Tls(s) => Pin::new(s.as_mut()).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for BrokerStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Self::Tcp(s) => Pin::new(s).poll_write(cx, buf),
            Self::Tls(s) => Pin::new(s.as_mut()).poll_write(cx, buf),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Self::Tcp(s) => Pin::new(s).poll_flush(cx),
            Self::Tls(s) => Pin::new(s.as_mut()).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Self::Tcp(s) => Pin::new(s).poll_shutdown(cx),
            Self::Tls(s) => Pin::new(s.as_mut()).poll_shutdown(cx),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_server_name_is_the_host_of_the_address() {
        assert_eq!(server_name("127.0.0.1:9094").unwrap().to_str(), "127.0.0.1");
        assert!(matches!(server_name("127.0.0.1:9094"), Ok(ServerName::IpAddress(_))));
        assert!(matches!(server_name("[::1]:9094"), Ok(ServerName::IpAddress(_))));
        assert!(matches!(server_name("broker-1.example:9094"), Ok(ServerName::DnsName(_))));
        assert!(server_name("bad host:9094").is_err());
    }

    fn io(error: rustls::Error) -> io::Error {
        io::Error::new(io::ErrorKind::InvalidData, error)
    }

    #[test]
    fn certificate_failures_are_permanent_and_others_not() {
        use rustls::CertificateError;
        for error in [
            rustls::Error::InvalidCertificate(CertificateError::UnknownIssuer),
            rustls::Error::InvalidCertificate(CertificateError::NotValidForName),
            rustls::Error::InvalidCertificate(CertificateError::Expired),
            rustls::Error::AlertReceived(AlertDescription::UnknownCA),
            rustls::Error::AlertReceived(AlertDescription::CertificateRequired),
        ] {
            let shown = error.to_string();
            match classify(io(error)) {
                OpenError::Certificate(reason) => {
                    assert!(reason.contains("certificate"), "{reason}")
                }
                other => panic!("{shown} classified as {other:?}"),
            }
        }
        for error in [
            io(rustls::Error::AlertReceived(AlertDescription::InternalError)),
            io(rustls::Error::General("x".into())),
            io::Error::from(io::ErrorKind::UnexpectedEof),
            io::Error::from(io::ErrorKind::ConnectionReset),
        ] {
            assert!(matches!(classify(error), OpenError::Handshake(_)));
        }
    }
}
