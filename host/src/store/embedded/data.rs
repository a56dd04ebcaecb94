//! The data-topic side of [`EmbeddedBackend`]: appending records with their positions,
//! creating and listing topics, readers, the change channel that wakes consumers, and the
//! committed offsets of consumer groups, all as async methods that run their SQL on the
//! blocking pool.
//!
//! This is the API `worker/topics/embedded` builds producers and consumers on. It must not
//! hold group membership or positions: those live with the consumers.

use std::sync::{Arc, Mutex, PoisonError};

use rusqlite::Connection;
use tokio::sync::watch;

use super::EmbeddedBackend;
use super::changes::{DataChanges, notify};
use super::data_reader::DataReader;
use super::data_record::{DataRecord, Position, TopicInfo};
use super::data_writer::{
    AUTO_CREATED_PARTITIONS, AppendError, StickyPartitions, append_data, create_data_topic,
};
use super::database::Database;
use super::group_offsets::{self, CommitError};
use crate::model::{CleanupPolicy, RetentionOverrides, TopicPartition, TopicPartitionOffset};
use crate::store::requirements::local_partitions;
use crate::store::{StoreError, TopicSpec};

impl EmbeddedBackend {
    /// Appends `records` in one transaction and returns where each landed, in input order,
    /// once they are durable. A missing topic is created with one partition; a partition
    /// the topic does not have fails the whole append with [`StoreError::Topic`] naming it.
    pub async fn append_data(&self, records: Vec<DataRecord>) -> Result<Vec<Position>, StoreError> {
        let mut results = self.append_data_batches(vec![records]).await?;
        results.pop().unwrap_or_else(|| Ok(Vec::new()))
    }

    /// [`Self::append_data`] for several batches at once, in order: all in one transaction
    /// when they all succeed; otherwise each batch in a transaction of its own, so one
    /// batch's bad record fails only that batch. One result per batch.
    pub async fn append_data_batches(
        &self,
        batches: Vec<Vec<DataRecord>>,
    ) -> Result<Vec<Result<Vec<Position>, StoreError>>, StoreError> {
        let sticky = self.sticky.clone();
        let policy = self.retention.policy;
        let (results, topics, created) = self
            .db
            .run(move |db| {
                db.with_writer(|conn| {
                    let mut sticky = sticky.lock().unwrap_or_else(PoisonError::into_inner);
                    Ok(append_batches(db, conn, &mut sticky, policy, &batches))
                })
            })
            .await?;
        for topic in &created {
            tracing::info!(
                topic = %topic, partitions = AUTO_CREATED_PARTITIONS,
                file = %self.path().display(), "Created an embedded data topic on first write"
            );
        }
        if !topics.is_empty() {
            notify(&self.changes, topics.iter().map(String::as_str), created.len());
        }
        Ok(results)
    }

    /// Creates data topic `name` with `partitions` partitions (`-1`: one) and the retention
    /// `overrides` (the worker's default for what they leave unset) unless it exists;
    /// returns whether it created it.
    pub async fn create_data_topic(
        &self,
        name: &str,
        partitions: i32,
        overrides: RetentionOverrides,
    ) -> Result<bool, StoreError> {
        let partitions = local_partitions(&TopicSpec::new(name, partitions, false))?;
        let name = name.to_owned();
        let topic = name.clone();
        let policy = self.retention.policy;
        let created = self
            .writing(
                move |conn| create_data_topic(conn, &topic, partitions, overrides, policy),
                move || format!("cannot create topic '{name}'"),
            )
            .await?;
        if created {
            notify(&self.changes, [], 1);
        }
        Ok(created)
    }

    /// Every topic of the file (data and internal ones), sorted by name.
    pub async fn list_topics(&self) -> Result<Vec<TopicInfo>, StoreError> {
        self.writing(
            |conn| {
                let mut select =
                    conn.prepare_cached("SELECT name, partitions FROM topics ORDER BY name")?;
                let rows = select.query_map([], |row| {
                    Ok(TopicInfo { name: row.get(0)?, partitions: row.get(1)? })
                })?;
                rows.collect()
            },
            || "cannot list topics".to_owned(),
        )
        .await
    }

    /// A reader of data topics with a connection of its own.
    pub async fn data_reader(&self) -> Result<DataReader, StoreError> {
        let conn = self.db.run(|db| db.connect()).await?;
        Ok(DataReader { db: self.db.clone(), conn: Arc::new(Mutex::new(conn)) })
    }

    /// A receiver of this process's data writes: it changes after every committed append
    /// and topic creation (never for another process's writes).
    pub fn data_changes(&self) -> watch::Receiver<DataChanges> {
        self.changes.subscribe()
    }

    /// Sets the committed offsets of consumer group `group` (each the next offset to
    /// consume), all or none, once durable. An unknown topic or partition is refused with
    /// [`StoreError::Topic`].
    pub async fn commit_group_offsets(
        &self,
        group: &str,
        offsets: Vec<TopicPartitionOffset>,
    ) -> Result<(), StoreError> {
        let group = group.to_owned();
        self.db
            .run(move |db| {
                db.with_writer(|conn| {
                    group_offsets::commit(conn, &group, &offsets).map_err(|e| match e {
                        CommitError::Sql(e) => {
                            db.error(&format!("cannot commit offsets of group '{group}'"), e)
                        }
                        e => StoreError::Topic(format!(
                            "cannot commit offsets of group '{group}': {e}"
                        )),
                    })
                })
            })
            .await
    }

    /// Every committed offset of `group`, sorted by topic and partition.
    pub async fn group_offsets(
        &self,
        group: &str,
    ) -> Result<Vec<TopicPartitionOffset>, StoreError> {
        let (group, named) = (group.to_owned(), group.to_owned());
        self.writing(
            move |conn| group_offsets::fetch(conn, &group),
            move || format!("cannot read offsets of group '{named}'"),
        )
        .await
    }

    /// Deletes the committed offsets of `group` for `partitions`, or all of them for `None`.
    pub async fn delete_group_offsets(
        &self,
        group: &str,
        partitions: Option<Vec<TopicPartition>>,
    ) -> Result<(), StoreError> {
        let (group, named) = (group.to_owned(), group.to_owned());
        self.writing(
            move |conn| group_offsets::delete(conn, &group, partitions.as_deref()),
            move || format!("cannot delete offsets of group '{named}'"),
        )
        .await
    }

    /// Runs `f` on the writer connection on the blocking pool; an error says `doing()`.
    pub(super) async fn writing<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Connection) -> rusqlite::Result<T> + Send + 'static,
        doing: impl FnOnce() -> String + Send + 'static,
    ) -> Result<T, StoreError> {
        self.db
            .run(move |db| db.with_writer(|conn| f(conn).map_err(|e| db.sql_error(&doing(), &e))))
            .await
    }
}

/// The results of appending `batches` (see [`EmbeddedBackend::append_data_batches`]), the
/// topics written to and the topics created.
type BatchResults = (Vec<Result<Vec<Position>, StoreError>>, Vec<String>, Vec<String>);

/// Appends `batches` in one transaction, or one transaction per batch if that fails.
fn append_batches(
    db: &Database,
    conn: &mut Connection,
    sticky: &mut StickyPartitions,
    policy: CleanupPolicy,
    batches: &[Vec<DataRecord>],
) -> BatchResults {
    let failed = |e: AppendError, count: usize| match e {
        AppendError::NoPartition { .. } => StoreError::Topic(e.to_string()),
        AppendError::Sql(e) => {
            db.error(&format!("cannot append {count} records to data topics"), e)
        }
    };
    if batches.len() > 1
        && let Ok(appended) = append_data(conn, sticky, policy, batches.iter().flatten())
    {
        let mut positions = appended.positions.into_iter();
        let results =
            batches.iter().map(|b| Ok(positions.by_ref().take(b.len()).collect())).collect();
        return (results, appended.topics, appended.created);
    }
    let (mut results, mut topics, mut created) = (Vec::new(), Vec::new(), Vec::new());
    for batch in batches {
        match append_data(conn, sticky, policy, batch) {
            Ok(appended) => {
                results.push(Ok(appended.positions));
                topics.extend(appended.topics);
                created.extend(appended.created);
            }
            Err(e) => results.push(Err(failed(e, batch.len()))),
        }
    }
    (results, topics, created)
}
