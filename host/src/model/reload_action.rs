//! `config.action.reload`: what Kafka Connect does with a connector when a config
//! provider's value expires (`none` or `restart`, default `restart`). The worker's
//! providers give values without an expiry, so the key is accepted and checked, and
//! nothing acts on it.

use crate::model::ConfigProblem;

/// The key.
pub const RELOAD_ACTION: &str = "config.action.reload";

/// The accepted values, in Kafka Connect's order and case.
const VALUES: [&str; 2] = ["none", "restart"];

/// Kafka Connect's problem for a value other than `none` or `restart` (trimmed, case
/// sensitive, as its `ValidString` checks); `None` when absent or valid.
pub fn reload_action_problem(value: Option<&str>) -> Option<ConfigProblem> {
    let value = value?;
    (!VALUES.contains(&value.trim())).then(|| ConfigProblem {
        key: RELOAD_ACTION.into(),
        message: format!(
            "Invalid value {} for configuration {RELOAD_ACTION}: String must be one of: {}",
            value.trim(),
            VALUES.join(", ")
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn none_or_restart() {
        assert_eq!(reload_action_problem(None), None);
        assert_eq!(reload_action_problem(Some("none")), None);
        assert_eq!(reload_action_problem(Some(" restart ")), None);
        let p = reload_action_problem(Some("RESTART")).unwrap();
        assert_eq!(p.key, "config.action.reload");
        assert_eq!(
            p.message,
            "Invalid value RESTART for configuration config.action.reload: String must be one of: none, restart"
        );
    }
}
