//! [`WorkerConfig`]: the worker's settings, read from a Kafka Connect worker `.properties`
//! file with Kafka Connect's key names and defaults, plus a few `wasm.*` keys of our own.
//!
//! This module owns the key names, defaults and checks. It opens no connection and binds
//! no port; an invalid config yields every problem at once, each naming its key.
//!
//! As in Kafka (`AbstractConfig`), the worker file's own values may refer to the config
//! providers it declares (`sasl.jaas.config=${file:/etc/kafka/jaas.properties:client}`):
//! they are resolved before any key is read, and a problem found in a resolved value is
//! reported with the reference, not the value.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::config::error::WorkerConfigError;
use crate::config::keys::{self, KeyClass, PassThrough};
use crate::config::listener::{self, Listener, Scheme};
use crate::config::mode::{self, Mode, ModeConfig};
use crate::config::properties;
use crate::config::providers::ConfigProviders;
use crate::config::reader::Reader;
use crate::config::rest_limits::RestLimits;
use crate::config::security::{ClientSecurity, RedactedProps};
use crate::model::{
    ConfigProblem, ExactlyOnceSourceSupport, OverridePolicy, RECONFIGURATION_KEYS, RetryPolicy,
};

/// Default `listeners`.
pub const DEFAULT_LISTENERS: &str = "http://localhost:8083";
/// Default `key.converter` and `value.converter`.
pub const DEFAULT_CONVERTER: &str = "org.apache.kafka.connect.json.JsonConverter";
/// Default `task.shutdown.graceful.timeout.ms` (Kafka Connect's).
pub const DEFAULT_TASK_SHUTDOWN_GRACEFUL_TIMEOUT: Duration = Duration::from_millis(5_000);
/// Default `offset.flush.interval.ms` (Kafka Connect's).
pub const DEFAULT_OFFSET_FLUSH_INTERVAL: Duration = Duration::from_millis(60_000);
/// Default `rest.request.timeout.ms`: Kafka Connect's fixed 90 s REST request timeout.
pub const DEFAULT_REST_REQUEST_TIMEOUT: Duration = Duration::from_millis(90_000);
/// Default `offset.flush.timeout.ms` (Kafka Connect's).
pub const DEFAULT_OFFSET_FLUSH_TIMEOUT: Duration = Duration::from_millis(5_000);
/// Default `plugin.scan.interval.ms`: a new plugin file is found within 10 s; a scan of
/// an unchanged path costs a directory walk and a `stat` per file.
pub const DEFAULT_PLUGIN_SCAN_INTERVAL: Duration = Duration::from_millis(10_000);
/// Default `wasm.pool.instances`: room for 10,500 concurrent instances (10,000 tasks with
/// their connectors and validation instances), the runtime's default pool size
/// (`runtime::PoolSize`), within Linux's default `vm.max_map_count`.
pub const DEFAULT_WASM_POOL_INSTANCES: u32 = 10_500;
/// Default `wasm.store.delivery.timeout.ms`: as long as Kafka Connect's config-store
/// write-and-read budget (`READ_WRITE_TOTAL_TIMEOUT_MS`).
pub const DEFAULT_WASM_STORE_DELIVERY_TIMEOUT: Duration = Duration::from_millis(30_000);

/// The worker's configuration. Build it with [`WorkerConfig::load`] or
/// [`WorkerConfig::from_properties`].
#[derive(Clone, PartialEq, Eq)]
pub struct WorkerConfig {
    /// The mode and the settings only that mode uses.
    pub mode: ModeConfig,
    /// `bootstrap.servers`: Kafka brokers, `host:port` each. Required in distributed mode.
    /// Empty in standalone mode means no broker: topics are embedded in the database.
    pub bootstrap_servers: Vec<String>,
    /// `plugin.path` (required): directories holding plugin components, comma-separated.
    /// Relative paths are relative to the working directory.
    pub plugin_path: Vec<PathBuf>,
    /// `plugin.scan.interval.ms`: how often the plugin path is scanned again while the
    /// worker runs, for new, changed and removed files (default
    /// [`DEFAULT_PLUGIN_SCAN_INTERVAL`]; 0: only on `POST /wasm-connect/plugins/rescan`).
    pub plugin_scan_interval: Option<Duration>,
    /// `plugin.signature.required` (default false): whether a plugin loads only with a
    /// valid signature (`<file>.wasm.sig`) by one of `plugin.trusted.keys`.
    pub plugin_signature_required: bool,
    /// `plugin.trusted.keys`: the Ed25519 public keys plugins may be signed by, each the
    /// path of a PEM file (SubjectPublicKeyInfo) or the base64 of the key's 32 bytes;
    /// comma-separated. Required (at least one) when `plugin.signature.required` is true.
    /// Kept as written: the runtime reads the keys (`runtime::Trust::from_entries`).
    pub plugin_trusted_keys: Vec<String>,
    /// `listeners`: where the REST API listens (default [`DEFAULT_LISTENERS`]).
    pub listeners: Vec<Listener>,
    /// `listeners.https.ssl.*`: the TLS settings of the `https://` listeners and of the
    /// requests to other workers, full names, values untrimmed. When empty, the top-level
    /// `ssl.*` keys of [`client_props`](Self::client_props) apply instead (Kafka Connect's
    /// all-or-nothing rule; see [`https_ssl`](Self::https_ssl)).
    pub listeners_https_props: BTreeMap<String, String>,
    /// `rest.basic.auth.credentials.file`: a properties file of `user: password` lines, the
    /// format of Kafka Connect's `PropertyFileLoginModule` file. When set, every REST
    /// request needs HTTP basic authentication as one of those users (default: none, no
    /// authentication).
    pub rest_basic_auth_credentials_file: Option<PathBuf>,
    /// `rest.advertised.host.name`: the host other workers use to reach this one
    /// (default: the listener's host).
    pub rest_advertised_host_name: Option<String>,
    /// `rest.advertised.port`: the port other workers use (default: the listener's port).
    pub rest_advertised_port: Option<u16>,
    /// `rest.advertised.listener`: which listener's protocol to advertise, `http` or
    /// `https` (default: `http` if an `http://` listener exists, else `https`); the first
    /// listener of that protocol gives the advertised host and port unless
    /// `rest.advertised.host.name` and `rest.advertised.port` say otherwise.
    pub rest_advertised_listener: Option<Scheme>,
    /// `connector.client.config.override.policy`: which `producer.override.*`,
    /// `consumer.override.*` and `admin.override.*` keys connectors may set (default `All`).
    pub connector_client_config_override_policy: OverridePolicy,
    /// `exactly.once.source.support`: `disabled` (default), `preparing` or `enabled`
    /// (KIP-618): whether source tasks write records and offsets in transactions.
    pub exactly_once_source_support: ExactlyOnceSourceSupport,
    /// `config.providers`, `config.providers.<name>.class` and
    /// `config.providers.<name>.param.*`: the providers connector configs (and this file)
    /// may refer to (default: none).
    pub config_providers: ConfigProviders,
    /// `client.id`: prefix of the Kafka client ids this worker uses (default: derived
    /// from the worker id).
    pub client_id: Option<String>,
    /// `key.converter`: converter class for record keys (default [`DEFAULT_CONVERTER`]).
    pub key_converter: String,
    /// `value.converter`: converter class for record values (default
    /// [`DEFAULT_CONVERTER`]).
    pub value_converter: String,
    /// `task.shutdown.graceful.timeout.ms`: time given to all tasks together to stop
    /// before they are abandoned.
    pub task_shutdown_graceful_timeout: Duration,
    /// `rest.request.timeout.ms`: how long a REST request may wait for the herder before it
    /// answers 500 `Request timed out` (Kafka Connect fixes this at 90 s).
    pub rest_request_timeout: Duration,
    /// `rest.header.read.timeout.ms`, `rest.idle.timeout.ms` and `rest.max.connections`:
    /// the REST listeners' connection limits.
    pub rest_limits: RestLimits,
    /// `offset.flush.interval.ms`: how often source tasks commit offsets.
    pub offset_flush_interval: Duration,
    /// `offset.flush.timeout.ms`: how long an offset commit may wait for outstanding
    /// records before it is cancelled and retried at the next interval.
    pub offset_flush_timeout: Duration,
    /// `wasm.cache.dir`: where compiled plugins are cached (default none: the command
    /// line's `--cache-dir` or its default applies).
    pub wasm_cache_dir: Option<PathBuf>,
    /// `wasm.pool.instances`: slots of the pooling allocator, the most plugin instances
    /// alive at once (default [`DEFAULT_WASM_POOL_INSTANCES`]; 0 allocates on demand).
    pub wasm_pool_instances: u32,
    /// `wasm.store.delivery.timeout.ms`: how long a write to a Kafka-backed store may wait
    /// for the broker's acknowledgement before it fails.
    pub wasm_store_delivery_timeout: Duration,
    /// `wasm.poll.bytes.per.second`: the bytes one source task may poll per second
    /// (default none; 0: none); a connector may set its own.
    pub wasm_poll_bytes_per_second: Option<u64>,
    /// `wasm.poll.records.per.second`: the records one source task may poll per second
    /// (default none; 0: none); a connector may set its own.
    pub wasm_poll_records_per_second: Option<u64>,
    /// `task.reconfiguration.backoff.initial.ms` (default 250), `….backoff.max.ms` (default
    /// 60000), `….backoff.multiplier` (default 2), `….backoff.jitter` (default 0, a fraction
    /// in `[0, 1]`) and `task.reconfiguration.retries.max` (default none; `-1`: none): how
    /// failed task reconfigurations are retried. The defaults are exactly KAFKA-14732's
    /// schedule. Each connector may override every key in its own config. Once the limit
    /// is reached, the connector is marked FAILED with the last error.
    pub task_reconfiguration: RetryPolicy,
    /// `producer.*`: worker-level producer settings, prefix stripped.
    pub producer_props: BTreeMap<String, String>,
    /// `consumer.*`: worker-level consumer settings, prefix stripped.
    pub consumer_props: BTreeMap<String, String>,
    /// `admin.*`: worker-level admin client settings, prefix stripped.
    pub admin_props: BTreeMap<String, String>,
    /// `key.converter.*`: settings of the key converter, prefix stripped.
    pub key_converter_props: BTreeMap<String, String>,
    /// `value.converter.*`: settings of the value converter, prefix stripped.
    pub value_converter_props: BTreeMap<String, String>,
    /// `security.protocol`, `ssl.*`, `sasl.*`: given to every Kafka client, full names
    /// (Kafka's, checked at load by [`ClientSecurity`]; each client maps them to librdkafka's
    /// with [`librdkafka_props`](crate::config::security::librdkafka_props)). Values are kept
    /// untrimmed (a password may end in a space). `Debug` hides the secret ones.
    pub client_props: BTreeMap<String, String>,
    /// Keys accepted but not acted on (Kafka Connect keys not supported yet, and the
    /// other mode's keys), in file order: the caller should log a warning for each.
    pub ignored_keys: Vec<String>,
}

const LISTENERS: &str = "a comma-separated list of http://host:port or https://host:port URLs";
const BROKERS: &str = "a comma-separated list of host:port addresses";
const TRUSTED_KEYS: &str =
    "a comma-separated list of Ed25519 public keys: PEM file paths or base64 raw keys";

impl WorkerConfig {
    /// Reads a worker `.properties` file.
    pub fn load(file: &Path, mode: Mode) -> Result<Self, WorkerConfigError> {
        let props = properties::read(file)?;
        Self::from_properties(&props, mode).map_err(|e| match e {
            WorkerConfigError::Invalid { problems, .. } => {
                WorkerConfigError::Invalid { file: Some(file.to_path_buf()), problems }
            }
            read => read,
        })
    }

    /// Builds the config from key/value pairs (a repeated key: the last one wins).
    pub fn from_properties(
        props: &[(String, String)],
        mode: Mode,
    ) -> Result<Self, WorkerConfigError> {
        // The providers first, to resolve the file's own references (their problems are
        // reported by the second reading below).
        let providers = ConfigProviders::read(&mut Reader::new(props));
        let resolved = match providers.resolve(props) {
            Ok(resolved) => resolved,
            Err(e) => {
                let problem = ConfigProblem { key: e.key.clone(), message: e.to_string() };
                return Err(WorkerConfigError::Invalid { file: None, problems: vec![problem] });
            }
        };
        let mut config = Self::read(resolved.values(), mode);
        if let Err(WorkerConfigError::Invalid { problems, .. }) = &mut config {
            for p in problems {
                p.message = resolved.scrub(&p.message);
            }
        }
        config
    }

    fn read(props: &[(String, String)], mode: Mode) -> Result<Self, WorkerConfigError> {
        let mut r = Reader::new(props);
        let bootstrap_servers = r.list("bootstrap.servers", BROKERS, |e| {
            listener::check_broker_address(e).map(|()| e.to_owned())
        });
        if bootstrap_servers.is_none()
            && mode == Mode::Distributed
            && !r.has_problem("bootstrap.servers")
        {
            r.problem("bootstrap.servers", "missing: required in distributed mode");
        }
        let plugin_path = r
            .list("plugin.path", "a comma-separated list of directories", |e| Ok(PathBuf::from(e)));
        if plugin_path.is_none() && !r.has_problem("plugin.path") {
            r.problem("plugin.path", "missing: required (a comma-separated list of directories)");
        }
        let plugin_signature_required =
            r.parsed("plugin.signature.required", "true or false", parse_bool).unwrap_or(false);
        let plugin_trusted_keys =
            r.list("plugin.trusted.keys", TRUSTED_KEYS, |e| Ok(e.to_owned())).unwrap_or_default();
        if plugin_signature_required
            && plugin_trusted_keys.is_empty()
            && !r.has_problem("plugin.trusted.keys")
        {
            r.problem(
                "plugin.trusted.keys",
                format!(
                    "missing: required when plugin.signature.required is true ({TRUSTED_KEYS})"
                ),
            );
        }
        let listeners = r.list("listeners", LISTENERS, str::parse).unwrap_or_else(|| {
            vec![DEFAULT_LISTENERS.parse().expect("the default listener parses")]
        });
        let mut config = Self {
            mode: mode::read(&mut r, mode),
            bootstrap_servers: bootstrap_servers.unwrap_or_default(),
            plugin_path: plugin_path.unwrap_or_default(),
            plugin_scan_interval: Some(
                r.millis("plugin.scan.interval.ms", DEFAULT_PLUGIN_SCAN_INTERVAL),
            )
            .filter(|d| !d.is_zero()),
            plugin_signature_required,
            plugin_trusted_keys,
            listeners,
            listeners_https_props: BTreeMap::new(),
            rest_basic_auth_credentials_file: r
                .string("rest.basic.auth.credentials.file")
                .map(PathBuf::from),
            rest_advertised_host_name: r.string("rest.advertised.host.name"),
            rest_advertised_port: r.parsed(
                "rest.advertised.port",
                "a port number (1-65535)",
                |s| s.parse().ok().filter(|&p| p != 0 && !s.starts_with('+')),
            ),
            connector_client_config_override_policy: r
                .parsed("connector.client.config.override.policy", "None, Principal or All", |s| {
                    s.parse().ok()
                })
                .unwrap_or_default(),
            rest_advertised_listener: r
                .parsed("rest.advertised.listener", "http or https", |s| s.parse().ok()),
            exactly_once_source_support: r
                .parsed("exactly.once.source.support", ExactlyOnceSourceSupport::VALUES, |s| {
                    s.parse().ok()
                })
                .unwrap_or_default(),
            config_providers: ConfigProviders::read(&mut r),
            client_id: r.string("client.id"),
            key_converter: converter(&mut r, "key.converter"),
            value_converter: converter(&mut r, "value.converter"),
            task_shutdown_graceful_timeout: r.millis(
                "task.shutdown.graceful.timeout.ms",
                DEFAULT_TASK_SHUTDOWN_GRACEFUL_TIMEOUT,
            ),
            rest_request_timeout: r.millis("rest.request.timeout.ms", DEFAULT_REST_REQUEST_TIMEOUT),
            rest_limits: RestLimits::read(&mut r),
            offset_flush_interval: r
                .millis("offset.flush.interval.ms", DEFAULT_OFFSET_FLUSH_INTERVAL),
            offset_flush_timeout: r.millis("offset.flush.timeout.ms", DEFAULT_OFFSET_FLUSH_TIMEOUT),
            wasm_cache_dir: r.string("wasm.cache.dir").map(PathBuf::from),
            wasm_pool_instances: r
                .number("wasm.pool.instances", "a non-negative integer (instances)")
                .unwrap_or(DEFAULT_WASM_POOL_INSTANCES),
            wasm_store_delivery_timeout: r
                .millis("wasm.store.delivery.timeout.ms", DEFAULT_WASM_STORE_DELIVERY_TIMEOUT),
            wasm_poll_bytes_per_second: r
                .number("wasm.poll.bytes.per.second", "a non-negative integer (bytes)"),
            wasm_poll_records_per_second: r
                .number("wasm.poll.records.per.second", "a non-negative integer (records)"),
            task_reconfiguration: r.retry_policy(&RECONFIGURATION_KEYS, &RetryPolicy::default()),
            producer_props: BTreeMap::new(),
            consumer_props: BTreeMap::new(),
            admin_props: BTreeMap::new(),
            key_converter_props: BTreeMap::new(),
            value_converter_props: BTreeMap::new(),
            client_props: BTreeMap::new(),
            ignored_keys: Vec::new(),
        };
        if let Some(scheme) = config.rest_advertised_listener
            && config.advertised_listener().is_none()
        {
            r.problem("rest.advertised.listener", format!("no {scheme}:// listener in listeners"));
        }
        config.sort_leftovers(&mut r);
        config.check_client_security(&mut r);
        for problem in config.https_problems() {
            if !r.problems.contains(&problem) {
                r.problem(&problem.key, problem.message);
            }
        }
        config.ignored_keys = r.ignored_in_file_order();
        if r.problems.is_empty() {
            Ok(config)
        } else {
            Err(WorkerConfigError::Invalid { file: None, problems: r.problems })
        }
    }

    /// Files every key no typed field read into a pass-through map, the ignored list or
    /// a problem.
    fn sort_leftovers(&mut self, r: &mut Reader<'_>) {
        let known: Vec<&str> = r.known().collect();
        for (key, value) in r.leftovers() {
            let value = value.to_owned();
            match keys::classify(key, &known) {
                KeyClass::PassThrough(target, name) => {
                    let map = match target {
                        PassThrough::Producer => &mut self.producer_props,
                        PassThrough::Consumer => &mut self.consumer_props,
                        PassThrough::Admin => &mut self.admin_props,
                        PassThrough::KeyConverter => &mut self.key_converter_props,
                        PassThrough::ValueConverter => &mut self.value_converter_props,
                    };
                    map.insert(name.to_owned(), value);
                }
                KeyClass::Client => {
                    self.client_props.insert(key.to_owned(), value);
                }
                KeyClass::HttpsListener => {
                    self.listeners_https_props.insert(key.to_owned(), value);
                }
                KeyClass::Ignored => r.ignored.push(key.to_owned()),
                KeyClass::Unknown(message) => r.problem(key, message),
            }
        }
    }

    /// The listener whose URL other workers use to reach this one (see
    /// [`listener::advertised`]); checked to exist when the config is read.
    pub fn advertised_listener(&self) -> Option<&Listener> {
        listener::advertised(&self.listeners, self.rest_advertised_listener)
    }

    /// Checks the Kafka clients' security settings (`security.protocol`, `sasl.*`, `ssl.*`,
    /// stores included): the worker-level ones, then each role's (`producer.` …) over them,
    /// one problem per bad key.
    fn check_client_security(&self, r: &mut Reader<'_>) {
        let mut reported = Vec::new();
        for e in ClientSecurity::problems(&self.client_props) {
            r.problem(e.key(), e.message());
            reported.push(e.key().to_owned());
        }
        let roles = [
            ("producer.", &self.producer_props),
            ("consumer.", &self.consumer_props),
            ("admin.", &self.admin_props),
        ];
        for (prefix, role) in roles {
            let security = |k: &String| {
                k == "security.protocol" || k.starts_with("ssl.") || k.starts_with("sasl.")
            };
            if !role.keys().any(security) {
                continue;
            }
            let mut merged = self.client_props.clone();
            merged.extend(
                role.iter().filter(|(k, _)| security(k)).map(|(k, v)| (k.clone(), v.clone())),
            );
            for e in ClientSecurity::problems(&merged) {
                if role.contains_key(e.key()) || !reported.iter().any(|k| k == e.key()) {
                    r.problem(&format!("{prefix}{}", e.key()), e.message());
                }
            }
        }
    }

    /// Whether standalone topics live in the embedded database (no `bootstrap.servers`).
    pub fn uses_embedded_topics(&self) -> bool {
        self.bootstrap_servers.is_empty()
    }
}

/// Every field, with the values of secret client settings (`sasl.jaas.config`,
/// `*.password`, `ssl.keystore.key` …) hidden.
impl std::fmt::Debug for WorkerConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Self {
            mode,
            bootstrap_servers,
            plugin_path,
            plugin_scan_interval,
            plugin_signature_required,
            plugin_trusted_keys,
            listeners,
            listeners_https_props,
            rest_basic_auth_credentials_file,
            rest_advertised_host_name,
            rest_advertised_port,
            rest_advertised_listener,
            connector_client_config_override_policy,
            exactly_once_source_support,
            config_providers,
            client_id,
            key_converter,
            value_converter,
            task_shutdown_graceful_timeout,
            rest_request_timeout,
            rest_limits,
            offset_flush_interval,
            offset_flush_timeout,
            wasm_cache_dir,
            wasm_pool_instances,
            wasm_store_delivery_timeout,
            wasm_poll_bytes_per_second,
            wasm_poll_records_per_second,
            task_reconfiguration,
            producer_props,
            consumer_props,
            admin_props,
            key_converter_props,
            value_converter_props,
            client_props,
            ignored_keys,
        } = self;
        f.debug_struct("WorkerConfig")
            .field("mode", mode)
            .field("bootstrap_servers", bootstrap_servers)
            .field("plugin_path", plugin_path)
            .field("plugin_scan_interval", plugin_scan_interval)
            .field("plugin_signature_required", plugin_signature_required)
            .field("plugin_trusted_keys", plugin_trusted_keys)
            .field("listeners", listeners)
            .field("listeners_https_props", &RedactedProps(listeners_https_props))
            .field("rest_basic_auth_credentials_file", rest_basic_auth_credentials_file)
            .field("rest_advertised_host_name", rest_advertised_host_name)
            .field("rest_advertised_port", rest_advertised_port)
            .field("rest_advertised_listener", rest_advertised_listener)
            .field(
                "connector_client_config_override_policy",
                connector_client_config_override_policy,
            )
            .field("exactly_once_source_support", exactly_once_source_support)
            .field("config_providers", config_providers)
            .field("client_id", client_id)
            .field("key_converter", key_converter)
            .field("value_converter", value_converter)
            .field("task_shutdown_graceful_timeout", task_shutdown_graceful_timeout)
            .field("rest_request_timeout", rest_request_timeout)
            .field("rest_limits", rest_limits)
            .field("offset_flush_interval", offset_flush_interval)
            .field("offset_flush_timeout", offset_flush_timeout)
            .field("wasm_cache_dir", wasm_cache_dir)
            .field("wasm_pool_instances", wasm_pool_instances)
            .field("wasm_store_delivery_timeout", wasm_store_delivery_timeout)
            .field("wasm_poll_bytes_per_second", wasm_poll_bytes_per_second)
            .field("wasm_poll_records_per_second", wasm_poll_records_per_second)
            .field("task_reconfiguration", task_reconfiguration)
            .field("producer_props", &RedactedProps(producer_props))
            .field("consumer_props", &RedactedProps(consumer_props))
            .field("admin_props", &RedactedProps(admin_props))
            .field("key_converter_props", &RedactedProps(key_converter_props))
            .field("value_converter_props", &RedactedProps(value_converter_props))
            .field("client_props", &RedactedProps(client_props))
            .field("ignored_keys", ignored_keys)
            .finish()
    }
}

/// A boolean as Kafka reads one: `true` or `false`, any case.
fn parse_bool(s: &str) -> Option<bool> {
    match s.to_ascii_lowercase().as_str() {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    }
}

fn converter(r: &mut Reader<'_>, key: &'static str) -> String {
    r.string(key).unwrap_or_else(|| DEFAULT_CONVERTER.to_owned())
}

#[cfg(test)]
#[path = "worker_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "worker_keys_tests.rs"]
mod key_tests;

#[cfg(test)]
#[path = "worker_retry_tests.rs"]
mod retry_tests;
