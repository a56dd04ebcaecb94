//! The `errors.*` connector keys: their names, Kafka Connect's defaults, and their entries
//! in the framework's config definition (what `GET /connector-plugins/{p}/config` lists).
//! It must not parse values: `policy.rs` does, with `reader.rs`.

use std::time::Duration;

use crate::model::{ConfigKey, ConfigType, Importance};

/// `none` (default) or `all`.
pub const TOLERANCE: &str = "errors.tolerance";
/// Milliseconds a retriable operation is retried for; `0` (default) and `-1`: no bound.
pub const RETRY_TIMEOUT: &str = "errors.retry.timeout";
/// The cap of the retry delay, in milliseconds.
pub const RETRY_DELAY_MAX_MS: &str = "errors.retry.delay.max.ms";
/// Whether failures are logged.
pub const LOG_ENABLE: &str = "errors.log.enable";
/// Whether the errors log shows the record's key, value and headers.
pub const LOG_INCLUDE_MESSAGES: &str = "errors.log.include.messages";
/// The dead letter queue topic of a sink; empty: none.
pub const DLQ_TOPIC_NAME: &str = "errors.deadletterqueue.topic.name";
/// The replication factor the dead letter queue topic is created with.
pub const DLQ_TOPIC_REPLICATION_FACTOR: &str = "errors.deadletterqueue.topic.replication.factor";
/// Whether dead letter queue records carry `__connect.errors.*` headers.
pub const DLQ_CONTEXT_HEADERS_ENABLE: &str = "errors.deadletterqueue.context.headers.enable";

/// Default of [`RETRY_DELAY_MAX_MS`] (Kafka Connect's).
pub const DEFAULT_RETRY_DELAY_MAX: Duration = Duration::from_millis(60_000);
/// Default of [`DLQ_TOPIC_REPLICATION_FACTOR`] (Kafka Connect's).
pub const DEFAULT_DLQ_REPLICATION_FACTOR: i16 = 3;

/// The framework's definitions of these keys; the dead letter queue keys only for sinks.
pub fn config_keys(sink: bool) -> Vec<ConfigKey> {
    let key = |name: &str, ty, default: &str, doc: &str| ConfigKey {
        name: name.into(),
        ty,
        default_value: Some(default.into()),
        importance: Importance::Medium,
        documentation: doc.into(),
        required: false,
        sensitive: false,
        grant: None,
    };
    let mut keys = vec![
        key(
            RETRY_TIMEOUT,
            ConfigType::Long,
            "0",
            "How long, in milliseconds, a retriable error of the plugin's poll or put is \
             retried before it counts as a failure; 0 or -1 retry without end.",
        ),
        key(
            RETRY_DELAY_MAX_MS,
            ConfigType::Long,
            "60000",
            "Cap of the delay between retries, in milliseconds; delays start at 300 ms \
             and double.",
        ),
        key(
            TOLERANCE,
            ConfigType::String,
            "none",
            "none: a failed record fails the task; all: failed records are skipped \
             (logged, sent to the dead letter queue, counted).",
        ),
        key(
            LOG_ENABLE,
            ConfigType::Boolean,
            "false",
            "Whether every failure is written to the worker's log with its stage and record \
             position.",
        ),
        key(
            LOG_INCLUDE_MESSAGES,
            ConfigType::Boolean,
            "false",
            "Whether the errors log also shows the failed record's key, value and headers.",
        ),
    ];
    if sink {
        keys.extend([
            key(
                DLQ_TOPIC_NAME,
                ConfigType::String,
                "",
                "Topic that receives the consumed records this sink failed to process; \
                 empty for none.",
            ),
            key(
                DLQ_TOPIC_REPLICATION_FACTOR,
                ConfigType::Short,
                "3",
                "Replication factor of the dead letter queue topic when it is created; -1 \
                 for the broker default.",
            ),
            key(
                DLQ_CONTEXT_HEADERS_ENABLE,
                ConfigType::Boolean,
                "false",
                "Whether dead letter queue records carry __connect.errors.* headers saying \
                 where and why the record failed.",
            ),
        ]);
    }
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sinks_get_the_dead_letter_queue_keys() {
        let names = |sink| config_keys(sink).into_iter().map(|k| k.name).collect::<Vec<_>>();
        assert_eq!(names(false).len(), 5);
        assert_eq!(names(true).len(), 8);
        assert!(!names(false).iter().any(|n| n.starts_with("errors.deadletterqueue.")));
        assert!(names(true).contains(&DLQ_TOPIC_NAME.to_string()));
    }
}
