//! [`KafkaProducer`]: a data producer over rdkafka's `ThreadedProducer`: idempotent,
//! `acks=all`, keys partitioned as the Java client partitions them, and no delivery
//! deadline, so a broker that goes away delays records instead of losing them (Kafka
//! Connect sets `delivery.timeout.ms` to its maximum).
//!
//! One producer serves every source task (and dead-letter queue) of the worker with the
//! same effective client configuration ([`KafkaTopics`](super::KafkaTopics) keeps them), so
//! its records interleave with other tasks' records in one librdkafka client. Each
//! [`send`](RecordProducer::send) call is acknowledged on its own: every record carries a
//! handle to its call's [`Batch`], the delivery callback (on the producer's polling thread)
//! writes the record's position there and counts it, and the last record resolves the
//! call's future, with the first failure of that call's records if any. A failed record
//! therefore fails only the call (the task) that sent it. Records of one call, and of one
//! task's successive calls, keep their order within a partition (idempotence).
//!
//! A new producer asks for its idempotent producer id at once (`producer_id.rs`): else
//! librdkafka's 500 ms timer would hold the first records, and a task stopped meanwhile.
//!
//! A transactional producer ([`KafkaProducer::transactional`]) is the same client with a
//! `transactional.id`, owned by one source task under exactly-once delivery; it adds the
//! transaction calls, which block (run them off the async threads).
//!
//! It owns the client and the enqueueing; it must not track offsets or acknowledge
//! anything to a plugin.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rdkafka::error::KafkaError;
use rdkafka::message::{DeliveryResult, Header as KafkaHeader, Message, OwnedHeaders};
use rdkafka::producer::{BaseRecord, Producer, ProducerContext, ThreadedProducer};
use rdkafka::types::RDKafkaErrorCode;
use rdkafka::{ClientConfig, ClientContext};
use tokio::sync::oneshot;

use super::producer_id::request_early;
use super::{Delivered, OutRecord, RecordProducer, SendFuture, TopicError};
use crate::telemetry::client_log;

/// Pause before enqueueing again when librdkafka's local queue is full. The task loops
/// bound what they have in flight, and the queue is sized far above that, so this is rare.
const QUEUE_FULL_BACKOFF: Duration = Duration::from_millis(2);

/// How often [`KafkaProducer::wait_delivered`] looks at the records outstanding.
const DELIVERED_POLL: Duration = Duration::from_millis(1);

/// librdkafka's local queue bound, unless configured: the task loops bound what is in
/// flight per task, so the client-wide queue must not be the limit when many tasks share
/// one producer (librdkafka's default, 100,000, is 25 tasks' worth).
const QUEUE_MAX_MESSAGES: &str = "10000000";

/// What one `send` call is waiting for.
struct Batch {
    state: Mutex<BatchState>,
}

struct BatchState {
    /// Positions, in input order.
    delivered: Vec<Delivered>,
    /// Records not yet acknowledged by the broker.
    remaining: usize,
    /// The first failure among this call's records.
    error: Option<TopicError>,
    /// Resolves the call's future; taken by the last acknowledgement.
    done: Option<oneshot::Sender<Result<Vec<Delivered>, TopicError>>>,
}

/// One record's handle to its call, passed through librdkafka as the delivery opaque.
struct Slot {
    batch: Arc<Batch>,
    index: usize,
}

/// Routes each delivery report to the call of its record.
struct Acks;

impl ClientContext for Acks {
    fn log(&self, level: rdkafka::config::RDKafkaLogLevel, fac: &str, log_message: &str) {
        client_log::log(level, fac, log_message);
    }

    fn error(&self, error: KafkaError, reason: &str) {
        client_log::error(client_log::Level::Error, &error, reason);
    }
}

impl ProducerContext for Acks {
    type DeliveryOpaque = Box<Slot>;

    fn delivery(&self, result: &DeliveryResult<'_>, slot: Box<Slot>) {
        let mut state = slot.batch.state.lock().expect("not poisoned");
        match result {
            Ok(m) => {
                state.delivered[slot.index] =
                    Delivered { partition: m.partition(), offset: m.offset() };
            }
            Err((e, m)) => {
                if state.error.is_none() {
                    state.error = Some(TopicError::Produce {
                        topic: m.topic().to_owned(),
                        reason: reason(e),
                    });
                }
            }
        }
        state.remaining -= 1;
        if state.remaining == 0
            && let Some(done) = state.done.take()
        {
            let outcome = match state.error.take() {
                Some(e) => Err(e),
                None => Ok(std::mem::take(&mut state.delivered)),
            };
            let _ = done.send(outcome);
        }
    }
}

fn reason(e: &KafkaError) -> String {
    match e.rdkafka_error_code() {
        Some(RDKafkaErrorCode::PurgeQueue | RDKafkaErrorCode::PurgeInflight) => {
            "the producer was closed before the record was written".into()
        }
        _ => e.to_string(),
    }
}

/// A data producer.
pub struct KafkaProducer {
    /// Shared only with the producer id request while it runs.
    producer: Arc<ThreadedProducer<Acks>>,
}

impl KafkaProducer {
    /// A producer from `config` (bootstrap servers, security, client id and overrides set
    /// by the caller); the delivery guarantees are forced over it. It asks for its producer
    /// id at once.
    pub fn new(mut config: ClientConfig) -> Result<Self, TopicError> {
        config.set("message.timeout.ms", "0");
        // Connected to every broker as soon as it is known, so the early producer id
        // request finds one up instead of waiting out librdkafka's 50 ms spacing of sparse
        // connections (`producer_id.rs`). A shared producer writes to most brokers anyway.
        if config.get("enable.sparse.connections").is_none() {
            config.set("enable.sparse.connections", "false");
        }
        let built = Self::build(config)?;
        request_early(built.producer.clone());
        Ok(built)
    }

    /// A transactional producer with `transactional_id` (Kafka Connect forces it over any
    /// the config sets). librdkafka bounds a record's delivery by the transaction timeout
    /// (`transaction.timeout.ms`, 60 s by default) instead of waiting forever. Unless
    /// configured, `linger.ms` is 0: a commit waits for the transaction's last records
    /// ([`wait_delivered`](Self::wait_delivered)), which would otherwise linger 5 ms first
    /// (the Java client's `commitTransaction` sends them at once). Call
    /// [`init_transactions`](Self::init_transactions) before anything else.
    pub fn transactional(
        mut config: ClientConfig,
        transactional_id: &str,
    ) -> Result<Self, TopicError> {
        if let Some(ignored) = config.get("transactional.id").filter(|v| *v != transactional_id) {
            tracing::warn!(
                ignored,
                transactional_id,
                "The producer's transactional.id is set by the worker"
            );
        }
        let timeout = config.get("transaction.timeout.ms").unwrap_or("60000").to_owned();
        config.set("transactional.id", transactional_id).set("message.timeout.ms", timeout);
        if config.get("linger.ms").is_none() && config.get("queue.buffering.max.ms").is_none() {
            config.set("linger.ms", "0");
        }
        Self::build(config)
    }

    fn build(mut config: ClientConfig) -> Result<Self, TopicError> {
        config
            .set("enable.idempotence", "true")
            .set("acks", "all")
            .set("partitioner", "murmur2_random");
        if config.get("queue.buffering.max.messages").is_none() {
            config.set("queue.buffering.max.messages", QUEUE_MAX_MESSAGES);
        }
        let producer = config
            .create_with_context(Acks)
            .map_err(|e| TopicError::Config(format!("cannot create the Kafka producer: {e}")))?;
        Ok(Self { producer: Arc::new(producer) })
    }

    /// Whether librdkafka raised a fatal error (an idempotence failure): the client
    /// produces nothing more and must be replaced.
    pub fn is_fatal(&self) -> bool {
        self.producer.client().fatal_error().is_some()
    }

    /// Registers the `transactional.id` with its coordinator: aborts what an older producer
    /// with the id left open and fences it (its next commit fails). Blocks.
    pub fn init_transactions(&self, timeout: Duration) -> Result<(), TopicError> {
        self.producer
            .init_transactions(timeout)
            .map_err(|e| transaction_error("initialize", &e, is_fenced(&e)))
    }

    /// Begins a transaction. Blocks (briefly: it is local).
    pub fn begin_transaction(&self) -> Result<(), TopicError> {
        self.producer.begin_transaction().map_err(|e| transaction_error("begin", &e, is_fenced(&e)))
    }

    /// Waits until every record sent has been acknowledged and its delivery report served
    /// (or `timeout` passed). Blocks. librdkafka's own flush, which `commit_transaction`
    /// runs first, waits about 100 ms longer than the reports take when they are served by
    /// the polling thread (measured: 100 ms against 10 ms per transaction of 1,000 records),
    /// so a commit called after this one finds nothing left to flush.
    pub fn wait_delivered(&self, timeout: Duration) {
        let deadline = Instant::now() + timeout;
        while self.producer.in_flight_count() > 0 && Instant::now() < deadline {
            std::thread::sleep(DELIVERED_POLL);
        }
    }

    /// Flushes the records sent and commits the transaction. Blocks.
    ///
    /// A commit that races with a newer producer's `InitProducerId` for the same
    /// `transactional.id` can fail with an unknown server error instead of a fencing one
    /// (the broker's transaction is then in `PREPARE_EPOCH_FENCE`). After any failure but
    /// a fenced one, the transaction is aborted, which tells whether the producer was
    /// fenced, so that the error says so either way.
    pub fn commit_transaction(&self, timeout: Duration) -> Result<(), TopicError> {
        let Err(e) = self.producer.commit_transaction(timeout) else { return Ok(()) };
        if is_fenced(&e) {
            return Err(transaction_error("commit", &e, true));
        }
        let abort = self.producer.abort_transaction(timeout);
        let fenced = abort.as_ref().is_err_and(is_fenced) || self.is_fenced();
        Err(transaction_error("commit", &e, fenced))
    }

    /// Whether librdkafka's fatal error says a newer producer with this `transactional.id`
    /// fenced this one. A call that races with the fencing may itself fail otherwise (the
    /// broker answers an `EndTxn` that meets its epoch bump with UNKNOWN_SERVER_ERROR), and
    /// a record sent with the old epoch with INVALID_PRODUCER_EPOCH; the fatal error is
    /// what the client concluded.
    pub fn is_fenced(&self) -> bool {
        self.producer.client().fatal_error().is_some_and(|(code, _)| is_fenced_code(code))
    }

    /// Waits, at most `timeout`, for the records sent to be acknowledged. Blocks.
    pub fn flush(&self, timeout: Duration) -> Result<(), TopicError> {
        self.producer
            .flush(timeout)
            .map_err(|e| TopicError::Transaction(format!("cannot flush the records sent: {e}")))
    }

    /// Aborts the transaction. Blocks.
    pub fn abort_transaction(&self, timeout: Duration) -> Result<(), TopicError> {
        self.producer
            .abort_transaction(timeout)
            .map_err(|e| transaction_error("abort", &e, is_fenced(&e)))
    }
}

/// Whether a transaction call failed because a newer producer fenced this one.
fn is_fenced(e: &KafkaError) -> bool {
    e.rdkafka_error_code().is_some_and(is_fenced_code)
}

/// The error codes of a producer whose epoch a newer one with its `transactional.id` took.
fn is_fenced_code(code: RDKafkaErrorCode) -> bool {
    matches!(
        code,
        RDKafkaErrorCode::Fenced
            | RDKafkaErrorCode::ProducerFenced
            | RDKafkaErrorCode::InvalidProducerEpoch
    )
}

/// A failed transaction call, in words: a `fenced` producer says so (librdkafka reports a
/// transaction that outlived `transaction.timeout.ms` the same way).
fn transaction_error(doing: &str, e: &KafkaError, fenced: bool) -> TopicError {
    let doing = format!("{doing} the transaction");
    TopicError::Transaction(if fenced {
        fenced_message(&doing, e)
    } else {
        format!("cannot {doing}: {e}")
    })
}

/// Why `doing` failed, for a producer that was fenced.
pub(super) fn fenced_message(doing: &str, e: &dyn std::fmt::Display) -> String {
    format!(
        "cannot {doing}: the producer was fenced by a newer one with its transactional.id \
         (another instance of this task started elsewhere), or the transaction outlived \
         transaction.timeout.ms: {e}"
    )
}

impl RecordProducer for KafkaProducer {
    fn send(&self, records: Vec<OutRecord>) -> SendFuture {
        if records.is_empty() {
            return Box::pin(async { Ok(Vec::new()) });
        }
        let (done, outcome) = oneshot::channel();
        let unknown = Delivered { partition: -1, offset: -1 };
        let batch = Arc::new(Batch {
            state: Mutex::new(BatchState {
                delivered: vec![unknown; records.len()],
                remaining: records.len(),
                error: None,
                done: Some(done),
            }),
        });
        for (index, r) in records.iter().enumerate() {
            let slot = Box::new(Slot { batch: batch.clone(), index });
            if let Err(e) = enqueue(&self.producer, r, slot) {
                // The records already queued still report to the batch; nobody waits.
                batch.state.lock().expect("not poisoned").done = None;
                let error =
                    TopicError::Produce { topic: r.topic.to_string(), reason: e.to_string() };
                return Box::pin(async move { Err(error) });
            }
        }
        let topic = records[0].topic.to_string();
        Box::pin(async move {
            outcome.await.map_err(|_| TopicError::Produce {
                topic,
                reason: "the producer was closed before the records were written".into(),
            })?
        })
    }
}

/// Enqueues one record, waiting while the local queue is full.
fn enqueue(
    producer: &ThreadedProducer<Acks>,
    r: &OutRecord,
    slot: Box<Slot>,
) -> Result<(), KafkaError> {
    let mut record = BaseRecord::<[u8], [u8], Box<Slot>>::with_opaque_to(&r.topic, slot);
    if !r.headers.is_empty() {
        let mut headers = OwnedHeaders::new_with_capacity(r.headers.len());
        for h in &r.headers {
            headers = headers.insert(KafkaHeader { key: &h.key, value: h.value.as_deref() });
        }
        record = record.headers(headers);
    }
    if let Some(key) = &r.key {
        record = record.key(&key[..]);
    }
    if let Some(value) = &r.value {
        record = record.payload(&value[..]);
    }
    if let Some(p) = r.partition {
        record = record.partition(p);
    }
    if let Some(ts) = r.timestamp {
        record = record.timestamp(ts);
    }
    loop {
        match producer.send(record) {
            Ok(()) => return Ok(()),
            Err((KafkaError::MessageProduction(RDKafkaErrorCode::QueueFull), back)) => {
                record = back;
                std::thread::sleep(QUEUE_FULL_BACKOFF);
            }
            Err((e, _)) => return Err(e),
        }
    }
}
