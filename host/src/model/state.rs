//! Connector lifecycle values: the target state a user asks for, and the runtime state
//! a worker reports (Kafka Connect's `TargetState` and `AbstractStatus.State`).

use std::fmt;
use std::str::FromStr;

/// What a user wants a connector to be doing (config topic `target-state-<name>`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TargetState {
    /// Running (the default when no target-state record exists).
    #[default]
    Started,
    /// Instances exist but do not process data.
    Paused,
    /// No instances, no tasks (KIP-875).
    Stopped,
}

impl TargetState {
    /// The name in the config topic and the REST API.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Started => "STARTED",
            Self::Paused => "PAUSED",
            Self::Stopped => "STOPPED",
        }
    }
}

impl fmt::Display for TargetState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for TargetState {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "STARTED" => Ok(Self::Started),
            "PAUSED" => Ok(Self::Paused),
            "STOPPED" => Ok(Self::Stopped),
            other => Err(format!("unknown target state {other:?}")),
        }
    }
}

/// The state of a connector or task instance as a worker reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum State {
    /// Not running anywhere (yet).
    Unassigned,
    /// Running.
    Running,
    /// Paused by its target state.
    Paused,
    /// Failed; the status carries a trace.
    Failed,
    /// Being restarted.
    Restarting,
    /// Stopped by its target state.
    Stopped,
}

impl State {
    /// The name in the status topic and the REST API.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Unassigned => "UNASSIGNED",
            Self::Running => "RUNNING",
            Self::Paused => "PAUSED",
            Self::Failed => "FAILED",
            Self::Restarting => "RESTARTING",
            Self::Stopped => "STOPPED",
        }
    }
}

impl fmt::Display for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A connector, or one of its tasks.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum InstanceId {
    /// The connector instance of the named connector.
    Connector(String),
    /// Task `task` of the named connector.
    Task(String, u32),
}

impl InstanceId {
    /// The connector this instance belongs to.
    pub fn connector(&self) -> &str {
        match self {
            Self::Connector(c) | Self::Task(c, _) => c,
        }
    }
}

impl fmt::Display for InstanceId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Connector(c) => f.write_str(c),
            Self::Task(c, t) => write!(f, "{c}-{t}"),
        }
    }
}
