//! [`KafkaTransactionalLog`]: one topic written in transactions of a producer of its own,
//! as Kafka Connect's leader writes the config topic when `exactly.once.source.support` is
//! `preparing` or `enabled` (`KafkaConfigBackingStore`'s fencible producer): idempotent,
//! `acks=all`, `transactional.id` as given; each write is `beginTransaction`, the records,
//! `commitTransaction`. Registering the id (`initTransactions`) fences an older producer
//! with it, whose next commit then fails.
//!
//! It owns its producer; the blocking transaction calls run on tokio's blocking pool. It
//! must not retry: a failed write leaves it unusable and the caller drops it.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use rdkafka::producer::{FutureProducer, Producer as _};

use super::context::BackendContext;
use super::producer::send_all;
use super::settings::ClientSettings;
use crate::store::{LogRecord, StoreError, TransactionalLog};

/// librdkafka's default `transaction.timeout.ms`, which `message.timeout.ms` may not pass.
const TRANSACTION_TIMEOUT: Duration = Duration::from_secs(60);

/// A topic written in transactions.
pub(super) struct KafkaTransactionalLog {
    topic: String,
    producer: Arc<FutureProducer<BackendContext>>,
    timeout: Duration,
}

impl KafkaTransactionalLog {
    /// A producer with `transactional_id` for `topic`, registered (fencing older ones).
    pub(super) async fn start(
        settings: &ClientSettings,
        topic: &str,
        transactional_id: &str,
        client_id: &str,
    ) -> Result<Self, StoreError> {
        let transaction_timeout = TRANSACTION_TIMEOUT.max(settings.timeout);
        let producer: FutureProducer<BackendContext> = settings
            .producer()
            .set("transactional.id", transactional_id)
            .set("client.id", client_id)
            .set("max.in.flight.requests.per.connection", "5")
            .set("transaction.timeout.ms", transaction_timeout.as_millis().to_string())
            .create_with_context(settings.context.clone())
            .map_err(|e| {
                StoreError::Config(format!("cannot create the transactional producer: {e}"))
            })?;
        let producer = Arc::new(producer);
        let p = producer.clone();
        let init_timeout = settings.timeout.max(TRANSACTION_TIMEOUT);
        blocking(move || p.init_transactions(init_timeout)).await.map_err(|e| {
            StoreError::Unavailable(format!(
                "cannot register the transactional id {transactional_id}: {e}"
            ))
        })?;
        Ok(Self { topic: topic.to_owned(), producer, timeout: settings.timeout })
    }
}

#[async_trait]
impl TransactionalLog for KafkaTransactionalLog {
    async fn send(&self, records: Vec<LogRecord>) -> Result<(), StoreError> {
        let unavailable = |what: &str, e: rdkafka::error::KafkaError| {
            StoreError::Unavailable(format!("{what} on topic '{}': {e}", self.topic))
        };
        self.producer
            .begin_transaction()
            .map_err(|e| unavailable("cannot begin a transaction", e))?;
        send_all(&self.producer, &self.topic, &records, self.timeout).await?;
        let p = self.producer.clone();
        let timeout = self.timeout;
        blocking(move || p.commit_transaction(timeout))
            .await
            .map_err(|e| unavailable("cannot commit the transaction", e))
    }
}

impl Drop for KafkaTransactionalLog {
    fn drop(&mut self) {
        // Closing a producer may block (librdkafka flushes): not on an async thread.
        let producer = self.producer.clone();
        if let Ok(handle) = tokio::runtime::Handle::try_current() {
            drop(handle.spawn_blocking(move || drop(producer)));
        }
    }
}

/// Runs a blocking librdkafka call on tokio's blocking pool.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, rdkafka::error::KafkaError> + Send + 'static,
) -> Result<T, rdkafka::error::KafkaError> {
    match tokio::task::spawn_blocking(f).await {
        Ok(result) => result,
        Err(e) => Err(rdkafka::error::KafkaError::Canceled).inspect_err(|_| {
            tracing::error!(error = %e, "A blocking transaction call did not complete");
        }),
    }
}
