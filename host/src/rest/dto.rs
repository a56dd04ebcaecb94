//! Request and response bodies with Kafka Connect's JSON field names, and their
//! conversions from the herder's types.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::error::ApiError;
use crate::herder::{ConnectorInfo, ConnectorStatus};
use crate::model::{PluginKind, Properties, TargetState};
use crate::store::{RetryInfo, Status};

/// `POST /connectors`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CreateConnector {
    /// Connector name (trimmed).
    pub name: Option<String>,
    /// Its config.
    pub config: Option<BTreeMap<String, Value>>,
    /// `RUNNING`, `PAUSED` or `STOPPED` (KIP-980).
    pub initial_state: Option<String>,
}

/// Turns a JSON config object into string properties: strings as they are, numbers and
/// booleans as their text, `null` refused (Kafka Connect's message), nested values refused.
pub fn properties(config: BTreeMap<String, Value>) -> Result<Properties, ApiError> {
    config
        .into_iter()
        .map(|(k, v)| match v {
            Value::String(s) => Ok((k, s)),
            Value::Number(n) => Ok((k, n.to_string())),
            Value::Bool(b) => Ok((k, b.to_string())),
            Value::Null => Err(ApiError::bad_request(format!(
                "Null value can not be supplied as the configuration value (key '{k}')."
            ))),
            _ => Err(ApiError::bad_request(format!("Config value of '{k}' must be a string"))),
        })
        .collect()
}

/// `initial_state` to a target state.
pub fn initial_state(s: &str) -> Result<TargetState, ApiError> {
    match s.to_ascii_uppercase().as_str() {
        "RUNNING" => Ok(TargetState::Started),
        "PAUSED" => Ok(TargetState::Paused),
        "STOPPED" => Ok(TargetState::Stopped),
        other => Err(ApiError::bad_request(format!(
            "Invalid initial state '{other}': must be one of RUNNING, PAUSED, STOPPED"
        ))),
    }
}

/// `{"connector": "c", "task": 0}`.
#[derive(Debug, Serialize)]
pub struct TaskId {
    /// Connector name.
    pub connector: String,
    /// Task number.
    pub task: u32,
}

/// `ConnectorInfo`.
#[derive(Debug, Serialize)]
pub struct Info {
    /// Name.
    pub name: String,
    /// Config.
    pub config: Properties,
    /// Task ids.
    pub tasks: Vec<TaskId>,
    /// `source`, `sink` or `unknown`.
    #[serde(rename = "type")]
    pub kind: &'static str,
}

/// The type name Kafka Connect shows.
pub fn kind(k: Option<PluginKind>) -> &'static str {
    match k {
        Some(PluginKind::Source) => "source",
        Some(PluginKind::Sink) => "sink",
        Some(PluginKind::Transform) => "transformation",
        None => "unknown",
    }
}

impl From<ConnectorInfo> for Info {
    fn from(i: ConnectorInfo) -> Self {
        let tasks =
            i.tasks.iter().map(|t| TaskId { connector: i.name.clone(), task: *t }).collect();
        Self { name: i.name, config: i.config, tasks, kind: kind(i.kind) }
    }
}

/// One instance's state in `ConnectorStateInfo`: Kafka Connect's fields only, so clients
/// that decode these objects as strings keep working (extras go to [`Extensions`]).
#[derive(Debug, Serialize)]
pub struct InstanceState {
    /// Task id (tasks only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<u32>,
    /// State name.
    pub state: &'static str,
    /// Worker that reported it.
    pub worker_id: String,
    /// Failure trace, omitted when empty.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace: Option<String>,
    /// The plugin's version (Kafka Connect 4.x), omitted when the plugin is not installed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
}

impl InstanceState {
    /// From a status, for the connector (`id: None`) or a task, with the plugin version
    /// the status carries (the one the instance runs), else `version` (the one its config
    /// picks).
    pub fn new(id: Option<u32>, s: &Status, version: Option<String>) -> Self {
        Self {
            id,
            state: s.state.as_str(),
            worker_id: s.worker_id.clone(),
            trace: s.trace.clone().filter(|t| !t.is_empty()),
            version: s.version.clone().or(version),
        }
    }
}

/// This worker's additions to an instance's status: the pending retry of failed task
/// reconfigurations (connectors) and the automatic restart a restart policy scheduled.
#[derive(Debug, Default, Serialize)]
pub struct InstanceExtras {
    /// The pending retry of failed task reconfigurations.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reconfiguration: Option<Box<RetryInfo>>,
    /// The automatic restart scheduled by the connector's restart policy.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub restart: Option<Box<RetryInfo>>,
}

impl InstanceExtras {
    fn of(s: &Status) -> Option<Self> {
        (s.reconfiguration.is_some() || s.restart.is_some()).then(|| Self {
            reconfiguration: s.reconfiguration.clone(),
            restart: s.restart.clone(),
        })
    }
}

/// The top-level `extensions` key of a status body: what this worker adds to Kafka
/// Connect's `ConnectorStateInfo`, kept out of the `connector` and `tasks` objects that
/// clients decode strictly. Omitted when there is nothing to add.
#[derive(Debug, Default, Serialize)]
pub struct Extensions {
    /// The connector instance's extras.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub connector: Option<InstanceExtras>,
    /// Each task's extras, keyed by task id (as a string, as JSON object keys are).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub tasks: BTreeMap<String, InstanceExtras>,
}

impl Extensions {
    fn is_empty(&self) -> bool {
        self.connector.is_none() && self.tasks.is_empty()
    }
}

/// `ConnectorStateInfo`.
#[derive(Debug, Serialize)]
pub struct StateInfo {
    /// Name.
    pub name: String,
    /// The connector instance.
    pub connector: InstanceState,
    /// Tasks, by id.
    pub tasks: Vec<InstanceState>,
    /// `source`, `sink` or `unknown`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Ours: extras of the connector and its tasks (retries, scheduled restarts).
    #[serde(skip_serializing_if = "Extensions::is_empty")]
    pub extensions: Extensions,
}

impl From<ConnectorStatus> for StateInfo {
    fn from(s: ConnectorStatus) -> Self {
        let version = s.version;
        let extensions = Extensions {
            connector: InstanceExtras::of(&s.connector),
            tasks: s
                .tasks
                .iter()
                .filter_map(|(id, st)| Some((id.to_string(), InstanceExtras::of(st)?)))
                .collect(),
        };
        Self {
            name: s.name,
            connector: InstanceState::new(None, &s.connector, version.clone()),
            tasks: s
                .tasks
                .iter()
                .map(|(id, st)| InstanceState::new(Some(*id), st, version.clone()))
                .collect(),
            kind: kind(s.kind),
            extensions,
        }
    }
}

/// `{"id": {"connector": "c", "task": 0}, "config": {...}}` of `GET /tasks`.
#[derive(Debug, Serialize)]
pub struct TaskInfo {
    /// Task id.
    pub id: TaskId,
    /// Task config.
    pub config: Properties,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::State;

    #[test]
    fn state_info_has_kafka_connect_shape() {
        let st = |state| Status::new(state, None, "w:1".into(), 1);
        let info = StateInfo::from(ConnectorStatus {
            name: "c".into(),
            connector: st(State::Running),
            tasks: vec![(0, Status { trace: Some("boom".into()), ..st(State::Failed) })],
            kind: Some(PluginKind::Sink),
            version: Some("1.2.0".into()),
        });
        assert_eq!(
            serde_json::to_value(info).unwrap(),
            serde_json::json!({
                "name": "c",
                "connector": {"state": "RUNNING", "worker_id": "w:1", "version": "1.2.0"},
                "tasks": [{"id": 0, "state": "FAILED", "worker_id": "w:1", "trace": "boom",
                    "version": "1.2.0"}],
                "type": "sink"
            })
        );
    }

    #[test]
    fn retry_info_sits_in_a_top_level_key_clients_ignore() {
        let retry = RetryInfo {
            retry: 3,
            retries_max: Some(5),
            next_retry_at: 1_767_000_000_000,
            next_retry_delay_ms: 1000,
            last_error: Some("no database".into()),
        };
        let connector = Status {
            reconfiguration: Some(Box::new(retry.clone())),
            ..Status::new(State::Running, None, "w:1".into(), 1)
        };
        let task = Status {
            restart: Some(Box::new(RetryInfo { last_error: None, ..retry })),
            ..Status::new(State::Failed, Some("boom".into()), "w:1".into(), 1)
        };
        let info = StateInfo::from(ConnectorStatus {
            name: "c".into(),
            connector,
            tasks: vec![(0, task), (1, Status::new(State::Running, None, "w:1".into(), 1))],
            kind: Some(PluginKind::Source),
            version: None,
        });
        let retry = serde_json::json!({"retry": 3, "retries_max": 5,
            "next_retry_at": 1_767_000_000_000_i64, "next_retry_delay_ms": 1000});
        let mut with_error = retry.clone();
        with_error["last_error"] = "no database".into();
        assert_eq!(
            serde_json::to_value(info).unwrap(),
            serde_json::json!({
                "name": "c",
                "connector": {"state": "RUNNING", "worker_id": "w:1"},
                "tasks": [{"id": 0, "state": "FAILED", "worker_id": "w:1", "trace": "boom"},
                    {"id": 1, "state": "RUNNING", "worker_id": "w:1"}],
                "type": "source",
                "extensions": {"connector": {"reconfiguration": with_error},
                    "tasks": {"0": {"restart": retry}}}
            })
        );
    }

    #[test]
    fn config_values_become_strings_and_null_is_refused() {
        let cfg: BTreeMap<String, Value> =
            serde_json::from_str(r#"{"a": "x", "b": 2, "c": true}"#).unwrap();
        let p = properties(cfg).unwrap();
        assert_eq!(p["b"], "2");
        assert_eq!(p["c"], "true");
        let cfg: BTreeMap<String, Value> = serde_json::from_str(r#"{"a": null}"#).unwrap();
        assert!(properties(cfg).unwrap_err().message.contains("Null value"));
    }
}
