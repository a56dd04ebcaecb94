//! [`LeaderWriter`]: the leader's write privileges on the config topic when
//! `exactly.once.source.support` is `preparing` or `enabled` (KIP-618), as Kafka Connect's
//! `KafkaConfigBackingStore.claimWritePrivileges` and `sendPrivileged` run them.
//!
//! When this worker becomes the leader it claims them: a producer with `transactional.id`
//! `connect-cluster-<group.id>` is registered, which fences the producer of an earlier
//! leader. Privileged writes (connector configs and their deletion, task configs and
//! their commit records, restart requests, `tasks-fencing-*` task counts, session keys;
//! not target states nor log levels) then go in one transaction each. A write that fails
//! drops the producer and fails (the request is answered with [`PRIVILEGED_WRITE_FAILED`],
//! Kafka Connect's answer, by `writes.rs`);
//! the privileges are claimed again at once if the worker still leads, and otherwise by
//! the next privileged write. A worker that no longer leads drops them. A backend without
//! transactions (embedded, in memory) writes as before.
//!
//! It owns the producer and the leadership flag it is told; it decides nothing about who
//! leads (`group.rs` tells it) and knows nothing of the records beyond which are privileged.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::store::{ConfigRecord, LogRecord, LogTopic, StoreError, TransactionalLog};

/// Kafka Connect's answer to a request whose privileged write failed.
pub const PRIVILEGED_WRITE_FAILED: &str = "Failed to write to config topic; this may be due to \
     a transient error and the request can be safely retried";

/// The leader's privileged writer of the config topic.
#[derive(Clone)]
pub struct LeaderWriter {
    shared: Arc<Shared>,
}

struct Shared {
    topic: Arc<dyn LogTopic>,
    transactional_id: String,
    client_id: String,
    leading: AtomicBool,
    /// The registered producer (`None` until claimed, and after a failure).
    claimed: tokio::sync::Mutex<Option<Arc<dyn TransactionalLog>>>,
}

impl LeaderWriter {
    /// The writer of `topic` for the group `group_id`, with `client_id` + `-leader`.
    pub fn new(topic: Arc<dyn LogTopic>, group_id: &str, client_id: &str) -> Self {
        Self {
            shared: Arc::new(Shared {
                topic,
                transactional_id: format!("connect-cluster-{group_id}"),
                client_id: format!("{client_id}-leader"),
                leading: AtomicBool::new(false),
                claimed: tokio::sync::Mutex::new(None),
            }),
        }
    }

    /// This worker leads, or no longer does: claims the privileges (off the caller, which
    /// must not wait), or drops them.
    pub fn set_leading(&self, leading: bool) {
        let was = self.shared.leading.swap(leading, Ordering::SeqCst);
        if leading && !was {
            self.claim_later();
        } else if !leading && was {
            let shared = self.shared.clone();
            tokio::spawn(async move {
                if !shared.leading.load(Ordering::SeqCst) {
                    *shared.claimed.lock().await = None;
                }
            });
        }
    }

    /// Whether `records` must go through [`send`](Self::send): this worker leads and one
    /// of them is privileged.
    pub fn takes(&self, records: &[ConfigRecord]) -> bool {
        self.shared.leading.load(Ordering::SeqCst) && records.iter().any(privileged)
    }

    /// Writes `records` in one transaction, claiming the privileges first if needed. A
    /// failure drops the producer and is [`StoreError::PrivilegedWrite`]; the privileges
    /// are claimed again if this worker leads.
    pub async fn send(&self, records: Vec<LogRecord>) -> Result<(), StoreError> {
        let mut claimed = self.shared.claimed.lock().await;
        let writer = match claimed.as_ref() {
            Some(w) => w.clone(),
            None => match self.shared.claim().await {
                Ok(w) => claimed.insert(w).clone(),
                Err(e) => return Err(failed(e)),
            },
        };
        match writer.send(records).await {
            Ok(()) => Ok(()),
            Err(e) => {
                tracing::warn!(error = %e, "Failed to perform fencable send to config topic");
                *claimed = None;
                drop(claimed);
                self.claim_later();
                Err(failed(e))
            }
        }
    }

    /// Claims the privileges off the caller, if this worker leads and has none.
    fn claim_later(&self) {
        let shared = self.shared.clone();
        tokio::spawn(async move {
            let mut claimed = shared.claimed.lock().await;
            if claimed.is_some() || !shared.leading.load(Ordering::SeqCst) {
                return;
            }
            match shared.claim().await {
                Ok(w) => *claimed = Some(w),
                Err(e) => tracing::warn!(
                    error = %e,
                    "Failed to claim write privileges on the config topic; the next write retries"
                ),
            }
        });
    }
}

impl Shared {
    /// Registers a new producer with the transactional id (fencing older ones). A backend
    /// without transactions gives a writer over plain sends.
    async fn claim(&self) -> Result<Arc<dyn TransactionalLog>, StoreError> {
        let id = &self.transactional_id;
        match self.topic.transactional(id, &self.client_id).await? {
            Some(w) => {
                tracing::info!(transactional_id = %id, "Claimed write privileges on the config topic");
                Ok(w)
            }
            None => Ok(Arc::new(Plain(self.topic.clone()))),
        }
    }
}

/// Plain sends, for a backend without transactions (its sends are atomic already).
struct Plain(Arc<dyn LogTopic>);

#[async_trait::async_trait]
impl TransactionalLog for Plain {
    async fn send(&self, records: Vec<LogRecord>) -> Result<(), StoreError> {
        self.0.send(records).await
    }
}

/// Whether Kafka Connect writes `record` as a privileged write.
fn privileged(record: &ConfigRecord) -> bool {
    !matches!(record, ConfigRecord::TargetState { .. } | ConfigRecord::LoggerLevel { .. })
}

fn failed(cause: StoreError) -> StoreError {
    StoreError::PrivilegedWrite(cause.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::TargetState;

    #[test]
    fn target_states_and_log_levels_are_not_privileged() {
        let target =
            ConfigRecord::TargetState { connector: "c".into(), state: Some(TargetState::Paused) };
        let level = ConfigRecord::LoggerLevel { namespace: "n".into(), level: "DEBUG".into() };
        let config = ConfigRecord::Connector { name: "c".into(), config: None };
        let count = ConfigRecord::TaskCount { connector: "c".into(), tasks: 2 };
        assert!(!privileged(&target) && !privileged(&level));
        assert!(privileged(&config) && privileged(&count));
    }
}
