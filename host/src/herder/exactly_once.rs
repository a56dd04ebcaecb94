//! Validation of a source connector's exactly-once keys (KIP-618), as Kafka Connect's
//! `SourceConnectorConfig` validators and `DistributedHerder`'s preflight checks do it:
//! the values of `exactly.once.support`, `transaction.boundary`,
//! `transaction.boundary.interval.ms` and `offsets.storage.topic`, then, for
//! `exactly.once.support=required`, whether this worker runs exactly-once source and the
//! connector answers `supported`, and for `transaction.boundary=connector`, whether the
//! connector can define transaction boundaries. Every message is Kafka Connect's and sits
//! on the key it is about.
//!
//! It asks the connector through the validation instance it is given and keeps no state;
//! it decides nothing about running tasks.

use crate::model::{
    ConfigProblem, ConnectorSupport, ExactlyOnceSourceSupport, ExactlyOnceSupport, Properties,
    TransactionBoundary,
};
use crate::runtime::{ConnectorInstance, InstanceError};

/// `exactly.once.support`.
pub(super) const EXACTLY_ONCE_SUPPORT: &str = "exactly.once.support";
/// `transaction.boundary`.
pub(super) const TRANSACTION_BOUNDARY: &str = "transaction.boundary";
/// `transaction.boundary.interval.ms`.
pub(super) const TRANSACTION_BOUNDARY_INTERVAL: &str = "transaction.boundary.interval.ms";
/// `offsets.storage.topic`.
pub(super) const OFFSETS_STORAGE_TOPIC: &str = crate::model::OFFSETS_STORAGE_TOPIC;

/// Kafka Connect's message for a worker that is not `enabled`.
pub const NOT_ENABLED: &str = "This worker does not have exactly-once source support enabled.";
/// Kafka Connect's message for a connector that cannot say (its `null`).
pub const UNKNOWN: &str = "The connector does not implement the API required for preflight \
     validation of exactly-once source support. Please consult the documentation for the \
     connector to determine whether it supports exactly-once semantics, and then consider \
     reconfiguring the connector to use the value \"requested\" for this property (which will \
     disable this preflight check and allow the connector to be created).";
/// Kafka Connect's message for a connector answering `UNSUPPORTED`.
pub const UNSUPPORTED: &str =
    "The connector does not support exactly-once semantics with the provided configuration.";
/// Kafka Connect's message for a connector that cannot define transaction boundaries.
pub const NO_BOUNDARIES: &str = "The connector does not support connector-defined transaction \
     boundaries with the given configuration. Please reconfigure it to use a different \
     transaction boundary definition.";

fn invalid(key: &str, value: &str, why: &str) -> ConfigProblem {
    ConfigProblem {
        key: key.into(),
        message: format!("Invalid value {value} for configuration {key}: {why}"),
    }
}

/// The problems of the four keys' values, with Kafka Connect's validators' messages
/// (values trimmed, as Kafka's `STRING` and `LONG` parsing trims them).
pub(super) fn value_problems(config: &Properties) -> Vec<ConfigProblem> {
    let mut problems = Vec::new();
    let get = |key: &str| config.get(key).map(|v| v.trim());
    if let Some(v) = get(EXACTLY_ONCE_SUPPORT)
        && v.parse::<ExactlyOnceSupport>().is_err()
    {
        let why = "String must be one of (case insensitive): requested, required";
        problems.push(invalid(EXACTLY_ONCE_SUPPORT, v, why));
    }
    if let Some(v) = get(TRANSACTION_BOUNDARY)
        && v.parse::<TransactionBoundary>().is_err()
    {
        let why = "String must be one of (case insensitive): poll, interval, connector";
        problems.push(invalid(TRANSACTION_BOUNDARY, v, why));
    }
    if let Some(v) = get(TRANSACTION_BOUNDARY_INTERVAL) {
        match v.parse::<i64>() {
            Err(_) => problems.push(invalid(
                TRANSACTION_BOUNDARY_INTERVAL,
                v,
                "Not a number of type LONG",
            )),
            Ok(n) if n < 0 => {
                problems.push(invalid(TRANSACTION_BOUNDARY_INTERVAL, v, "Value must be at least 0"))
            }
            Ok(_) => {}
        }
    }
    if let Some(v) = get(OFFSETS_STORAGE_TOPIC)
        && v.is_empty()
    {
        problems.push(invalid(OFFSETS_STORAGE_TOPIC, v, "String must be non-empty"));
    }
    problems
}

/// Kafka Connect's message for a connector call that failed.
fn failed(e: &InstanceError) -> String {
    let why = e.to_string();
    let why = why.trim();
    if why.is_empty() {
        "An unexpected error occurred during validation; please see the worker logs for more \
         details."
            .into()
    } else {
        format!("An unexpected error occurred during validation: {why}")
    }
}

/// The preflight checks of a source connector's config: `exactly.once.support=required`
/// against `worker` and the connector's answer, `transaction.boundary=connector` against
/// the connector's. As in Kafka Connect, a key with a problem already `found` is not
/// checked further, and the connector is asked with the config as given.
pub(super) async fn preflight(
    worker: ExactlyOnceSourceSupport,
    config: &Properties,
    found: &[ConfigProblem],
    connector: &ConnectorInstance,
) -> Vec<ConfigProblem> {
    let mut problems = Vec::new();
    let problem = |key: &str, message: String| ConfigProblem { key: key.into(), message };
    let pairs: Vec<(String, String)> = config.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    let parsed = |key: &str| match found.iter().any(|p| p.key == key) {
        true => String::new(),
        false => config.get(key).map(|v| v.trim().to_owned()).unwrap_or_default(),
    };
    if parsed(EXACTLY_ONCE_SUPPORT).parse() == Ok(ExactlyOnceSupport::Required) {
        if !worker.enabled() {
            problems.push(problem(EXACTLY_ONCE_SUPPORT, NOT_ENABLED.into()));
        }
        let message = match connector.exactly_once_support(pairs.clone()).await {
            Ok(ConnectorSupport::Supported) => None,
            Ok(ConnectorSupport::Unsupported) => Some(UNSUPPORTED.into()),
            Ok(ConnectorSupport::Unknown) => Some(UNKNOWN.into()),
            Err(e) => Some(failed(&e)),
        };
        problems.extend(message.map(|m| problem(EXACTLY_ONCE_SUPPORT, m)));
    }
    if parsed(TRANSACTION_BOUNDARY).parse() == Ok(TransactionBoundary::Connector) {
        let message = match connector.can_define_transaction_boundaries(pairs).await {
            Ok(true) => None,
            Ok(false) => Some(NO_BOUNDARIES.into()),
            Err(e) => Some(failed(&e)),
        };
        problems.extend(message.map(|m| problem(TRANSACTION_BOUNDARY, m)));
    }
    problems
}
