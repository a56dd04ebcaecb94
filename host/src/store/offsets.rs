//! The offsets store: source offsets keyed `["<connector>", {partition}]` with the offset
//! object as value (a tombstone deletes it), as Kafka Connect's offsets topic holds them.
//!
//! A cache filled at open answers this worker's tasks; [`OffsetStore::put`] returns only
//! once the records are durable, then updates the cache. Offsets that other workers wrote
//! since the open are not in the cache: [`OffsetStore::read_connector_offsets`] reads the
//! topic afresh, as Kafka Connect does for `GET /connectors/{name}/offsets`. Partitions are
//! compared as JSON values, so field order in a key written by another worker does not
//! matter.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use serde_json::Value;

use super::{LogEntry, LogRecord, LogTopic, StoreError};

/// Source offsets of every connector.
pub struct OffsetStore {
    topic: Arc<dyn LogTopic>,
    cache: Mutex<BTreeMap<String, BTreeMap<String, Value>>>,
}

impl OffsetStore {
    /// Reads the topic to its end.
    pub async fn open(topic: Arc<dyn LogTopic>) -> Result<Self, StoreError> {
        let mut reader = topic.reader().await?;
        let store = Self { topic, cache: Mutex::new(BTreeMap::new()) };
        store.apply(&reader.read_to_end().await?);
        Ok(store)
    }

    /// The committed offsets of the given partitions, in order.
    pub fn get(&self, connector: &str, partitions: &[Value]) -> Vec<Option<Value>> {
        let cache = self.lock();
        let of = cache.get(connector);
        partitions.iter().map(|p| of.and_then(|m| m.get(&p.to_string())).cloned()).collect()
    }

    /// Every committed offset of a connector as (partition, offset).
    pub fn connector_offsets(&self, connector: &str) -> Vec<(Value, Value)> {
        self.lock()
            .get(connector)
            .map(|m| {
                m.iter()
                    .filter_map(|(p, o)| Some((serde_json::from_str(p).ok()?, o.clone())))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Every committed offset of a connector as (partition, offset), from a fresh read of
    /// the whole topic: it includes what other workers wrote. Leaves the cache as it is.
    pub async fn read_connector_offsets(
        &self,
        connector: &str,
    ) -> Result<Vec<(Value, Value)>, StoreError> {
        let mut reader = self.topic.reader().await?;
        let fresh = Self { topic: self.topic.clone(), cache: Mutex::new(BTreeMap::new()) };
        fresh.apply(&reader.read_to_end().await?);
        Ok(fresh.connector_offsets(connector))
    }

    /// Writes offsets (a `None` offset deletes the partition's offset) and returns once
    /// they are durable.
    pub async fn put(
        &self,
        connector: &str,
        offsets: Vec<(Value, Option<Value>)>,
    ) -> Result<(), StoreError> {
        let records = offsets
            .iter()
            .map(|(p, o)| LogRecord {
                key: serde_json::to_vec(&Value::Array(vec![
                    Value::String(connector.into()),
                    p.clone(),
                ]))
                .expect("JSON serializes"),
                value: o.as_ref().map(|o| serde_json::to_vec(o).expect("JSON serializes")),
            })
            .collect();
        self.topic.send(records).await?;
        let mut cache = self.lock();
        let of = cache.entry(connector.to_owned()).or_default();
        for (p, o) in offsets {
            match o {
                Some(o) => of.insert(p.to_string(), o),
                None => of.remove(&p.to_string()),
            };
        }
        Ok(())
    }

    /// Applies records read back from the topic; malformed keys or values are skipped.
    pub fn apply(&self, entries: &[LogEntry]) {
        let mut cache = self.lock();
        for e in entries {
            let Some((connector, partition)) = e.key.as_deref().and_then(parse_key) else {
                tracing::warn!(
                    "Skipping an offsets record whose key is not [connector, partition]"
                );
                continue;
            };
            let of = cache.entry(connector).or_default();
            match e.value.as_deref().map(serde_json::from_slice::<Value>) {
                None => {
                    of.remove(&partition);
                }
                Some(Ok(v)) => {
                    of.insert(partition, v);
                }
                Some(Err(err)) => tracing::warn!(error = %err, "Skipping a corrupt offsets record"),
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, BTreeMap<String, Value>>> {
        self.cache.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// `["connector", {partition}]` → (connector, canonical partition JSON).
fn parse_key(key: &[u8]) -> Option<(String, String)> {
    let v: Value = serde_json::from_slice(key).ok()?;
    match v.as_array()?.as_slice() {
        [Value::String(c), p @ (Value::Object(_) | Value::Null)] => {
            Some((c.clone(), p.to_string()))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_parse_regardless_of_field_order() {
        let a = parse_key(br#"["c",{"b":1,"a":2}]"#).unwrap();
        let b = parse_key(br#"["c",{"a":2,"b":1}]"#).unwrap();
        assert_eq!(a, b);
        assert!(parse_key(br#"{"c":1}"#).is_none());
        assert!(parse_key(br#"[1,{}]"#).is_none());
        assert!(parse_key(b"nope").is_none());
    }
}
