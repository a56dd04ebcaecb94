//! The status store: `status-connector-<name>` and `status-task-<name>-<n>` records with
//! `state`, `trace`, `worker_id` and `generation`, as Kafka Connect writes them.
//!
//! Reads come from a cache filled from the topic at open and kept current by this worker's
//! own writes and, once [`StatusStore::follow`] has started, by the records other workers
//! write, read back as they arrive. A connector's statuses are one range of the cache
//! ([`StatusStore::connector`], [`StatusStore::connectors`] for many under one lock), and
//! every change of the cache moves its [`StatusStore::version`], so a reader can tell
//! whether what it rendered from the cache is still current.
//! Writes go through one background writer so writes to one key stay in order, and are
//! retried while the backend is unavailable; [`StatusStore::flush`] waits for them, and
//! [`StatusStore::flush_within`] (shutdown) waits a bounded time and says how many records
//! were not written and the last error. This store never decides a state; the herder does.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::sync::{mpsc, oneshot};

use super::{LogEntry, LogReader, LogRecord, LogTopic, StoreError};
use crate::model::{InstanceId, State};

/// One status record.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Status {
    /// The state.
    pub state: State,
    /// A failure trace, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<String>,
    /// `host:port` of the worker that wrote it.
    pub worker_id: String,
    /// The group generation of that worker at the time.
    pub generation: i64,
    /// The version of the plugin the instance runs (Kafka Connect 4.1+, KIP-891, writes it
    /// too); none when no plugin runs it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Ours, not Kafka Connect's (whose readers ignore unknown fields): while failed task
    /// reconfigurations are being retried, the connector's last error and next attempt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reconfiguration: Option<Box<RetryInfo>>,
    /// Ours: the automatic restart the connector's restart policy has scheduled for this
    /// FAILED instance.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restart: Option<Box<RetryInfo>>,
}

impl Status {
    /// A status with Kafka Connect's four fields only.
    pub fn new(state: State, trace: Option<String>, worker_id: String, generation: i64) -> Self {
        Self {
            state,
            trace,
            worker_id,
            generation,
            version: None,
            reconfiguration: None,
            restart: None,
        }
    }
}

/// A scheduled retry, as statuses show it:
/// `{"retry": 2, "retries_max": 5, "next_retry_at": 1767000000750, "next_retry_delay_ms": 500,
/// "last_error": "..."}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RetryInfo {
    /// The number of the scheduled retry, from 1; also the number of failures so far.
    pub retry: u32,
    /// The retry limit, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retries_max: Option<u32>,
    /// When the retry runs: milliseconds since the Unix epoch, like Kafka Connect's
    /// timestamps.
    pub next_retry_at: i64,
    /// The back-off delay before it, in milliseconds.
    pub next_retry_delay_ms: u64,
    /// The last failure, when the status's `trace` does not hold it already.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
}

impl RetryInfo {
    /// Retry `retry` after `delay` from now (wall clock).
    pub fn after(
        retry: u32,
        retries_max: Option<u32>,
        delay: Duration,
        last_error: Option<String>,
    ) -> Self {
        let now =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        Self {
            retry,
            retries_max,
            next_retry_at: (now + delay).as_millis() as i64,
            next_retry_delay_ms: delay.as_millis() as u64,
            last_error,
        }
    }
}

enum Write {
    Put(InstanceId, Option<Status>),
    Raw(LogRecord),
    Flush(oneshot::Sender<()>),
}

/// Statuses of every connector and task.
pub struct StatusStore {
    cache: Mutex<BTreeMap<InstanceId, Status>>,
    /// Moves on every change of `cache`, under its lock.
    version: AtomicU64,
    /// Active topics per connector (KIP-558 topic tracking).
    topics: Mutex<BTreeMap<String, BTreeSet<String>>>,
    writes: mpsc::UnboundedSender<Write>,
    /// What the writer has not written yet.
    progress: Arc<Progress>,
    /// The reader positioned after the initial read, until [`StatusStore::follow`] takes it.
    reader: Mutex<Option<Box<dyn LogReader>>>,
}

/// The writer's backlog: records queued and neither written nor given up, and the last
/// failure, for [`StatusStore::flush_within`].
#[derive(Default)]
struct Progress {
    pending: AtomicUsize,
    last_error: Mutex<Option<String>>,
}

/// Status records not written when [`StatusStore::flush_within`] gave up waiting.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unwritten {
    /// How many records (statuses and topic-tracking records).
    pub records: usize,
    /// Why: the last failed attempt's error, or that none was acknowledged in time.
    pub reason: String,
}

impl std::fmt::Display for Unwritten {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} status records not written: {}", self.records, self.reason)
    }
}

/// How long one poll of the follower waits for other workers' statuses.
const FOLLOW_POLL: Duration = Duration::from_millis(200);

/// Delay between attempts to write a status while the backend is unavailable.
const RETRY: Duration = Duration::from_millis(500);
/// Attempts before a status write is given up (and logged).
const ATTEMPTS: u32 = 20;
/// Most status records sent in one batch.
const MAX_BATCH: usize = 500;

impl StatusStore {
    /// Reads the topic to its end and starts the writer.
    pub async fn open(topic: Arc<dyn LogTopic>) -> Result<Self, StoreError> {
        let mut reader = topic.reader().await?;
        let (writes, mut rx) = mpsc::unbounded_channel::<Write>();
        let initial = reader.read_to_end().await?;
        let progress = Arc::new(Progress::default());
        let store = Self {
            cache: Mutex::new(BTreeMap::new()),
            version: AtomicU64::new(0),
            topics: Mutex::default(),
            writes,
            progress: progress.clone(),
            reader: Mutex::new(Some(reader)),
        };
        store.apply(&initial);
        tokio::spawn(async move {
            // Writes queued while a send is in flight go out together, in order.
            while let Some(first) = rx.recv().await {
                let mut records = Vec::new();
                let mut flushes = Vec::new();
                let mut next = Some(first);
                while let Some(w) = next {
                    match w {
                        Write::Flush(done) => flushes.push(done),
                        Write::Put(id, status) => records.push(record(&id, status.as_ref())),
                        Write::Raw(r) => records.push(r),
                    }
                    next = if records.len() < MAX_BATCH { rx.try_recv().ok() } else { None };
                }
                if !records.is_empty() {
                    let count = records.len();
                    let outcome = write_with_retry(topic.as_ref(), records, &progress).await;
                    if outcome.is_ok() {
                        *progress.last_error.lock().unwrap_or_else(|p| p.into_inner()) = None;
                    }
                    progress.pending.fetch_sub(count, Ordering::AcqRel);
                }
                for done in flushes {
                    let _ = done.send(());
                }
            }
        });
        Ok(store)
    }

    /// Keeps the cache current with other workers' statuses (distributed mode): applies
    /// every record read after the initial read, except the statuses `worker_id` writes,
    /// which are in the cache already and may be newer than their read-back. Ends when the
    /// store is dropped. Called at most once; later calls do nothing.
    pub fn follow(self: &Arc<Self>, worker_id: &str) {
        let Some(mut reader) = self.reader.lock().unwrap_or_else(|p| p.into_inner()).take() else {
            return;
        };
        let store = Arc::downgrade(self);
        let me = worker_id.to_owned();
        tokio::spawn(async move {
            loop {
                let entries = match reader.poll(FOLLOW_POLL).await {
                    Ok(e) => e,
                    Err(e) => {
                        tracing::warn!(error = %e, "Reading the status topic failed; retrying");
                        tokio::time::sleep(RETRY).await;
                        continue;
                    }
                };
                let Some(store) = store.upgrade() else { return };
                let others: Vec<LogEntry> =
                    entries.into_iter().filter(|e| !store.written_here(e, &me)).collect();
                store.apply(&others);
            }
        });
    }

    /// Whether a record read back is this worker's own status write, or a tombstone of a
    /// status this worker holds (its own deletes are applied already).
    fn written_here(&self, e: &LogEntry, me: &str) -> bool {
        let Some(id) = e.key.as_deref().and_then(parse_key) else { return false };
        match e.value.as_deref() {
            Some(v) => serde_json::from_slice::<Status>(v).is_ok_and(|s| s.worker_id == me),
            None => self.lock().get(&id).is_some_and(|s| s.worker_id == me),
        }
    }

    /// Writes a status without conditions ("blind" write: RUNNING, PAUSED, STOPPED,
    /// RESTARTING).
    pub fn put(&self, id: InstanceId, status: Status) {
        self.write_lock().insert(id.clone(), status.clone());
        self.queue(Write::Put(id, Some(status)));
    }

    /// Writes a status only if no other worker owns the key with a newer generation
    /// (UNASSIGNED and FAILED). Returns whether it was written.
    pub fn put_safe(&self, id: InstanceId, status: Status) -> bool {
        {
            let mut cache = self.lock();
            if let Some(old) = cache.get(&id)
                && old.worker_id != status.worker_id
                && old.generation > status.generation
            {
                return false;
            }
            cache.insert(id.clone(), status.clone());
            self.version.fetch_add(1, Ordering::AcqRel);
        }
        self.queue(Write::Put(id, Some(status)));
        true
    }

    /// Removes a status (a tombstone: Kafka Connect's DESTROYED).
    pub fn delete(&self, id: InstanceId) {
        self.write_lock().remove(&id);
        self.queue(Write::Put(id, None));
    }

    /// Waits until every write made so far has been attempted.
    pub async fn flush(&self) {
        let (tx, rx) = oneshot::channel();
        if self.writes.send(Write::Flush(tx)).is_ok() {
            let _ = rx.await;
        }
    }

    /// Waits until every write made so far has been written, or `timeout` has passed:
    /// then says how many records are still unwritten and why (shutdown, whose time is
    /// bounded). The writes go on in the background either way.
    pub async fn flush_within(&self, timeout: Duration) -> Result<(), Unwritten> {
        if tokio::time::timeout(timeout, self.flush()).await.is_ok() {
            return Ok(());
        }
        let records = self.progress.pending.load(Ordering::Acquire);
        if records == 0 {
            return Ok(());
        }
        let last = self.progress.last_error.lock().unwrap_or_else(|p| p.into_inner()).clone();
        let reason = last.unwrap_or_else(|| format!("none was acknowledged within {timeout:?}"));
        Err(Unwritten { records, reason })
    }

    /// Hands a record to the writer.
    fn queue(&self, write: Write) {
        self.progress.pending.fetch_add(1, Ordering::AcqRel);
        if self.writes.send(write).is_err() {
            self.progress.pending.fetch_sub(1, Ordering::AcqRel);
        }
    }

    /// The status of one instance.
    pub fn get(&self, id: &InstanceId) -> Option<Status> {
        self.lock().get(id).cloned()
    }

    /// The statuses of a connector's tasks, by task id.
    pub fn tasks(&self, connector: &str) -> BTreeMap<u32, Status> {
        tasks_of(&self.lock(), connector).collect()
    }

    /// A connector instance's status and its tasks', read under one lock: `None` when the
    /// connector instance has no status.
    pub fn connector(&self, connector: &str) -> Option<ConnectorStatuses> {
        statuses_of(&self.lock(), connector)
    }

    /// [`StatusStore::connector`] for each of `connectors`, in their order, all read under
    /// one lock, with the [`StatusStore::version`] they were read at.
    pub fn connectors<'a>(
        &self,
        connectors: impl IntoIterator<Item = &'a str>,
    ) -> (u64, Vec<Option<ConnectorStatuses>>) {
        let cache = self.lock();
        let read = connectors.into_iter().map(|c| statuses_of(&cache, c)).collect();
        (self.version.load(Ordering::Acquire), read)
    }

    /// How many times the cache has changed: equal versions, equal statuses.
    pub fn version(&self) -> u64 {
        self.version.load(Ordering::Acquire)
    }

    /// Applies records read back from the topic. A task UNASSIGNED from an older or equal
    /// generation does not overwrite a RUNNING status (KAFKA-12525).
    pub fn apply(&self, entries: &[LogEntry]) {
        if entries.is_empty() {
            return;
        }
        let mut cache = self.write_lock();
        for e in entries {
            if let Some((topic, connector)) = e.key.as_deref().and_then(parse_topic_key) {
                let mut topics = self.topics.lock().unwrap_or_else(|p| p.into_inner());
                let set = topics.entry(connector).or_default();
                if e.value.is_some() {
                    set.insert(topic)
                } else {
                    set.remove(&topic)
                };
                continue;
            }
            let Some(id) = e.key.as_deref().and_then(parse_key) else {
                tracing::warn!(key = ?e.key.as_deref().map(String::from_utf8_lossy), "Skipping a status record with an unknown key");
                continue;
            };
            match e.value.as_deref().map(serde_json::from_slice::<Status>) {
                None => {
                    cache.remove(&id);
                }
                Some(Ok(s)) => {
                    if let (InstanceId::Task(..), State::Unassigned) = (&id, s.state)
                        && let Some(old) = cache.get(&id)
                        && old.state == State::Running
                        && old.generation >= s.generation
                    {
                        continue;
                    }
                    cache.insert(id, s);
                }
                Some(Err(err)) => {
                    tracing::warn!(instance = %id, error = %err, "Skipping a corrupt status record")
                }
            }
        }
    }

    /// Records that `connector`'s task `task` used `topic` (written once per topic).
    pub fn put_topic(&self, connector: &str, topic: &str, task: u32) {
        let fresh = self
            .topics
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(connector.to_owned())
            .or_default()
            .insert(topic.to_owned());
        if fresh {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_millis() as i64)
                .unwrap_or(0);
            let value = serde_json::json!({ "topic": {
                "name": topic, "connector": connector, "task": task, "discoverTimestamp": now
            }});
            let record = LogRecord {
                key: topic_key(topic, connector).into_bytes(),
                value: Some(value.to_string().into_bytes()),
            };
            self.queue(Write::Raw(record));
        }
    }

    /// The topics `connector` has used, sorted.
    pub fn topics(&self, connector: &str) -> Vec<String> {
        let topics = self.topics.lock().unwrap_or_else(|p| p.into_inner());
        topics.get(connector).map(|s| s.iter().cloned().collect()).unwrap_or_default()
    }

    /// Forgets the topics of `connector` (tombstones).
    pub fn reset_topics(&self, connector: &str) {
        let removed = self.topics.lock().unwrap_or_else(|p| p.into_inner()).remove(connector);
        for topic in removed.unwrap_or_default() {
            let record = LogRecord { key: topic_key(&topic, connector).into_bytes(), value: None };
            self.queue(Write::Raw(record));
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<InstanceId, Status>> {
        self.cache.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The cache, to change: its version moves, under the lock.
    fn write_lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<InstanceId, Status>> {
        let cache = self.lock();
        self.version.fetch_add(1, Ordering::AcqRel);
        cache
    }
}

/// A connector instance's status and its tasks', by task id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConnectorStatuses {
    /// The connector instance's.
    pub connector: Status,
    /// Each task's, by id.
    pub tasks: Vec<(u32, Status)>,
}

/// The statuses of `connector`'s tasks: one range of the cache, as task ids sort after
/// the connector instance and by connector name first.
fn tasks_of<'a>(
    cache: &'a BTreeMap<InstanceId, Status>,
    connector: &str,
) -> impl Iterator<Item = (u32, Status)> + 'a {
    let first = InstanceId::Task(connector.to_owned(), 0);
    let last = InstanceId::Task(connector.to_owned(), u32::MAX);
    cache.range(first..=last).filter_map(|(id, s)| match id {
        InstanceId::Task(_, t) => Some((*t, s.clone())),
        InstanceId::Connector(_) => None,
    })
}

fn statuses_of(cache: &BTreeMap<InstanceId, Status>, connector: &str) -> Option<ConnectorStatuses> {
    let status = cache.get(&InstanceId::Connector(connector.to_owned()))?.clone();
    Some(ConnectorStatuses { connector: status, tasks: tasks_of(cache, connector).collect() })
}

fn record(id: &InstanceId, status: Option<&Status>) -> LogRecord {
    let value = status.map(|s| serde_json::to_vec(s).expect("a status serializes"));
    LogRecord { key: key(id).into_bytes(), value }
}

/// Writes `records`, retrying up to [`ATTEMPTS`] times (an unreadable store, which retrying
/// cannot mend, once); each failure is recorded in `progress` as the last error.
async fn write_with_retry(
    topic: &dyn LogTopic,
    records: Vec<LogRecord>,
    progress: &Progress,
) -> Result<(), StoreError> {
    let mut attempt = 1;
    loop {
        let e = match topic.send(records.clone()).await {
            Ok(()) => return Ok(()),
            Err(e) => e,
        };
        *progress.last_error.lock().unwrap_or_else(|p| p.into_inner()) = Some(e.to_string());
        if attempt == ATTEMPTS || matches!(e, StoreError::Unreadable(_)) {
            tracing::error!(records = records.len(), error = %e, "Giving up writing statuses");
            return Err(e);
        }
        tracing::debug!(records = records.len(), attempt, error = %e, "Retrying status writes");
        tokio::time::sleep(RETRY).await;
        attempt += 1;
    }
}

/// The status-topic key of an instance.
pub fn key(id: &InstanceId) -> String {
    match id {
        InstanceId::Connector(c) => format!("status-connector-{c}"),
        InstanceId::Task(c, t) => format!("status-task-{c}-{t}"),
    }
}

/// The key of a topic-tracking record.
pub fn topic_key(topic: &str, connector: &str) -> String {
    format!("status-topic-{topic}:connector-{connector}")
}

/// (topic, connector) of a topic-tracking key.
pub fn parse_topic_key(key: &[u8]) -> Option<(String, String)> {
    let rest = std::str::from_utf8(key).ok()?.strip_prefix("status-topic-")?;
    let (topic, connector) = rest.split_once(":connector-")?;
    Some((topic.to_owned(), connector.to_owned()))
}

/// The instance of a status-topic key; `None` for other keys (topic tracking records).
pub fn parse_key(key: &[u8]) -> Option<InstanceId> {
    let key = std::str::from_utf8(key).ok()?;
    if let Some(c) = key.strip_prefix("status-connector-") {
        return Some(InstanceId::Connector(c.to_owned()));
    }
    let rest = key.strip_prefix("status-task-")?;
    let (c, t) = rest.rsplit_once('-')?;
    Some(InstanceId::Task(c.to_owned(), t.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A topic whose writes all fail, as with the broker gone; it reads as empty.
    struct Unreachable;

    #[async_trait::async_trait]
    impl LogTopic for Unreachable {
        fn name(&self) -> &str {
            "status"
        }
        async fn send(&self, _: Vec<LogRecord>) -> Result<(), StoreError> {
            Err(StoreError::Unavailable("broker unreachable".into()))
        }
        async fn reader(&self) -> Result<Box<dyn LogReader>, StoreError> {
            let backend = crate::store::MemoryBackend::new();
            let spec = crate::store::TopicSpec::new("empty", 1, true);
            crate::store::LogBackend::topic(&backend, &spec).await?.reader().await
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_bounded_flush_says_what_it_could_not_write_and_why() {
        let store = StatusStore::open(Arc::new(Unreachable)).await.unwrap();
        let status = |s| Status::new(s, None, "w:1".into(), 1);
        store.put(InstanceId::Connector("c".into()), status(State::Unassigned));
        store.put(InstanceId::Task("c".into(), 0), status(State::Unassigned));
        store.delete(InstanceId::Task("c".into(), 1));
        let unwritten = store.flush_within(Duration::from_secs(3)).await.unwrap_err();
        assert_eq!(
            unwritten,
            Unwritten { records: 3, reason: "store unavailable: broker unreachable".into() }
        );
        assert_eq!(
            unwritten.to_string(),
            "3 status records not written: store unavailable: broker unreachable"
        );
    }

    #[tokio::test]
    async fn a_bounded_flush_of_a_healthy_store_succeeds() {
        use crate::store::{LogBackend, MemoryBackend, TopicSpec};
        let backend = MemoryBackend::new();
        let topic = backend.topic(&TopicSpec::new("s", 1, true)).await.unwrap();
        let store = StatusStore::open(topic).await.unwrap();
        store.put(
            InstanceId::Connector("c".into()),
            Status::new(State::Running, None, "w".into(), 1),
        );
        assert_eq!(store.flush_within(Duration::from_secs(60)).await, Ok(()));
        assert_eq!(store.progress.pending.load(Ordering::Acquire), 0);
    }

    #[tokio::test]
    async fn topics_are_tracked_reset_and_read_back() {
        use crate::store::{LogBackend, MemoryBackend, TopicSpec};
        let backend = MemoryBackend::new();
        let spec = TopicSpec::new("status", 2, true);
        let store = StatusStore::open(backend.topic(&spec).await.unwrap()).await.unwrap();
        store.put_topic("c", "t1", 0);
        store.put_topic("c", "t2", 1);
        store.put_topic("c", "t1", 1);
        store.put_topic("other", "t3", 0);
        store.flush().await;
        assert_eq!(store.topics("c"), vec!["t1".to_string(), "t2".to_string()]);
        let reread = StatusStore::open(backend.topic(&spec).await.unwrap()).await.unwrap();
        assert_eq!(reread.topics("c"), vec!["t1".to_string(), "t2".to_string()]);
        store.reset_topics("c");
        store.flush().await;
        assert!(store.topics("c").is_empty());
        let reread = StatusStore::open(backend.topic(&spec).await.unwrap()).await.unwrap();
        assert!(reread.topics("c").is_empty());
        assert_eq!(reread.topics("other"), vec!["t3".to_string()]);
    }

    #[tokio::test]
    async fn a_connector_is_one_range_and_every_change_moves_the_version() {
        use crate::store::{LogBackend, MemoryBackend, TopicSpec};
        let backend = MemoryBackend::new();
        let store = StatusStore::open(backend.topic(&TopicSpec::new("s", 1, true)).await.unwrap())
            .await
            .unwrap();
        let st = |state| Status::new(state, None, "w:1".into(), 1);
        let v0 = store.version();
        for name in ["c", "c-1", "cc", "b"] {
            store.put(InstanceId::Connector(name.into()), st(State::Running));
            store.put(InstanceId::Task(name.into(), 0), st(State::Running));
        }
        store.put(InstanceId::Task("c".into(), 1), st(State::Failed));
        assert!(store.version() > v0);
        let c = store.connector("c").unwrap();
        assert_eq!(
            c.tasks.iter().map(|(t, s)| (*t, s.state)).collect::<Vec<_>>(),
            [(0, State::Running), (1, State::Failed)]
        );
        assert_eq!(store.tasks("c-1").keys().copied().collect::<Vec<_>>(), [0]);
        assert_eq!(store.connector("none"), None);
        let (version, many) = store.connectors(["cc", "none", "c"]);
        assert_eq!(version, store.version());
        assert_eq!(many[0].as_ref().unwrap().tasks.len(), 1);
        assert!(many[1].is_none());
        assert_eq!(many[2].as_ref(), Some(&c));
        store.apply(&[]);
        assert_eq!(store.version(), version, "nothing read, nothing changed");
        store.delete(InstanceId::Task("c".into(), 1));
        assert!(store.version() > version);
        assert_eq!(store.connector("c").unwrap().tasks.len(), 1);
    }

    #[test]
    fn topic_keys_round_trip() {
        let k = topic_key("my-topic", "my-conn");
        assert_eq!(k, "status-topic-my-topic:connector-my-conn");
        assert_eq!(parse_topic_key(k.as_bytes()), Some(("my-topic".into(), "my-conn".into())));
        assert_eq!(parse_topic_key(b"status-connector-c"), None);
    }

    #[test]
    fn keys_round_trip_with_dashes_in_names() {
        for id in [InstanceId::Connector("a-b".into()), InstanceId::Task("a-b-c".into(), 12)] {
            assert_eq!(parse_key(key(&id).as_bytes()), Some(id));
        }
        assert_eq!(parse_key(b"status-topic-t:connector-c"), None);
        assert_eq!(parse_key(b"status-task-c-x"), None);
    }

    #[test]
    fn values_have_kafka_connect_field_names() {
        let s = Status::new(State::Failed, Some("boom".into()), "h:1".into(), 3);
        assert_eq!(
            serde_json::to_string(&s).unwrap(),
            r#"{"state":"FAILED","trace":"boom","worker_id":"h:1","generation":3}"#
        );
        let s: Status =
            serde_json::from_str(r#"{"state":"RUNNING","worker_id":"h:1","generation":0}"#)
                .unwrap();
        assert_eq!(s.trace, None);
        assert_eq!((s.reconfiguration, s.restart), (None, None));
    }

    #[test]
    fn retry_info_is_extra_fields_kafka_connect_readers_skip() {
        let info = RetryInfo {
            retry: 2,
            retries_max: None,
            next_retry_at: 1_767_000_000_750,
            next_retry_delay_ms: 500,
            last_error: Some("no database".into()),
        };
        let s = Status {
            reconfiguration: Some(Box::new(info.clone())),
            ..Status::new(State::Running, None, "h:1".into(), 3)
        };
        let json = serde_json::to_value(&s).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"state": "RUNNING", "worker_id": "h:1", "generation": 3,
                "reconfiguration": {"retry": 2, "next_retry_at": 1_767_000_000_750_i64,
                    "next_retry_delay_ms": 500, "last_error": "no database"}})
        );
        assert_eq!(serde_json::from_value::<Status>(json).unwrap(), s);
        let later = RetryInfo::after(1, Some(3), Duration::from_secs(1), None);
        assert_eq!((later.retry, later.retries_max, later.next_retry_delay_ms), (1, Some(3), 1000));
        assert!(later.next_retry_at > 1_700_000_000_000);
    }
}
