//! [`Watermarks`]: the log start and end offsets of a topic's partitions: where a reader
//! starts, and where `read_to_end` must get to. One `ListOffsets` request per partition
//! leader, on a client of its own: a reader's consumer connection can be held by a fetch
//! waiting for new records (up to `fetch.wait.max.ms`), and the broker answers one
//! connection's requests in order.
//!
//! The client is a consumer that never consumes: no group, no assignment. Its calls block,
//! so they run on the blocking pool. Its end offsets are either the last stable offsets
//! (`read_committed`, librdkafka's default) or the high watermarks (`read_uncommitted`,
//! what Kafka Connect's `TopicAdmin.endOffsets` lists): [`End`].

use std::sync::Arc;
use std::time::Duration;

use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::error::KafkaError;
use rdkafka::types::RDKafkaErrorCode;
use rdkafka::{Offset, TopicPartitionList};

use super::context::BackendContext;
use super::settings::ClientSettings;
use crate::store::StoreError;

/// Pause between retries of a request the cluster could not answer (a leader moving).
const RETRY_BACKOFF: Duration = Duration::from_millis(200);

/// Where each partition of a topic starts and ends.
#[derive(Clone)]
pub(super) struct Watermarks {
    client: Arc<BaseConsumer<BackendContext>>,
    context: BackendContext,
    timeout: Duration,
}

/// Which end offset a read to the end reads to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum End {
    /// The last stable offset: the end of what is committed now. A reader gets there
    /// without waiting for an open transaction, but a transaction whose commit returned
    /// may still lie beyond it until its markers are written.
    Stable,
    /// The high watermark: every record written, committed or not. A `read_committed`
    /// reader gets there once the transactions before it have ended.
    High,
}

impl Watermarks {
    /// A client for `settings`, listing `end` offsets.
    pub(super) fn new(settings: &ClientSettings, end: End) -> Result<Self, StoreError> {
        let mut config = settings.offsets();
        if end == End::High {
            config.set("isolation.level", "read_uncommitted");
        }
        let client = config.create_with_context(settings.context.clone()).map_err(|e| {
            StoreError::Config(format!("cannot create the Kafka offsets client: {e}"))
        })?;
        Ok(Self {
            client: Arc::new(client),
            context: settings.context.clone(),
            timeout: settings.timeout,
        })
    }

    /// The log start offsets of partitions `0..partitions` of `topic`: where a reader
    /// starts.
    pub(super) async fn starts(
        &self,
        topic: &str,
        partitions: usize,
    ) -> Result<Vec<i64>, StoreError> {
        self.query(topic, partitions, Offset::Beginning).await
    }

    /// The end offsets of partitions `0..partitions` of `topic`: where `read_to_end` stops.
    pub(super) async fn ends(
        &self,
        topic: &str,
        partitions: usize,
    ) -> Result<Vec<i64>, StoreError> {
        self.query(topic, partitions, Offset::End).await
    }

    /// `list`, on the blocking pool, retried until the timeout.
    async fn query(
        &self,
        topic: &str,
        partitions: usize,
        which: Offset,
    ) -> Result<Vec<i64>, StoreError> {
        let (client, timeout, name) = (self.client.clone(), self.timeout, topic.to_owned());
        let listed = tokio::task::spawn_blocking(move || {
            // Serve the client's queued events (errors while a broker is away): nothing
            // else polls this client.
            while client.poll(Duration::ZERO).is_some() {}
            let deadline = std::time::Instant::now() + timeout;
            loop {
                let left = deadline.saturating_duration_since(std::time::Instant::now());
                match list(&client, &name, partitions, which, left) {
                    Ok(offsets) => return Ok(offsets),
                    Err(e) if std::time::Instant::now() >= deadline => {
                        return Err(StoreError::Unavailable(format!(
                            "cannot list the offsets of topic '{name}' within {timeout:?}: {e}"
                        )));
                    }
                    Err(_) => std::thread::sleep(RETRY_BACKOFF),
                }
            }
        });
        self.context
            .guard(async move {
                listed.await.map_err(|e| {
                    StoreError::Unavailable(format!("list offsets task failed: {e}"))
                })?
            })
            .await
    }
}

/// One `ListOffsets` round for every partition: `which` is `Offset::Beginning` (log start
/// offsets) or `Offset::End` (end offsets).
fn list(
    client: &BaseConsumer<BackendContext>,
    topic: &str,
    partitions: usize,
    which: Offset,
    timeout: Duration,
) -> Result<Vec<i64>, KafkaError> {
    let mut request = TopicPartitionList::new();
    for partition in 0..partitions as i32 {
        request.add_partition_offset(topic, partition, which)?;
    }
    let answer = client.offsets_for_times(request, timeout)?;
    let mut offsets = vec![None; partitions];
    for element in answer.elements() {
        element.error()?;
        if let (Offset::Offset(offset), Some(slot)) =
            (element.offset(), offsets.get_mut(element.partition() as usize))
        {
            *slot = Some(offset);
        }
    }
    offsets
        .into_iter()
        .collect::<Option<Vec<i64>>>()
        .ok_or(KafkaError::OffsetFetch(RDKafkaErrorCode::OffsetNotAvailable))
}
