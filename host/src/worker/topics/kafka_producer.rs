//! [`KafkaProducer`]: the producer of one source task (or one dead-letter queue), over
//! rdkafka's `FutureProducer`: idempotent, `acks=all`, keys partitioned as the Java client
//! partitions them, and no delivery deadline, so a broker that goes away delays records
//! instead of losing them (Kafka Connect sets `delivery.timeout.ms` to its maximum).
//!
//! It owns the client and the enqueueing; it must not track offsets or acknowledge
//! anything to a plugin.

use std::time::Duration;

use rdkafka::ClientConfig;
use rdkafka::error::KafkaError;
use rdkafka::message::{Header as KafkaHeader, OwnedHeaders};
use rdkafka::producer::{FutureProducer, FutureRecord};
use rdkafka::types::RDKafkaErrorCode;

use super::{Delivered, OutRecord, RecordProducer, SendFuture, TopicError};

/// Pause before enqueueing again when librdkafka's local queue is full. The task loops
/// bound what they have in flight well below the queue size, so this is rare.
const QUEUE_FULL_BACKOFF: Duration = Duration::from_millis(2);

/// A data producer.
pub struct KafkaProducer {
    producer: FutureProducer,
}

impl KafkaProducer {
    /// A producer from `config` (bootstrap servers, security, client id and overrides set
    /// by the caller); the delivery guarantees are forced over it.
    pub fn new(mut config: ClientConfig) -> Result<Self, TopicError> {
        config
            .set("enable.idempotence", "true")
            .set("acks", "all")
            .set("partitioner", "murmur2_random")
            .set("message.timeout.ms", "0");
        let producer = config
            .create()
            .map_err(|e| TopicError::Config(format!("cannot create the Kafka producer: {e}")))?;
        Ok(Self { producer })
    }
}

impl RecordProducer for KafkaProducer {
    fn send(&self, records: Vec<OutRecord>) -> SendFuture {
        let mut pending = Vec::with_capacity(records.len());
        for r in &records {
            match enqueue(&self.producer, r) {
                Ok(delivery) => pending.push((r.topic.clone(), delivery)),
                Err(e) => {
                    let error =
                        TopicError::Produce { topic: r.topic.clone(), reason: e.to_string() };
                    return Box::pin(async move { Err(error) });
                }
            }
        }
        Box::pin(async move {
            let mut delivered = Vec::with_capacity(pending.len());
            for (topic, delivery) in pending {
                match delivery.await {
                    Ok(Ok(d)) => {
                        delivered.push(Delivered { partition: d.partition, offset: d.offset })
                    }
                    Ok(Err((e, _))) => {
                        return Err(TopicError::Produce { topic, reason: e.to_string() });
                    }
                    Err(_) => {
                        return Err(TopicError::Produce {
                            topic,
                            reason: "the producer was closed before the record was written".into(),
                        });
                    }
                }
            }
            Ok(delivered)
        })
    }
}

/// Enqueues one record, waiting while the local queue is full.
fn enqueue(
    producer: &FutureProducer,
    r: &OutRecord,
) -> Result<rdkafka::producer::DeliveryFuture, KafkaError> {
    let mut headers = OwnedHeaders::new_with_capacity(r.headers.len());
    for h in &r.headers {
        headers = headers.insert(KafkaHeader { key: &h.key, value: h.value.as_deref() });
    }
    let mut record = FutureRecord::<[u8], [u8]>::to(&r.topic).headers(headers);
    if let Some(key) = &r.key {
        record = record.key(key.as_slice());
    }
    if let Some(value) = &r.value {
        record = record.payload(value.as_slice());
    }
    if let Some(p) = r.partition {
        record = record.partition(p);
    }
    if let Some(ts) = r.timestamp {
        record = record.timestamp(ts);
    }
    loop {
        match producer.send_result(record) {
            Ok(delivery) => return Ok(delivery),
            Err((KafkaError::MessageProduction(RDKafkaErrorCode::QueueFull), back)) => {
                record = back;
                std::thread::sleep(QUEUE_FULL_BACKOFF);
            }
            Err((e, _)) => return Err(e),
        }
    }
}
