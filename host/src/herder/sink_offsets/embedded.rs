//! [`EmbeddedSinkOffsets`]: sink connectors' offsets in standalone mode, as the committed
//! offsets of their consumer group in the embedded store's `group_offsets` table.
//!
//! Membership comes from the in-process coordinator of the same [`EmbeddedTopics`] the
//! sink tasks consume through (one worker process owns the file), so `alter` and `reset`
//! refuse a group that still has members. Altering commits the `Some` offsets, then
//! deletes the `None` ones: two transactions, each durable on its own. It must not read
//! records or join the group.

use async_trait::async_trait;

use super::{SinkOffsets, SinkOffsetsError};
use crate::model::{self, TopicPartition, TopicPartitionOffset};
use crate::store::StoreError;
use crate::worker::topics::EmbeddedTopics;

/// Consumer-group offsets in the embedded store.
#[derive(Clone, Debug)]
pub struct EmbeddedSinkOffsets {
    topics: EmbeddedTopics,
}

impl EmbeddedSinkOffsets {
    /// The offsets of the groups of `topics` (a clone of the worker's data topics, so
    /// membership is known).
    pub fn new(topics: EmbeddedTopics) -> Self {
        Self { topics }
    }

    /// Fails with `GroupActive` while `group` has members.
    fn ensure_empty(&self, group: &str) -> Result<(), SinkOffsetsError> {
        if self.topics.group_has_members(group) {
            return Err(SinkOffsetsError::GroupActive { group: group.to_owned() });
        }
        Ok(())
    }
}

#[async_trait]
impl SinkOffsets for EmbeddedSinkOffsets {
    async fn get(&self, group: &str) -> Result<Vec<(TopicPartition, i64)>, SinkOffsetsError> {
        let committed = self.topics.backend().group_offsets(group).await.map_err(failed)?;
        let mut offsets: Vec<(TopicPartition, i64)> = committed
            .into_iter()
            .map(|o| (TopicPartition { topic: o.topic, partition: o.partition }, o.offset))
            .collect();
        offsets.sort();
        Ok(offsets)
    }

    async fn alter(
        &self,
        group: &str,
        offsets: &[(TopicPartition, Option<i64>)],
    ) -> Result<(), SinkOffsetsError> {
        self.ensure_empty(group)?;
        let backend = self.topics.backend();
        let commit: Vec<TopicPartitionOffset> = offsets
            .iter()
            .filter_map(|(tp, offset)| {
                offset.map(|offset| TopicPartitionOffset {
                    topic: tp.topic.clone(),
                    partition: tp.partition,
                    offset,
                })
            })
            .collect();
        if !commit.is_empty() {
            backend.commit_group_offsets(group, commit).await.map_err(failed)?;
        }
        let delete: Vec<model::TopicPartition> = offsets
            .iter()
            .filter(|(_, offset)| offset.is_none())
            .map(|(tp, _)| model::TopicPartition {
                topic: tp.topic.clone(),
                partition: tp.partition,
            })
            .collect();
        if !delete.is_empty() {
            backend.delete_group_offsets(group, Some(delete)).await.map_err(failed)?;
        }
        Ok(())
    }

    async fn reset(&self, group: &str) -> Result<(), SinkOffsetsError> {
        self.ensure_empty(group)?;
        self.topics.backend().delete_group_offsets(group, None).await.map_err(failed)
    }
}

/// A store failure, reported as the backend's refusal.
fn failed(e: StoreError) -> SinkOffsetsError {
    SinkOffsetsError::Kafka(e.to_string())
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::store::EmbeddedBackend;
    use crate::worker::topics::{DataTopics, NewTopic, Subscription};

    fn tp(topic: &str, partition: i32) -> TopicPartition {
        TopicPartition { topic: topic.into(), partition }
    }

    #[tokio::test]
    async fn offsets_are_read_altered_and_reset_only_without_members() {
        let dir = tempfile::tempdir().unwrap();
        let backend = EmbeddedBackend::open(dir.path().join("store.db")).unwrap();
        let topics = EmbeddedTopics::new(backend);
        let new =
            NewTopic { name: "t".into(), partitions: 2, replication_factor: -1, configs: vec![] };
        topics.create_topic(&new).await.unwrap();
        let offsets = EmbeddedSinkOffsets::new(topics.clone());
        assert!(offsets.get("connect-s").await.unwrap().is_empty());

        offsets.alter("connect-s", &[(tp("t", 1), Some(4)), (tp("t", 0), Some(2))]).await.unwrap();
        assert_eq!(offsets.get("connect-s").await.unwrap(), [(tp("t", 0), 2), (tp("t", 1), 4)]);
        offsets.alter("connect-s", &[(tp("t", 0), None)]).await.unwrap();
        assert_eq!(offsets.get("connect-s").await.unwrap(), [(tp("t", 1), 4)]);
        let err = offsets.alter("connect-s", &[(tp("missing", 0), Some(1))]).await.unwrap_err();
        assert!(err.to_string().contains("'missing' does not exist"), "{err}");

        let subscription = Subscription::Topics(vec!["t".into()]);
        let mut member = topics.consumer("connect-s", "c", &subscription, &[]).await.unwrap();
        member.next(Duration::from_secs(5), 10).await.unwrap();
        let err = offsets.reset("connect-s").await.unwrap_err();
        assert!(matches!(err, SinkOffsetsError::GroupActive { .. }), "{err:?}");
        assert!(offsets.alter("connect-s", &[(tp("t", 1), None)]).await.is_err());
        member.close().await;
        offsets.reset("connect-s").await.unwrap();
        assert!(offsets.get("connect-s").await.unwrap().is_empty());
        offsets.reset("never-existed").await.unwrap();
    }
}
