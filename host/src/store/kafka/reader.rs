//! [`KafkaReader`]: reads one topic with a consumer of its own, assigned every partition
//! from the beginning (no group membership, no commits: the position lives here).
//!
//! It starts at the log start offsets asked of [`Watermarks`], not at the logical
//! `OFFSET_BEGINNING`: librdkafka resolves those one partition at a time, and a fetch for
//! the partitions already resolved then waits out `fetch.wait.max.ms` (500 ms) at their
//! end before the others join in.
//!
//! `read_to_end` first asks [`Watermarks`] for the end offsets of every partition, then
//! consumes until every partition's position reaches them. Records arrive in librdkafka's
//! fetch batches; nothing is a round trip per record. Both calls are cancel-safe: records
//! taken from the consumer wait in `pending` for the next call. It must not write.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use async_trait::async_trait;
use rdkafka::consumer::{Consumer, StreamConsumer};
use rdkafka::error::KafkaError;
use rdkafka::message::{BorrowedMessage, Message};
use rdkafka::{Offset, TopicPartitionList};
use tokio::time::Instant;

use super::context::BackendContext;
use super::settings::ClientSettings;
use super::watermarks::Watermarks;
use crate::store::{LogEntry, LogReader, StoreError};

/// How long `read_to_end` waits for a record before checking the consumer's positions (and
/// whether it has waited too long); also how often it checks them while records arrive.
const IDLE_CHECK: Duration = Duration::from_millis(200);

/// Most records one `poll` returns; the rest wait in the consumer for the next call.
const POLL_BATCH_MAX: usize = 10_000;

/// Reads one Kafka topic from the start.
pub(super) struct KafkaReader {
    topic: String,
    /// Always `Some` until the reader is dropped; then closed on the blocking pool.
    consumer: Option<Arc<StreamConsumer<BackendContext>>>,
    watermarks: Watermarks,
    /// Next offset to read, per partition.
    next: Vec<i64>,
    /// Records taken from the consumer and not yet returned.
    pending: Vec<LogEntry>,
    /// How long to wait for the cluster without progress.
    timeout: Duration,
    /// The clients' callbacks: an authentication failure ends a read at once.
    context: BackendContext,
}

impl KafkaReader {
    /// A reader of `topic`'s `partitions` partitions, from the beginning of each.
    pub(super) async fn open(
        settings: &ClientSettings,
        watermarks: Watermarks,
        topic: &str,
        partitions: i32,
    ) -> Result<Self, StoreError> {
        let starts = watermarks.starts(topic, partitions as usize).await?;
        let config = settings.consumer(&group_id(topic));
        let name = topic.to_owned();
        let assigned = starts.clone();
        let context = settings.context.clone();
        // Creating the consumer and assigning wait for librdkafka's threads: blocking pool.
        let consumer = tokio::task::spawn_blocking(move || {
            let consumer: StreamConsumer<BackendContext> =
                config.create_with_context(context).map_err(|e| {
                    StoreError::Config(format!("cannot create a Kafka consumer for '{name}': {e}"))
                })?;
            let mut assignment = TopicPartitionList::new();
            for (partition, start) in assigned.into_iter().enumerate() {
                assignment
                    .add_partition_offset(&name, partition as i32, Offset::Offset(start))
                    .map_err(|e| unavailable(&name, "cannot assign", e))?;
            }
            consumer.assign(&assignment).map_err(|e| unavailable(&name, "cannot assign", e))?;
            Ok::<_, StoreError>(consumer)
        })
        .await
        .map_err(|e| StoreError::Unavailable(format!("consumer task failed: {e}")))??;
        Ok(Self {
            topic: topic.to_owned(),
            consumer: Some(Arc::new(consumer)),
            watermarks,
            next: starts,
            pending: Vec::new(),
            timeout: settings.timeout,
            context: settings.context.clone(),
        })
    }

    /// The consumer.
    fn consumer(&self) -> Result<Arc<StreamConsumer<BackendContext>>, StoreError> {
        self.consumer.clone().ok_or(StoreError::Closed)
    }

    /// Keeps `message` for the caller and advances its partition's position.
    fn take(&mut self, message: &BorrowedMessage<'_>) {
        let (partition, offset) = (message.partition(), message.offset());
        if let Some(next) = self.next.get_mut(partition as usize) {
            *next = offset + 1;
        }
        self.pending.push(LogEntry {
            partition,
            offset,
            key: message.key().map(<[u8]>::to_vec),
            value: message.payload().map(<[u8]>::to_vec),
        });
    }

    /// Fatal consumer errors end the call; others (a broker away) are librdkafka's to retry.
    fn on_error(&self, error: KafkaError) -> Result<(), StoreError> {
        match error {
            KafkaError::MessageConsumptionFatal(_) => {
                Err(unavailable(&self.topic, "cannot consume", error))
            }
            error => {
                tracing::debug!(
                    topic = %self.topic, error = %error,
                    "The Kafka consumer reported an error; it retries"
                );
                Ok(())
            }
        }
    }

    /// Advances positions past offsets the consumer skipped without returning a record
    /// (transaction markers).
    fn merge_positions(&mut self) {
        let Some(Ok(positions)) = self.consumer.as_ref().map(|c| c.position()) else {
            return;
        };
        for element in positions.elements() {
            if let (Offset::Offset(position), Some(next)) =
                (element.offset(), self.next.get_mut(element.partition() as usize))
            {
                *next = (*next).max(position);
            }
        }
    }
}

#[async_trait]
impl LogReader for KafkaReader {
    async fn read_to_end(&mut self) -> Result<Vec<LogEntry>, StoreError> {
        let context = self.context.clone();
        context.guard(self.read_until_end()).await
    }

    async fn poll(&mut self, timeout: Duration) -> Result<Vec<LogEntry>, StoreError> {
        self.poll_for(timeout).await
    }
}

impl KafkaReader {
    /// Reads until the end offsets listed at the start.
    async fn read_until_end(&mut self) -> Result<Vec<LogEntry>, StoreError> {
        let consumer = self.consumer()?;
        let starts = self.watermarks.starts(&self.topic, self.next.len()).await?;
        let ends = self.watermarks.ends(&self.topic, self.next.len()).await?;
        let mut progress = Instant::now();
        let mut merged = Instant::now();
        loop {
            // Offsets below a partition's log start are gone: nothing to wait for there.
            let done = self
                .next
                .iter()
                .zip(&starts)
                .zip(&ends)
                .all(|((next, start), end)| (*next).max(*start) >= *end);
            if done {
                return Ok(std::mem::take(&mut self.pending));
            }
            match tokio::time::timeout(IDLE_CHECK, consumer.recv()).await {
                Ok(Ok(message)) => {
                    self.take(&message);
                    progress = Instant::now();
                    // A partition whose end is a transaction marker reaches it only
                    // through the position; records of a busy partition must not keep
                    // that check from running (transactional writers never pause).
                    if merged.elapsed() >= IDLE_CHECK {
                        self.merge_positions();
                        merged = Instant::now();
                    }
                }
                Ok(Err(error)) => self.on_error(error)?,
                Err(_) => {
                    self.merge_positions();
                    merged = Instant::now();
                    if progress.elapsed() >= self.timeout {
                        return Err(StoreError::Unavailable(format!(
                            "reading topic '{}' to its end made no progress for {:?}",
                            self.topic, self.timeout
                        )));
                    }
                }
            }
        }
    }

    async fn poll_for(&mut self, timeout: Duration) -> Result<Vec<LogEntry>, StoreError> {
        if !self.pending.is_empty() {
            return Ok(std::mem::take(&mut self.pending));
        }
        let consumer = self.consumer()?;
        let deadline = Instant::now() + timeout;
        loop {
            match tokio::time::timeout_at(deadline, consumer.recv()).await {
                Ok(Ok(message)) => {
                    self.take(&message);
                    break;
                }
                Ok(Err(error)) => self.on_error(error)?,
                Err(_) => return Ok(Vec::new()),
            }
        }
        // Then whatever the consumer already holds, without waiting.
        while self.pending.len() < POLL_BATCH_MAX {
            match tokio::time::timeout(Duration::ZERO, consumer.recv()).await {
                Ok(Ok(message)) => self.take(&message),
                Ok(Err(error)) => self.on_error(error)?,
                Err(_) => break,
            }
        }
        Ok(std::mem::take(&mut self.pending))
    }
}

impl Drop for KafkaReader {
    fn drop(&mut self) {
        // Closing a consumer waits for librdkafka's threads (100 ms with offsets still
        // being resolved): on the blocking pool when there is one, not on an async thread.
        if let (Some(consumer), Ok(runtime)) =
            (self.consumer.take(), tokio::runtime::Handle::try_current())
        {
            runtime.spawn_blocking(move || drop(consumer));
        }
    }
}

/// A group id no other reader uses: librdkafka needs one to assign partitions, and this
/// reader never joins or commits to it.
fn group_id(topic: &str) -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    format!("wasm-connect-reader-{topic}-{}-{nanos}-{n}", std::process::id())
}

fn unavailable(topic: &str, doing: &str, error: KafkaError) -> StoreError {
    StoreError::Unavailable(format!("{doing} topic '{topic}': {error}"))
}
