//! A sink's dead letter queue: the copy of each failed consumed record, with Kafka
//! Connect's `__connect.errors.*` context headers when enabled, and the awaited write. It
//! must not decide which failures go there: the reporter does.

use std::sync::Arc;

use super::failure::Failure;
use super::origin::Origin;
use super::policy::DlqSettings;
use super::report_error::ReportError;
use crate::worker::topics::{Header, InRecord, OutRecord, RecordProducer};

/// Prefix of the context headers.
pub const HEADER_PREFIX: &str = "__connect.errors.";

/// Where failed sink records are copied to.
pub(super) struct DeadLetterQueue {
    pub settings: DlqSettings,
    /// `None` when the task was given no producer: every write fails.
    pub producer: Option<Arc<dyn RecordProducer>>,
}

impl DeadLetterQueue {
    /// The copy of `record`, which failed as `failure` says: its bytes as consumed, to the
    /// DLQ topic, the partition left to the producer.
    pub fn record(&self, origin: &Origin, failure: &Failure<'_>, record: &InRecord) -> OutRecord {
        let mut headers = record.headers.clone();
        if self.settings.context_headers {
            let mut add = |name: &str, value: String| {
                headers.push(Header {
                    key: format!("{HEADER_PREFIX}{name}"),
                    value: Some(value.into_bytes()),
                })
            };
            add("topic", record.topic.to_string());
            add("partition", record.partition.to_string());
            add("offset", record.offset.to_string());
            add("connector.name", origin.connector.clone());
            add("task.id", origin.task.to_string());
            add("stage", failure.stage.name().to_owned());
            add("class.name", failure.class.map_or_else(|| origin.plugin.clone(), str::to_owned));
            add("exception.class.name", failure.error_kind.to_owned());
            add("exception.message", failure.error.clone());
            add("exception.stacktrace", failure.stacktrace());
        }
        OutRecord {
            topic: self.settings.topic.as_str().into(),
            partition: None,
            timestamp: record.timestamp,
            key: record.key.clone(),
            value: record.value.clone(),
            headers,
        }
    }

    /// Writes `records` and waits until they are durable.
    pub async fn write(&self, records: Vec<OutRecord>) -> Result<(), ReportError> {
        let topic = || self.settings.topic.clone();
        let Some(producer) = &self.producer else {
            return Err(ReportError::NoDeadLetterProducer { topic: topic() });
        };
        producer
            .send(records)
            .await
            .map(drop)
            .map_err(|source| ReportError::DeadLetterQueue { topic: topic(), source })
    }
}
