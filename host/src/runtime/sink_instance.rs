//! The typed handle of a sink task instance: the calls of the WIT `sink-task` interface,
//! with record batches encoded on the caller's side.

use wasm_connect_batch::Record;

use super::bindings::types as wit;
use super::error::InstanceError;
use super::instance::Instance;
use crate::model::{Config, RecordFailure, TopicPartition, TopicPartitionOffset};

/// A running sink task instance.
pub struct SinkTaskInstance(pub(crate) Instance);

impl SinkTaskInstance {
    /// The underlying instance.
    pub fn instance(&self) -> &Instance {
        &self.0
    }

    /// Starts the task.
    pub async fn start(&self, config: Config) -> Result<(), InstanceError> {
        self.0
            .guest("start", move |g, s| {
                Box::pin(async move { g.sink().call_start(s, &config).await })
            })
            .await?
            .map_err(Into::into)
    }

    /// Partitions newly assigned.
    pub async fn open(&self, partitions: &[TopicPartition]) -> Result<(), InstanceError> {
        let tps: Vec<wit::TopicPartition> = partitions.iter().map(Into::into).collect();
        self.0
            .guest("open", move |g, s| Box::pin(async move { g.sink().call_open(s, &tps).await }))
            .await?
            .map_err(Into::into)
    }

    /// Partitions revoked.
    pub async fn close(&self, partitions: &[TopicPartition]) -> Result<(), InstanceError> {
        let tps: Vec<wit::TopicPartition> = partitions.iter().map(Into::into).collect();
        self.0
            .guest("close", move |g, s| Box::pin(async move { g.sink().call_close(s, &tps).await }))
            .await?
            .map_err(Into::into)
    }

    /// Delivers records; returns those the plugin could not handle.
    pub async fn put(&self, records: &[Record]) -> Result<Vec<RecordFailure>, InstanceError> {
        self.put_batch(wasm_connect_batch::encode(records).into(), records.len()).await
    }

    /// Delivers an encoded batch of `n` records (built with
    /// [`wasm_connect_batch::Encoder`]); returns those the plugin could not handle. Shared,
    /// so a retry sends it again without copying.
    pub async fn put_batch(
        &self,
        batch: std::sync::Arc<Vec<u8>>,
        n: usize,
    ) -> Result<Vec<RecordFailure>, InstanceError> {
        self.0
            .call("put", move |live| {
                Box::pin(async move {
                    let failures = live
                        .guest("put", move |g, s| {
                            Box::pin(async move { g.sink().call_put(s, &batch).await })
                        })
                        .await??;
                    if failures.iter().any(|f| f.index as usize >= n) {
                        return Err(InstanceError::Oversized {
                            call: "put",
                            what: format!("a failure for a record index outside the batch of {n}"),
                        });
                    }
                    Ok(failures.into_iter().map(Into::into).collect())
                })
            })
            .await
    }

    /// Flushes and returns the offsets safe to commit.
    pub async fn pre_commit(
        &self,
        offsets: &[TopicPartitionOffset],
    ) -> Result<Vec<TopicPartitionOffset>, InstanceError> {
        let offs: Vec<wit::TopicPartitionOffset> = offsets.iter().map(Into::into).collect();
        let out = self
            .0
            .guest("pre-commit", move |g, s| {
                Box::pin(async move { g.sink().call_pre_commit(s, &offs).await })
            })
            .await??;
        Ok(out.into_iter().map(Into::into).collect())
    }

    /// Stops the task and discards the instance.
    pub async fn stop(self) -> Result<(), InstanceError> {
        self.0.guest("stop", |g, s| Box::pin(g.sink().call_stop(s))).await
    }
}
