//! [`TopicAdmin`]: makes sure a topic exists as its [`TopicSpec`] asks: creates it when
//! missing (partitions, replication factor, `cleanup.policy=compact`), checks it when present
//! (single partition, compact-only cleanup policy).
//!
//! Three requests at most per topic (metadata, create, describe configs), whatever its size.
//! Metadata requests block in librdkafka, so they run on the blocking pool. It must not
//! produce or consume.

use std::sync::Arc;
use std::time::Duration;

use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, ResourceSpecifier, TopicReplication};
use rdkafka::error::KafkaError;
use rdkafka::types::{RDKafkaErrorCode, RDKafkaRespErr};
use tokio::time::Instant;

use super::context::BackendContext;
use super::settings::ClientSettings;
use crate::store::requirements::{check_cleanup_policy, check_partitions};
use crate::store::{StoreError, TopicSpec};

/// Pause between retries of a request the cluster answered with a transient error (a topic
/// just created and not yet visible everywhere).
const RETRY_BACKOFF: Duration = Duration::from_millis(100);

/// Shortest timeout given to a request, however close the deadline: a last attempt gets a
/// real chance.
const MIN_REQUEST_TIMEOUT: Duration = Duration::from_millis(500);

/// Creates and checks topics.
#[derive(Clone)]
pub(super) struct TopicAdmin {
    client: Arc<AdminClient<BackendContext>>,
    timeout: Duration,
}

impl TopicAdmin {
    /// An admin client for `settings`.
    pub(super) fn new(settings: &ClientSettings) -> Result<Self, StoreError> {
        let client =
            settings.admin().create_with_context(settings.context.clone()).map_err(|e| {
                StoreError::Config(format!("cannot create the Kafka admin client: {e}"))
            })?;
        Ok(Self { client: Arc::new(client), timeout: settings.timeout })
    }

    /// The cluster's id, from the metadata.
    pub(super) async fn cluster_id(&self) -> Result<String, StoreError> {
        let client = self.client.clone();
        let timeout = self.timeout;
        tokio::task::spawn_blocking(move || client.inner().fetch_cluster_id(timeout))
            .await
            .map_err(|e| StoreError::Unavailable(format!("metadata task failed: {e}")))?
            .ok_or_else(|| {
                StoreError::Unavailable(format!("the cluster id was not known within {timeout:?}"))
            })
    }

    /// Creates `spec`'s topic when missing, checks it, and returns its partition count.
    pub(super) async fn ensure(&self, spec: &TopicSpec) -> Result<i32, StoreError> {
        let deadline = Instant::now() + self.timeout;
        let partitions = match self.partition_count(&spec.name, deadline, false).await? {
            Some(partitions) => partitions,
            None => {
                self.create(spec).await?;
                self.partition_count(&spec.name, deadline, true).await?.ok_or_else(|| {
                    StoreError::Unavailable(format!(
                        "topic '{}' was created but is not in the metadata after {:?}",
                        spec.name, self.timeout
                    ))
                })?
            }
        };
        check_partitions(spec, partitions)?;
        if spec.compacted {
            let policy = self.cleanup_policy(&spec.name, deadline).await?;
            check_cleanup_policy(spec, &policy)?;
        }
        Ok(partitions)
    }

    /// The topic's partition count from the cluster metadata, or `None` if it does not
    /// exist. Transient errors (a leader being elected) are retried until `deadline`, and
    /// so is a missing topic when `created` says it was just created.
    async fn partition_count(
        &self,
        topic: &str,
        deadline: Instant,
        created: bool,
    ) -> Result<Option<i32>, StoreError> {
        loop {
            let found = self.fetch_partition_count(topic, deadline).await;
            match found {
                Ok(Some(_)) => return found,
                Ok(None) if !created => return found,
                _ if Instant::now() >= deadline => return found,
                _ => tokio::time::sleep(RETRY_BACKOFF).await,
            }
        }
    }

    /// One metadata request for `topic`, answered by `deadline` at the latest.
    async fn fetch_partition_count(
        &self,
        topic: &str,
        deadline: Instant,
    ) -> Result<Option<i32>, StoreError> {
        let client = self.client.clone();
        let name = topic.to_owned();
        let left = deadline.saturating_duration_since(Instant::now()).max(MIN_REQUEST_TIMEOUT);
        let metadata =
            tokio::task::spawn_blocking(move || client.inner().fetch_metadata(Some(&name), left))
                .await
                .map_err(|e| StoreError::Unavailable(format!("metadata task failed: {e}")))?
                .map_err(|e| unavailable(topic, "cannot fetch the metadata of", e))?;
        let Some(found) = metadata.topics().iter().find(|t| t.name() == topic) else {
            return Ok(None);
        };
        match found.error() {
            None if !found.partitions().is_empty() => Ok(Some(found.partitions().len() as i32)),
            None | Some(RDKafkaRespErr::RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART) => Ok(None),
            Some(code) => Err(StoreError::Unavailable(format!(
                "the metadata of topic '{topic}' reports an error: {}",
                RDKafkaErrorCode::from(code)
            ))),
        }
    }

    /// Creates the topic; one that already exists (created meanwhile) is not an error.
    async fn create(&self, spec: &TopicSpec) -> Result<(), StoreError> {
        let mut topic = NewTopic::new(
            &spec.name,
            spec.partitions,
            TopicReplication::Fixed(i32::from(spec.replication_factor)),
        );
        if spec.compacted {
            topic = topic.set("cleanup.policy", "compact");
        }
        let results = self
            .client
            .create_topics([&topic], &self.options())
            .await
            .map_err(|e| unavailable(&spec.name, "cannot create", e))?;
        for result in results {
            match result {
                Ok(_) => tracing::info!(
                    topic = %spec.name, partitions = spec.partitions,
                    replication_factor = spec.replication_factor, compacted = spec.compacted,
                    "Created a Kafka topic"
                ),
                Err((_, RDKafkaErrorCode::TopicAlreadyExists)) => {}
                Err((_, code)) => {
                    return Err(StoreError::Topic(format!(
                        "Topic '{}' could not be created with {} partitions and replication \
                         factor {}: {code}.",
                        spec.name, spec.partitions, spec.replication_factor
                    )));
                }
            }
        }
        Ok(())
    }

    /// The topic's `cleanup.policy`, retried until `deadline` while the topic is too new to
    /// be described.
    async fn cleanup_policy(&self, topic: &str, deadline: Instant) -> Result<String, StoreError> {
        loop {
            let described = self
                .client
                .describe_configs([&ResourceSpecifier::Topic(topic)], &self.options())
                .await
                .map_err(|e| unavailable(topic, "cannot describe the configuration of", e))?;
            match described.into_iter().next() {
                Some(Ok(resource)) => {
                    return Ok(resource
                        .get("cleanup.policy")
                        .and_then(|entry| entry.value.clone())
                        // The broker always reports it; Kafka's default if it does not.
                        .unwrap_or_else(|| "delete".to_owned()));
                }
                failed if Instant::now() >= deadline => {
                    let cause = match failed {
                        Some(Err(code)) => code.to_string(),
                        _ => "the broker returned no configuration".to_owned(),
                    };
                    return Err(StoreError::Unavailable(format!(
                        "cannot describe the configuration of topic '{topic}': {cause}"
                    )));
                }
                _ => tokio::time::sleep(RETRY_BACKOFF).await,
            }
        }
    }

    fn options(&self) -> AdminOptions {
        AdminOptions::new()
            .request_timeout(Some(self.timeout))
            .operation_timeout(Some(self.timeout))
    }
}

fn unavailable(topic: &str, doing: &str, error: KafkaError) -> StoreError {
    StoreError::Unavailable(format!("{doing} topic '{topic}': {error}"))
}
