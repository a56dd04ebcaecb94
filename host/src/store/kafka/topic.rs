//! [`KafkaTopic`]: the handle on one Kafka topic; sends through the backend's shared
//! [`Producer`], gives every reader a consumer of its own, and a transactional writer a
//! producer of its own.
//!
//! It holds no connection itself.

use std::sync::Arc;

use async_trait::async_trait;

use super::producer::Producer;
use super::reader::KafkaReader;
use super::settings::ClientSettings;
use super::transactional::KafkaTransactionalLog;
use super::watermarks::Watermarks;
use crate::store::{LogReader, LogRecord, LogTopic, StoreError, TransactionalLog};

/// A handle on one Kafka topic.
pub(super) struct KafkaTopic {
    pub(super) name: String,
    /// Partition count when the topic was opened.
    pub(super) partitions: i32,
    pub(super) settings: Arc<ClientSettings>,
    pub(super) producer: Arc<Producer>,
    pub(super) watermarks: Watermarks,
}

#[async_trait]
impl LogTopic for KafkaTopic {
    fn name(&self) -> &str {
        &self.name
    }

    async fn send(&self, records: Vec<LogRecord>) -> Result<(), StoreError> {
        if records.is_empty() {
            return Ok(());
        }
        self.producer.send(&self.name, &records).await
    }

    async fn reader(&self) -> Result<Box<dyn LogReader>, StoreError> {
        Ok(Box::new(
            KafkaReader::open(&self.settings, self.watermarks.clone(), &self.name, self.partitions)
                .await?,
        ))
    }

    async fn transactional(
        &self,
        transactional_id: &str,
        client_id: &str,
    ) -> Result<Option<Arc<dyn TransactionalLog>>, StoreError> {
        let log =
            KafkaTransactionalLog::start(&self.settings, &self.name, transactional_id, client_id);
        Ok(Some(Arc::new(self.settings.context.guard(log).await?)))
    }
}
