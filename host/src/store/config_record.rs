//! The records of Kafka Connect's config topic: keys parsed by prefix in Kafka Connect's
//! order, values as schemaless JSON, both ways.
//!
//! Pure: no I/O. A record that cannot be read is a [`RecordError`] naming the key and the
//! reason; the caller logs it and goes on, so one corrupt record never loses the others.

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde_json::{Map, Value, json};

use super::{LogRecord, StoreError};
use crate::model::{Properties, RestartRequest, SessionKey, TargetState};

/// The largest config-topic record (key and JSON value) the worker writes, on every
/// backend. Kafka's config topic refuses a record over its `max.message.bytes` (1,048,588
/// by default, the broker's `message.max.bytes`), and the producer one over its
/// `max.request.size` (1,048,576): a bigger record would be written to the embedded store
/// and never to Kafka, and is read again at every start. This bound leaves room under both
/// for a batch's framing.
pub const MAX_CONFIG_RECORD_BYTES: usize = 1_000_000;

/// One config-topic record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConfigRecord {
    /// `connector-<name>`; `None` is a tombstone (the connector was deleted).
    Connector {
        /// Connector name.
        name: String,
        /// Its config, or `None` when deleted.
        config: Option<Properties>,
    },
    /// `task-<name>-<n>`: one task config, applied only when a commit record follows.
    Task {
        /// Connector name.
        connector: String,
        /// Task number.
        task: u32,
        /// Task config; `None` (a tombstone) is not expected and ignored.
        config: Option<Properties>,
    },
    /// `commit-<name>`: the task configs 0..tasks are complete.
    Commit {
        /// Connector name.
        connector: String,
        /// Task count.
        tasks: u32,
    },
    /// `target-state-<name>`; `None` is a tombstone.
    TargetState {
        /// Connector name.
        connector: String,
        /// The state, or `None` when removed.
        state: Option<TargetState>,
    },
    /// `restart-connector-<name>`.
    Restart(RestartRequest),
    /// `session-key`: the key internal requests are signed with (KIP-507), written by the
    /// leader. A tombstone is not expected and is a [`RecordError`].
    SessionKey(SessionKey),
    /// `logger-cluster-<namespace>`: a cluster-wide log level (KIP-976), written by any
    /// worker. The level is kept as written (Kafka Connect writes the level the request
    /// named, in its case); a tombstone or a value without a string `level` is a
    /// [`RecordError`].
    LoggerLevel {
        /// The logger namespace, as the request named it.
        namespace: String,
        /// The level, e.g. `DEBUG`.
        level: String,
    },
    /// `tasks-fencing-<name>`: the task count of the connector's last zombie fencing
    /// (KIP-618, Kafka Connect's `TASK_COUNT_RECORD_V0`), written by the leader once the
    /// producers of the previous task generation are fenced. A tombstone is not expected and
    /// is a [`RecordError`].
    TaskCount {
        /// Connector name.
        connector: String,
        /// The task count recorded.
        tasks: u32,
    },
}

/// Why a config-topic record could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("config topic record {key:?}: {reason}")]
pub struct RecordError {
    /// The record key, lossily decoded.
    pub key: String,
    /// What is wrong.
    pub reason: String,
}

impl ConfigRecord {
    /// Parses one record.
    pub fn parse(key: Option<&[u8]>, value: Option<&[u8]>) -> Result<Self, RecordError> {
        let key = match key {
            Some(k) => String::from_utf8_lossy(k).into_owned(),
            None => return Err(err("", "the record has no key")),
        };
        let json = match value {
            None => None,
            Some(v) => Some(
                serde_json::from_slice::<Value>(v)
                    .map_err(|e| err(&key, &format!("value is not JSON: {e}")))?,
            ),
        };
        if let Some(name) = key.strip_prefix("target-state-") {
            let state = json.map(|v| target_state(&key, &v)).transpose()?;
            return Ok(Self::TargetState { connector: name.to_owned(), state });
        }
        if let Some(name) = key.strip_prefix("connector-") {
            let config = json.map(|v| properties(&key, &v)).transpose()?;
            return Ok(Self::Connector { name: name.to_owned(), config });
        }
        if key.starts_with("task-") {
            let parts: Vec<&str> = key.split('-').collect();
            if parts.len() < 3 {
                return Err(err(&key, "a task key needs a connector name and a task number"));
            }
            let task = parts[parts.len() - 1]
                .parse::<u32>()
                .map_err(|_| err(&key, "the task number is not a number"))?;
            let connector = parts[1..parts.len() - 1].join("-");
            let config = json.map(|v| properties(&key, &v)).transpose()?;
            return Ok(Self::Task { connector, task, config });
        }
        if let Some(name) = key.strip_prefix("commit-") {
            let v = json.ok_or_else(|| err(&key, "a commit record cannot be a tombstone"))?;
            let tasks = v
                .get("tasks")
                .and_then(Value::as_u64)
                .and_then(|n| u32::try_from(n).ok())
                .ok_or_else(|| err(&key, "`tasks` is missing or not a count"))?;
            return Ok(Self::Commit { connector: name.to_owned(), tasks });
        }
        if let Some(name) = key.strip_prefix("restart-connector-") {
            let v = json.ok_or_else(|| err(&key, "a restart record cannot be a tombstone"))?;
            let flag = |field: &str| {
                let b = v.get(field).and_then(Value::as_bool);
                if b.is_none() {
                    tracing::warn!(key = %key, field, "Restart record field missing or not boolean, using false");
                }
                b.unwrap_or(false)
            };
            return Ok(Self::Restart(RestartRequest {
                connector: name.to_owned(),
                include_tasks: flag("include-tasks"),
                only_failed: flag("only-failed"),
            }));
        }
        if let Some(name) = key.strip_prefix(TASKS_FENCING) {
            let v = json.ok_or_else(|| err(&key, "a task count record cannot be a tombstone"))?;
            let tasks = v
                .get("task-count")
                .and_then(Value::as_u64)
                .and_then(|n| u32::try_from(n).ok())
                .ok_or_else(|| err(&key, "`task-count` is missing or not a count"))?;
            return Ok(Self::TaskCount { connector: name.to_owned(), tasks });
        }
        if key == SESSION_KEY {
            let v = json.ok_or_else(|| err(&key, "a session key record cannot be a tombstone"))?;
            return session_key(&key, &v).map(Self::SessionKey);
        }
        if let Some(namespace) = key.strip_prefix(LOGGER_CLUSTER) {
            let v = json.ok_or_else(|| err(&key, "a logger level record cannot be a tombstone"))?;
            let level = v
                .as_object()
                .ok_or_else(|| err(&key, "the value is not an object"))?
                .get("level")
                .and_then(Value::as_str)
                .ok_or_else(|| err(&key, "`level` is missing or not a string"))?;
            return Ok(Self::LoggerLevel {
                namespace: namespace.to_owned(),
                level: level.to_owned(),
            });
        }
        Err(err(&key, "unknown record type"))
    }

    /// The error refusing this record, when it takes more than
    /// [`MAX_CONFIG_RECORD_BYTES`] as stored (key and value).
    pub fn oversized(&self) -> Option<StoreError> {
        oversized_config_record(&self.to_log_record())
    }

    /// The log record that stores this config record.
    pub fn to_log_record(&self) -> LogRecord {
        let (key, value): (String, Option<Value>) = match self {
            Self::Connector { name, config } => {
                (format!("connector-{name}"), config.as_ref().map(|c| json!({ "properties": c })))
            }
            Self::Task { connector, task, config } => (
                format!("task-{connector}-{task}"),
                config.as_ref().map(|c| json!({ "properties": c })),
            ),
            Self::Commit { connector, tasks } => {
                (format!("commit-{connector}"), Some(json!({ "tasks": tasks })))
            }
            Self::TargetState { connector, state } => (
                format!("target-state-{connector}"),
                state.map(|s| {
                    // `state` is the legacy field, which never holds STOPPED.
                    let legacy = if s == TargetState::Stopped { TargetState::Paused } else { s };
                    json!({ "state": legacy.as_str(), "state.v2": s.as_str() })
                }),
            ),
            Self::Restart(r) => (
                format!("restart-connector-{}", r.connector),
                Some(json!({ "include-tasks": r.include_tasks, "only-failed": r.only_failed })),
            ),
            Self::SessionKey(k) => {
                // Built by hand: Kafka Connect writes the fields in schema order, which is
                // not alphabetical.
                let value = format!(
                    r#"{{"key":{},"algorithm":{},"creation-timestamp":{}}}"#,
                    Value::from(BASE64.encode(&k.key)),
                    Value::from(k.algorithm.as_str()),
                    k.created_ms
                );
                return LogRecord { key: SESSION_KEY.into(), value: Some(value.into_bytes()) };
            }
            Self::LoggerLevel { namespace, level } => {
                (format!("{LOGGER_CLUSTER}{namespace}"), Some(json!({ "level": level })))
            }
            Self::TaskCount { connector, tasks } => {
                (format!("{TASKS_FENCING}{connector}"), Some(json!({ "task-count": tasks })))
            }
        };
        LogRecord { key: key.into_bytes(), value: value.map(|v| v.to_string().into_bytes()) }
    }
}

/// The key of the session key record.
const SESSION_KEY: &str = "session-key";

/// The key prefix of task count records (Kafka's `TASK_COUNT_RECORD_V0` keys). Parsed after
/// `task-`, which it does not match: its fifth character differs.
const TASKS_FENCING: &str = "tasks-fencing-";

/// The key prefix of cluster-wide logger level records (Kafka's `LOGGER_CLUSTER_PREFIX`).
const LOGGER_CLUSTER: &str = "logger-cluster-";

/// `{"key": "<base64>", "algorithm": "...", "creation-timestamp": <ms>}`; every field is
/// required with its type, as Kafka Connect's reader requires them.
fn session_key(key: &str, v: &Value) -> Result<SessionKey, RecordError> {
    let field = |name: &str| v.get(name).ok_or_else(|| err(key, &format!("no `{name}` field")));
    let encoded = field("key")?.as_str().ok_or_else(|| err(key, "`key` is not a base64 string"))?;
    let bytes =
        BASE64.decode(encoded).map_err(|e| err(key, &format!("`key` is not valid base64: {e}")))?;
    if bytes.is_empty() {
        return Err(err(key, "`key` is empty"));
    }
    let algorithm = field("algorithm")?
        .as_str()
        .ok_or_else(|| err(key, "`algorithm` is not a string"))?
        .to_owned();
    let created_ms = field("creation-timestamp")?
        .as_i64()
        .ok_or_else(|| err(key, "`creation-timestamp` is not an integer"))?;
    Ok(SessionKey { key: bytes, algorithm, created_ms })
}

fn err(key: &str, reason: &str) -> RecordError {
    RecordError { key: key.to_owned(), reason: reason.to_owned() }
}

/// `{"properties": {...}}`; null values are dropped, other scalars become strings.
fn properties(key: &str, v: &Value) -> Result<Properties, RecordError> {
    let props = v
        .get("properties")
        .and_then(Value::as_object)
        .ok_or_else(|| err(key, "`properties` is missing or not an object"))?;
    Ok(props.iter().filter_map(|(k, v)| scalar(v).map(|s| (k.clone(), s))).collect())
}

fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

/// Prefers `state.v2`, falls back to `state`.
fn target_state(key: &str, v: &Value) -> Result<TargetState, RecordError> {
    let obj: &Map<String, Value> = v.as_object().ok_or_else(|| err(key, "not an object"))?;
    let s = obj
        .get("state.v2")
        .and_then(Value::as_str)
        .or_else(|| obj.get("state").and_then(Value::as_str))
        .ok_or_else(|| err(key, "no `state` field"))?;
    s.parse().map_err(|e: String| err(key, &e))
}

/// The error refusing `record` when it is over [`MAX_CONFIG_RECORD_BYTES`].
pub fn oversized_config_record(record: &LogRecord) -> Option<StoreError> {
    let size = record.key.len() + record.value.as_ref().map_or(0, Vec::len);
    (size > MAX_CONFIG_RECORD_BYTES).then(|| StoreError::RecordTooLarge {
        key: String::from_utf8_lossy(&record.key).into_owned(),
        size,
        max: MAX_CONFIG_RECORD_BYTES,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_over_the_bound_are_refused_with_their_key_and_size() {
        let config = |bytes: usize| Properties::from([("k".to_string(), "v".repeat(bytes))]);
        // `{"properties":{"k":"…"}}` around the value, `task-c-0` as the key.
        let framing = r#"{"properties":{"k":""}}"#.len() + "task-c-0".len();
        let task = |bytes| ConfigRecord::Task {
            connector: "c".into(),
            task: 0,
            config: Some(config(bytes)),
        };
        assert!(task(MAX_CONFIG_RECORD_BYTES - framing).oversized().is_none());
        let Some(StoreError::RecordTooLarge { key, size, max }) =
            task(MAX_CONFIG_RECORD_BYTES - framing + 1).oversized()
        else {
            panic!("accepted");
        };
        assert_eq!(
            (key.as_str(), size, max),
            ("task-c-0", MAX_CONFIG_RECORD_BYTES + 1, MAX_CONFIG_RECORD_BYTES)
        );
    }

    fn round_trip(r: ConfigRecord) {
        let log = r.to_log_record();
        let back = ConfigRecord::parse(Some(&log.key), log.value.as_deref()).unwrap();
        assert_eq!(back, r);
    }

    #[test]
    fn every_record_type_round_trips() {
        let props = Properties::from([("a".into(), "1".into())]);
        round_trip(ConfigRecord::Connector { name: "my-conn".into(), config: Some(props.clone()) });
        round_trip(ConfigRecord::Connector { name: "c".into(), config: None });
        round_trip(ConfigRecord::Task {
            connector: "my-conn".into(),
            task: 12,
            config: Some(props),
        });
        round_trip(ConfigRecord::Commit { connector: "c".into(), tasks: 3 });
        for s in [TargetState::Started, TargetState::Paused, TargetState::Stopped] {
            round_trip(ConfigRecord::TargetState { connector: "c".into(), state: Some(s) });
        }
        round_trip(ConfigRecord::Restart(RestartRequest {
            connector: "c".into(),
            only_failed: true,
            include_tasks: false,
        }));
        round_trip(ConfigRecord::LoggerLevel {
            namespace: "org.apache.kafka.connect".into(),
            level: "debug".into(),
        });
        round_trip(ConfigRecord::TaskCount { connector: "my-conn".into(), tasks: 5 });
    }

    #[test]
    fn task_count_records_are_kafka_connects() {
        let r = ConfigRecord::TaskCount { connector: "orders-cdc".into(), tasks: 3 };
        let log = r.to_log_record();
        assert_eq!(log.key, b"tasks-fencing-orders-cdc");
        assert_eq!(log.value.as_deref().unwrap(), br#"{"task-count":3}"#);
        // The exact record a Kafka Connect 4.3.1 leader writes (`putTaskCountRecord`, its
        // internal JsonConverter with schemas.enable=false, as every config-topic record).
        let written: (&[u8], &[u8]) = (b"tasks-fencing-orders-cdc", b"{\"task-count\":3}");
        assert_eq!(ConfigRecord::parse(Some(written.0), Some(written.1)).unwrap(), r);
        // Not a task config of a connector named "fencing-orders": the prefixes differ.
        let p = |k: &str, v: Option<&str>| {
            ConfigRecord::parse(Some(k.as_bytes()), v.map(str::as_bytes))
        };
        assert_eq!(
            p("tasks-fencing-a-1", Some(r#"{"task-count":0}"#)).unwrap(),
            ConfigRecord::TaskCount { connector: "a-1".into(), tasks: 0 }
        );
        for v in [
            None,
            Some("{}"),
            Some(r#"{"task-count":-1}"#),
            Some(r#"{"task-count":"3"}"#),
            Some(r#"{"task-count":1.5}"#),
            Some(r#"{"task-count":4294967296}"#),
        ] {
            let e = p("tasks-fencing-c", v).unwrap_err();
            assert_eq!(e.key, "tasks-fencing-c", "{e}");
        }
    }

    #[test]
    fn logger_levels_are_kafka_connects_records() {
        let r = ConfigRecord::LoggerLevel {
            namespace: "wasm_connect.herder".into(),
            level: "DEBUG".into(),
        };
        let log = r.to_log_record();
        assert_eq!(log.key, b"logger-cluster-wasm_connect.herder");
        assert_eq!(log.value.as_deref().unwrap(), br#"{"level":"DEBUG"}"#);
        // As a Kafka Connect worker writes it (`LOGGER_LEVEL_V0`, schemaless JSON).
        let p = |k: &str, v: Option<&str>| {
            ConfigRecord::parse(Some(k.as_bytes()), v.map(str::as_bytes))
        };
        assert_eq!(
            p("logger-cluster-org.apache.kafka.connect", Some(r#"{"level":"TRACE"}"#)).unwrap(),
            ConfigRecord::LoggerLevel {
                namespace: "org.apache.kafka.connect".into(),
                level: "TRACE".into()
            }
        );
        // The level is not checked here: the worker that applies it does.
        assert!(matches!(
            p("logger-cluster-x", Some(r#"{"level":"LOUD"}"#)).unwrap(),
            ConfigRecord::LoggerLevel { level, .. } if level == "LOUD"
        ));
        for v in [None, Some(r#"{}"#), Some(r#"{"level":5}"#), Some(r#""DEBUG""#), Some("[1]")] {
            let e = p("logger-cluster-x", v).unwrap_err();
            assert_eq!(e.key, "logger-cluster-x", "{e}");
        }
    }

    #[test]
    fn values_match_kafka_connect_byte_for_byte() {
        let r =
            ConfigRecord::TargetState { connector: "c".into(), state: Some(TargetState::Stopped) };
        let log = r.to_log_record();
        assert_eq!(log.key, b"target-state-c");
        assert_eq!(log.value.unwrap(), br#"{"state":"PAUSED","state.v2":"STOPPED"}"#);
        let r = ConfigRecord::Restart(RestartRequest {
            connector: "c".into(),
            only_failed: false,
            include_tasks: true,
        });
        assert_eq!(
            r.to_log_record().value.unwrap(),
            br#"{"include-tasks":true,"only-failed":false}"#
        );
        let r = ConfigRecord::Commit { connector: "c".into(), tasks: 2 };
        assert_eq!(r.to_log_record().value.unwrap(), br#"{"tasks":2}"#);
    }

    #[test]
    fn records_written_by_kafka_connect_parse() {
        let p = |k: &str, v: &str| ConfigRecord::parse(Some(k.as_bytes()), Some(v.as_bytes()));
        assert_eq!(
            p("task-my-long-name-3", r#"{"properties":{"task.class":"X","n":null,"m":5}}"#)
                .unwrap(),
            ConfigRecord::Task {
                connector: "my-long-name".into(),
                task: 3,
                config: Some(Properties::from([
                    ("task.class".into(), "X".into()),
                    ("m".into(), "5".into())
                ])),
            }
        );
        assert_eq!(
            p("target-state-c", r#"{"state":"PAUSED"}"#).unwrap(),
            ConfigRecord::TargetState { connector: "c".into(), state: Some(TargetState::Paused) }
        );
        assert_eq!(
            p("commit-c", r#"{"tasks":4}"#).unwrap(),
            ConfigRecord::Commit { connector: "c".into(), tasks: 4 }
        );
        let r = p("restart-connector-c", r#"{"include-tasks":"yes"}"#).unwrap();
        assert_eq!(
            r,
            ConfigRecord::Restart(RestartRequest {
                connector: "c".into(),
                only_failed: false,
                include_tasks: false
            })
        );
    }

    #[test]
    fn corrupt_records_are_errors_naming_the_key() {
        let p = |k: &str, v: &str| ConfigRecord::parse(Some(k.as_bytes()), Some(v.as_bytes()));
        for (k, v) in [
            ("connector-c", "{not json"),
            ("connector-c", r#"{"config":{}}"#),
            ("task-c", r#"{"properties":{}}"#),
            ("task-c-x", r#"{"properties":{}}"#),
            ("commit-c", r#"{"tasks":"two"}"#),
            ("target-state-c", r#"{"state":"DANCING"}"#),
            ("mystery-c", "{}"),
            ("session-key", "{}"),
            ("session-key", "[1]"),
            ("session-key", r#"{"key":"!!!","algorithm":"HmacSHA256","creation-timestamp":1}"#),
            ("session-key", r#"{"key":"","algorithm":"HmacSHA256","creation-timestamp":1}"#),
            ("session-key", r#"{"key":5,"algorithm":"HmacSHA256","creation-timestamp":1}"#),
            ("session-key", r#"{"key":"AQI=","algorithm":7,"creation-timestamp":1}"#),
            ("session-key", r#"{"key":"AQI=","algorithm":"HmacSHA256"}"#),
            ("session-key", r#"{"key":"AQI=","algorithm":"HmacSHA256","creation-timestamp":"1"}"#),
            ("session-key", r#"{"key":"AQI=","algorithm":"HmacSHA256","creation-timestamp":1.5}"#),
        ] {
            let e = p(k, v).unwrap_err();
            assert_eq!(e.key, k, "{e}");
        }
        assert!(ConfigRecord::parse(None, Some(b"{}")).is_err());
        assert!(ConfigRecord::parse(Some(b"commit-c"), None).is_err());
        assert!(ConfigRecord::parse(Some(b"session-key"), None).is_err());
    }

    #[test]
    fn session_keys_round_trip_in_kafka_connects_layout() {
        let k = SessionKey {
            key: (0u8..32).collect(),
            algorithm: "HmacSHA256".into(),
            created_ms: 1_700_000_000_000,
        };
        let r = ConfigRecord::SessionKey(k.clone());
        let log = r.to_log_record();
        assert_eq!(log.key, b"session-key");
        assert_eq!(
            std::str::from_utf8(log.value.as_deref().unwrap()).unwrap(),
            r#"{"key":"AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=","algorithm":"HmacSHA256","creation-timestamp":1700000000000}"#
        );
        round_trip(r);
        // As Kafka Connect's JSON converter writes it, field order aside.
        let written = br#"{"algorithm":"HmacSHA256","creation-timestamp":1700000000000,"key":"AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="}"#;
        assert_eq!(
            ConfigRecord::parse(Some(b"session-key"), Some(written)).unwrap(),
            ConfigRecord::SessionKey(k)
        );
    }
}
