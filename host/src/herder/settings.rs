//! The herder's settings, from the worker config: retry and override policies, config
//! providers, the shutdown timeouts and the log levels it owns. Plain values.

use super::shutdown::ShutdownTimeouts;
use crate::config::providers::ConfigProviders;
use crate::model::{ExactlyOnceSourceSupport, OverridePolicy, RetryPolicy};
use crate::telemetry::Loggers;

/// Settings of the herder.
#[derive(Clone, Debug)]
pub struct HerderSettings {
    /// How failed task reconfigurations are retried (KAFKA-14732's schedule by default),
    /// unless a connector's config overrides it.
    pub reconfiguration: RetryPolicy,
    /// `connector.client.config.override.policy`: the client overrides connectors may set.
    pub override_policy: OverridePolicy,
    /// `exactly.once.source.support`: validation refuses `exactly.once.support=required`,
    /// and zombie fencing (KIP-618) does not run, unless it is `enabled`.
    pub exactly_once_source_support: ExactlyOnceSourceSupport,
    /// The config providers validation resolves references with (the worker has its own
    /// copy, for the configs it hands to plugins).
    pub providers: ConfigProviders,
    /// How long each step of a shutdown may take.
    pub shutdown: ShutdownTimeouts,
    /// This worker's log levels: the herder owns them, as Kafka Connect's herder owns its
    /// `Loggers`, because a cluster-wide level (KIP-976) reaches it through the config topic.
    pub loggers: Loggers,
}

impl Default for HerderSettings {
    /// The process's installed log levels, or a set of its own when none was installed.
    fn default() -> Self {
        Self {
            reconfiguration: RetryPolicy::default(),
            override_policy: OverridePolicy::default(),
            exactly_once_source_support: ExactlyOnceSourceSupport::default(),
            providers: ConfigProviders::default(),
            shutdown: ShutdownTimeouts::default(),
            loggers: crate::telemetry::installed().unwrap_or_else(Loggers::for_tests),
        }
    }
}
