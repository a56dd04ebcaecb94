//! Domain types shared by every module: plugin descriptions, config definitions, connector
//! errors, retry schedules (back-off, limits and their keys), a connector's retry and
//! restart policies, the cluster's session key, a sink connector's consumer group name, and
//! the small value types the contract speaks in.
//!
//! This module owns no state and does no I/O. It must not depend on wasmtime, Kafka or
//! HTTP types: the runtime converts its generated bindings into these at its boundary.
//!
//! Layout: this file (topic-partitions, record acknowledgements and failures, config
//! maps), `plugin` ([`PluginInfo`]), `config_def` ([`ConfigDef`]), `error`
//! ([`ConnectorError`]), `state` (target and runtime states, [`InstanceId`]),
//! `restart_request` ([`RestartRequest`]), `backoff` ([`RetryPolicy`]), `retry_keys` (their
//! keys), `policies` (a connector's retry and restart policies), `override_policy`
//! ([`OverridePolicy`]), `reload_action` (`config.action.reload`), `session_key`
//! ([`SessionKey`]), `sink_group` (a sink's consumer group), `retention` (a topic's
//! [`Retention`]), `exactly_once` (the KIP-618 settings), `transaction_requests` (a source task's
//! [`TransactionRequests`]), `plugin_version` ([`PluginVersion`]: Maven's version order) and
//! `version_range` ([`VersionRequirement`]: a KIP-891 version key).

mod backoff;
mod config_def;
mod error;
mod exactly_once;
mod override_policy;
mod plugin;
mod plugin_version;
mod policies;
mod reload_action;
mod restart_request;
mod retention;
mod retry_keys;
mod session_key;
mod sink_group;
mod state;
mod transaction_requests;
mod version_range;

pub use backoff::{
    Attempts, Backoff, DEFAULT_BACKOFF_INITIAL, DEFAULT_BACKOFF_JITTER, DEFAULT_BACKOFF_MAX,
    DEFAULT_BACKOFF_MULTIPLIER, KAFKA_14732, RetryPolicy, random_unit,
};
pub use config_def::{ConfigDef, ConfigKey, ConfigProblem, ConfigType, Grant, Importance};
pub use error::ConnectorError;
pub use exactly_once::{
    ConnectorSupport, ExactlyOnceSourceSupport, ExactlyOnceSupport, OFFSETS_STORAGE_TOPIC,
    TransactionBoundary, offsets_storage_topic,
};
pub use override_policy::OverridePolicy;
pub use plugin::{Language, PluginInfo, PluginKind};
pub use plugin_version::PluginVersion;
pub use policies::{
    ConnectorPolicies, DEFAULT_RESTART_HEALTHY_AFTER, RESTART_HEALTHY_AFTER_MS, RESTART_POLICY,
    RestartPolicy,
};
pub use reload_action::{RELOAD_ACTION, reload_action_problem};
pub use restart_request::RestartRequest;
pub use retention::{
    CLEANUP_POLICY, CleanupPolicy, DEFAULT_RETENTION_BYTES, DEFAULT_RETENTION_MS, RETENTION_BYTES,
    RETENTION_MS, Retention, RetentionOverrides, parse_limit,
};
pub use retry_keys::{RECONFIGURATION_KEYS, RESTART_KEYS, RetryKeys};
pub use session_key::{HMAC_SHA256, SessionKey};
pub use sink_group::{GROUP_ID_OVERRIDE, sink_group};
pub use state::{InstanceId, State, TargetState};
pub use transaction_requests::{
    MAX_RECORD_REQUESTS, TransactionAction, TransactionConflict, TransactionRequestLog,
    TransactionRequests,
};
pub use version_range::{Restriction, VersionRequirement};

/// A Kafka topic-partition.
#[derive(
    Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct TopicPartition {
    /// Topic name.
    pub topic: String,
    /// Partition number.
    pub partition: i32,
}

/// A topic-partition with the offset of the next record to consume.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TopicPartitionOffset {
    /// Topic name.
    pub topic: String,
    /// Partition number.
    pub partition: i32,
    /// Next offset to consume.
    pub offset: i64,
}

/// The acknowledgement of one written source record (see `record-ack` in the WIT).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecordAck {
    /// Position of the record among everything the task instance's polls returned.
    pub sequence: u64,
    /// Partition it was written to; -1 for a record that was not written (a transform
    /// dropped it, or it failed and `errors.tolerance=all` skipped it).
    pub partition: i32,
    /// Offset it was written at; -1 for a record that was not written.
    pub offset: i64,
}

/// A sink record that a plugin's `put` could not handle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordFailure {
    /// Index of the record in the batch.
    pub index: u32,
    /// The plugin's reason.
    pub reason: String,
}

/// A connector or task config: ordered, unique string keys.
pub type Config = Vec<(String, String)>;

/// A connector or task config as the config topic stores it and the REST API shows it:
/// string keys in order, each once.
pub type Properties = std::collections::BTreeMap<String, String>;
