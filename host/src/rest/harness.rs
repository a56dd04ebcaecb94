//! The worker the REST module's router tests run against: a standalone worker on an
//! embedded store in a temporary directory, with an empty plugin path, whose config topic
//! already holds the records a test gives; and the [`RestState`] its router serves.

use std::time::Duration;

use crate::app::App;
use crate::cluster::{InterWorkerClient, KeyRing};
use crate::config::{Mode, WorkerConfig};
use crate::rest::{InternalRequests, RestState};
use crate::store::{ConfigRecord, EmbeddedBackend, LogBackend, TopicSpec};

/// A worker in `dir` whose config topic holds `records`.
pub async fn start_worker(dir: &std::path::Path, records: &[ConfigRecord]) -> App {
    let db = dir.join("worker.db");
    let plugins = dir.join("plugins");
    std::fs::create_dir_all(&plugins).unwrap();
    let backend = EmbeddedBackend::open(&db).unwrap();
    let spec = TopicSpec {
        name: "connect-configs".into(),
        partitions: 1,
        replication_factor: 1,
        compacted: true,
        single_partition: true,
        origin: None,
    };
    let log: Vec<_> = records.iter().map(ConfigRecord::to_log_record).collect();
    backend.topic(&spec).await.unwrap().send(log).await.unwrap();
    drop(backend);
    let props: Vec<(String, String)> = [
        ("plugin.path", plugins.display().to_string()),
        ("listeners", "http://127.0.0.1:0".into()),
        ("offset.storage.file.filename", db.display().to_string()),
        ("wasm.pool.instances", "0".into()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    let config = WorkerConfig::from_properties(&props, Mode::Standalone).unwrap();
    let app = App::start(&config, None).await.unwrap();
    // The plugin path loads in the background: the tests see it loaded.
    app.herder.plugins_loaded().await;
    app
}

/// The router state of `app`, taking inter-worker requests as `internal` says.
pub fn state(app: &App, internal: InternalRequests, keyring: KeyRing) -> RestState {
    RestState {
        herder: app.herder.clone(),
        kafka_cluster_id: None,
        request_timeout: Duration::from_secs(10),
        metrics: None,
        client: InterWorkerClient::new(Duration::from_secs(10), None).unwrap(),
        keyring,
        internal,
    }
}
