//! The herder's side of a member loop that gives up: [`super::HerderHandle::fatal`]
//! resolves with the member's reason in a group, and never in standalone mode.

use std::sync::Arc;
use std::time::Duration;

use wasm_connect_group::{MemberSettings, Security, Tls};

use super::harness::Harness;
use super::{MemberSpec, Peers};
use crate::cluster::{InterWorkerClient, KeyRing, KeySettings};

/// Group settings whose every connection fails fatally before any I/O: TLS to a host that
/// cannot be a certificate's name.
fn doomed_settings() -> MemberSettings {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(rustls::RootCertStore::empty())
        .with_no_client_auth();
    MemberSettings {
        bootstrap_servers: vec!["not a host name:9093".to_owned()],
        group_id: "g".to_owned(),
        client_id: "c".to_owned(),
        url: "http://w:1/".to_owned(),
        session_timeout: Duration::from_secs(10),
        rebalance_timeout: Duration::from_secs(10),
        heartbeat_interval: Duration::from_secs(1),
        scheduled_rebalance_max_delay: Duration::ZERO,
        worker_sync_timeout: Duration::from_secs(1),
        security: Security { tls: Some(Tls::new(Arc::new(config))), sasl: None },
    }
}

#[tokio::test]
async fn a_member_loop_that_gives_up_resolves_fatal_with_its_reason() {
    let peers = Peers {
        client: InterWorkerClient::new(Duration::from_secs(1), None).unwrap(),
        keyring: KeyRing::new(),
        keys: KeySettings::default(),
    };
    let member =
        MemberSpec::Group { worker_id: "w:1".to_owned(), settings: doomed_settings(), peers };
    let h = Harness::start_with(member).await;
    let reason = tokio::time::timeout(Duration::from_secs(30), h.handle.fatal())
        .await
        .expect("the fatal report");
    assert!(reason.contains("not a host name"), "{reason}");
    // Every handle sees it, also after the fact.
    let again = h.handle.clone();
    assert_eq!(again.fatal().await, reason);
}

#[tokio::test(start_paused = true)]
async fn a_standalone_herder_never_reports_fatal() {
    let h = Harness::start().await;
    let fatal = tokio::time::timeout(Duration::from_secs(3600), h.handle.fatal()).await;
    assert!(fatal.is_err(), "{fatal:?}");
}
