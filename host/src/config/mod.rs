//! Configuration files: the worker's `.properties` file ([`WorkerConfig`]) and the
//! connector files given to standalone mode ([`read_connector_file`]), both with Kafka
//! Connect's names, grammar and defaults.
//!
//! This module owns parsing and checking. It reads files but opens no connection, binds no
//! port and creates no directory; every error names the file, line or key at fault.
//! Connector configs submitted through REST do not pass through here, except to have
//! their config provider references resolved ([`providers`]) by the worker and validation.
//!
//! The task reconfiguration keys (`task.reconfiguration.backoff.*`,
//! `task.reconfiguration.retries.max`, see [`WorkerConfig::task_reconfiguration`]) are the
//! worker's defaults; connectors may override them. Both are read by
//! [`RetryKeys`](crate::model::RetryKeys), so both accept the same values. The automatic
//! restart keys (`restart.*`) are connector keys only: in a worker file they are refused as
//! such.
//!
//! The REST API's HTTPS settings (`https`) are Kafka Connect's `listeners.https.ssl.*` keys,
//! else the top-level `ssl.*` keys, all or nothing; `security` reads them into rustls
//! configs for the `https://` listeners and for the requests to other workers.
//!
//! Layout: `worker` ([`WorkerConfig`]), `mode` (standalone's and distributed mode's
//! settings), `listener` (REST listener and broker addresses), `https` (the REST API's
//! TLS keys), `security/` (Kafka client security), `providers/` (KIP-297), `keys` (what
//! happens to a key no field reads), `reader` (typed values out of a property list),
//! `rest_limits` (the REST listeners' connection limits),
//! `properties` (the `.properties` grammar), `connector_file` (standalone's connector
//! files), `ordered_json` (JSON objects in file order), `error`.

mod connector_file;
mod error;
mod https;
mod keys;
mod listener;
mod mode;
mod ordered_json;
pub mod properties;
pub mod providers;
mod reader;
mod rest_limits;
pub mod security;
#[cfg(test)]
pub mod test_pki;
mod worker;

pub use connector_file::{
    ConnectorFile, ConnectorFileError, parse_connector_json, read_connector_file,
};
pub use error::WorkerConfigError;
pub use listener::{Listener, Scheme};
pub use mode::{
    DEFAULT_DATABASE_FILE, DEFAULT_HEARTBEAT_INTERVAL, DEFAULT_OFFSET_STORAGE_PARTITIONS,
    DEFAULT_REBALANCE_TIMEOUT, DEFAULT_REPLICATION_FACTOR, DEFAULT_SCHEDULED_REBALANCE_MAX_DELAY,
    DEFAULT_SESSION_TIMEOUT, DEFAULT_STATUS_STORAGE_PARTITIONS, DEFAULT_WORKER_SYNC_TIMEOUT,
    DistributedConfig, Mode, ModeConfig, StandaloneConfig, TopicCount,
};
pub use properties::PropertiesError;
pub use rest_limits::{
    DEFAULT_REST_HEADER_READ_TIMEOUT, DEFAULT_REST_IDLE_TIMEOUT, DEFAULT_REST_MAX_CONNECTIONS,
    RestLimits,
};
pub use worker::{
    DEFAULT_CONVERTER, DEFAULT_LISTENERS, DEFAULT_OFFSET_FLUSH_INTERVAL,
    DEFAULT_OFFSET_FLUSH_TIMEOUT, DEFAULT_TASK_SHUTDOWN_GRACEFUL_TIMEOUT,
    DEFAULT_WASM_POOL_INSTANCES, DEFAULT_WASM_STORE_DELIVERY_TIMEOUT, WorkerConfig,
};
