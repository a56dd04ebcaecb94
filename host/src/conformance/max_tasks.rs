//! The "task-configs respects max-tasks" check: asked for at most 1, 2 and 8 task
//! configs, the connector never returns more (the worker fails a connector that does).
//! Returning none is allowed by the contract (the worker runs no task) and is reported.

use std::sync::Arc;

use super::kit::{Kit, describe};
use super::offsets::MemoryOffsets;
use super::report::Finding;

/// The `max-tasks` values asked, in order, of one started connector.
pub const ASKED: [u32; 3] = [1, 2, 8];

/// Runs the check.
pub async fn check(kit: &Kit) -> Finding {
    if let Err(why) = kit.subject.runnable() {
        return Finding::fail(why);
    }
    let host = Arc::new(MemoryOffsets::default());
    let connector = match kit.started_connector(&host).await {
        Ok(c) => c,
        Err(why) => return Finding::fail(why),
    };
    let mut answers = Vec::new();
    for max in ASKED {
        match connector.task_configs(max).await {
            Ok(configs) => answers.push((max, configs.len())),
            Err(e) => return Finding::fail(describe(&format!("task-configs({max})"), &e)),
        }
    }
    if let Err(e) = connector.stop().await {
        return Finding::fail(describe("connector stop", &e));
    }
    judge(&answers)
}

/// Judges `(max-tasks, configs returned)` pairs.
pub fn judge(answers: &[(u32, usize)]) -> Finding {
    let over: Vec<String> = answers
        .iter()
        .filter(|(max, n)| *n > *max as usize)
        .map(|(max, n)| format!("{n} task configs for max-tasks {max}"))
        .collect();
    if !over.is_empty() {
        return Finding::fail(format!("returned {}", over.join(", ")));
    }
    let mut detail =
        answers.iter().map(|(max, n)| format!("max {max} → {n}")).collect::<Vec<_>>().join(", ");
    if answers.iter().any(|(max, n)| *max == 1 && *n == 0) {
        detail.push_str(" (no task config for max 1: the worker would run no task)");
    }
    Finding::pass(detail)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformance::report::Outcome;

    #[test]
    fn more_than_asked_fails_and_names_the_count() {
        let f = judge(&[(1, 1), (2, 2), (8, 9)]);
        assert_eq!(f.outcome, Outcome::Fail);
        assert_eq!(f.detail, "returned 9 task configs for max-tasks 8");
    }

    #[test]
    fn fewer_is_fine_and_none_is_reported() {
        let f = judge(&[(1, 1), (2, 1), (8, 1)]);
        assert_eq!(
            (f.outcome, f.detail.as_str()),
            (Outcome::Pass, "max 1 → 1, max 2 → 1, max 8 → 1")
        );
        let f = judge(&[(1, 0), (2, 0), (8, 0)]);
        assert_eq!(f.outcome, Outcome::Pass);
        assert!(f.detail.contains("would run no task"), "{}", f.detail);
    }
}
