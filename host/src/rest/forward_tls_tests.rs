//! Forwarding to an `https://` worker with the client a worker builds from its HTTPS
//! settings: a peer whose certificate the trust store trusts gets the request, with the
//! keystore as client certificate when it requires one; any other peer fails the request
//! with Kafka Connect's 500 naming the TLS problem.

use std::sync::Arc;

use super::*;
use crate::config::security::SslSettings;
use crate::config::test_pki::TestPki;
use crate::config::{Listener, WorkerConfig};

/// The HTTPS settings of a worker config made of `pairs` (`listeners.https.ssl.*` keys).
fn settings(pairs: Vec<(String, String)>) -> SslSettings {
    let mut props = vec![("plugin.path".to_owned(), "p".to_owned())];
    props.extend(pairs);
    let config = WorkerConfig::from_properties(&props, crate::config::Mode::Standalone).unwrap();
    config.https_ssl().unwrap()
}

fn prefixed(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs.iter().map(|(k, v)| (format!("listeners.https.{k}"), v.to_string())).collect()
}

/// The echoing worker on an `https://` listener with `ssl`'s server config.
async fn serve_https(ssl: &SslSettings) -> String {
    let listener: Listener = "https://127.0.0.1:0".parse().unwrap();
    let server = ssl.server_config().unwrap();
    let (addr, _task) = crate::rest::tls::serve(
        &listener,
        echoing(),
        Some(server.as_ref()),
        crate::rest::Connections::new(crate::config::RestLimits::default()),
        std::future::pending(),
    )
    .await
    .unwrap();
    format!("https://localhost:{}", addr.port())
}

/// A plain-HTTP worker whose herder sends every request to `to`, forwarding with `tls`.
async fn forwarder(tls: Option<Arc<rustls::ClientConfig>>, to: String) -> String {
    let client = InterWorkerClient::new(Duration::from_secs(10), tls).unwrap();
    let not_here = move || {
        let url = Some(to.clone());
        async move { ApiError::from(HerderError::NotHere { message: "elsewhere".into(), url }) }
    };
    serve(Router::new().fallback(not_here).layer(middleware::from_fn_with_state(client, layer)))
        .await
}

#[tokio::test]
async fn forwarding_over_https_trusts_only_the_trust_store_and_shows_the_keystore() {
    let dir = tempfile::tempdir().unwrap();
    let a = TestPki::new(dir.path(), "a");
    let b = TestPki::new(dir.path(), "b");
    let mut server = a.props("listeners.https.");
    server.extend(prefixed(&[("ssl.client.auth", "required")]));
    let peer = serve_https(&settings(server)).await;

    // Trusted, with a client certificate the peer trusts: the answer is relayed.
    let client = settings(a.props("listeners.https.")).client_config().unwrap();
    let to = forwarder(Some(client), peer.clone()).await;
    let (status, _, seen) = send(Method::POST, &format!("{to}/connectors"), &[], "{}").await;
    assert_eq!(status, StatusCode::CREATED, "{seen}");
    assert_eq!(seen["query"], "forward=true");

    // A trust store of another CA: 500 naming the untrusted certificate.
    let client = settings(b.props("listeners.https.")).client_config().unwrap();
    let to = forwarder(Some(client), peer.clone()).await;
    let (status, _, body) = send(Method::POST, &format!("{to}/connectors"), &[], "{}").await;
    assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR);
    let message = body["message"].as_str().unwrap();
    assert!(message.starts_with("IO Error trying to forward REST request: "), "{message}");
    assert!(message.contains("invalid peer certificate: UnknownIssuer"), "{message}");

    // Trusted, but without the client certificate the peer requires: 500.
    let truststore = a.truststore.display().to_string();
    let trust_only =
        prefixed(&[("ssl.truststore.type", "PEM"), ("ssl.truststore.location", &truststore)]);
    let client = settings(trust_only).client_config().unwrap();
    let to = forwarder(Some(client), peer.clone()).await;
    let (status, _, body) = send(Method::POST, &format!("{to}/connectors"), &[], "{}").await;
    assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR, "{body}");
    assert!(body["message"].as_str().unwrap().starts_with("IO Error"), "{body}");

    // A client built without TLS settings trusts nobody.
    let to = forwarder(None, peer).await;
    let (status, _, body) = send(Method::POST, &format!("{to}/connectors"), &[], "{}").await;
    assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR, "{body}");
    assert!(body["message"].as_str().unwrap().contains("invalid peer certificate"), "{body}");
}
