//! The settings of exactly-once source delivery (KIP-618), with Kafka Connect's names and
//! values: the worker's [`ExactlyOnceSourceSupport`] (`exactly.once.source.support`), a
//! connector's [`ExactlyOnceSupport`] request (`exactly.once.support`) and its
//! [`TransactionBoundary`] (`transaction.boundary`), its own offsets topic
//! ([`offsets_storage_topic`]), and what a connector answers about itself
//! ([`ConnectorSupport`]).
//!
//! Plain values and their parsing (case-insensitive, as Kafka Connect's validators); this
//! module decides nothing about transactions.

use std::str::FromStr;

use super::Properties;

/// `offsets.storage.topic`: a source connector's own offsets topic.
pub const OFFSETS_STORAGE_TOPIC: &str = "offsets.storage.topic";

/// The offsets topic a source connector's config names (`offsets.storage.topic`, trimmed as
/// Kafka's `STRING` parsing trims it); `None` when unset or empty.
pub fn offsets_storage_topic(config: &Properties) -> Option<&str> {
    config.get(OFFSETS_STORAGE_TOPIC).map(|t| t.trim()).filter(|t| !t.is_empty())
}

/// `exactly.once.source.support`: whether this worker's source tasks run in transactions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ExactlyOnceSourceSupport {
    /// `disabled` (the default): at-least-once delivery.
    #[default]
    Disabled,
    /// `preparing`: the leader writes the config topic transactionally, tasks do not yet
    /// (the step a running cluster takes before `enabled`).
    Preparing,
    /// `enabled`: source tasks write their records and offsets in transactions.
    Enabled,
}

impl ExactlyOnceSourceSupport {
    /// The values, as Kafka Connect lists them in its messages.
    pub const VALUES: &'static str = "disabled, enabled, preparing";

    /// Whether source tasks run in transactions.
    pub fn enabled(self) -> bool {
        self == Self::Enabled
    }

    /// Whether the leader writes the config topic in transactions (`preparing` and
    /// `enabled`).
    pub fn transactional_leader(self) -> bool {
        self != Self::Disabled
    }
}

impl FromStr for ExactlyOnceSourceSupport {
    type Err = ();

    fn from_str(s: &str) -> Result<Self, ()> {
        match s.trim().to_ascii_lowercase().as_str() {
            "disabled" => Ok(Self::Disabled),
            "preparing" => Ok(Self::Preparing),
            "enabled" => Ok(Self::Enabled),
            _ => Err(()),
        }
    }
}

/// `exactly.once.support`: what a source connector asks of the worker.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ExactlyOnceSupport {
    /// `requested` (the default): exactly-once when the worker provides it.
    #[default]
    Requested,
    /// `required`: the connector must declare support and the worker must be `enabled`;
    /// checked when the config is validated.
    Required,
}

impl FromStr for ExactlyOnceSupport {
    type Err = ();

    fn from_str(s: &str) -> Result<Self, ()> {
        match s.trim().to_ascii_lowercase().as_str() {
            "requested" => Ok(Self::Requested),
            "required" => Ok(Self::Required),
            _ => Err(()),
        }
    }
}

/// `transaction.boundary`: where a source task's transactions end.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TransactionBoundary {
    /// `poll` (the default): one transaction per polled batch.
    #[default]
    Poll,
    /// `interval`: a transaction per `transaction.boundary.interval.ms` (default the
    /// worker's `offset.flush.interval.ms`).
    Interval,
    /// `connector`: where the task asks, record by record or batch by batch.
    Connector,
}

impl FromStr for TransactionBoundary {
    type Err = ();

    fn from_str(s: &str) -> Result<Self, ()> {
        match s.trim().to_ascii_lowercase().as_str() {
            "poll" => Ok(Self::Poll),
            "interval" => Ok(Self::Interval),
            "connector" => Ok(Self::Connector),
            _ => Err(()),
        }
    }
}

/// A connector's answer to "exactly-once for this config?" (Kafka Connect's
/// `SourceConnector.exactlyOnceSupport`); a plugin that cannot answer (one built against an
/// older contract) counts as [`Unknown`](Self::Unknown), which Kafka Connect's `null` is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConnectorSupport {
    /// `SUPPORTED`.
    Supported,
    /// `UNSUPPORTED`.
    Unsupported,
    /// No answer.
    Unknown,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kafka_connects_values_in_any_case() {
        assert_eq!("ENABLED".parse(), Ok(ExactlyOnceSourceSupport::Enabled));
        assert_eq!(" preparing ".parse(), Ok(ExactlyOnceSourceSupport::Preparing));
        assert_eq!("Disabled".parse(), Ok(ExactlyOnceSourceSupport::Disabled));
        assert_eq!("on".parse::<ExactlyOnceSourceSupport>(), Err(()));
        assert!(ExactlyOnceSourceSupport::Preparing.transactional_leader());
        assert!(!ExactlyOnceSourceSupport::Preparing.enabled());
        assert_eq!("Required".parse(), Ok(ExactlyOnceSupport::Required));
        assert_eq!("sometimes".parse::<ExactlyOnceSupport>(), Err(()));
        assert_eq!("INTERVAL".parse(), Ok(TransactionBoundary::Interval));
        assert_eq!("batch".parse::<TransactionBoundary>(), Err(()));
    }
}
