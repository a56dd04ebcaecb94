//! The herder's unit-test harness: a herder loop over in-memory topics with the fake
//! worker ([`FakeRunner`]), on tokio's paused clock. Requests go in as [`Command`]s (no
//! plugin validation: the fake has no plugins); what the herder did is read from the
//! fake's call log and the status store. The config topic can be stalled, as a broker
//! that has gone away would stall it, and damaged, as a damaged embedded file would make
//! its reads fail.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use tokio::sync::{mpsc, watch};

use super::actor::{Parts, spawn_with};
use super::runner::fake::{Call, FakeRunner, Script};
use super::{
    Command, HerderError, HerderHandle, HerderSettings, MemberSpec, PutOutcome, SinkOffsets,
    SinkOffsetsError,
};
use crate::model::{InstanceId, Properties, State, TargetState, TopicPartition};
use crate::store::{
    LogBackend, LogEntry, LogReader, LogRecord, LogTopic, MemoryBackend, OffsetStore, OffsetStores,
    Status, StatusStore, StoreError, TopicSpec,
};
use crate::worker::{PluginRegistry, Plugins, PluginsScanned, WorkerEvent};

/// A config topic whose sends wait while it is stalled, and whose reads fail once it is
/// damaged.
struct Faulty {
    inner: Arc<dyn LogTopic>,
    stalled: watch::Receiver<bool>,
    damaged: watch::Receiver<bool>,
}

/// A reader of a [`Faulty`] topic.
struct FaultyReader {
    inner: Box<dyn LogReader>,
    damaged: watch::Receiver<bool>,
}

impl FaultyReader {
    fn check(&self) -> Result<(), StoreError> {
        match *self.damaged.borrow() {
            true => {
                Err(StoreError::Unreadable("config.db: database disk image is malformed".into()))
            }
            false => Ok(()),
        }
    }
}

#[async_trait]
impl LogReader for FaultyReader {
    async fn read_to_end(&mut self) -> Result<Vec<LogEntry>, StoreError> {
        self.check()?;
        self.inner.read_to_end().await
    }

    async fn poll(&mut self, timeout: Duration) -> Result<Vec<LogEntry>, StoreError> {
        self.check()?;
        self.inner.poll(timeout).await
    }
}

#[async_trait]
impl LogTopic for Faulty {
    fn name(&self) -> &str {
        self.inner.name()
    }

    async fn send(&self, records: Vec<LogRecord>) -> Result<(), StoreError> {
        let mut stalled = self.stalled.clone();
        let _ = stalled.wait_for(|s| !*s).await;
        self.inner.send(records).await
    }

    async fn reader(&self) -> Result<Box<dyn LogReader>, StoreError> {
        let inner = self.inner.reader().await?;
        Ok(Box::new(FaultyReader { inner, damaged: self.damaged.clone() }))
    }
}

/// No consumer groups.
struct NoGroups;

#[async_trait]
impl SinkOffsets for NoGroups {
    async fn get(&self, _: &str) -> Result<Vec<(TopicPartition, i64)>, SinkOffsetsError> {
        Ok(Vec::new())
    }

    async fn alter(
        &self,
        _: &str,
        _: &[(TopicPartition, Option<i64>)],
    ) -> Result<(), SinkOffsetsError> {
        Err(SinkOffsetsError::Unsupported("no groups".into()))
    }

    async fn reset(&self, _: &str) -> Result<(), SinkOffsetsError> {
        Ok(())
    }
}

pub(super) struct Harness {
    pub handle: HerderHandle,
    pub script: Arc<Mutex<Script>>,
    pub status: Arc<StatusStore>,
    /// Reports as the worker would (a task failing later, say).
    pub events: mpsc::UnboundedSender<WorkerEvent>,
    stall: watch::Sender<bool>,
    damage: watch::Sender<bool>,
}

async fn topic(backend: &MemoryBackend, name: &str) -> Arc<dyn LogTopic> {
    backend.topic(&TopicSpec::new(name, 1, true)).await.expect("a memory topic")
}

impl Harness {
    pub async fn start() -> Self {
        Self::start_with(MemberSpec::Single { worker_id: "w:1".into(), url: "http://w:1/".into() })
            .await
    }

    /// A herder taking part in the cluster as `member` says.
    pub async fn start_with(member: MemberSpec) -> Self {
        Self::start_configured(member, HerderSettings::default()).await
    }

    /// A herder taking part in the cluster as `member` says, with `settings`.
    pub async fn start_configured(member: MemberSpec, settings: HerderSettings) -> Self {
        Self::start_full(member, settings, Plugins::fixed(PluginRegistry::default())).await
    }

    /// A herder in a group of one whose plugin path is loading: it has no plugin yet, and
    /// learns the scans' results from the sender returned.
    pub async fn start_loading() -> (Self, mpsc::UnboundedSender<PluginsScanned>) {
        let loading = PluginRegistry::default().with_loading(Some(vec!["big.wasm".into()]));
        let mut plugins = Plugins::fixed(loading);
        let (scans, scanned) = mpsc::unbounded_channel();
        plugins.scans = scanned;
        let member = MemberSpec::Single { worker_id: "w:1".into(), url: "http://w:1/".into() };
        (Self::start_full(member, HerderSettings::default(), plugins).await, scans)
    }

    async fn start_full(member: MemberSpec, settings: HerderSettings, plugins: Plugins) -> Self {
        let backend = MemoryBackend::new();
        let (stall, stalled) = watch::channel(false);
        let (damage, damaged) = watch::channel(false);
        let inner = topic(&backend, "config").await;
        let config: Arc<dyn LogTopic> = Arc::new(Faulty { inner, stalled, damaged });
        let status = Arc::new(StatusStore::open(topic(&backend, "status").await).await.unwrap());
        let offsets = OffsetStore::open(topic(&backend, "offsets").await).await.unwrap();
        let offsets = Arc::new(OffsetStores::new(Arc::new(offsets)));
        let (events, events_rx) = mpsc::unbounded_channel();
        let runner = FakeRunner::new(events.clone());
        let script = runner.script.clone();
        let parts = Parts { runner: Box::new(runner), plugins, offsets };
        let handle = spawn_with(
            config,
            status.clone(),
            parts,
            Arc::new(NoGroups),
            events_rx,
            member,
            settings,
        )
        .await
        .unwrap();
        Self { handle, script, status, events, stall, damage }
    }

    /// Lets the loop and the fake run until nothing is left to do (the clock is paused, so
    /// this only advances it while everything is idle).
    pub async fn settle(&self) {
        tokio::time::sleep(Duration::from_millis(300)).await;
    }

    /// Creates or replaces connector `name` with `tasks.max` and extra keys; its fake
    /// instance generates `tasks` task configs.
    pub async fn put(
        &self,
        name: &str,
        tasks: u32,
        extra: &[(&str, &str)],
    ) -> Result<PutOutcome, HerderError> {
        self.script.lock().unwrap().tasks.insert(name.to_owned(), tasks);
        let mut config = Properties::from([
            ("connector.class".to_string(), "Fake".to_string()),
            ("name".to_string(), name.to_string()),
            ("tasks.max".to_string(), "8".to_string()),
        ]);
        config.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        let (name, initial, replace) = (name.to_owned(), None::<TargetState>, true);
        self.handle.ask(|reply| Command::PutConfig { name, config, initial, replace, reply }).await
    }

    /// Every call the herder made since the last `take_calls`.
    pub fn take_calls(&self) -> Vec<Call> {
        std::mem::take(&mut self.script.lock().unwrap().calls)
    }

    /// The shown state of an instance.
    pub fn state(&self, id: &InstanceId) -> Option<State> {
        self.shown(id).map(|s| s.state)
    }

    /// The shown status of an instance.
    pub fn shown(&self, id: &InstanceId) -> Option<Status> {
        self.status.get(id)
    }

    /// Stalls the config topic's sends, or lets them through.
    pub fn stall(&self, stalled: bool) {
        let _ = self.stall.send(stalled);
    }

    /// From now on, every read of the config topic fails as a damaged file's would.
    pub fn damage(&self) {
        let _ = self.damage.send(true);
    }
}

pub(super) fn connector(name: &str) -> InstanceId {
    InstanceId::Connector(name.to_owned())
}

pub(super) fn task(name: &str, t: u32) -> InstanceId {
    InstanceId::Task(name.to_owned(), t)
}
