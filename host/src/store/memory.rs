//! [`MemoryBackend`]: log topics in process memory, for unit tests of the stores above the
//! log and for ephemeral runs. Nothing survives the process.
//!
//! It owns its topics and their records; it behaves like the other backends (keys
//! partitioned by Kafka's murmur2, offsets per partition from 0, compacted topics compacted
//! when opened, the same topic checks) so a store tested over it behaves the same over
//! Kafka. It must not grow features the other backends lack.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use async_trait::async_trait;
use tokio::sync::watch;

use super::partitioner::partition_for_key;
use super::requirements::{check_cleanup_policy, check_partitions, local_partitions};
use super::{LogBackend, LogEntry, LogReader, LogRecord, LogTopic, StoreError, TopicSpec};

/// In-memory log topics. Clones share the same topics.
#[derive(Clone, Debug, Default)]
pub struct MemoryBackend {
    topics: Arc<Mutex<HashMap<String, Arc<TopicLog>>>>,
}

impl MemoryBackend {
    /// A backend with no topics.
    pub fn new() -> Self {
        Self::default()
    }
}

#[async_trait]
impl LogBackend for MemoryBackend {
    async fn topic(&self, spec: &TopicSpec) -> Result<Arc<dyn LogTopic>, StoreError> {
        let mut topics = lock(&self.topics);
        if let Some(topic) = topics.get(&spec.name) {
            check_partitions(spec, topic.partitions)?;
            check_cleanup_policy(spec, if topic.compacted { "compact" } else { "delete" })?;
            if topic.compacted {
                topic.compact();
            }
            return Ok(Arc::new(MemoryTopic { log: topic.clone() }));
        }
        let partitions = local_partitions(spec)?;
        let log = Arc::new(TopicLog {
            name: spec.name.clone(),
            partitions,
            compacted: spec.compacted,
            log: Mutex::new((0..partitions).map(|_| Partition::default()).collect()),
            appended: watch::channel(0).0,
        });
        topics.insert(spec.name.clone(), log.clone());
        Ok(Arc::new(MemoryTopic { log }))
    }
}

/// The records of one in-memory topic, shared by its handles and readers.
#[derive(Debug)]
struct TopicLog {
    name: String,
    partitions: i32,
    compacted: bool,
    log: Mutex<Vec<Partition>>,
    /// Bumped after every append, to wake waiting readers.
    appended: watch::Sender<u64>,
}

/// The records of one partition, in offset order (with gaps after compaction).
#[derive(Debug, Default)]
struct Partition {
    next_offset: i64,
    records: Vec<(i64, LogRecord)>,
}

impl TopicLog {
    /// Removes every record whose key has a newer record in its partition.
    fn compact(&self) {
        for partition in lock(&self.log).iter_mut() {
            let mut newest: HashMap<Vec<u8>, i64> = HashMap::new();
            for (offset, record) in &partition.records {
                newest.insert(record.key.clone(), *offset);
            }
            partition.records.retain(|(offset, record)| newest[&record.key] == *offset);
        }
    }

    /// Every record at or past `positions` (one next offset per partition), advancing them.
    fn read_from(&self, positions: &mut [i64]) -> Vec<LogEntry> {
        let log = lock(&self.log);
        let mut entries = Vec::new();
        for (partition, (log, position)) in log.iter().zip(positions.iter_mut()).enumerate() {
            let start = log.records.partition_point(|(offset, _)| *offset < *position);
            entries.extend(log.records[start..].iter().map(|(offset, record)| LogEntry {
                partition: partition as i32,
                offset: *offset,
                key: Some(record.key.clone()),
                value: record.value.clone(),
            }));
            *position = log.next_offset;
        }
        entries
    }
}

/// A handle on one in-memory topic.
struct MemoryTopic {
    log: Arc<TopicLog>,
}

#[async_trait]
impl LogTopic for MemoryTopic {
    fn name(&self) -> &str {
        &self.log.name
    }

    async fn send(&self, records: Vec<LogRecord>) -> Result<(), StoreError> {
        if records.is_empty() {
            return Ok(());
        }
        {
            let mut partitions = lock(&self.log.log);
            for record in records {
                let partition = partition_for_key(&record.key, self.log.partitions);
                let partition = &mut partitions[partition as usize];
                partition.records.push((partition.next_offset, record));
                partition.next_offset += 1;
            }
        }
        self.log.appended.send_modify(|version| *version += 1);
        Ok(())
    }

    async fn reader(&self) -> Result<Box<dyn LogReader>, StoreError> {
        Ok(Box::new(MemoryReader {
            log: self.log.clone(),
            positions: vec![0; self.log.partitions as usize],
            appended: self.log.appended.subscribe(),
        }))
    }
}

/// Locks `mutex`, ignoring poisoning: every critical section leaves the data consistent.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Reads one in-memory topic.
struct MemoryReader {
    log: Arc<TopicLog>,
    positions: Vec<i64>,
    appended: watch::Receiver<u64>,
}

#[async_trait]
impl LogReader for MemoryReader {
    async fn read_to_end(&mut self) -> Result<Vec<LogEntry>, StoreError> {
        self.appended.borrow_and_update();
        Ok(self.log.read_from(&mut self.positions))
    }

    async fn poll(&mut self, timeout: Duration) -> Result<Vec<LogEntry>, StoreError> {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            self.appended.borrow_and_update();
            let entries = self.log.read_from(&mut self.positions);
            if !entries.is_empty() {
                return Ok(entries);
            }
            match tokio::time::timeout_at(deadline, self.appended.changed()).await {
                Ok(Ok(())) => {}
                // Timed out, or the topic is gone (it cannot be while we hold it).
                Ok(Err(_)) | Err(_) => return Ok(Vec::new()),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use async_trait::async_trait;

    use super::*;
    use crate::store::TopicOrigin;
    use crate::store::conformance_tests::{Compaction, Harness, conformance_tests, record, spec};

    /// The memory backend's storage is the backend itself: a reopen is the same backend.
    #[derive(Default)]
    struct MemoryHarness {
        backend: MemoryBackend,
    }

    #[async_trait]
    impl Harness for MemoryHarness {
        async fn open(&self) -> Arc<dyn LogBackend> {
            Arc::new(self.backend.clone())
        }

        fn compaction(&self) -> Compaction {
            Compaction::OnOpen
        }
    }

    conformance_tests!(MemoryHarness::default());

    #[tokio::test]
    async fn an_existing_topic_is_checked_against_its_spec() {
        let backend = MemoryBackend::new();
        backend.topic(&spec("three", 3, true)).await.unwrap();
        let mut config = spec("three", 1, true);
        config.single_partition = true;
        config.origin = Some(TopicOrigin::new("config.storage.topic", "connector configurations"));
        let err = backend.topic(&config).await.err().expect("three partitions are refused");
        assert!(err.to_string().contains("but found 3 partitions"), "{err}");

        backend.topic(&spec("plain", 1, false)).await.unwrap();
        let err = backend.topic(&spec("plain", 1, true)).await.err().expect("not compacted");
        assert!(err.to_string().contains("'cleanup.policy=delete'"), "{err}");
    }

    #[tokio::test]
    async fn an_uncompacted_topic_keeps_every_record() {
        let backend = MemoryBackend::new();
        let topic = backend.topic(&spec("log", 1, false)).await.unwrap();
        topic.send(vec![record("k", "1"), record("k", "2")]).await.unwrap();
        let topic = backend.topic(&spec("log", 1, false)).await.unwrap();
        assert_eq!(topic.reader().await.unwrap().read_to_end().await.unwrap().len(), 2);
    }
}
