//! The typed handle of a source task instance: the calls of the WIT `source-task`
//! interface, with record batches decoded (into records sharing the batch's one buffer)
//! and bounded on the guest executor; and the transaction requests the task made through
//! `transaction-context`, taken after each `poll`.

use super::bindings::types as wit;
use super::error::InstanceError;
use super::instance::{Instance, Started};
use super::polled_record::{PolledRecord, decode_polled};
use crate::model::{Config, ConnectorError, RecordAck, TransactionRequests};

/// A running source task instance.
pub struct SourceTaskInstance(pub(crate) Instance);

impl SourceTaskInstance {
    /// The underlying instance.
    pub fn instance(&self) -> &Instance {
        &self.0
    }

    /// Starts the task.
    pub async fn start(&self, config: Config) -> Result<(), InstanceError> {
        self.0
            .guest("start", move |g, s| {
                Box::pin(async move { g.source().call_start(s, &config).await })
            })
            .await?
            .map_err(Into::into)
    }

    /// Polls up to `max_records` records. A batch over the byte limit, with more records
    /// than asked for, or malformed, discards the instance.
    pub async fn poll(&self, max_records: u32) -> Result<Vec<PolledRecord>, InstanceError> {
        self.start_poll(max_records).records().await
    }

    /// Starts a [`poll`](Self::poll) at once, on the guest executor, and returns without
    /// waiting for it, so the caller can work on the batch before while the plugin
    /// polls the next. Other calls on the instance wait while it runs.
    pub fn start_poll(&self, max_records: u32) -> PendingPoll {
        PendingPoll(self.0.start("poll", move |live| {
            Box::pin(async move {
                let bytes = live
                    .guest("poll", |g, s| Box::pin(g.source().call_poll(s, max_records)))
                    .await??;
                let limit = live.limits.max_batch_bytes;
                if bytes.len() > limit {
                    return Err(InstanceError::Oversized {
                        call: "poll",
                        what: format!(
                            "a batch of {} bytes, over the limit of {limit}",
                            bytes.len()
                        ),
                    });
                }
                let records = decode_polled(bytes.into(), max_records as usize).map_err(|e| {
                    InstanceError::Malformed { call: "poll", reason: e.to_string() }
                })?;
                if records.len() > max_records as usize {
                    return Err(InstanceError::Oversized {
                        call: "poll",
                        what: format!(
                            "{} records when asked for at most {max_records}",
                            records.len()
                        ),
                    });
                }
                Ok(records)
            })
        }))
    }

    /// The transaction requests (`transaction-context`) the task made since they were last
    /// taken, for the batch of `len` records its last `poll` returned; the instance's log
    /// is empty afterwards. Commit and abort of the same batch or record, or a record past
    /// the batch, is a fatal [`ConnectorError`] with Kafka Connect's message: it fails
    /// the task. Runs no guest code.
    pub async fn take_transaction_requests(
        &self,
        len: usize,
    ) -> Result<TransactionRequests, InstanceError> {
        self.0
            .call("take-transaction-requests", move |live| {
                Box::pin(async move {
                    let log = &mut live.store.data_mut().transactions;
                    log.take(len).map_err(|e| ConnectorError::Fatal(e.to_string()).into())
                })
            })
            .await
    }

    /// Acknowledges written records.
    pub async fn commit_records(&self, acks: Vec<RecordAck>) -> Result<(), InstanceError> {
        let acks: Vec<wit::RecordAck> = acks.into_iter().map(Into::into).collect();
        self.0
            .guest("commit-records", move |g, s| {
                Box::pin(async move { g.source().call_commit_records(s, &acks).await })
            })
            .await?
            .map_err(Into::into)
    }

    /// Tells the task its offsets were committed.
    pub async fn commit(&self) -> Result<(), InstanceError> {
        self.0
            .guest("commit", |g, s| Box::pin(g.source().call_commit(s)))
            .await?
            .map_err(Into::into)
    }

    /// Stops the task and discards the instance.
    pub async fn stop(self) -> Result<(), InstanceError> {
        self.0.guest("stop", |g, s| Box::pin(g.source().call_stop(s))).await
    }
}

impl From<wit::Error> for InstanceError {
    fn from(e: wit::Error) -> Self {
        InstanceError::Connector(e.into())
    }
}

/// A poll started by [`SourceTaskInstance::start_poll`]. Dropped unfinished, the poll runs
/// to its end and its records are lost (they were not sent, so their offsets were never
/// committed: a later run polls them again).
pub struct PendingPoll(Started<Vec<PolledRecord>>);

impl PendingPoll {
    /// The polled records, waiting for them (at most the call timeout).
    pub async fn records(self) -> Result<Vec<PolledRecord>, InstanceError> {
        self.0.finish().await
    }
}
