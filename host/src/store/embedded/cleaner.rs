//! The background cleaner of data topics: every `log.retention.check.interval.ms` it applies
//! each data topic's retention (its own `retention.ms`, `retention.bytes` and
//! `cleanup.policy`, the worker's default for what it leaves unset), then gives the freed
//! pages back to the file system.
//!
//! It never stalls producers: every deletion, compaction window and vacuum step is its own
//! short transaction of at most [`BATCH_RECORDS`] records (or
//! [`STEP_PAGES`](super::vacuum::STEP_PAGES) pages) on the writer connection, and the pass
//! yields between them, so appends queued meanwhile go first. Only retention deletes: a
//! record a sink has not consumed stays until its topic's retention says otherwise.
//! Internal topics (configs, offsets, statuses) have no retention row and are never
//! touched here; they are compacted when opened.

use std::future::Future;
use std::time::Duration;

use rusqlite::{Connection, TransactionBehavior, params};

use super::EmbeddedBackend;
use super::compaction::compact_window;
use super::deletion::{Bounds, Deleted, delete_prefix};
use super::vacuum;
use super::writer::now_ms;
use crate::model::{CleanupPolicy, Retention, RetentionOverrides};
use crate::store::StoreError;

/// Most records one deletion or compaction transaction handles.
pub(super) const BATCH_RECORDS: i64 = 5_000;

/// A data topic and its retention as stored.
#[derive(Clone, Debug)]
struct DataTopic {
    id: i64,
    name: String,
    partitions: i32,
    overrides: RetentionOverrides,
}

/// What one pass did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CleanReport {
    /// Records deleted by `retention.ms` or `retention.bytes`.
    pub deleted: usize,
    /// Records removed by compaction.
    pub compacted: usize,
    /// Their payload bytes.
    pub bytes: i64,
    /// Transactions the pass made (deletions, compaction windows, vacuum steps).
    pub transactions: usize,
    /// Free pages given back to the file system.
    pub pages_released: i64,
}

impl EmbeddedBackend {
    /// This backend with `defaults` as the worker's retention (what topics leave unset).
    pub fn with_retention(mut self, defaults: Retention) -> Self {
        self.retention = defaults;
        self
    }

    /// The worker's default retention.
    pub fn retention(&self) -> Retention {
        self.retention
    }

    /// Starts the cleaner: a pass every `interval`, the first one `interval` from now,
    /// until the runtime shuts down. A failed pass is logged; the next one tries again.
    pub fn start_cleaner(&self, interval: Duration) -> tokio::task::JoinHandle<()> {
        let backend = self.clone();
        tracing::info!(
            file = %self.path().display(), interval_ms = interval.as_millis() as u64,
            retention_ms = self.retention.ms, retention_bytes = self.retention.bytes,
            cleanup_policy = %self.retention.policy, "Embedded topic retention enabled"
        );
        tokio::spawn(async move {
            let mut ticks = tokio::time::interval(interval.max(Duration::from_millis(1)));
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            ticks.tick().await;
            loop {
                ticks.tick().await;
                if let Err(e) = backend.clean().await {
                    tracing::warn!(error = %e, "The embedded topic cleaner failed; it runs again at its next interval");
                }
            }
        })
    }

    /// One cleaning pass now, yielding between transactions.
    pub async fn clean(&self) -> Result<CleanReport, StoreError> {
        self.clean_pacing(tokio::task::yield_now).await
    }

    /// One cleaning pass, awaiting `between()` after every transaction (tests pace it).
    pub(crate) async fn clean_pacing<F, Fut>(
        &self,
        mut between: F,
    ) -> Result<CleanReport, StoreError>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = ()>,
    {
        let topics = self
            .writing(list_data_topics, || "cannot list data topics for retention".to_owned())
            .await?;
        let mut report = CleanReport::default();
        let now = now_ms();
        for topic in topics {
            let retention = topic.overrides.over(&self.retention);
            let (deleted, compacted) =
                self.clean_topic(&topic, retention, now, &mut report, &mut between).await?;
            if deleted + compacted > 0 {
                tracing::info!(
                    topic = %topic.name, deleted, compacted, retention_ms = retention.ms,
                    retention_bytes = retention.bytes, cleanup_policy = %retention.policy,
                    "Deleted records of an embedded topic by retention"
                );
            }
        }
        let incremental =
            self.writing(|c| vacuum::is_incremental(c), || "cannot read auto_vacuum".to_owned());
        if incremental.await? {
            let mut free = self.writing(|c| vacuum::free_pages(c), free_pages_error).await?;
            while free > 0 {
                let left = self.writing(|c| vacuum::step(c), free_pages_error).await?;
                report.transactions += 1;
                report.pages_released += free - left;
                if left >= free {
                    break;
                }
                free = left;
                between().await;
            }
        }
        Ok(report)
    }

    /// Applies `retention` to every partition of `topic`; returns the records deleted and
    /// compacted.
    async fn clean_topic<F, Fut>(
        &self,
        topic: &DataTopic,
        retention: Retention,
        now: i64,
        report: &mut CleanReport,
        between: &mut F,
    ) -> Result<(usize, usize), StoreError>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = ()>,
    {
        let bounds =
            Bounds { cutoff_ms: retention.cutoff_ms(now), max_bytes: retention.max_bytes() };
        let (mut deleted, mut compacted) = (0, 0);
        for partition in 0..topic.partitions {
            let id = topic.id;
            if bounds.cutoff_ms.is_some() || bounds.max_bytes.is_some() {
                loop {
                    let batch: Deleted = self
                        .writing(
                            move |conn| {
                                in_transaction(conn, |tx| {
                                    delete_prefix(tx, id, partition, bounds, BATCH_RECORDS)
                                })
                            },
                            || "cannot delete records by retention".to_owned(),
                        )
                        .await?;
                    report.transactions += 1;
                    report.deleted += batch.records;
                    report.bytes += batch.bytes;
                    deleted += batch.records;
                    between().await;
                    if (batch.records as i64) < BATCH_RECORDS {
                        break;
                    }
                }
            }
            if retention.policy.compact {
                let mut from = 0;
                loop {
                    let window = self
                        .writing(
                            move |conn| {
                                in_transaction(conn, |tx| {
                                    compact_window(tx, id, partition, from, BATCH_RECORDS)
                                })
                            },
                            || "cannot compact records".to_owned(),
                        )
                        .await?;
                    report.transactions += 1;
                    report.compacted += window.removed;
                    report.bytes += window.bytes;
                    compacted += window.removed;
                    between().await;
                    match window.next {
                        Some(next) => from = next,
                        None => break,
                    }
                }
            }
        }
        Ok((deleted, compacted))
    }
}

fn free_pages_error() -> String {
    "cannot give free pages back".to_owned()
}

/// Runs `f` in one immediate transaction and commits it.
fn in_transaction<T>(
    conn: &mut Connection,
    f: impl FnOnce(&rusqlite::Transaction<'_>) -> rusqlite::Result<T>,
) -> rusqlite::Result<T> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let value = f(&tx)?;
    tx.commit()?;
    Ok(value)
}

/// Every data topic with its stored retention.
fn list_data_topics(conn: &mut Connection) -> rusqlite::Result<Vec<DataTopic>> {
    let mut select = conn.prepare_cached(
        "SELECT t.id, t.name, t.partitions, r.retention_ms, r.retention_bytes, r.cleanup_policy \
         FROM topics AS t JOIN topic_retention AS r ON r.topic_id = t.id ORDER BY t.name",
    )?;
    let rows = select.query_map(params![], |row| {
        let policy: String = row.get(5)?;
        Ok(DataTopic {
            id: row.get(0)?,
            name: row.get(1)?,
            partitions: row.get(2)?,
            overrides: RetentionOverrides {
                ms: row.get(3)?,
                bytes: row.get(4)?,
                // A policy this worker cannot read deletes nothing it does not understand.
                policy: Some(
                    CleanupPolicy::parse(&policy)
                        .unwrap_or(CleanupPolicy { delete: false, compact: false }),
                ),
            },
        })
    })?;
    rows.collect()
}
