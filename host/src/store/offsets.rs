//! The offsets store: source offsets keyed `["<connector>", {partition}]` with the offset
//! object as value (a tombstone deletes it), as Kafka Connect's offsets topic holds them.
//!
//! A cache answers the instances' synchronous offset reads (the `offset-reader` import must
//! not wait). It is filled from the topic by one reader kept open for the store's life, and
//! [`OffsetStore::put`] returns only once the records are durable, then updates it. Other
//! workers write the same topic: a task moved here from another worker must see what that
//! worker committed. So, as Kafka Connect's `KafkaOffsetBackingStore.get` reads the topic to
//! its end before it answers, [`OffsetStore::read_to_end`] brings the cache up to the end of
//! the topic as it is when the call begins; the worker calls it before a source instance
//! starts (so before a task's first poll), and the offsets API (KIP-875) before it reads or
//! resets a connector's offsets. A read that cannot complete is an error for the caller
//! (the task fails with it), never a start from a stale position. Calls made while another
//! read is under way share the next one; a read never undoes a write of this store that
//! completed after the read began. Partitions are compared as JSON values, so field order
//! in a key written by another worker does not matter.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::Value;

use super::{LogEntry, LogReader, LogRecord, LogTopic, StoreError};

/// Source offsets of every connector.
pub struct OffsetStore {
    topic: Arc<dyn LogTopic>,
    /// The reader kept open, and how far it has brought the cache.
    tail: tokio::sync::Mutex<Tail>,
    /// Reads to the end begun so far (a read's number is this count once it has begun).
    reads_begun: AtomicU64,
    cache: Mutex<Cache>,
}

/// The store's reader and the number of its latest read that completed.
struct Tail {
    reader: Box<dyn LogReader>,
    completed: u64,
}

/// What the cache holds: per connector, canonical partition JSON → (offset, write mark).
#[derive(Default)]
struct Cache {
    offsets: BTreeMap<String, BTreeMap<String, Entry>>,
    /// Writes of this store completed so far.
    writes: u64,
}

/// One partition's offset and which write of this store set it (0: read from the topic).
/// A deletion read from the topic removes the entry; one written here stays as `None`
/// with its mark, so that a read which predates it cannot bring the offset back.
struct Entry {
    offset: Option<Value>,
    written: u64,
}

impl OffsetStore {
    /// Opens a reader on the topic and reads it to its end.
    pub async fn open(topic: Arc<dyn LogTopic>) -> Result<Self, StoreError> {
        let reader = topic.reader().await?;
        let store = Self {
            topic,
            tail: tokio::sync::Mutex::new(Tail { reader, completed: 0 }),
            reads_begun: AtomicU64::new(0),
            cache: Mutex::new(Cache::default()),
        };
        store.read_to_end().await?;
        Ok(store)
    }

    /// Brings the cache up to the end of the topic as it is when the call begins, so that
    /// every offset whose write completed before (on this worker or any other) is seen.
    /// A caller that finds a read under way waits for it and then for one more, unless a
    /// read that began after the call has completed meanwhile.
    pub async fn read_to_end(&self) -> Result<(), StoreError> {
        let asked = self.reads_begun.load(Ordering::SeqCst);
        let mut tail = self.tail.lock().await;
        if tail.completed > asked {
            return Ok(());
        }
        let number = self.reads_begun.fetch_add(1, Ordering::SeqCst) + 1;
        let writes_before = self.lock().writes;
        let entries = tail.reader.read_to_end().await?;
        self.apply(&entries, writes_before);
        tail.completed = number;
        Ok(())
    }

    /// The committed offsets of the given partitions, in order, as the cache holds them:
    /// call [`read_to_end`](Self::read_to_end) first for what other workers wrote.
    pub fn get(&self, connector: &str, partitions: &[Value]) -> Vec<Option<Value>> {
        let cache = self.lock();
        let of = cache.offsets.get(connector);
        partitions
            .iter()
            .map(|p| of.and_then(|m| m.get(&p.to_string())).and_then(|e| e.offset.clone()))
            .collect()
    }

    /// Every committed offset of a connector as (partition, offset), as the cache holds
    /// them.
    pub fn connector_offsets(&self, connector: &str) -> Vec<(Value, Value)> {
        self.lock()
            .offsets
            .get(connector)
            .map(|m| {
                m.iter()
                    .filter_map(|(p, e)| Some((serde_json::from_str(p).ok()?, e.offset.clone()?)))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Every committed offset of a connector as (partition, offset), after reading the
    /// topic to its end: it includes what other workers wrote.
    pub async fn read_connector_offsets(
        &self,
        connector: &str,
    ) -> Result<Vec<(Value, Value)>, StoreError> {
        self.read_to_end().await?;
        Ok(self.connector_offsets(connector))
    }

    /// Writes offsets (a `None` offset deletes the partition's offset) and returns once
    /// they are durable.
    pub async fn put(
        &self,
        connector: &str,
        offsets: Vec<(Value, Option<Value>)>,
    ) -> Result<(), StoreError> {
        self.topic.send(records(connector, &offsets)).await?;
        self.written(connector, offsets);
        Ok(())
    }

    /// The offsets topic's name: where a source task under exactly-once delivery writes
    /// [`records`] itself, in its transaction.
    pub fn topic_name(&self) -> &str {
        self.topic.name()
    }

    /// Records in the cache offsets written to the topic by someone else on this store's
    /// behalf (a source task's transaction, which committed [`records`] of them), as
    /// [`put`](Self::put) records its own.
    pub fn written(&self, connector: &str, offsets: Vec<(Value, Option<Value>)>) {
        let mut cache = self.lock();
        cache.writes += 1;
        let written = cache.writes;
        let of = cache.offsets.entry(connector.to_owned()).or_default();
        for (p, offset) in offsets {
            of.insert(p.to_string(), Entry { offset, written });
        }
    }

    /// Applies records read from the topic by a read that began after `writes_before`
    /// writes of this store had completed: a partition set by a later write keeps that
    /// write's offset, which the read may predate. Malformed keys or values are skipped.
    fn apply(&self, entries: &[LogEntry], writes_before: u64) {
        let mut cache = self.lock();
        for e in entries {
            let Some((connector, partition)) = e.key.as_deref().and_then(parse_key) else {
                tracing::warn!(
                    "Skipping an offsets record whose key is not [connector, partition]"
                );
                continue;
            };
            let offset = match e.value.as_deref().map(serde_json::from_slice::<Value>) {
                None => None,
                Some(Ok(v)) => Some(v),
                Some(Err(err)) => {
                    tracing::warn!(error = %err, "Skipping a corrupt offsets record");
                    continue;
                }
            };
            let of = cache.offsets.entry(connector).or_default();
            if of.get(&partition).is_some_and(|kept| kept.written > writes_before) {
                continue;
            }
            match offset {
                Some(offset) => of.insert(partition, Entry { offset: Some(offset), written: 0 }),
                None => of.remove(&partition),
            };
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Cache> {
        self.cache.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The offsets topic's records of `offsets` of `connector`: key `["<connector>",
/// {partition}]`, value the offset (none: a tombstone), as Kafka Connect writes them.
pub fn records(connector: &str, offsets: &[(Value, Option<Value>)]) -> Vec<LogRecord> {
    offsets
        .iter()
        .map(|(p, o)| LogRecord {
            key: serde_json::to_vec(&Value::Array(vec![
                Value::String(connector.into()),
                p.clone(),
            ]))
            .expect("JSON serializes"),
            value: o.as_ref().map(|o| serde_json::to_vec(o).expect("JSON serializes")),
        })
        .collect()
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
    use serde_json::json;

    use super::*;
    use crate::store::{LogBackend, MemoryBackend, TopicSpec};

    #[test]
    fn keys_parse_regardless_of_field_order() {
        let a = parse_key(br#"["c",{"b":1,"a":2}]"#).unwrap();
        let b = parse_key(br#"["c",{"a":2,"b":1}]"#).unwrap();
        assert_eq!(a, b);
        assert!(parse_key(br#"{"c":1}"#).is_none());
        assert!(parse_key(br#"[1,{}]"#).is_none());
        assert!(parse_key(b"nope").is_none());
    }

    fn entry(partition: &Value, offset: Option<Value>) -> LogEntry {
        let key = serde_json::to_vec(&json!(["c", partition])).unwrap();
        LogEntry {
            partition: 0,
            offset: 0,
            key: Some(key),
            value: offset.map(|o| o.to_string().into()),
        }
    }

    #[tokio::test]
    async fn a_read_never_undoes_a_write_that_completed_after_it_began() {
        let backend = MemoryBackend::default();
        let topic = backend.topic(&TopicSpec::new("offsets", 1, true)).await.unwrap();
        let store = OffsetStore::open(topic).await.unwrap();
        let (p, q) = (json!({"f": "p"}), json!({"f": "q"}));
        let writes_before = store.lock().writes;
        store.put("c", vec![(p.clone(), Some(json!({"at": 2}))), (q.clone(), None)]).await.unwrap();
        // What a read that began before the write may bring back: older values.
        store.apply(
            &[entry(&p, Some(json!({"at": 1}))), entry(&q, Some(json!({"at": 1})))],
            writes_before,
        );
        assert_eq!(store.get("c", &[p.clone(), q.clone()]), [Some(json!({"at": 2})), None]);
        // A read that began after the write applies whatever the topic holds since.
        store.apply(
            &[entry(&p, Some(json!({"at": 3}))), entry(&q, Some(json!({"at": 3})))],
            writes_before + 1,
        );
        assert_eq!(
            store.get("c", &[p.clone(), q.clone()]),
            [Some(json!({"at": 3})), Some(json!({"at": 3}))]
        );
        store.apply(&[entry(&p, None)], writes_before + 1);
        assert_eq!(store.connector_offsets("c"), [(q, json!({"at": 3}))]);
    }
}
