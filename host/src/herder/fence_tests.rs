//! The internal zombie fencing request (KIP-618) through the herder loop, with the fake
//! worker: refused unless exactly-once source support is enabled, for an unknown connector
//! and for a connector that is not a source. (The fake worker installs no plugin, so no
//! connector here is a source; the plans are tested in `zombie_fencing`.)

use super::harness::Harness;
use super::{HerderError, HerderSettings, MemberSpec};
use crate::model::ExactlyOnceSourceSupport;

fn single() -> MemberSpec {
    MemberSpec::Single { worker_id: "w:1".into(), url: "http://w:1/".into() }
}

async fn with_support(support: ExactlyOnceSourceSupport) -> Harness {
    let settings =
        HerderSettings { exactly_once_source_support: support, ..HerderSettings::default() };
    let h = Harness::start_configured(single(), settings).await;
    h.put("c", 1, &[]).await.unwrap();
    h.settle().await;
    h
}

#[tokio::test(start_paused = true)]
async fn fencing_is_refused_unless_exactly_once_source_support_is_enabled() {
    for support in [ExactlyOnceSourceSupport::Disabled, ExactlyOnceSourceSupport::Preparing] {
        let h = with_support(support).await;
        let e = h.handle.fence_zombies("c").await.unwrap_err();
        assert!(matches!(&e, HerderError::BadRequest(m) if m.contains("exactly-once")), "{e}");
    }
}

#[tokio::test(start_paused = true)]
async fn fencing_an_unknown_connector_is_not_found() {
    let h = with_support(ExactlyOnceSourceSupport::Enabled).await;
    let e = h.handle.fence_zombies("nope").await.unwrap_err();
    assert!(matches!(e, HerderError::NotFound(_)), "{e}");
}

#[tokio::test(start_paused = true)]
async fn fencing_a_connector_that_is_not_a_source_is_a_bad_request() {
    let h = with_support(ExactlyOnceSourceSupport::Enabled).await;
    let e = h.handle.fence_zombies("c").await.unwrap_err();
    assert_eq!(e.to_string(), "Connector c is not a source connector");
    assert!(matches!(e, HerderError::BadRequest(_)));
}
