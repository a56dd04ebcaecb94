//! Assembles a worker process from its config: the runtime and plugins, the backing
//! stores (embedded SQLite in standalone mode, Kafka topics in distributed mode), the
//! worker and the herder; then runs until a signal and shuts down gracefully.
//!
//! This is wiring only: every decision lives in the modules it connects. Tests start an
//! [`App`] in-process and drive it through its [`HerderHandle`].

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;

use crate::cluster::KeySettings;
use crate::config::{Mode, ModeConfig, WorkerConfig};
use crate::herder::{
    self, EmbeddedSinkOffsets, HerderHandle, HerderSettings, KafkaSinkOffsets, MemberSpec,
    SinkOffsets,
};
use crate::rest::{self, RestState};
use crate::runtime::{PluginScan, PoolSize, Runtime, RuntimeOptions, Trust};
use crate::store::{
    EmbeddedBackend, KafkaBackend, LogBackend, OffsetStore, OffsetStores, StatusStore, TopicOrigin,
    TopicSpec,
};
use crate::worker::convert::{Side, worker_default};
use crate::worker::source_flow::FlowLimits;
use crate::worker::topics::{DataTopics, EmbeddedTopics, KafkaClientSettings, KafkaTopics};
use crate::worker::{DataPlane, Plugins, Worker, WorkerSettings};

/// Records asked of one source `poll`: large enough that the per-call cost of crossing
/// into the sandbox is amortised (BENCHMARKS.md: ~90 % of the peak rate at 100, the peak
/// by 1,000).
pub const SOURCE_MAX_POLL_RECORDS: u32 = 1000;

/// Records handed to one sink `put` unless `consumer.max.poll.records` says otherwise
/// (Kafka's consumer default).
pub const SINK_MAX_RECORDS: usize = 500;

/// Internal topic names of the embedded backend (standalone mode).
const EMBEDDED_TOPICS: [&str; 3] = ["connect-configs", "connect-offsets", "connect-status"];

/// A running worker.
pub struct App {
    /// The herder's handle.
    pub herder: HerderHandle,
    /// `host:port` this worker reports in statuses.
    pub worker_id: String,
    /// The runtime, for plugin listings.
    pub runtime: Runtime,
    /// Where the REST API listens (the first listener), as bound.
    pub rest_addr: SocketAddr,
    rest_stop: tokio::sync::watch::Sender<bool>,
    rest_tasks: Vec<tokio::task::JoinHandle<std::io::Result<()>>>,
}

impl App {
    /// Starts everything `config` describes. `cache_dir` is the CLI's default artifact
    /// cache, used when the config names none.
    pub async fn start(config: &WorkerConfig, cache_dir: Option<PathBuf>) -> anyhow::Result<Self> {
        let (server_tls, client_tls) = https_tls(config)?;
        let runtime = Runtime::new(RuntimeOptions {
            cache_dir: config.wasm_cache_dir.clone().or(cache_dir),
            pool: (config.wasm_pool_instances > 0)
                .then(|| PoolSize { instances: config.wasm_pool_instances, ..PoolSize::default() }),
            trust: plugin_trust(config)?,
        })?;
        let scan = PluginScan::new(runtime.clone(), config.plugin_path.clone());
        let plugins = Plugins::watch(scan, config.plugin_scan_interval);
        for key in &config.ignored_keys {
            tracing::warn!(key = %key, "Worker config key is accepted but has no effect here");
        }

        let (backend, specs, embedded) = backend(config).await?;
        let [config_spec, offsets_spec, status_spec] = specs;
        let config_topic = backend.topic(&config_spec).await.context("opening the config topic")?;
        let status_topic = backend.topic(&status_spec).await.context("opening the status topic")?;
        let offsets_topic =
            backend.topic(&offsets_spec).await.context("opening the offsets topic")?;
        let status =
            Arc::new(StatusStore::open(status_topic).await.context("reading the status topic")?);
        let kafka_cluster_id = backend.cluster_id().await.unwrap_or_else(|e| {
            tracing::warn!(error = %e, "The cluster id is unknown; GET / reports none");
            None
        });
        let offsets = Arc::new(offset_stores(
            config,
            OffsetStore::open(offsets_topic).await.context("reading the offsets topic")?,
            &backend,
            offsets_spec,
        ));

        let listener = config.advertised_listener().context("no listener to advertise")?;
        let host =
            config.rest_advertised_host_name.clone().unwrap_or_else(|| listener.host.clone());
        let port = config.rest_advertised_port.unwrap_or(listener.port);
        let worker_id = format!("{host}:{port}");
        let url = format!("{}://{host}:{port}", listener.scheme);

        let (data, embedded_topics) = data_plane(config, embedded)?;
        let (events_tx, events_rx) = tokio::sync::mpsc::unbounded_channel();
        let worker = Worker::new(
            offsets,
            WorkerSettings {
                task_shutdown_timeout: config.task_shutdown_graceful_timeout,
                providers: config.config_providers.clone(),
                ..WorkerSettings::default()
            },
            data,
            events_tx,
        );
        status.follow(&worker_id);
        let settings = HerderSettings {
            reconfiguration: config.task_reconfiguration.clone(),
            override_policy: config.connector_client_config_override_policy,
            exactly_once_source_support: config.exactly_once_source_support,
            providers: config.config_providers.clone(),
            shutdown: shutdown_timeouts(config),
            loggers: crate::telemetry::installed()
                .unwrap_or_else(crate::telemetry::Loggers::for_tests),
        };
        let sink_offsets = sink_offsets(config, embedded_topics)?;
        let client =
            crate::cluster::InterWorkerClient::new(config.rest_request_timeout, client_tls)
                .context("creating the HTTP client for other workers")?;
        let keyring = crate::cluster::KeyRing::new();
        let peers = herder::Peers {
            client: client.clone(),
            keyring: keyring.clone(),
            keys: KeySettings::default(),
        };
        let member = member_spec(config, &worker_id, url, peers)?;
        let workload = herder::Workload { worker, events: events_rx, plugins };
        let herder = herder::spawn(config_topic, status, workload, sink_offsets, member, settings)
            .await
            .context("starting the herder")?;
        let state = RestState {
            herder: herder.clone(),
            kafka_cluster_id,
            request_timeout: config.rest_request_timeout,
            metrics: crate::telemetry::prometheus::handle(),
            client,
            keyring,
            internal: (&config.mode).into(),
        };
        let mut router = rest::router(state);
        if let Some(file) = &config.rest_basic_auth_credentials_file {
            router = rest::auth::BasicAuth::load(file)
                .context("loading the REST credentials")?
                .protect(router);
        }
        let (rest_stop, stopped) = tokio::sync::watch::channel(false);
        let mut rest_tasks = Vec::new();
        let mut rest_addr = None;
        let connections = rest::Connections::new(config.rest_limits);
        for l in &config.listeners {
            let mut stopped = stopped.clone();
            let shutdown = async move {
                let _ = stopped.wait_for(|s| *s).await;
            };
            let tls = server_tls.as_deref();
            let (addr, task) =
                rest::tls::serve(l, router.clone(), tls, connections.clone(), shutdown)
                    .await
                    .with_context(|| format!("starting the REST listener {l}"))?;
            tracing::info!(listener = %l, address = %addr, "REST API listening");
            rest_addr.get_or_insert(addr);
            rest_tasks.push(task);
        }
        let rest_addr = rest_addr.context("no listener configured")?;
        tracing::info!(worker_id = %worker_id, rest = %rest_addr, mode = %config.mode.kind(), "Worker started");
        Ok(Self { herder, worker_id, runtime, rest_addr, rest_stop, rest_tasks })
    }

    /// Submits connector configs (standalone mode's command-line files), replacing
    /// connectors of the same name.
    pub async fn submit(
        &self,
        connectors: Vec<(String, Vec<(String, String)>)>,
    ) -> anyhow::Result<()> {
        for (name, config) in connectors {
            let config = config.into_iter().collect();
            let outcome = self
                .herder
                .put_connector_config(&name, config, None, true)
                .await
                .with_context(|| format!("creating connector {name}"))?;
            tracing::info!(connector = %name, created = outcome.created, "Submitted connector");
        }
        Ok(())
    }

    /// Stops the REST server (its listeners together, within [`REST_STOP_TIMEOUT`]), then
    /// the herder: every instance within its timeout, the statuses written and the group
    /// left, each step bounded (`herder::ShutdownTimeouts`). Returns within their sum
    /// whatever the broker does.
    pub async fn shutdown(self) {
        let _ = self.rest_stop.send(true);
        let listeners = join_listeners(self.rest_tasks);
        if tokio::time::timeout(REST_STOP_TIMEOUT, listeners).await.is_err() {
            tracing::warn!(
                timeout = ?REST_STOP_TIMEOUT,
                "Could not finish the REST requests under way before shutdown"
            );
        }
        self.herder.shutdown().await;
    }
}

/// How long the REST listeners may take to finish the requests under way at shutdown.
pub const REST_STOP_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// Waits for every listener task.
async fn join_listeners(tasks: Vec<tokio::task::JoinHandle<std::io::Result<()>>>) {
    for task in tasks {
        let _ = task.await;
    }
}

/// The keys plugins must be signed by, when `plugin.signature.required` is true; a key
/// that cannot be read fails the start. Keys given without the requirement are unused.
fn plugin_trust(config: &WorkerConfig) -> anyhow::Result<Option<Trust>> {
    if !config.plugin_signature_required {
        if !config.plugin_trusted_keys.is_empty() {
            tracing::warn!(
                "plugin.trusted.keys is set but plugin.signature.required is false: plugin \
                 signatures are not checked"
            );
        }
        return Ok(None);
    }
    let trust = Trust::from_entries(&config.plugin_trusted_keys)
        .map_err(|e| anyhow::anyhow!("plugin.trusted.keys: {e}"))?;
    tracing::info!(keys = trust.keys().len(), "Plugins must be signed by a trusted key");
    Ok(Some(trust))
}

/// The bounds of the herder's shutdown, Kafka Connect's: `task.shutdown.graceful.timeout.ms`
/// and, in distributed mode, `worker.sync.timeout.ms`.
fn shutdown_timeouts(config: &WorkerConfig) -> herder::ShutdownTimeouts {
    let worker_sync = match &config.mode {
        ModeConfig::Distributed(d) => d.worker_sync_timeout,
        ModeConfig::Standalone(_) => std::time::Duration::ZERO,
    };
    herder::ShutdownTimeouts::new(config.task_shutdown_graceful_timeout, worker_sync)
}

/// The group client's security from the worker's `security.protocol`, `sasl.mechanism`,
/// `sasl.jaas.config` (or librdkafka's `sasl.username`/`sasl.password`) and `ssl.*`: the
/// settings Kafka Connect's group member takes from the worker config. They were checked
/// when the config was read; a trust or key store that cannot be loaded now fails start-up.
fn group_security(config: &WorkerConfig) -> anyhow::Result<wasm_connect_group::Security> {
    use crate::config::security::{ClientSecurity, Sasl};
    use wasm_connect_group::{Sasl as Login, Tls};

    let security =
        ClientSecurity::from_props(&config.client_props).map_err(|e| anyhow::anyhow!("{e}"))?;
    let tls = match &security.ssl {
        Some(ssl) => Some(Tls::new(ssl.client_config().map_err(|e| anyhow::anyhow!("{e}"))?)),
        None => None,
    };
    let sasl = match security.sasl {
        None => None,
        Some(Sasl::Jaas(m, credentials)) => Some(Login {
            mechanism: m,
            username: credentials.username,
            password: credentials.password.expose().to_owned(),
        }),
        Some(Sasl::Native(m)) => {
            let get = |key: &str| config.client_props.get(key).cloned().unwrap_or_default();
            Some(Login {
                mechanism: m,
                username: get("sasl.username"),
                password: get("sasl.password"),
            })
        }
    };
    Ok(wasm_connect_group::Security { tls, sasl })
}

/// The REST listeners' TLS server config and the client config of requests to other
/// workers.
type HttpsTls = (Option<Arc<rustls::ServerConfig>>, Option<Arc<rustls::ClientConfig>>);

/// The TLS configs of the REST API over HTTPS, from the worker's HTTPS settings
/// (`listeners.https.ssl.*`, else `ssl.*`): the listeners' server config when one is
/// `https://`, and in distributed mode the client config of requests to other workers. A
/// worker with neither an `https://` listener nor `listeners.https.ssl.*` keys still starts
/// when those settings give no client config (no trust store, and none in the system): its
/// requests to `https://` workers then fail.
fn https_tls(config: &WorkerConfig) -> anyhow::Result<HttpsTls> {
    let required = config.has_https_listener() || !config.listeners_https_props.is_empty();
    let distributed = matches!(config.mode, ModeConfig::Distributed(_));
    if !required && !distributed {
        return Ok((None, None));
    }
    let optional = |e: crate::config::security::SecurityError| {
        if required {
            return Err(anyhow::anyhow!("HTTPS settings: {e}"));
        }
        tracing::warn!(error = %e, "No TLS client for other workers: requests to https:// workers will fail");
        Ok(None)
    };
    let ssl = match config.https_ssl() {
        Ok(ssl) => ssl,
        Err(e) => return optional(e).map(|_| (None, None)),
    };
    let server = match config.has_https_listener() {
        true => Some(ssl.server_config().map_err(|e| anyhow::anyhow!("HTTPS listener: {e}"))?),
        false => None,
    };
    let client = match distributed {
        true => ssl.client_config().map(Some).or_else(optional)?,
        false => None,
    };
    Ok((server, client))
}

/// How this worker takes part in the cluster: alone in standalone mode, as a member of the
/// Kafka group `group.id` in distributed mode.
fn member_spec(
    config: &WorkerConfig,
    worker_id: &str,
    url: String,
    peers: herder::Peers,
) -> anyhow::Result<MemberSpec> {
    Ok(match &config.mode {
        ModeConfig::Standalone(_) => MemberSpec::Single { worker_id: worker_id.to_owned(), url },
        ModeConfig::Distributed(d) => MemberSpec::Group {
            worker_id: worker_id.to_owned(),
            peers: herder::Peers {
                keys: KeySettings::new(d.inter_worker_key_ttl, d.inter_worker_key_size),
                ..peers
            },
            settings: wasm_connect_group::MemberSettings {
                bootstrap_servers: config.bootstrap_servers.clone(),
                group_id: d.group_id.clone(),
                client_id: format!("wasm-connect-{worker_id}"),
                url,
                session_timeout: d.session_timeout,
                rebalance_timeout: d.rebalance_timeout,
                heartbeat_interval: d.heartbeat_interval,
                scheduled_rebalance_max_delay: d.scheduled_rebalance_max_delay,
                worker_sync_timeout: d.worker_sync_timeout,
                security: group_security(config)?,
            },
        },
    })
}

/// Where sink connectors' offsets live: their consumer groups in the embedded store when
/// the data topics are there, else in the Kafka cluster.
fn sink_offsets(
    config: &WorkerConfig,
    embedded: Option<EmbeddedTopics>,
) -> anyhow::Result<Arc<dyn SinkOffsets>> {
    Ok(match embedded {
        Some(topics) => Arc::new(EmbeddedSinkOffsets::new(topics)),
        None => {
            let props: Vec<(String, String)> =
                config.client_props.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
            Arc::new(
                KafkaSinkOffsets::new(
                    &config.bootstrap_servers.join(","),
                    &props,
                    config.wasm_store_delivery_timeout,
                )
                .context("creating the Kafka client for sink connector offsets")?,
            )
        }
    })
}

/// How long a closed consumer's LeaveGroup is retried (while the brokers are away): past
/// it the member's session timeout removes it, as it would have without the retries.
const DEPARTURE_GIVE_UP: std::time::Duration = std::time::Duration::from_secs(600);

/// Timeout of each connection and LeaveGroup request of the departures.
const DEPARTURE_REQUEST_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// Sends closed sink consumers' LeaveGroup again until their coordinator answers, with the
/// worker's own security settings.
fn departures(config: &WorkerConfig) -> anyhow::Result<wasm_connect_group::Departures> {
    Ok(wasm_connect_group::Departures::spawn(wasm_connect_group::DepartureSettings {
        bootstrap_servers: config.bootstrap_servers.clone(),
        client_id: "wasm-connect-departures".to_owned(),
        security: group_security(config)?,
        request_timeout: DEPARTURE_REQUEST_TIMEOUT,
        give_up_after: DEPARTURE_GIVE_UP,
    }))
}

/// What tasks' data path shares: data topics in Kafka when `bootstrap.servers` is set, else
/// in the embedded store (standalone mode only), and the worker's converters.
/// The embedded topics are returned too: the sink offsets API must share their consumer
/// groups.
fn data_plane(
    config: &WorkerConfig,
    embedded: Option<EmbeddedBackend>,
) -> anyhow::Result<(DataPlane, Option<EmbeddedTopics>)> {
    let embedded =
        embedded.filter(|_| config.bootstrap_servers.is_empty()).map(EmbeddedTopics::new);
    if let (Some(topics), ModeConfig::Standalone(s)) = (&embedded, &config.mode) {
        // Runs until the runtime stops; each of its transactions is short.
        drop(topics.backend().start_cleaner(s.retention_check_interval));
    }
    let topics: Arc<dyn DataTopics> = match &embedded {
        Some(topics) => Arc::new(topics.clone()),
        None => Arc::new(
            KafkaTopics::new(KafkaClientSettings {
                bootstrap_servers: config.bootstrap_servers.join(","),
                common: config.client_props.clone(),
                producer: config.producer_props.clone(),
                consumer: config.consumer_props.clone(),
                admin: config.admin_props.clone(),
            })
            .context("creating the Kafka clients for data topics")?
            .with_departures(departures(config)?),
        ),
    };
    let sink_max_records = config
        .consumer_props
        .get("max.poll.records")
        .map(|v| v.trim().parse::<usize>())
        .transpose()
        .context("consumer.max.poll.records: not a positive integer")?
        .unwrap_or(SINK_MAX_RECORDS);
    // Kafka Connect refuses a worker config naming a converter it does not have (or with
    // settings it cannot take) at start-up; here every task would fail with it instead.
    for (side, class, props) in [
        (Side::Key, &config.key_converter, &config.key_converter_props),
        (Side::Value, &config.value_converter, &config.value_converter_props),
    ] {
        worker_default(side, class, props).map_err(|e| anyhow::anyhow!("{e}"))?;
    }
    let plane = DataPlane {
        topics,
        key_converter: config.key_converter.clone(),
        key_converter_props: config.key_converter_props.clone(),
        value_converter: config.value_converter.clone(),
        value_converter_props: config.value_converter_props.clone(),
        offset_flush_interval: config.offset_flush_interval,
        offset_flush_timeout: config.offset_flush_timeout,
        source_max_poll_records: SOURCE_MAX_POLL_RECORDS,
        source_flow: FlowLimits::worker(
            &config.producer_props,
            config.wasm_poll_bytes_per_second,
            config.wasm_poll_records_per_second,
        )
        .map_err(anyhow::Error::msg)?,
        sink_max_records: sink_max_records.max(1),
        exactly_once: exactly_once(config)?,
    };
    Ok((plane, embedded))
}

/// The worker's offsets store and, in distributed mode, the connectors' own offsets topics
/// (`offsets.storage.topic`), created in the worker's cluster after the worker's offsets
/// topic's spec. Standalone mode ignores the key, as Kafka Connect does: its offsets are
/// one table of the embedded file.
fn offset_stores(
    config: &WorkerConfig,
    worker: OffsetStore,
    backend: &Arc<dyn LogBackend>,
    worker_spec: TopicSpec,
) -> OffsetStores {
    let stores = OffsetStores::new(Arc::new(worker));
    match &config.mode {
        ModeConfig::Distributed(_) => stores.with_connector_topics(backend.clone(), worker_spec),
        ModeConfig::Standalone(_) => stores,
    }
}

/// The prefix of source tasks' `transactional.id`s when they run exactly-once: the group
/// id in distributed mode; in standalone mode, on the embedded store only (one SQLite
/// transaction holds a batch and its offsets; standalone mode has no group to name
/// Kafka transactions after, and Kafka Connect offers exactly-once in distributed mode
/// only).
fn exactly_once(config: &WorkerConfig) -> anyhow::Result<Option<String>> {
    if !config.exactly_once_source_support.enabled() {
        return Ok(None);
    }
    match &config.mode {
        ModeConfig::Distributed(d) => Ok(Some(d.group_id.clone())),
        ModeConfig::Standalone(_) if config.bootstrap_servers.is_empty() => {
            Ok(Some("standalone".to_owned()))
        }
        ModeConfig::Standalone(_) => anyhow::bail!(
            "exactly.once.source.support=enabled: exactly-once source delivery runs in \
             distributed mode, or in standalone mode on the embedded store (without \
             bootstrap.servers)"
        ),
    }
}

/// The backend, the specs of the three internal topics (configs, offsets, status), and the
/// embedded backend itself in standalone mode.
async fn backend(
    config: &WorkerConfig,
) -> anyhow::Result<(Arc<dyn LogBackend>, [TopicSpec; 3], Option<EmbeddedBackend>)> {
    let spec = |name: &str, partitions: i32, replication: i16, single: bool| TopicSpec {
        name: name.to_owned(),
        partitions,
        replication_factor: replication,
        compacted: true,
        single_partition: single,
        origin: None,
    };
    let origin = |mut s: TopicSpec, property: &str, purpose: &str| {
        s.origin = Some(TopicOrigin::new(property, purpose));
        s
    };
    match &config.mode {
        ModeConfig::Standalone(s) => {
            if let Some(dir) = s.database_file.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir)
                    .with_context(|| format!("creating the directory {}", dir.display()))?;
            }
            let backend = EmbeddedBackend::open(&s.database_file)
                .with_context(|| {
                    format!("opening the embedded store {}", s.database_file.display())
                })?
                .with_retention(s.retention);
            let [c, o, st] = EMBEDDED_TOPICS;
            Ok((
                Arc::new(backend.clone()),
                [spec(c, 1, 1, true), spec(o, 1, 1, false), spec(st, 1, 1, false)],
                Some(backend),
            ))
        }
        ModeConfig::Distributed(d) => {
            debug_assert_eq!(config.mode.kind(), Mode::Distributed);
            let extra: Vec<(String, String)> =
                config.client_props.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
            let backend = KafkaBackend::new(
                &config.bootstrap_servers.join(","),
                &extra,
                config.wasm_store_delivery_timeout,
            )
            .context("connecting to Kafka")?;
            let rf = |t: crate::config::TopicCount| t.to_kafka() as i16;
            Ok((
                Arc::new(backend),
                [
                    origin(
                        spec(
                            &d.config_storage_topic,
                            1,
                            rf(d.config_storage_replication_factor),
                            true,
                        ),
                        "config.storage.topic",
                        "connector configurations",
                    ),
                    origin(
                        spec(
                            &d.offset_storage_topic,
                            d.offset_storage_partitions.to_kafka(),
                            rf(d.offset_storage_replication_factor),
                            false,
                        ),
                        "offset.storage.topic",
                        "source connector offsets",
                    ),
                    origin(
                        spec(
                            &d.status_storage_topic,
                            d.status_storage_partitions.to_kafka(),
                            rf(d.status_storage_replication_factor),
                            false,
                        ),
                        "status.storage.topic",
                        "connector and task statuses",
                    ),
                ],
                None,
            ))
        }
    }
}
