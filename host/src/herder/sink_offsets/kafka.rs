//! [`KafkaSinkOffsets`]: sink connectors' offsets as the committed offsets of their consumer
//! group in the Kafka cluster.
//!
//! rdkafka 0.39 wraps neither the admin `ListConsumerGroupOffsets` nor
//! `DeleteConsumerGroupOffsets` call (only `DeleteGroups`), so:
//! - reading: a consumer with the group's id that never subscribes, and so never joins the
//!   group, fetches the group's committed offsets of every partition in the cluster metadata;
//! - altering: that consumer commits as a memberless ("simple") consumer, which the broker
//!   accepts only while the group is empty; the offsets are read back before `Ok`, so `Ok`
//!   means the group coordinator holds them;
//! - removing some partitions' offsets (a `null` offset): the group is deleted, then the
//!   offsets it keeps are committed again. Not atomic: if the second step fails, the kept
//!   offsets are logged and the error says they must be committed again;
//! - resetting: `DeleteGroups` (a missing group is already reset).
//!
//! Blocking librdkafka calls run on tokio's blocking pool.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use rdkafka::admin::{AdminClient, AdminOptions};
use rdkafka::consumer::{BaseConsumer, CommitMode, Consumer};
use rdkafka::error::KafkaError;
use rdkafka::types::RDKafkaErrorCode;
use rdkafka::{ClientConfig, Offset, TopicPartitionList};

use super::{SinkOffsets, SinkOffsetsError};
use crate::config::security::librdkafka_props;
use crate::model::TopicPartition;
use crate::telemetry::client_log::ClientLogContext;

/// Cap on librdkafka's reconnect backoff (default 10 s), as for the store's clients.
const RECONNECT_BACKOFF_MAX_MS: &str = "1000";

/// Consumer-group offsets in a Kafka cluster.
pub struct KafkaSinkOffsets {
    config: ClientConfig,
    admin: Arc<AdminClient<ClientLogContext>>,
    timeout: Duration,
}

impl KafkaSinkOffsets {
    /// Clients for the cluster at `bootstrap_servers` with the worker's client properties
    /// (security with Kafka's names, mapped to librdkafka's; ...). `timeout` bounds each request to the cluster. Connects lazily.
    pub fn new(
        bootstrap_servers: &str,
        client_props: &[(String, String)],
        timeout: Duration,
    ) -> Result<Self, SinkOffsetsError> {
        let mut config = ClientConfig::new();
        config.set("reconnect.backoff.max.ms", RECONNECT_BACKOFF_MAX_MS);
        let kafka = client_props.iter().cloned().collect();
        let mapped =
            librdkafka_props(&kafka).map_err(|e| SinkOffsetsError::Kafka(e.to_string()))?;
        for (key, value) in mapped {
            config.set(key, value);
        }
        config.set("bootstrap.servers", bootstrap_servers).set("allow.auto.create.topics", "false");
        let admin = config.create_with_context(ClientLogContext).map_err(|e| {
            SinkOffsetsError::Kafka(format!("cannot create the Kafka admin client: {e}"))
        })?;
        Ok(Self { config, admin: Arc::new(admin), timeout })
    }

    /// Runs `f` on the blocking pool with a fresh memberless consumer of `group`.
    async fn with_group<T: Send + 'static>(
        &self,
        group: &str,
        f: impl FnOnce(&GroupConsumer) -> Result<T, SinkOffsetsError> + Send + 'static,
    ) -> Result<T, SinkOffsetsError> {
        let mut config = self.config.clone();
        config
            .set("group.id", group)
            .set("enable.auto.commit", "false")
            .set("enable.auto.offset.store", "false");
        let (group, timeout) = (group.to_owned(), self.timeout);
        tokio::task::spawn_blocking(move || {
            let consumer = config
                .create_with_context(ClientLogContext)
                .map_err(|e| kafka_error(&group, "create a consumer of", e))?;
            f(&GroupConsumer { consumer, group, timeout })
        })
        .await
        .map_err(|e| SinkOffsetsError::Kafka(format!("a consumer-group request panicked: {e}")))?
    }

    async fn delete_group(&self, group: &str) -> Result<(), SinkOffsetsError> {
        let opts = AdminOptions::new()
            .request_timeout(Some(self.timeout))
            .operation_timeout(Some(self.timeout));
        let results = self
            .admin
            .delete_groups(&[group], &opts)
            .await
            .map_err(|e| kafka_error(group, "delete", e))?;
        for result in results {
            match result {
                Ok(_) | Err((_, RDKafkaErrorCode::GroupIdNotFound)) => {}
                Err((_, RDKafkaErrorCode::NonEmptyGroup)) => {
                    return Err(SinkOffsetsError::GroupActive { group: group.to_owned() });
                }
                Err((_, code)) => {
                    return Err(SinkOffsetsError::Kafka(format!(
                        "cannot delete the consumer group {group}: {code}"
                    )));
                }
            }
        }
        Ok(())
    }
}

#[async_trait]
impl SinkOffsets for KafkaSinkOffsets {
    async fn get(&self, group: &str) -> Result<Vec<(TopicPartition, i64)>, SinkOffsetsError> {
        self.with_group(group, |c| c.committed(c.all_partitions()?)).await
    }

    async fn alter(
        &self,
        group: &str,
        offsets: &[(TopicPartition, Option<i64>)],
    ) -> Result<(), SinkOffsetsError> {
        let offsets = offsets.to_vec();
        let rewrite = self
            .with_group(group, move |c| {
                c.ensure_empty()?;
                let set: BTreeMap<TopicPartition, i64> =
                    offsets.iter().filter_map(|(tp, o)| Some((tp.clone(), (*o)?))).collect();
                let removed: BTreeSet<&TopicPartition> =
                    offsets.iter().filter(|(_, o)| o.is_none()).map(|(tp, _)| tp).collect();
                let current = if removed.is_empty() { Vec::new() } else { c.committed_all()? };
                if !current.iter().any(|(tp, _)| removed.contains(tp)) {
                    return c.commit(&set).map(|()| None);
                }
                let mut keep: BTreeMap<TopicPartition, i64> =
                    current.into_iter().filter(|(tp, _)| !removed.contains(tp)).collect();
                keep.extend(set);
                Ok(Some(keep))
            })
            .await?;
        let Some(keep) = rewrite else { return Ok(()) };
        self.delete_group(group).await?;
        let kept = keep.clone();
        self.with_group(group, move |c| c.commit(&kept)).await.map_err(|e| {
            tracing::error!(
                group = %group,
                offsets = ?keep,
                error = %e,
                "Deleted a consumer group to remove offsets, but committing the offsets it keeps failed"
            );
            SinkOffsetsError::Kafka(format!(
                "the consumer group {group} was deleted to remove offsets, but committing the \
                 offsets it keeps failed; commit them again: {e}"
            ))
        })
    }

    async fn reset(&self, group: &str) -> Result<(), SinkOffsetsError> {
        self.delete_group(group).await
    }
}

/// A consumer with the group's id that never joins it.
struct GroupConsumer {
    consumer: BaseConsumer<ClientLogContext>,
    group: String,
    timeout: Duration,
}

impl GroupConsumer {
    fn err<'a>(&'a self, what: &'a str) -> impl FnOnce(KafkaError) -> SinkOffsetsError + 'a {
        move |e| kafka_error(&self.group, what, e)
    }

    /// Every partition of every topic in the cluster.
    fn all_partitions(&self) -> Result<TopicPartitionList, SinkOffsetsError> {
        let metadata = self
            .consumer
            .fetch_metadata(None, self.timeout)
            .map_err(self.err("list the topics for"))?;
        let mut tpl = TopicPartitionList::new();
        for topic in metadata.topics().iter().filter(|t| t.error().is_none()) {
            for p in topic.partitions() {
                tpl.add_partition(topic.name(), p.id());
            }
        }
        Ok(tpl)
    }

    fn committed_all(&self) -> Result<Vec<(TopicPartition, i64)>, SinkOffsetsError> {
        self.committed(self.all_partitions()?)
    }

    /// The group's committed offsets of `tpl`'s partitions that have one, sorted.
    fn committed(
        &self,
        tpl: TopicPartitionList,
    ) -> Result<Vec<(TopicPartition, i64)>, SinkOffsetsError> {
        if tpl.count() == 0 {
            return Ok(Vec::new());
        }
        let tpl = self
            .consumer
            .committed_offsets(tpl, self.timeout)
            .map_err(self.err("read the committed offsets of"))?;
        let mut found: Vec<(TopicPartition, i64)> = tpl
            .elements()
            .iter()
            .filter(|e| e.error().is_ok())
            .filter_map(|e| match e.offset() {
                Offset::Offset(o) => Some((
                    TopicPartition { topic: e.topic().to_owned(), partition: e.partition() },
                    o,
                )),
                _ => None,
            })
            .collect();
        found.sort();
        Ok(found)
    }

    /// Fails with `GroupActive` while the group has members.
    fn ensure_empty(&self) -> Result<(), SinkOffsetsError> {
        let list = self
            .consumer
            .fetch_group_list(Some(&self.group), self.timeout)
            .map_err(self.err("describe"))?;
        if list.groups().iter().any(|g| g.name() == self.group && !g.members().is_empty()) {
            return Err(SinkOffsetsError::GroupActive { group: self.group.clone() });
        }
        Ok(())
    }

    /// Commits `offsets` and reads them back.
    fn commit(&self, offsets: &BTreeMap<TopicPartition, i64>) -> Result<(), SinkOffsetsError> {
        if offsets.is_empty() {
            return Ok(());
        }
        let mut tpl = TopicPartitionList::new();
        let mut partitions = TopicPartitionList::new();
        for (tp, o) in offsets {
            tpl.add_partition_offset(&tp.topic, tp.partition, Offset::Offset(*o))
                .map_err(self.err("prepare a commit to"))?;
            partitions.add_partition(&tp.topic, tp.partition);
        }
        self.consumer.commit(&tpl, CommitMode::Sync).map_err(self.err("commit offsets to"))?;
        let held: BTreeMap<TopicPartition, i64> = self.committed(partitions)?.into_iter().collect();
        let missing: Vec<String> = offsets
            .iter()
            .filter(|(tp, o)| held.get(tp) != Some(o))
            .map(|(tp, _)| format!("{}-{}", tp.topic, tp.partition))
            .collect();
        if !missing.is_empty() {
            return Err(SinkOffsetsError::Kafka(format!(
                "the consumer group {} did not keep the offsets committed for {}",
                self.group,
                missing.join(", ")
            )));
        }
        Ok(())
    }
}

/// A client error; the codes a non-empty group answers with become `GroupActive`.
fn kafka_error(group: &str, what: &str, e: KafkaError) -> SinkOffsetsError {
    use RDKafkaErrorCode::*;
    match e.rdkafka_error_code() {
        Some(
            UnknownMemberId
            | IllegalGeneration
            | RebalanceInProgress
            | NonEmptyGroup
            | GroupSubscribedToTopic,
        ) => SinkOffsetsError::GroupActive { group: group.to_owned() },
        _ => SinkOffsetsError::Kafka(format!("cannot {what} the consumer group {group}: {e}")),
    }
}
