//! [`Producer`]: the backend's one idempotent producer, shared by its topics. `send` enqueues
//! a whole batch, then awaits every delivery report, so a batch costs one round of requests,
//! not one per record.
//!
//! It owns the producer's lifetime: a producer that hit a fatal error (an idempotence state
//! it cannot recover) is replaced, so a broker outage does not leave the backend unable to
//! write once the broker is back. It must not read.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rdkafka::error::KafkaError;
use rdkafka::producer::{FutureProducer, FutureRecord, Producer as _};
use rdkafka::types::RDKafkaErrorCode;
use tokio::time::Instant;

use super::context::BackendContext;
use super::settings::ClientSettings;
use crate::store::{LogRecord, StoreError};

/// Pause before enqueueing again when librdkafka's local queue is full.
const QUEUE_FULL_BACKOFF: Duration = Duration::from_millis(10);

/// The backend's producer.
pub(super) struct Producer {
    settings: Arc<ClientSettings>,
    current: Mutex<Arc<FutureProducer<BackendContext>>>,
}

impl Producer {
    /// A producer for `settings`.
    pub(super) fn new(settings: Arc<ClientSettings>) -> Result<Self, StoreError> {
        let producer = create(&settings)?;
        Ok(Self { settings, current: Mutex::new(Arc::new(producer)) })
    }

    /// Appends `records` to `topic` and waits until every one is acknowledged by all
    /// in-sync replicas. Any failure, and no acknowledgement within the timeout, is
    /// [`StoreError::Unavailable`].
    pub(super) async fn send(&self, topic: &str, records: &[LogRecord]) -> Result<(), StoreError> {
        let producer = self.current.lock().unwrap_or_else(PoisonError::into_inner).clone();
        let send = send_all(&producer, topic, records, self.settings.timeout);
        let result = self.settings.context.guard(send).await;
        if result.is_err() {
            self.replace_if_fatal(&producer);
        }
        result
    }

    /// Replaces `failed` with a new producer if it is in a fatal state.
    fn replace_if_fatal(&self, failed: &Arc<FutureProducer<BackendContext>>) {
        let Some((code, reason)) = failed.client().fatal_error() else {
            return;
        };
        let mut current = self.current.lock().unwrap_or_else(PoisonError::into_inner);
        if !Arc::ptr_eq(&current, failed) {
            return; // Another send replaced it already.
        }
        match create(&self.settings) {
            Ok(producer) => {
                *current = Arc::new(producer);
                tracing::warn!(
                    %code, error = %reason,
                    "Replaced the Kafka producer after a fatal error"
                );
            }
            Err(e) => tracing::error!(
                %code, error = %e, "Could not replace the Kafka producer after a fatal error"
            ),
        }
    }
}

fn create(settings: &ClientSettings) -> Result<FutureProducer<BackendContext>, StoreError> {
    settings
        .producer()
        .create_with_context(settings.context.clone())
        .map_err(|e| StoreError::Config(format!("cannot create the Kafka producer: {e}")))
}

/// Enqueues every record, then awaits every delivery report, all within `timeout`.
pub(super) async fn send_all(
    producer: &FutureProducer<BackendContext>,
    topic: &str,
    records: &[LogRecord],
    timeout: Duration,
) -> Result<(), StoreError> {
    let deadline = Instant::now() + timeout;
    let mut deliveries = Vec::with_capacity(records.len());
    for record in records {
        let mut message = FutureRecord::<[u8], [u8]>::to(topic).key(&record.key);
        if let Some(value) = &record.value {
            message = message.payload(value);
        }
        loop {
            match producer.send_result(message) {
                Ok(delivery) => {
                    deliveries.push(delivery);
                    break;
                }
                Err((KafkaError::MessageProduction(RDKafkaErrorCode::QueueFull), back))
                    if Instant::now() < deadline =>
                {
                    message = back;
                    tokio::time::sleep(QUEUE_FULL_BACKOFF).await;
                }
                Err((error, _)) => {
                    return Err(StoreError::Unavailable(format!(
                        "cannot send to topic '{topic}': {error}"
                    )));
                }
            }
        }
    }
    for delivery in deliveries {
        match tokio::time::timeout_at(deadline, delivery).await {
            Ok(Ok(Ok(_))) => {}
            Ok(Ok(Err((error, _)))) => {
                return Err(StoreError::Unavailable(format!(
                    "a record for topic '{topic}' was not delivered: {error}"
                )));
            }
            Ok(Err(_)) => {
                return Err(StoreError::Unavailable(format!(
                    "the producer shut down before topic '{topic}' acknowledged a record"
                )));
            }
            Err(_) => {
                return Err(StoreError::Unavailable(format!(
                    "topic '{topic}' did not acknowledge all of {} records within {timeout:?}",
                    records.len()
                )));
            }
        }
    }
    Ok(())
}
