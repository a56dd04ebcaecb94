//! Tests of [`serve`]: HTTPS with a self-signed certificate and a client that trusts it,
//! plain HTTP, graceful shutdown, and an https:// listener without a server config.

use std::time::Duration;

use axum::routing::get;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, ServerName};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::oneshot;

use super::*;

/// The default limits.
fn connections() -> Connections {
    Connections::new(crate::config::RestLimits::default())
}

fn router() -> Router {
    Router::new().route("/hello", get(|| async { "hello over the wire" }))
}

/// A server config with a self-signed certificate for `localhost`, and the certificate
/// to trust.
fn self_signed() -> (rustls::ServerConfig, CertificateDer<'static>) {
    let generated = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).unwrap();
    let cert = generated.cert.der().clone();
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(generated.signing_key.serialize_der()));
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![cert.clone()], key)
        .unwrap();
    (config, cert)
}

/// Sends `GET /hello` with `Connection: close` and returns the whole response.
async fn get_hello(mut io: impl AsyncRead + AsyncWrite + Unpin) -> String {
    io.write_all(b"GET /hello HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let mut response = Vec::new();
    match io.read_to_end(&mut response).await {
        Ok(_) => {}
        // A peer that closes without TLS close_notify; the response is complete anyway.
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => {}
        Err(e) => panic!("{e}"),
    }
    String::from_utf8_lossy(&response).into_owned()
}

fn assert_hello(response: &str) {
    assert!(response.starts_with("HTTP/1.1 200 OK\r\n"), "{response}");
    assert!(response.ends_with("\r\n\r\nhello over the wire"), "{response}");
}

#[tokio::test]
async fn https_listener_serves_tls_to_a_client_that_trusts_the_certificate() {
    let (server, trusted) = self_signed();
    let (stop, stopped) = oneshot::channel::<()>();
    let listener: Listener = "https://127.0.0.1:0".parse().unwrap();
    let (addr, task) = serve(&listener, router(), Some(&server), connections(), async move {
        let _ = stopped.await;
    })
    .await
    .unwrap();
    assert_ne!(addr.port(), 0);

    let mut roots = rustls::RootCertStore::empty();
    roots.add(trusted).unwrap();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let client = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    let connector = tokio_rustls::TlsConnector::from(Arc::new(client));
    let name = ServerName::try_from("localhost").unwrap();

    // A client that does not finish its handshake holds up nobody.
    let mut stalled = TcpStream::connect(addr).await.unwrap();
    stalled.write_all(b"\x16\x03\x01").await.unwrap();
    // Plain HTTP on the TLS port gets no HTTP answer.
    let plain = get_hello(TcpStream::connect(addr).await.unwrap()).await;
    assert!(!plain.starts_with("HTTP/1.1"), "{plain}");

    for _ in 0..2 {
        let tcp = TcpStream::connect(addr).await.unwrap();
        let tls = connector.connect(name.clone(), tcp).await.unwrap();
        assert_hello(&get_hello(tls).await);
    }

    stop.send(()).unwrap();
    tokio::time::timeout(Duration::from_secs(5), task).await.unwrap().unwrap().unwrap();
    assert!(TcpStream::connect(addr).await.is_err(), "no longer listening");
}

#[tokio::test]
async fn http_listener_serves_plain_http_and_shuts_down() {
    let (stop, stopped) = oneshot::channel::<()>();
    let listener: Listener = "http://127.0.0.1:0".parse().unwrap();
    let (addr, task) = serve(&listener, router(), None, connections(), async move {
        let _ = stopped.await;
    })
    .await
    .unwrap();
    assert_hello(&get_hello(TcpStream::connect(addr).await.unwrap()).await);
    stop.send(()).unwrap();
    tokio::time::timeout(Duration::from_secs(5), task).await.unwrap().unwrap().unwrap();
}

#[tokio::test]
async fn https_needs_a_server_config() {
    let listener: Listener = "https://127.0.0.1:0".parse().unwrap();
    let err =
        serve(&listener, router(), None, connections(), std::future::pending()).await.unwrap_err();
    assert!(matches!(err, ServeError::NoTls { .. }), "{err}");
    assert_eq!(
        err.to_string(),
        "https://127.0.0.1:0: an https:// listener needs a keystore (listeners.https.ssl.keystore.*)"
    );
}

#[tokio::test]
async fn a_busy_port_is_a_bind_error_naming_the_listener() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let listener: Listener =
        format!("http://127.0.0.1:{}", taken.local_addr().unwrap().port()).parse().unwrap();
    let err =
        serve(&listener, router(), None, connections(), std::future::pending()).await.unwrap_err();
    assert!(err.to_string().starts_with(&format!("cannot listen on {listener}: ")), "{err}");
}
