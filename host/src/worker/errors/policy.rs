//! A connector's error policy, read from its `errors.*` keys: the tolerance, the retry
//! bound and cap, the errors log and the dead letter queue. Pure parsing: validation
//! reports the problems before a config is written, and a task reads the same values when
//! it starts. It must not act on failures: the reporter does.

use std::fmt;
use std::time::Duration;

use super::keys::*;
use super::reader::Reader;
use crate::model::ConfigProblem;

use crate::worker::topics::NewTopic;

/// How many failures a task tolerates (`errors.tolerance`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Tolerance {
    /// A failure fails the task.
    #[default]
    None,
    /// Failed records are skipped.
    All,
}

impl fmt::Display for Tolerance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::None => "none",
            Self::All => "all",
        })
    }
}

/// The errors log (`errors.log.*`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LogSettings {
    /// Log every failure (`errors.log.enable`).
    pub enable: bool,
    /// Show the record's key, value and headers (`errors.log.include.messages`).
    pub include_messages: bool,
}

/// A sink's dead letter queue (`errors.deadletterqueue.*`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DlqSettings {
    /// The topic, never empty.
    pub topic: String,
    /// Replication factor when the topic is created; -1 for the broker default.
    pub replication_factor: i16,
    /// Add the `__connect.errors.*` headers.
    pub context_headers: bool,
}

impl DlqSettings {
    /// The topic to create when it is missing: one partition, as Kafka Connect does.
    pub fn new_topic(&self) -> NewTopic {
        NewTopic {
            name: self.topic.clone(),
            partitions: 1,
            replication_factor: self.replication_factor,
            configs: Vec::new(),
        }
    }
}

/// The error handling of one connector's tasks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ErrorPolicy {
    /// What failures do.
    pub tolerance: Tolerance,
    /// The bound on retrying a retriable error; `None` retries without end.
    pub retry_timeout: Option<Duration>,
    /// The cap of the retry delay.
    pub retry_delay_max: Duration,
    /// The errors log.
    pub log: LogSettings,
    /// The dead letter queue; sinks only.
    pub dlq: Option<DlqSettings>,
}

impl Default for ErrorPolicy {
    fn default() -> Self {
        Self {
            tolerance: Tolerance::None,
            retry_timeout: None,
            retry_delay_max: DEFAULT_RETRY_DELAY_MAX,
            log: LogSettings::default(),
            dlq: None,
        }
    }
}

impl ErrorPolicy {
    /// Reads the `errors.*` keys of a connector config (the dead letter queue keys only
    /// when `sink`), checking that a sink's DLQ topic is not one it consumes. Returns every
    /// problem.
    pub fn from_config(
        config: &[(String, String)],
        sink: bool,
    ) -> Result<Self, Vec<ConfigProblem>> {
        let mut r = Reader::new(config);
        let tolerance = match r.raw(TOLERANCE).map(str::trim) {
            None | Some("none") => Tolerance::None,
            Some("all") => Tolerance::All,
            Some(_) => {
                let raw = r.raw(TOLERANCE).unwrap_or_default();
                r.invalid(TOLERANCE, raw, "String must be one of: none, all");
                Tolerance::None
            }
        };
        let timeout = r.long(RETRY_TIMEOUT, 0, -1);
        let default_max = DEFAULT_RETRY_DELAY_MAX.as_millis() as i64;
        let max = r.long(RETRY_DELAY_MAX_MS, default_max, 0);
        let log = LogSettings {
            enable: r.boolean(LOG_ENABLE, false),
            include_messages: r.boolean(LOG_INCLUDE_MESSAGES, false),
        };
        let dlq = if sink { dead_letter_queue(&mut r) } else { None };
        if !r.problems.is_empty() {
            return Err(r.problems);
        }
        Ok(Self {
            tolerance,
            retry_timeout: (timeout > 0).then(|| Duration::from_millis(timeout as u64)),
            retry_delay_max: Duration::from_millis(max as u64),
            log,
            dlq,
        })
    }
}

/// The dead letter queue of a sink, if one is set.
fn dead_letter_queue(r: &mut Reader<'_>) -> Option<DlqSettings> {
    let topic = r.string(DLQ_TOPIC_NAME, "");
    let replication_factor =
        r.short(DLQ_TOPIC_REPLICATION_FACTOR, DEFAULT_DLQ_REPLICATION_FACTOR, -1);
    if replication_factor == 0 {
        let raw = r.raw(DLQ_TOPIC_REPLICATION_FACTOR).unwrap_or_default();
        r.invalid(DLQ_TOPIC_REPLICATION_FACTOR, raw, "Value must be -1 or at least 1");
    }
    let context_headers = r.boolean(DLQ_CONTEXT_HEADERS_ENABLE, false);
    if topic.is_empty() {
        return None;
    }
    let mut consumed: Vec<&str> = Vec::new();
    for t in r.raw("topics").unwrap_or_default().split(',').map(str::trim) {
        if !t.is_empty() && !consumed.contains(&t) {
            consumed.push(t);
        }
    }
    if consumed.contains(&topic.as_str()) {
        r.problems.push(ConfigProblem {
            key: "topics".into(),
            message: format!(
                "The DLQ topic '{topic}' may not be included in the list of topics ('topics=[{}]') \
                 consumed by the connector",
                consumed.join(", ")
            ),
        });
    }
    Some(DlqSettings { topic, replication_factor, context_headers })
}

#[cfg(test)]
#[path = "policy_tests.rs"]
mod tests;
