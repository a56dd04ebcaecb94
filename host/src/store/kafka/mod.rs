//! [`KafkaBackend`]: log topics in a Kafka cluster, as Kafka Connect keeps its config,
//! status and offsets topics (rdkafka over librdkafka). It owns the backend's clients: one
//! admin client, one idempotent producer shared by every topic, two clients listing offsets,
//! and a consumer per reader.
//!
//! Guarantees: a `send` returns `Ok` only once every record is acknowledged with `acks=all`;
//! any failure, and no acknowledgement within the delivery timeout (a broker away), is
//! [`StoreError::Unavailable`]. Keys are partitioned as Java clients partition them
//! (`murmur2_random`). Clients reconnect by themselves when a broker comes back; readers keep
//! their positions across the outage.
//!
//! Blocking librdkafka calls (metadata, end offsets, consumer creation) run on tokio's
//! blocking pool, never on an async thread.
//!
//! Layout: `settings.rs` (client properties), `context.rs` (the clients' callbacks:
//! authentication failures end requests at once, repeated logs are dropped), `admin.rs` (create and check topics),
//! `producer.rs`, `topic.rs` (the [`LogTopic`] handle), `reader.rs` (the
//! [`LogReader`](super::LogReader)), `watermarks.rs` (where a reader must read to),
//! `transactional.rs` (a topic written in transactions: the leader's config-topic writes
//! under exactly-once source support).
//!
//! Readers' consumers read `read_committed` (librdkafka's default, never overridden here):
//! what an aborted or open transaction wrote to the config or offsets topic is never read.
//! A read of the config topic to its end goes to the high watermark, so it waits for an
//! open transaction to end, as Kafka Connect's `read_committed` consumers do when
//! `exactly.once.source.support=enabled`; other topics are read to their last stable
//! offset (`watermarks.rs`, and why in `KafkaBackend::topic`).

mod admin;
mod context;
mod producer;
mod reader;
mod settings;
mod topic;
mod transactional;
mod watermarks;

#[cfg(test)]
mod tests;

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;

use self::admin::TopicAdmin;
use self::context::BackendContext;
use self::producer::Producer;
use self::settings::ClientSettings;
use self::topic::KafkaTopic;
use self::watermarks::{End, Watermarks};
use super::{LogBackend, LogTopic, StoreError, TopicSpec};
use crate::config::security::librdkafka_props;

/// Log topics in a Kafka cluster. Clones share the clients.
#[derive(Clone)]
pub struct KafkaBackend {
    settings: Arc<ClientSettings>,
    admin: TopicAdmin,
    producer: Arc<Producer>,
    /// End offsets at the last stable offset: the offsets and status topics.
    watermarks: Watermarks,
    /// End offsets at the high watermark: the config topic.
    high_watermarks: Watermarks,
}

impl KafkaBackend {
    /// Clients for the cluster at `bootstrap_servers`. `extra_client_props` (security with
    /// Kafka's names, mapped to librdkafka's; client id, ...) apply to every client, but
    /// cannot weaken the log's guarantees:
    /// idempotence, `acks=all`, the partitioner, the timeouts and the consumers' settings
    /// are forced. `delivery_timeout` bounds how long a `send` waits for acknowledgements,
    /// and how long any other request waits for the cluster, before
    /// [`StoreError::Unavailable`]; an authentication or TLS failure ends a request at once
    /// with [`StoreError::Authentication`]. Connects lazily: nothing here waits for the
    /// cluster.
    pub fn new(
        bootstrap_servers: &str,
        extra_client_props: &[(String, String)],
        delivery_timeout: Duration,
    ) -> Result<Self, StoreError> {
        let kafka = extra_client_props.iter().cloned().collect();
        let extra = librdkafka_props(&kafka).map_err(|e| StoreError::Config(e.to_string()))?;
        let settings = Arc::new(ClientSettings {
            bootstrap_servers: bootstrap_servers.to_owned(),
            extra,
            timeout: delivery_timeout,
            context: BackendContext::new(),
        });
        Ok(Self {
            admin: TopicAdmin::new(&settings)?,
            producer: Arc::new(Producer::new(settings.clone())?),
            watermarks: Watermarks::new(&settings, End::Stable)?,
            high_watermarks: Watermarks::new(&settings, End::High)?,
            settings,
        })
    }
}

#[async_trait]
impl LogBackend for KafkaBackend {
    async fn topic(&self, spec: &TopicSpec) -> Result<Arc<dyn LogTopic>, StoreError> {
        let partitions = self.settings.context.guard(self.admin.ensure(spec)).await?;
        Ok(Arc::new(KafkaTopic {
            name: spec.name.clone(),
            partitions,
            settings: self.settings.clone(),
            producer: self.producer.clone(),
            // The config topic (the one topic of a single partition) is read to its high
            // watermark, as Kafka Connect reads it: a read-back right after the leader's
            // transactional write must see it even before its commit markers are written.
            // Offsets topics read to their last stable offset, so that a killed worker's
            // open transaction does not hold up the start of every other task; a task's
            // own predecessors' transactions are complete before it reads (its producer's
            // `InitProducerId` and the fencing round wait for them).
            watermarks: if spec.single_partition {
                self.high_watermarks.clone()
            } else {
                self.watermarks.clone()
            },
        }))
    }

    async fn cluster_id(&self) -> Result<Option<String>, StoreError> {
        self.settings.context.guard(self.admin.cluster_id()).await.map(Some)
    }
}
