//! The backend over the test broker's `SASL_SSL` listener (`scripts/kafka.sh`: its address in
//! `KAFKA_SASL_SSL_BOOTSTRAP`, its CA in `KAFKA_TLS_DIR/ca.pem`, the user `connect` with
//! password `connect-secret`): a round trip with each SCRAM mechanism and PLAIN, and a wrong
//! password or an untrusted broker certificate ending start-up with one clear error.
//!
//! The failing cases run with a long delivery timeout: an error other than
//! [`StoreError::Authentication`] (a request that waited for its timeout) fails them.

use std::path::PathBuf;
use std::time::Duration;

use crate::store::conformance_tests::{pairs, record, spec, unique_topic};
use crate::store::kafka::KafkaBackend;
use crate::store::{LogBackend, StoreError};

/// Long enough that a request retried until its timeout is told apart from one ended by the
/// authentication failure.
const LONG_TIMEOUT: Duration = Duration::from_secs(120);

/// The SASL_SSL listener and the directory of the test CA, or a failure saying how to get
/// them.
fn listener() -> (String, PathBuf) {
    let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
    match (var("KAFKA_SASL_SSL_BOOTSTRAP"), var("KAFKA_TLS_DIR")) {
        (Some(bootstrap), Some(dir)) => (bootstrap, PathBuf::from(dir)),
        _ => panic!(
            "KAFKA_SASL_SSL_BOOTSTRAP and KAFKA_TLS_DIR are not set: these tests need the test \
             broker's SASL_SSL listener. Run `scripts/kafka.sh start` and export them as \
             scripts/test.sh does (127.0.0.1:9094 and /tmp/wasm-connect-kafka-9092/tls)."
        ),
    }
}

fn props(mechanism: &str, module: &str, password: &str, ca: &str) -> Vec<(String, String)> {
    [
        ("security.protocol", "SASL_SSL"),
        ("sasl.mechanism", mechanism),
        (
            "sasl.jaas.config",
            &format!(
                "org.apache.kafka.common.security.{module} required username=\"connect\" \
                 password=\"{password}\";"
            ),
        ),
        ("ssl.truststore.location", ca),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.to_owned()))
    .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_backend_works_over_sasl_ssl_with_each_mechanism() {
    let (bootstrap, tls) = listener();
    let ca = tls.join("ca.pem");
    for (mechanism, module) in [
        ("SCRAM-SHA-512", "scram.ScramLoginModule"),
        ("SCRAM-SHA-256", "scram.ScramLoginModule"),
        ("PLAIN", "plain.PlainLoginModule"),
    ] {
        let props = props(mechanism, module, "connect-secret", ca.to_str().unwrap());
        let backend = KafkaBackend::new(&bootstrap, &props, Duration::from_secs(30)).unwrap();
        let name = unique_topic(&format!("sasl-ssl-{}", mechanism.to_lowercase()));
        let topic = backend.topic(&spec(&name, 1, true)).await.unwrap();
        topic.send(vec![record("k", mechanism)]).await.unwrap();
        let mut reader = topic.reader().await.unwrap();
        let read = reader.read_to_end().await.unwrap();
        assert_eq!(pairs(&read), [("k".to_owned(), Some(mechanism.to_owned()))], "{mechanism}");
        assert!(backend.cluster_id().await.unwrap().is_some());
    }
}

/// The error of opening a topic with `props`. Its own runtime, shut down without waiting for
/// the metadata request still blocked in librdkafka until its timeout.
fn open_error(bootstrap: &str, props: &[(String, String)], test: &str) -> StoreError {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let err = runtime.block_on(async {
        let backend = KafkaBackend::new(bootstrap, props, LONG_TIMEOUT).unwrap();
        let started = std::time::Instant::now();
        let err = backend.topic(&spec(&unique_topic(test), 1, true)).await.err().unwrap();
        eprintln!("{test}: {err} after {:?}", started.elapsed());
        err
    });
    runtime.shutdown_background();
    err
}

#[test]
fn a_wrong_password_ends_start_up_with_one_clear_error() {
    let (bootstrap, tls) = listener();
    let ca = tls.join("ca.pem");
    let props = props("SCRAM-SHA-256", "scram.ScramLoginModule", "wrong", ca.to_str().unwrap());
    let err = open_error(&bootstrap, &props, "sasl-wrong");
    assert!(matches!(err, StoreError::Authentication(_)), "{err:?}");
    let line = err.to_string();
    assert!(line.starts_with("Authentication failed against the Kafka cluster: "), "{line}");
    assert!(!line.contains('\n') && !line.contains("wrong\""), "{line}");
}

#[test]
fn an_untrusted_broker_certificate_ends_start_up_with_one_clear_error() {
    let (bootstrap, _) = listener();
    let dir = tempfile::tempdir().unwrap();
    let other_ca = rcgen::generate_simple_self_signed(vec!["other CA".to_owned()]).unwrap();
    let ca = dir.path().join("other-ca.pem");
    std::fs::write(&ca, other_ca.cert.pem()).unwrap();
    let props =
        props("SCRAM-SHA-512", "scram.ScramLoginModule", "connect-secret", ca.to_str().unwrap());
    let err = open_error(&bootstrap, &props, "sasl-untrusted");
    assert!(matches!(err, StoreError::Authentication(_)), "{err:?}");
    assert!(err.to_string().contains("certificate verify failed"), "{err}");
}
