//! The worker's side of the instances' host imports: reconfiguration requests and raised
//! errors become [`WorkerEvent`]s for the herder; offset reads come from the connector's
//! offsets store (its `offsets.storage.topic` before the worker's offsets topic, see
//! [`OffsetStores`]), which [`WorkerHost::read_offsets_to_end`] chooses and brings up to
//! date before a source instance starts (the import itself must answer at once, so it
//! cannot read the topic). A source task whose transaction requests the worker honours
//! (exactly-once with `transaction.boundary=connector`) gets the same host with its
//! transaction context active ([`WorkerHost::with_transaction_context`]); every other
//! instance sees none.

use std::sync::Arc;

use tokio::sync::mpsc;

use super::WorkerEvent;
use crate::model::ConnectorError;
use crate::runtime::{Identity, InstanceHost};
use crate::store::{ConnectorOffsetStore, OffsetStores};

/// The `InstanceHost` of every connector and task instance of this worker.
pub struct WorkerHost {
    pub(crate) events: mpsc::UnboundedSender<WorkerEvent>,
    pub(crate) offsets: Arc<OffsetStores>,
}

impl WorkerHost {
    /// The offsets store of `connector`, whose config names `topic`
    /// (`offsets.storage.topic`), from now on the one its instances read through; the
    /// connector's own topic is created if missing. A topic that cannot be opened fails
    /// the start.
    pub(crate) async fn connector_offsets(
        &self,
        connector: &str,
        topic: Option<&str>,
    ) -> Result<ConnectorOffsetStore, String> {
        let store = self.offsets.for_connector(topic).await.map_err(|e| {
            format!(
                "Failed to open the offsets topic {}: {e}",
                topic.unwrap_or(self.offsets.worker().topic_name())
            )
        })?;
        self.offsets.route(connector, store.clone());
        Ok(store)
    }

    /// Reads the connector's offsets topics to their end (`store`, from
    /// [`connector_offsets`](Self::connector_offsets)), so that a source instance starting
    /// now sees every offset committed before, by whichever worker ran it last (Kafka
    /// Connect's `OffsetStorageReader` reads to the end before answering). A read that
    /// cannot complete fails the start with a trace that says so: starting from a stale
    /// position would send again what was already sent.
    pub(crate) async fn read_offsets_to_end(
        &self,
        store: &ConnectorOffsetStore,
    ) -> Result<(), String> {
        store.read_to_end().await.map_err(|e| {
            format!(
                "Failed to fetch offsets: the offsets topic could not be read to its end before \
                 the start, so the committed offsets may be stale: {e}"
            )
        })
    }
}

impl WorkerHost {
    /// This host, with the `transaction-context` import active: for a source task whose
    /// transaction boundaries its connector defines, under exactly-once delivery.
    pub(crate) fn with_transaction_context(self: &Arc<Self>) -> Arc<dyn InstanceHost> {
        Arc::new(TransactionContextHost(self.clone()))
    }
}

/// The worker's host for a task that defines its transaction boundaries.
struct TransactionContextHost(Arc<WorkerHost>);

impl InstanceHost for TransactionContextHost {
    fn request_task_reconfiguration(&self, ident: &Identity) {
        self.0.request_task_reconfiguration(ident);
    }

    fn raise_error(&self, ident: &Identity, error: ConnectorError) {
        self.0.raise_error(ident, error);
    }

    fn offsets(&self, ident: &Identity, partitions: &[String]) -> Vec<Option<String>> {
        self.0.offsets(ident, partitions)
    }

    fn transaction_context_active(&self, _ident: &Identity) -> bool {
        true
    }
}

impl InstanceHost for WorkerHost {
    fn request_task_reconfiguration(&self, ident: &Identity) {
        let _ = self
            .events
            .send(WorkerEvent::ReconfigurationRequested { connector: ident.connector.clone() });
    }

    fn raise_error(&self, ident: &Identity, error: ConnectorError) {
        let _ = self
            .events
            .send(WorkerEvent::ErrorRaised { connector: ident.connector.clone(), error });
    }

    fn offsets(&self, ident: &Identity, partitions: &[String]) -> Vec<Option<String>> {
        let parsed: Vec<serde_json::Value> = partitions
            .iter()
            .map(|p| serde_json::from_str(p).unwrap_or(serde_json::Value::Null))
            .collect();
        self.offsets
            .routed(&ident.connector)
            .get(&ident.connector, &parsed)
            .into_iter()
            .map(|o| o.map(|v| v.to_string()))
            .collect()
    }
}
