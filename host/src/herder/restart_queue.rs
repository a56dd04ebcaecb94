//! The restart requests (KIP-745) read from the config topic and not executed yet: at most
//! one per connector, the one of greatest impact. `events` queues them as their records
//! arrive, `restarts` takes them to execute. Pure bookkeeping, no I/O.

use std::collections::BTreeMap;

use crate::model::RestartRequest;

/// The queued restart requests, by connector.
#[derive(Default)]
pub(super) struct RestartQueue {
    requests: BTreeMap<String, RestartRequest>,
}

impl RestartQueue {
    /// Queues `request`, unless one of at least its impact already waits for the
    /// connector (Kafka Connect keeps the request of greatest impact).
    pub fn push(&mut self, request: RestartRequest) {
        let replace =
            self.requests.get(&request.connector).is_none_or(|old| request.impact() > old.impact());
        if replace {
            self.requests.insert(request.connector.clone(), request);
        }
    }

    /// Forgets the request of a connector that no longer exists.
    pub fn forget(&mut self, connector: &str) {
        self.requests.remove(connector);
    }

    /// Forgets every request (shutdown).
    pub fn clear(&mut self) {
        self.requests.clear();
    }

    /// Takes every request to execute now, by connector, except the one of `keep`, which
    /// stays queued (its answer, still being made, executes it).
    pub fn take(&mut self, keep: Option<&str>) -> BTreeMap<String, RestartRequest> {
        let mut taken = std::mem::take(&mut self.requests);
        if let Some(keep) = keep
            && let Some(kept) = taken.remove(keep)
        {
            self.requests.insert(keep.to_owned(), kept);
        }
        taken
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(connector: &str, only_failed: bool, include_tasks: bool) -> RestartRequest {
        RestartRequest { connector: connector.into(), only_failed, include_tasks }
    }

    #[test]
    fn the_request_of_greatest_impact_waits_and_the_kept_one_stays() {
        let mut q = RestartQueue::default();
        q.push(req("a", true, false));
        q.push(req("a", false, true));
        q.push(req("a", true, true));
        q.push(req("b", true, false));
        let taken = q.take(Some("b"));
        assert_eq!(taken.into_values().collect::<Vec<_>>(), [req("a", false, true)]);
        assert_eq!(q.take(None).into_values().collect::<Vec<_>>(), [req("b", true, false)]);
        q.push(req("c", false, false));
        q.forget("c");
        assert!(q.take(None).is_empty());
    }
}
