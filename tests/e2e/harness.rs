//! An in-process worker for end-to-end tests: `App` started from a real worker config,
//! in standalone mode (embedded SQLite in a temporary directory) or in distributed mode
//! against the real broker at `KAFKA_BOOTSTRAP`, with the fixture and connector plugins.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use wasm_connect::app::App;
use wasm_connect::config::{Mode, WorkerConfig};
use wasm_connect::model::{InstanceId, State};
use wasm_connect::store::{EmbeddedBackend, KafkaBackend, LogBackend, LogTopic, Status, TopicSpec};

use crate::support::root;

/// Where a worker keeps its state.
#[derive(Clone, Debug)]
pub enum Backing {
    /// An embedded database file.
    Embedded(PathBuf),
    /// Kafka topics named with this prefix, on the broker at this address.
    Kafka(String, String),
}

impl Backing {
    /// A fresh embedded store in `dir`.
    pub fn embedded(dir: &tempfile::TempDir) -> Self {
        Self::Embedded(dir.path().join("worker.db"))
    }

    /// Fresh Kafka topics (unique names) on the test broker.
    pub fn kafka() -> Self {
        Self::kafka_at(&bootstrap())
    }

    /// Fresh Kafka topics (unique names) on the broker at `bootstrap`.
    pub fn kafka_at(bootstrap: &str) -> Self {
        let nanos =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
        Self::Kafka(format!("wc-test-{nanos}"), bootstrap.to_owned())
    }

    fn properties(&self) -> Vec<(String, String)> {
        let plugin_path = format!(
            "{},{}",
            root().join("build/fixtures").display(),
            root().join("build/plugins").display()
        );
        let mut p = vec![
            ("plugin.path".to_string(), plugin_path),
            ("listeners".into(), "http://127.0.0.1:0".into()),
            ("task.shutdown.graceful.timeout.ms".into(), "2000".into()),
            ("wasm.pool.instances".into(), "64".into()),
        ];
        match self {
            Self::Embedded(db) => {
                p.push(("offset.storage.file.filename".into(), db.display().to_string()))
            }
            Self::Kafka(prefix, bootstrap) => {
                p.extend([
                    ("bootstrap.servers".to_string(), bootstrap.clone()),
                    ("group.id".into(), prefix.clone()),
                    ("config.storage.topic".into(), format!("{prefix}-configs")),
                    ("offset.storage.topic".into(), format!("{prefix}-offsets")),
                    ("status.storage.topic".into(), format!("{prefix}-status")),
                    ("config.storage.replication.factor".into(), "1".into()),
                    ("offset.storage.replication.factor".into(), "1".into()),
                    ("status.storage.replication.factor".into(), "1".into()),
                    ("offset.storage.partitions".into(), "3".into()),
                    ("status.storage.partitions".into(), "2".into()),
                    ("wasm.store.delivery.timeout.ms".into(), "5000".into()),
                ]);
            }
        }
        p
    }

    /// Starts a worker on this backing.
    pub async fn start(&self) -> App {
        self.start_with(&[]).await
    }

    /// Starts a worker on this backing with extra worker config keys, and waits for its
    /// plugin path to be loaded: tests see a worker as one started a while ago does.
    pub async fn start_with(&self, extra: &[(&str, &str)]) -> App {
        let app = self.start_loading(extra).await;
        app.herder.plugins_loaded().await;
        app
    }

    /// Starts a worker like [`Backing::start_with`] without waiting for its plugin path,
    /// which it loads in the background.
    pub async fn start_loading(&self, extra: &[(&str, &str)]) -> App {
        let mode = match self {
            Self::Embedded(_) => Mode::Standalone,
            Self::Kafka(..) => Mode::Distributed,
        };
        let mut properties = self.properties();
        properties.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        let config = WorkerConfig::from_properties(&properties, mode).expect("test worker config");
        App::start(&config, None).await.expect("worker starts")
    }

    /// Starts a worker like [`Backing::start_with`], compiling plugins through the artifact
    /// cache every test process shares ([`shared_cache_dir`]): a Python or JavaScript
    /// component compiles in ~11 s but loads from the cache in milliseconds.
    pub async fn start_cached(&self, extra: &[(&str, &str)]) -> App {
        let cache = shared_cache_dir();
        let cache = cache.to_str().expect("a UTF-8 cache path");
        let mut all = vec![("wasm.cache.dir", cache)];
        all.extend_from_slice(extra);
        self.start_with(&all).await
    }

    /// The backend, opened separately from any worker (another producer).
    pub async fn backend(&self) -> Arc<dyn LogBackend> {
        match self {
            Self::Embedded(db) => Arc::new(EmbeddedBackend::open(db).unwrap()),
            Self::Kafka(_, bootstrap) => {
                Arc::new(KafkaBackend::new(bootstrap, &[], Duration::from_secs(5)).unwrap())
            }
        }
    }

    /// The config topic, opened by another producer.
    pub async fn config_topic(&self) -> Arc<dyn LogTopic> {
        self.topic("configs", true).await
    }

    /// The status topic, opened by another reader.
    pub async fn status_topic(&self) -> Arc<dyn LogTopic> {
        self.topic("status", false).await
    }

    async fn topic(&self, which: &str, single: bool) -> Arc<dyn LogTopic> {
        let name = match self {
            Self::Embedded(_) => format!("connect-{which}"),
            Self::Kafka(prefix, _) => format!("{prefix}-{which}"),
        };
        let spec = TopicSpec {
            single_partition: single,
            ..TopicSpec::new(name, if single { 1 } else { -1 }, true)
        };
        self.backend().await.topic(&spec).await.unwrap()
    }
}

/// The artifact cache shared by the tests that start workers with
/// [`Backing::start_cached`], across test runs: `e2e-artifact-cache` in the cargo target
/// directory of the running test binary (`<target>/release/deps/e2e-…`). Artifacts are
/// keyed by content and engine, so a rebuilt plugin or worker never loads a stale one;
/// the first call of a test process removes artifacts written more than three days ago,
/// so the builds of old components do not pile up.
pub fn shared_cache_dir() -> PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let exe = std::env::current_exe().expect("the test binary's path");
        let target =
            exe.ancestors().nth(3).expect("the test binary sits in <target>/<profile>/deps");
        let dir = target.join("e2e-artifact-cache");
        let old = |e: &std::fs::DirEntry| {
            let age = e.metadata().and_then(|m| m.modified()).ok().and_then(|t| t.elapsed().ok());
            age.is_some_and(|a| a > Duration::from_secs(3 * 24 * 3600))
        };
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            if old(&entry) {
                let _ = std::fs::remove_file(entry.path());
            }
        }
        dir
    })
    .clone()
}

/// The test broker's address; a Kafka test without one fails, it is never skipped.
pub fn bootstrap() -> String {
    std::env::var("KAFKA_BOOTSTRAP").expect(
        "KAFKA_BOOTSTRAP is not set: run `scripts/kafka.sh start` and set KAFKA_BOOTSTRAP=127.0.0.1:9092 \
         (scripts/test.sh does both)",
    )
}

/// A config from pairs.
pub fn props(pairs: &[(&str, &str)]) -> std::collections::BTreeMap<String, String> {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

/// Waits until `f` returns `Some`, polling every 20 ms, for at most `secs` seconds.
pub async fn eventually<T>(secs: u64, what: &str, mut f: impl AsyncFnMut() -> Option<T>) -> T {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(secs);
    loop {
        if let Some(v) = f().await {
            return v;
        }
        assert!(tokio::time::Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The state of one instance, from the herder's status store.
pub async fn state(app: &App, id: &InstanceId) -> Option<State> {
    match id {
        InstanceId::Connector(c) => {
            app.herder.connector_status(c).await.ok().map(|s| s.connector.state)
        }
        InstanceId::Task(c, t) => app.herder.task_status(c, *t).ok().map(|s: Status| s.state),
    }
}

/// Waits until the instance is in `want`.
pub async fn wait_state(app: &App, id: InstanceId, want: State) {
    eventually(20, &format!("{id} to be {want}"), async || {
        (state(app, &id).await == Some(want)).then_some(())
    })
    .await
}

/// A `ChaosSource` connector config (2 tasks, healthy, polling no records unless `extra`
/// sets `batch.size`) plus `extra` keys.
pub fn chaos_source(extra: &[(&str, &str)]) -> wasm_connect::model::Properties {
    let mut p = props(&[
        ("connector.class", "ChaosSource"),
        ("tasks.max", "2"),
        ("chaos.mode", "ok"),
        ("batch.size", "0"),
    ]);
    p.extend(props(extra));
    p
}

/// The connector instance of `name`.
pub fn c(name: &str) -> InstanceId {
    InstanceId::Connector(name.into())
}

/// Task `task` of `name`.
pub fn t(name: &str, task: u32) -> InstanceId {
    InstanceId::Task(name.into(), task)
}

/// Runs each named scenario (`async fn name(b: Backing)`) twice: on the embedded SQLite
/// backend and on the real Kafka broker.
macro_rules! on_both_backends {
    ($($name:ident),* $(,)?) => {$(
        mod $name {
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn embedded() {
                let dir = tempfile::tempdir().unwrap();
                super::$name($crate::harness::Backing::embedded(&dir)).await;
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn kafka() {
                super::$name($crate::harness::Backing::kafka()).await;
            }
        }
    )*};
}
