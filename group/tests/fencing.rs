//! [`fence_producers`] against the real broker (`KAFKA_BOOTSTRAP`): a librdkafka
//! transactional producer whose id is fenced fails its next commit with the fatal `Fenced`,
//! over the plaintext listener and over SASL_SSL; an id never used is fenced too (the
//! coordinator creates it). Each test uses its own ids and topic; none skips when the broker
//! or a secure listener is missing.

mod support;

use std::time::Duration;

use rdkafka::ClientConfig;
use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::client::DefaultClientContext;
use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::producer::{BaseProducer, BaseRecord, Producer};
use support::{bootstrap, require_broker, secure, unique_group};
use wasm_connect_group::{FenceSettings, SaslMechanism, Security, fence_producers};

/// How long one producer call may take: the first `init_transactions` on a fresh broker
/// waits for the transaction state topic.
const CALL: Duration = Duration::from_secs(30);

fn fence_settings(addr: &str, security: Security) -> FenceSettings {
    FenceSettings {
        bootstrap_servers: vec![addr.to_owned()],
        client_id: "fencing-test".to_owned(),
        security,
        request_timeout: Duration::from_secs(10),
        timeout: Duration::from_secs(60),
        transaction_timeout: Duration::from_secs(60),
    }
}

/// A topic of one partition, created for the test.
async fn create_topic(name: &str) {
    let admin: AdminClient<DefaultClientContext> =
        ClientConfig::new().set("bootstrap.servers", bootstrap()).create().unwrap();
    let topic = NewTopic::new(name, 1, TopicReplication::Fixed(1));
    let results = admin.create_topics([&topic], &AdminOptions::new()).await.unwrap();
    for result in results {
        result.unwrap();
    }
}

/// A transactional producer with `id` (on the plaintext listener) that has committed one
/// transaction of one record to `topic`.
fn producer_with_a_commit(id: &str, topic: &str) -> BaseProducer {
    let producer: BaseProducer = ClientConfig::new()
        .set("bootstrap.servers", bootstrap())
        .set("transactional.id", id)
        .create()
        .unwrap();
    producer.init_transactions(CALL).unwrap();
    producer.begin_transaction().unwrap();
    producer.send(BaseRecord::<(), str>::to(topic).payload("before")).unwrap();
    producer.commit_transaction(CALL).unwrap();
    producer
}

/// The producer's next transaction: begin, one record, commit.
fn next_commit(producer: &BaseProducer, topic: &str) -> Result<(), KafkaError> {
    producer.begin_transaction()?;
    producer.send(BaseRecord::<(), str>::to(topic).payload("after")).map_err(|(e, _)| e)?;
    producer.commit_transaction(CALL)
}

fn assert_fenced(result: Result<(), KafkaError>) {
    match result {
        Err(KafkaError::Transaction(error)) => {
            assert_eq!(error.code(), RDKafkaErrorCode::Fenced, "{error}");
            assert!(error.is_fatal(), "{error}");
        }
        other => panic!("the commit was expected to fail as fenced: {other:?}"),
    }
}

#[tokio::test]
async fn a_fenced_producers_next_commit_fails_as_fenced() {
    require_broker().await;
    let name = unique_group("fenced");
    create_topic(&name).await;
    let id = format!("{name}-0");
    let producer = producer_with_a_commit(&id, &name);

    fence_producers(&fence_settings(&bootstrap(), Security::default()), &[id]).await.unwrap();

    assert_fenced(next_commit(&producer, &name));
}

#[tokio::test]
async fn an_unfenced_producer_keeps_committing() {
    // The other side of the test above: without fencing, the same commit succeeds; and
    // fencing another id leaves this producer alone.
    require_broker().await;
    let name = unique_group("unfenced");
    create_topic(&name).await;
    let producer = producer_with_a_commit(&format!("{name}-0"), &name);
    let other = format!("{name}-1");
    fence_producers(&fence_settings(&bootstrap(), Security::default()), &[other]).await.unwrap();

    next_commit(&producer, &name).unwrap();
}

#[tokio::test]
async fn ids_never_used_are_fenced() {
    require_broker().await;
    let name = unique_group("never-used");
    let ids: Vec<String> = (0..3).map(|task| format!("{name}-{task}")).collect();
    fence_producers(&fence_settings(&bootstrap(), Security::default()), &ids).await.unwrap();
}

#[tokio::test]
async fn fencing_over_sasl_ssl_fences_the_producer() {
    require_broker().await;
    let name = unique_group("fenced-sasl-ssl");
    create_topic(&name).await;
    let id = format!("{name}-0");
    let producer = producer_with_a_commit(&id, &name);

    let security = secure::sasl_ssl(secure::login(SaslMechanism::ScramSha512));
    fence_producers(&fence_settings(&secure::sasl_ssl_bootstrap(), security), &[id]).await.unwrap();

    assert_fenced(next_commit(&producer, &name));
}
