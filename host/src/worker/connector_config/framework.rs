//! [`Framework`]: the keys every connector has, read without its plugin.

use crate::model::{ConfigProblem, ConnectorPolicies, Properties, RetryPolicy};

use super::Problems;

/// The key naming the connector's plugin.
pub const CONNECTOR_CLASS: &str = "connector.class";
/// The most tasks the connector may run.
pub const TASKS_MAX: &str = "tasks.max";

/// The keys every connector has, read without its plugin: a connector whose class no
/// plugin serves still has a restart policy (it FAILs, and the policy restarts it).
#[derive(Clone, Debug)]
pub struct Framework {
    /// The connector's name (the config topic's key).
    pub name: String,
    /// `connector.class` as written; `None` when missing.
    pub class: Option<String>,
    /// `tasks.max` as the herder asks for task configs: 1 when missing or not a
    /// non-negative number.
    pub tasks_max: u32,
    /// Why `tasks.max` would not validate (Kafka Connect's wording), if it would not.
    pub tasks_max_problem: Option<ConfigProblem>,
    /// Task reconfiguration retries and the restart policy, over the worker's defaults.
    pub policies: Result<ConnectorPolicies, Problems>,
    /// The config as written.
    pub raw: Properties,
}

impl Framework {
    /// Reads connector `name`'s config `raw`; `defaults` is the worker's task
    /// reconfiguration retry policy.
    pub fn read(name: &str, raw: &Properties, defaults: &RetryPolicy) -> Self {
        let tasks_max = raw.get(TASKS_MAX);
        Self {
            name: name.to_owned(),
            class: raw.get(CONNECTOR_CLASS).cloned(),
            tasks_max: tasks_max.and_then(|v| v.trim().parse().ok()).unwrap_or(1),
            tasks_max_problem: tasks_max.and_then(|v| tasks_max_problem(v)),
            policies: ConnectorPolicies::read(raw, defaults),
            raw: raw.clone(),
        }
    }
}

/// Kafka Connect's wording for a bad `tasks.max` (an INT, at least 1).
fn tasks_max_problem(v: &str) -> Option<ConfigProblem> {
    let reason = match v.trim().parse::<i32>() {
        Ok(n) if n >= 1 => return None,
        Ok(_) => "Value must be at least 1",
        Err(_) => "Not a number of type INT",
    };
    Some(ConfigProblem {
        key: TASKS_MAX.into(),
        message: format!("Invalid value {v} for configuration tasks.max: {reason}"),
    })
}
