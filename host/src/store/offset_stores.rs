//! [`OffsetStores`]: the worker's offsets store and the connector-specific offsets topics
//! (`offsets.storage.topic`, KIP-618), as Kafka Connect's `Worker` builds a source
//! connector's or task's `ConnectorOffsetBackingStore`.
//!
//! In distributed mode a connector that names a topic other than the worker's gets a
//! [`ConnectorOffsetStore`] with that topic's store as the primary and the worker's as the
//! secondary. The topic is created when missing as Kafka Connect creates it: compacted,
//! with the worker's `offset.storage.partitions` and `offset.storage.replication.factor`,
//! in the worker's cluster (a connector whose producer points at another cluster still
//! keeps its offsets topic in the worker's). Each topic's store is opened once and kept,
//! shared by the connectors that name it. A connector that names the worker's own topic,
//! or none, has the worker's store only. In standalone mode (the embedded store) the key
//! is ignored, as Kafka Connect ignores it there: every connector has the worker's store,
//! one table of the one SQLite file.
//!
//! It also remembers, per connector, the store its instances were started with: the
//! instances' offset reads are synchronous and name only the connector. It owns the opened
//! topics and that table; it knows nothing of configs beyond the topic name it is given.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::{ConnectorOffsetStore, LogBackend, OffsetStore, StoreError, TopicOrigin, TopicSpec};

/// Where connector-specific offsets topics are created.
struct Topics {
    backend: Arc<dyn LogBackend>,
    /// The worker's offsets topic's spec, of which a connector's topic takes all but the
    /// name and origin.
    template: TopicSpec,
}

/// The worker's offsets store and the connectors' own.
pub struct OffsetStores {
    worker: Arc<OffsetStore>,
    /// `None`: connector-specific topics are ignored (standalone mode).
    topics: Option<Topics>,
    /// The connector topics' stores opened so far, by topic name.
    opened: tokio::sync::Mutex<HashMap<String, Arc<OffsetStore>>>,
    /// The store each connector's instances were last started with.
    routes: Mutex<HashMap<String, ConnectorOffsetStore>>,
}

impl OffsetStores {
    /// The worker's store only: `offsets.storage.topic` is ignored.
    pub fn new(worker: Arc<OffsetStore>) -> Self {
        Self {
            worker,
            topics: None,
            opened: tokio::sync::Mutex::new(HashMap::new()),
            routes: Mutex::new(HashMap::new()),
        }
    }

    /// Connector-specific topics are created in `backend` after `worker_spec`, the worker's
    /// offsets topic's spec.
    pub fn with_connector_topics(
        mut self,
        backend: Arc<dyn LogBackend>,
        worker_spec: TopicSpec,
    ) -> Self {
        self.topics = Some(Topics { backend, template: worker_spec });
        self
    }

    /// The worker's offsets store.
    pub fn worker(&self) -> &Arc<OffsetStore> {
        &self.worker
    }

    /// The offsets store of `connector`, whose config names `topic`
    /// (`offsets.storage.topic`), opening (and creating) the topic the first time. An
    /// empty name counts as none.
    pub async fn for_connector(
        &self,
        topic: Option<&str>,
    ) -> Result<ConnectorOffsetStore, StoreError> {
        let topic = topic.map(str::trim).filter(|t| !t.is_empty());
        let (Some(topic), Some(topics)) = (topic, &self.topics) else {
            return Ok(ConnectorOffsetStore::worker_only(self.worker.clone()));
        };
        if topic == self.worker.topic_name() {
            return Ok(ConnectorOffsetStore::worker_only(self.worker.clone()));
        }
        let mut opened = self.opened.lock().await;
        let primary = match opened.get(topic) {
            Some(store) => store.clone(),
            None => {
                let spec = TopicSpec {
                    name: topic.to_owned(),
                    origin: Some(TopicOrigin::new(
                        "offsets.storage.topic",
                        "source connector offsets",
                    )),
                    ..topics.template.clone()
                };
                let log = topics.backend.topic(&spec).await?;
                let store = Arc::new(OffsetStore::open(log).await?);
                opened.insert(topic.to_owned(), store.clone());
                store
            }
        };
        Ok(ConnectorOffsetStore::with_secondary(primary, self.worker.clone()))
    }

    /// The instances of `connector` read their offsets through `store` from now on.
    pub fn route(&self, connector: &str, store: ConnectorOffsetStore) {
        self.lock().insert(connector.to_owned(), store);
    }

    /// The store the instances of `connector` read through: the one last routed, else the
    /// worker's.
    pub fn routed(&self, connector: &str) -> ConnectorOffsetStore {
        self.lock()
            .get(connector)
            .cloned()
            .unwrap_or_else(|| ConnectorOffsetStore::worker_only(self.worker.clone()))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, ConnectorOffsetStore>> {
        self.routes.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::store::MemoryBackend;

    #[tokio::test]
    async fn a_connector_topic_is_created_like_the_workers_and_opened_once() {
        let backend = MemoryBackend::default();
        let worker_spec = TopicSpec::new("connect-offsets", 5, true);
        let worker =
            Arc::new(OffsetStore::open(backend.topic(&worker_spec).await.unwrap()).await.unwrap());
        let stores = OffsetStores::new(worker.clone())
            .with_connector_topics(Arc::new(backend.clone()), worker_spec);
        for none in [None, Some(""), Some("connect-offsets")] {
            let store = stores.for_connector(none).await.unwrap();
            assert!(!store.has_secondary(), "{none:?}");
            assert_eq!(store.topic_name(), "connect-offsets");
        }
        let own = stores.for_connector(Some("own-offsets")).await.unwrap();
        assert!(own.has_secondary());
        assert_eq!(own.topic_name(), "own-offsets");
        // The topic exists, with the worker topic's partitions.
        let single = TopicSpec { single_partition: true, ..TopicSpec::new("own-offsets", 1, true) };
        assert!(backend.topic(&single).await.is_err(), "5 partitions");
        let p = json!({"f": "a"});
        own.put("k", vec![(p.clone(), Some(json!(1)))]).await.unwrap();
        let again = stores.for_connector(Some("own-offsets")).await.unwrap();
        assert_eq!(again.get("k", std::slice::from_ref(&p)), [Some(json!(1))], "one store");

        assert!(!stores.routed("k").has_secondary(), "the worker's until routed");
        stores.route("k", again);
        assert_eq!(stores.routed("k").topic_name(), "own-offsets");
    }

    #[tokio::test]
    async fn standalone_ignores_the_key() {
        let backend = MemoryBackend::default();
        let topic = backend.topic(&TopicSpec::new("connect-offsets", 1, true)).await.unwrap();
        let stores = OffsetStores::new(Arc::new(OffsetStore::open(topic).await.unwrap()));
        let store = stores.for_connector(Some("own-offsets")).await.unwrap();
        assert_eq!(store.topic_name(), "connect-offsets");
        assert!(!store.has_secondary());
    }
}
