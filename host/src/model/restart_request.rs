//! [`RestartRequest`]: a request to restart a connector and, optionally, its tasks
//! (KIP-745), as the REST API takes it and the config topic records it. A plain value;
//! the plan it becomes lives in the herder.

use std::fmt;

/// A request to restart a connector and, optionally, its tasks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RestartRequest {
    /// The connector.
    pub connector: String,
    /// Restart only instances whose status is FAILED.
    pub only_failed: bool,
    /// Restart the tasks too.
    pub include_tasks: bool,
}

impl RestartRequest {
    /// Whether the request restarts the connector instance alone, at once, answered when
    /// it has started again (KIP-745's case A, HTTP 204); every other request is recorded
    /// in the config topic and answered 202 with its plan.
    pub fn is_instance_only(&self) -> bool {
        !self.include_tasks && !self.only_failed
    }

    /// Kafka Connect's impact rank: a pending request is replaced only by a strictly
    /// higher one. `onlyFailed` without tasks (0) < `onlyFailed` with tasks (1) <
    /// everything without tasks (2) < everything with tasks (3).
    pub fn impact(&self) -> u8 {
        match (self.only_failed, self.include_tasks) {
            (true, false) => 0,
            (true, true) => 1,
            (false, false) => 2,
            (false, true) => 3,
        }
    }
}

impl fmt::Display for RestartRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "restart request for {{connectorName='{}', onlyFailed={}, includeTasks={}}}",
            self.connector, self.only_failed, self.include_tasks
        )
    }
}
