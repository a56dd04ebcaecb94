//! [`MemoryOffsets`]: the [`InstanceHost`] the kit gives every instance it creates. Its
//! committed source offsets live in a map the kit writes itself (what the worker's
//! offsets store would hold after a flush); callbacks are accepted and not acted on.
//!
//! Partitions and offsets are keyed by their canonical JSON text, as the worker's own
//! host does, so `{"a":1, "b":2}` and `{"b":2,"a":1}` are the same partition.

use std::collections::BTreeMap;
use std::sync::Mutex;

use serde_json::Value;

use crate::model::ConnectorError;
use crate::runtime::{Identity, InstanceHost};

/// Committed source offsets held in memory.
#[derive(Debug, Default)]
pub struct MemoryOffsets {
    committed: Mutex<BTreeMap<String, String>>,
}

impl MemoryOffsets {
    /// Records `offset` as committed for `partition` (both JSON).
    pub fn commit(&self, partition: &Value, offset: &Value) {
        self.lock().insert(partition.to_string(), offset.to_string());
    }

    /// How many partitions have a committed offset.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, String>> {
        self.committed.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl InstanceHost for MemoryOffsets {
    fn request_task_reconfiguration(&self, _ident: &Identity) {}

    fn raise_error(&self, _ident: &Identity, _error: ConnectorError) {}

    fn offsets(&self, _ident: &Identity, partitions: &[String]) -> Vec<Option<String>> {
        let committed = self.lock();
        partitions
            .iter()
            .map(|p| {
                let canonical = serde_json::from_str::<Value>(p).ok()?.to_string();
                committed.get(&canonical).cloned()
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn offsets_are_found_by_canonical_partition() {
        let host = MemoryOffsets::default();
        host.commit(&json!({"file": "/a", "n": 1}), &json!({"position": 10}));
        let ident = Identity::task("c", 0);
        let asked =
            vec![r#"{ "n": 1, "file": "/a" }"#.to_string(), r#"{"file":"/b"}"#.into(), "x".into()];
        let got = host.offsets(&ident, &asked);
        assert_eq!(got, vec![Some(r#"{"position":10}"#.to_string()), None, None]);
    }
}
