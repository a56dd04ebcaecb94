//! [`ConnectorOffsetStore`]: the offsets one source connector reads and writes, as Kafka
//! Connect's `ConnectorOffsetBackingStore` combines them. A connector without
//! `offsets.storage.topic` has only the worker's offsets store. One with its own topic has
//! that topic's store as the primary and the worker's as the secondary:
//!
//! - a write goes to the primary and, once it is durable there, a copy of its non-tombstone
//!   offsets goes to the secondary without being waited for (a failed copy is logged);
//!   tombstones go to the secondary first, awaited, and only then to the primary, so that a
//!   deleted offset cannot come back from the secondary (Kafka's `ChainedOffsetWriteFuture`);
//!   copies and tombstones reach the secondary in the order they were written;
//! - a read answers each partition from the primary, and from the secondary for a
//!   partition the primary has no offset for. Kafka Connect means the same order (the
//!   worker's answers overlaid with the connector topic's), though its connector store also
//!   answers "none" for a partition it lacks, which hides the worker's offset: a connector
//!   given its own topic there starts from nothing, here from what the worker's topic holds;
//! - the partitions listed (KIP-875) are those of either store.
//!
//! It owns the order of the secondary writes; it does not open topics (`offset_stores.rs`
//! does) and knows nothing of tasks or transactions.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

use super::{OffsetStore, StoreError};

/// Offsets of a connector, with a `None` offset for a deletion.
type Offsets = Vec<(Value, Option<Value>)>;

/// One write for the secondary store, and who waits for it (none: fire and forget).
struct Copy {
    connector: String,
    offsets: Offsets,
    done: Option<oneshot::Sender<Result<(), StoreError>>>,
}

/// The offsets store of one source connector. Clones share the stores and the queue of
/// secondary writes.
#[derive(Clone)]
pub struct ConnectorOffsetStore {
    primary: Arc<OffsetStore>,
    /// The worker's store, when the primary is the connector's own topic, and the queue of
    /// writes for it.
    secondary: Option<(Arc<OffsetStore>, mpsc::UnboundedSender<Copy>)>,
}

impl ConnectorOffsetStore {
    /// Only the worker's offsets store (no `offsets.storage.topic`, or the worker's own).
    pub fn worker_only(worker: Arc<OffsetStore>) -> Self {
        Self { primary: worker, secondary: None }
    }

    /// The connector's own topic's store as the primary, the worker's as the secondary.
    /// Starts the task that writes the secondary in order (it ends with the last clone).
    pub fn with_secondary(primary: Arc<OffsetStore>, worker: Arc<OffsetStore>) -> Self {
        let (tx, mut rx) = mpsc::unbounded_channel::<Copy>();
        let secondary = worker.clone();
        tokio::spawn(async move {
            while let Some(Copy { connector, offsets, done }) = rx.recv().await {
                let written = secondary.put(&connector, offsets).await;
                match done {
                    Some(done) => drop(done.send(written)),
                    None => match written {
                        Ok(()) => tracing::debug!(
                            connector = %connector,
                            "Successfully flushed offsets to secondary backing store"
                        ),
                        Err(e) => tracing::warn!(
                            connector = %connector,
                            error = %e,
                            "Failed to write offsets to secondary backing store"
                        ),
                    },
                }
            }
        });
        Self { primary, secondary: Some((worker, tx)) }
    }

    /// The primary topic's name: the one a task under exactly-once delivery writes its
    /// offsets to in its transactions, and may not produce records to.
    pub fn topic_name(&self) -> &str {
        self.primary.topic_name()
    }

    /// Whether the connector has a topic of its own (and the worker's is the secondary).
    pub fn has_secondary(&self) -> bool {
        self.secondary.is_some()
    }

    /// Reads both stores to their end (see [`OffsetStore::read_to_end`]).
    pub async fn read_to_end(&self) -> Result<(), StoreError> {
        self.primary.read_to_end().await?;
        if let Some((secondary, _)) = &self.secondary {
            secondary.read_to_end().await?;
        }
        Ok(())
    }

    /// The offsets of `partitions`, in order: the primary's, else the secondary's.
    pub fn get(&self, connector: &str, partitions: &[Value]) -> Vec<Option<Value>> {
        let primary = self.primary.get(connector, partitions);
        let Some((secondary, _)) = &self.secondary else { return primary };
        let fallback = secondary.get(connector, partitions);
        primary.into_iter().zip(fallback).map(|(p, s)| p.or(s)).collect()
    }

    /// Every offset of the connector, as (partition, offset), over the partitions of both
    /// stores, each answered as [`get`](Self::get) answers it.
    pub fn connector_offsets(&self, connector: &str) -> Vec<(Value, Value)> {
        let mut all: BTreeMap<String, (Value, Value)> = BTreeMap::new();
        if let Some((secondary, _)) = &self.secondary {
            for (p, o) in secondary.connector_offsets(connector) {
                all.insert(p.to_string(), (p, o));
            }
        }
        for (p, o) in self.primary.connector_offsets(connector) {
            all.insert(p.to_string(), (p, o));
        }
        all.into_values().collect()
    }

    /// [`connector_offsets`](Self::connector_offsets) after reading both stores to their
    /// end.
    pub async fn read_connector_offsets(
        &self,
        connector: &str,
    ) -> Result<Vec<(Value, Value)>, StoreError> {
        self.read_to_end().await?;
        Ok(self.connector_offsets(connector))
    }

    /// Writes offsets (a `None` offset deletes the partition's): the deletions to the
    /// secondary first, then everything to the primary; returns once those are durable,
    /// and queues the copy of the rest for the secondary.
    pub async fn put(&self, connector: &str, offsets: Offsets) -> Result<(), StoreError> {
        self.delete_in_secondary(connector, &offsets).await?;
        self.primary.put(connector, offsets.clone()).await?;
        self.copy(connector, offsets);
        Ok(())
    }

    /// Writes to the secondary, and waits for, the deletions among `offsets`: what must
    /// precede their write to the primary (a transaction's commit included).
    pub async fn delete_in_secondary(
        &self,
        connector: &str,
        offsets: &[(Value, Option<Value>)],
    ) -> Result<(), StoreError> {
        let Some((_, queue)) = &self.secondary else { return Ok(()) };
        let tombstones: Offsets =
            offsets.iter().filter(|(_, o)| o.is_none()).map(|(p, _)| (p.clone(), None)).collect();
        if tombstones.is_empty() {
            return Ok(());
        }
        let (done, wait) = oneshot::channel();
        let copy = Copy { connector: connector.to_owned(), offsets: tombstones, done: Some(done) };
        queue.send(copy).map_err(|_| closed())?;
        wait.await.map_err(|_| closed())?
    }

    /// Records offsets that a transaction committed to the primary topic on this store's
    /// behalf (see [`OffsetStore::written`]), and queues their copy for the secondary.
    pub fn written(&self, connector: &str, offsets: Offsets) {
        self.primary.written(connector, offsets.clone());
        self.copy(connector, offsets);
    }

    /// Queues the non-tombstone offsets for the secondary, not waited for.
    fn copy(&self, connector: &str, offsets: Offsets) {
        let Some((_, queue)) = &self.secondary else { return };
        let offsets: Offsets = offsets.into_iter().filter(|(_, o)| o.is_some()).collect();
        if !offsets.is_empty() {
            let _ = queue.send(Copy { connector: connector.to_owned(), offsets, done: None });
        }
    }
}

fn closed() -> StoreError {
    StoreError::Unavailable("the worker's offsets store is closed".into())
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::json;

    use super::*;
    use crate::store::{LogBackend, MemoryBackend, TopicSpec};

    async fn store(backend: &MemoryBackend, name: &str) -> Arc<OffsetStore> {
        let topic = backend.topic(&TopicSpec::new(name, 1, true)).await.unwrap();
        Arc::new(OffsetStore::open(topic).await.unwrap())
    }

    /// Waits until `check` holds (the secondary's copies are not awaited by writes).
    async fn eventually(check: impl Fn() -> bool) {
        for _ in 0..200 {
            if check() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        panic!("not reached");
    }

    #[tokio::test]
    async fn reads_the_connector_topic_first_then_the_workers() {
        let backend = MemoryBackend::default();
        let (own, worker) = (store(&backend, "own").await, store(&backend, "global").await);
        let (a, b, c) = (json!({"f": "a"}), json!({"f": "b"}), json!({"f": "c"}));
        worker
            .put("k", vec![(a.clone(), Some(json!(1))), (b.clone(), Some(json!(1)))])
            .await
            .unwrap();
        own.put("k", vec![(a.clone(), Some(json!(2)))]).await.unwrap();
        let view = ConnectorOffsetStore::with_secondary(own, worker.clone());
        assert_eq!(view.topic_name(), "own");
        assert_eq!(
            view.get("k", &[a.clone(), b.clone(), c.clone()]),
            [Some(json!(2)), Some(json!(1)), None]
        );
        assert_eq!(view.read_connector_offsets("k").await.unwrap(), [(a, json!(2)), (b, json!(1))]);
        let alone = ConnectorOffsetStore::worker_only(worker);
        assert_eq!(alone.topic_name(), "global");
        assert!(!alone.has_secondary());
    }

    #[tokio::test]
    async fn writes_the_primary_then_copies_to_the_secondary() {
        let backend = MemoryBackend::default();
        let (own, worker) = (store(&backend, "own").await, store(&backend, "global").await);
        let view = ConnectorOffsetStore::with_secondary(own.clone(), worker.clone());
        let (a, b) = (json!({"f": "a"}), json!({"f": "b"}));
        view.put("k", vec![(a.clone(), Some(json!(1))), (b.clone(), Some(json!(1)))])
            .await
            .unwrap();
        assert_eq!(own.get("k", std::slice::from_ref(&a)), [Some(json!(1))]);
        eventually(|| worker.get("k", std::slice::from_ref(&b)) == [Some(json!(1))]).await;

        // A transaction's offsets: recorded in the primary, copied to the secondary.
        view.written("k", vec![(a.clone(), Some(json!(5)))]);
        assert_eq!(own.get("k", std::slice::from_ref(&a)), [Some(json!(5))]);
        eventually(|| worker.get("k", std::slice::from_ref(&a)) == [Some(json!(5))]).await;

        // A deletion reaches the secondary before the primary's write returns, and no
        // earlier copy brings the offset back.
        view.written("k", vec![(b.clone(), Some(json!(2)))]);
        view.put("k", vec![(b.clone(), None)]).await.unwrap();
        assert_eq!(worker.get("k", std::slice::from_ref(&b)), [None]);
        assert_eq!(view.get("k", std::slice::from_ref(&b)), [None]);
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert_eq!(worker.get("k", std::slice::from_ref(&b)), [None]);
        // The worker's topic itself holds the copies (read by a store of its own).
        let reread = store(&backend, "global").await;
        assert_eq!(reread.get("k", &[a, b]), [Some(json!(5)), None]);
    }
}
