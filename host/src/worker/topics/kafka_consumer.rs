//! [`KafkaConsumer`]: one member of a sink connector's consumer group, over rdkafka's
//! `BaseConsumer` on a thread of its own.
//!
//! librdkafka runs rebalance callbacks inside `poll`, on the polling thread, and the
//! partitions move on as soon as the callback returns. So the thread owns the consumer and
//! the async side talks to it by message: records and assignment changes come out on a
//! bounded channel (the bound is the back-pressure: a sink that is slow to `put` stops the
//! fetching); commits, pause and resume go in as commands. On a revocation the callback
//! sends `Revoked` and then serves commands (the task's final commit of those partitions)
//! until the task asks for the next event, and only then lets the rebalance go on. While the
//! channel is full the thread parks, and the task unparks it whenever it takes an event or
//! sends a command, so the next batch is handed over as soon as there is room.
//!
//! When it closes, the member ids it had are handed to the worker's [`Departures`] (if
//! any), which makes sure they are out of the group even when the brokers were away at
//! the close and its own LeaveGroup was lost.
//!
//! It owns the client; it must not know what a record means or when to commit.

use std::sync::mpsc as std_mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use bytes::Bytes;
use rdkafka::consumer::{BaseConsumer, CommitMode, Consumer, ConsumerContext, Rebalance};
use rdkafka::message::{Headers, Message};
use rdkafka::{ClientConfig, ClientContext, Offset, TopicPartitionList};
use tokio::sync::{mpsc, oneshot};
use wasm_connect_group::Departures;

use super::kafka_batch::MessageQueue;
use super::{ConsumerEvent, Header, InRecord, RecordConsumer, Subscription, TopicError};
use crate::model::{TopicPartition, TopicPartitionOffset};
use crate::telemetry::client_log;

/// How long one `poll` of the consumer thread blocks; also how often it looks at commands.
const POLL_INTERVAL: Duration = Duration::from_millis(50);

/// How long a revocation waits for the task to commit before it goes on anyway. Kafka's
/// `max.poll.interval.ms` (5 minutes) is the real bound; a task that takes this long is
/// stuck, and its uncommitted records are read again by the next owner.
const REVOKE_WAIT: Duration = Duration::from_secs(60);

/// Longest park between attempts to hand an event to a task whose channel is full; the
/// task unparks the thread sooner when it takes an event or sends a command.
const SEND_RETRY: Duration = Duration::from_millis(10);

/// How long librdkafka waits before fetching again for a partition whose queue was full,
/// unless the config says otherwise (`consumer.fetch.queue.backoff.ms`).
const FETCH_QUEUE_BACKOFF_MS: &str = "10";

/// How often the consumer refreshes topic metadata, unless the config says otherwise.
const TOPIC_REFRESH_MS: &str = "1000";

type Reply = oneshot::Sender<Result<(), TopicError>>;

enum Command {
    /// Commit; synchronously when the flag is set.
    Commit(Vec<TopicPartitionOffset>, bool, Reply),
    Pause(Reply),
    Resume(Reply),
    /// The task has handled the last `Revoked`.
    RevokeDone,
    Close,
}

/// Shared by the thread's loop and the rebalance callbacks it runs.
struct GroupContext {
    events: mpsc::Sender<ConsumerEvent>,
    commands: Mutex<std_mpsc::Receiver<Command>>,
    /// Whether the task paused consumption (new partitions are paused on assignment).
    paused: Mutex<bool>,
    /// Partitions revoked during the last poll, whose buffered records must be dropped.
    revoked: Mutex<Vec<TopicPartition>>,
    /// Partitions assigned during the last poll, whose messages go to the batch queue.
    assigned: Mutex<Vec<TopicPartition>>,
    /// Set when `Close` arrived during a callback.
    closing: Mutex<bool>,
    /// The member ids this consumer was assigned partitions under (librdkafka takes a new
    /// one after its session expired locally), the latest last.
    members: Mutex<Vec<String>>,
}

/// How many of a consumer's member ids are kept for its departure.
const MEMBER_IDS_KEPT: usize = 4;

impl GroupContext {
    /// Notes `consumer`'s current member id.
    fn note_member(&self, consumer: &BaseConsumer<Self>) {
        let Some(id) = member_id(consumer) else { return };
        let mut members = self.members.lock().expect("not poisoned");
        if members.last() != Some(&id) {
            members.retain(|m| *m != id);
            members.push(id);
            if members.len() > MEMBER_IDS_KEPT {
                members.remove(0);
            }
        }
    }
}

/// The consumer's group member id, if it has one (`rd_kafka_memberid`; rust-rdkafka has no
/// safe call for it).
#[allow(unsafe_code)]
fn member_id(consumer: &BaseConsumer<GroupContext>) -> Option<String> {
    use rdkafka::bindings as rd;
    let client = consumer.client().native_ptr();
    // SAFETY: the client outlives the call; librdkafka returns a NUL-terminated copy (or
    // null), owned by the caller and freed with `rd_kafka_mem_free` exactly once below.
    unsafe {
        let raw = rd::rd_kafka_memberid(client);
        if raw.is_null() {
            return None;
        }
        let id = std::ffi::CStr::from_ptr(raw).to_string_lossy().into_owned();
        rd::rd_kafka_mem_free(client, raw.cast());
        (!id.is_empty()).then_some(id)
    }
}

impl ClientContext for GroupContext {
    fn log(&self, level: rdkafka::config::RDKafkaLogLevel, fac: &str, log_message: &str) {
        client_log::log(level, fac, log_message);
    }

    fn error(&self, error: rdkafka::error::KafkaError, reason: &str) {
        client_log::error(client_log::Level::Error, &error, reason);
    }
}

/// Logs a failed asynchronous commit (the next commit covers it).
fn log_commit(result: &rdkafka::error::KafkaResult<()>) {
    if let Err(e) = result {
        tracing::warn!(error = %e, "An offset commit failed; the next commit covers it");
    }
}

impl ConsumerContext for GroupContext {
    fn pre_rebalance(&self, consumer: &BaseConsumer<Self>, rebalance: &Rebalance<'_>) {
        let Rebalance::Revoke(tpl) = rebalance else { return };
        let partitions = partitions_of(tpl);
        if partitions.is_empty() {
            return;
        }
        self.revoked.lock().expect("not poisoned").extend(partitions.iter().cloned());
        if !send_event(consumer, self, ConsumerEvent::Revoked(partitions)) {
            return;
        }
        let commands = self.commands.lock().expect("not poisoned");
        let deadline = std::time::Instant::now() + REVOKE_WAIT;
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match commands.recv_timeout(left) {
                Ok(Command::RevokeDone) => return,
                Ok(Command::Close) => {
                    *self.closing.lock().expect("not poisoned") = true;
                    return;
                }
                Ok(other) => serve(consumer, self, other),
                Err(std_mpsc::RecvTimeoutError::Timeout) => {
                    tracing::warn!(
                        "The sink task did not finish with its revoked partitions in {:?}; \
                         they move on uncommitted",
                        REVOKE_WAIT
                    );
                    return;
                }
                Err(std_mpsc::RecvTimeoutError::Disconnected) => return,
            }
        }
    }

    fn commit_callback(
        &self,
        result: rdkafka::error::KafkaResult<()>,
        _offsets: &TopicPartitionList,
    ) {
        log_commit(&result);
    }

    fn post_rebalance(&self, consumer: &BaseConsumer<Self>, rebalance: &Rebalance<'_>) {
        let Rebalance::Assign(tpl) = rebalance else { return };
        let partitions = partitions_of(tpl);
        if *self.paused.lock().expect("not poisoned")
            && let Err(e) = consumer.pause(tpl)
        {
            tracing::warn!(error = %e, "Could not pause newly assigned partitions");
        }
        self.note_member(consumer);
        if !partitions.is_empty() {
            self.assigned.lock().expect("not poisoned").extend(partitions.iter().cloned());
            send_event(consumer, self, ConsumerEvent::Assigned(partitions));
        }
    }
}

/// Hands `event` to the task, serving its commands while the channel is full: the task may
/// be waiting for a commit's answer before it reads the next event, and a blocking send
/// would then deadlock. `false` when the task is gone or asked to close.
fn send_event(
    consumer: &BaseConsumer<GroupContext>,
    ctx: &GroupContext,
    mut event: ConsumerEvent,
) -> bool {
    loop {
        match ctx.events.try_send(event) {
            Ok(()) => return true,
            Err(mpsc::error::TrySendError::Closed(_)) => return false,
            Err(mpsc::error::TrySendError::Full(back)) => event = back,
        }
        let command = ctx.commands.lock().expect("not poisoned").try_recv();
        match command {
            Ok(Command::Close) | Err(std_mpsc::TryRecvError::Disconnected) => {
                *ctx.closing.lock().expect("not poisoned") = true;
                return false;
            }
            Ok(other) => serve(consumer, ctx, other),
            Err(std_mpsc::TryRecvError::Empty) => std::thread::park_timeout(SEND_RETRY),
        }
    }
}

/// Executes a command other than `RevokeDone`/`Close`.
fn serve(consumer: &BaseConsumer<GroupContext>, ctx: &GroupContext, command: Command) {
    match command {
        Command::Commit(offsets, sync, reply) => {
            let _ = reply.send(commit(consumer, &offsets, sync));
        }
        Command::Pause(reply) => {
            *ctx.paused.lock().expect("not poisoned") = true;
            let _ = reply.send(set_paused(consumer, true));
        }
        Command::Resume(reply) => {
            *ctx.paused.lock().expect("not poisoned") = false;
            let _ = reply.send(set_paused(consumer, false));
        }
        Command::RevokeDone | Command::Close => {}
    }
}

/// Commits `offsets`. Asynchronously (as Kafka Connect's periodic commits): a commit lost
/// to a broker outage is covered by the next one, and a synchronous commit could wait for
/// the coordinator without bound. Synchronously while partitions are being revoked, so the
/// next owner starts from them.
fn commit(
    consumer: &BaseConsumer<GroupContext>,
    offsets: &[TopicPartitionOffset],
    sync: bool,
) -> Result<(), TopicError> {
    if offsets.is_empty() {
        return Ok(());
    }
    let mut tpl = TopicPartitionList::with_capacity(offsets.len());
    for o in offsets {
        tpl.add_partition_offset(&o.topic, o.partition, Offset::Offset(o.offset))
            .map_err(|e| TopicError::Consume(e.to_string()))?;
    }
    let mode = if sync { CommitMode::Sync } else { CommitMode::Async };
    consumer
        .commit(&tpl, mode)
        .map_err(|e| TopicError::Consume(format!("cannot commit offsets: {e}")))
}

fn set_paused(consumer: &BaseConsumer<GroupContext>, pause: bool) -> Result<(), TopicError> {
    let assignment = consumer.assignment().map_err(|e| TopicError::Consume(e.to_string()))?;
    let result = if pause { consumer.pause(&assignment) } else { consumer.resume(&assignment) };
    result.map_err(|e| TopicError::Consume(e.to_string()))
}

fn partitions_of(tpl: &TopicPartitionList) -> Vec<TopicPartition> {
    tpl.elements()
        .iter()
        .map(|e| TopicPartition { topic: e.topic().to_owned(), partition: e.partition() })
        .collect()
}

/// A sink task's group membership.
pub struct KafkaConsumer {
    events: mpsc::Receiver<ConsumerEvent>,
    commands: std_mpsc::Sender<Command>,
    /// Whether the last event handed out was `Revoked`, so the next `next` releases it.
    revoking: bool,
    /// The consumer thread, unparked when the channel has room or a command waits.
    waker: std::thread::Thread,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl KafkaConsumer {
    /// Joins group `group` (in `config`: bootstrap servers, security, client id and
    /// overrides) subscribed to `subscription`, fetching at most `max_records` per batch.
    /// Its member ids go to `departures` when it closes.
    pub fn new(
        mut config: ClientConfig,
        group: &str,
        subscription: &Subscription,
        max_records: usize,
        departures: Option<Departures>,
    ) -> Result<Self, TopicError> {
        config
            .set("group.id", group)
            .set("enable.auto.commit", "false")
            .set("enable.auto.offset.store", "false")
            .set("enable.partition.eof", "false");
        if config.get("auto.offset.reset").is_none() {
            config.set("auto.offset.reset", "earliest");
        }
        if config.get("fetch.queue.backoff.ms").is_none() {
            // librdkafka stops fetching while its queue holds `queued.min.messages` (100,000)
            // and looks again only after this backoff, 1 s by default: a task putting more
            // than 100,000 records a second emptied the queue and then waited for it.
            config.set("fetch.queue.backoff.ms", FETCH_QUEUE_BACKOFF_MS);
        }
        if config.get("topic.metadata.refresh.interval.ms").is_none() {
            // librdkafka looks for a subscribed topic that does not exist yet (or a new
            // topic matching a pattern) only at this interval, 5 minutes by default: a
            // sink started before its source's first write would idle that long.
            config.set("topic.metadata.refresh.interval.ms", TOPIC_REFRESH_MS);
        }
        let (events_tx, events) = mpsc::channel(2);
        let (commands, commands_rx) = std_mpsc::channel();
        let context = GroupContext {
            events: events_tx,
            commands: Mutex::new(commands_rx),
            paused: Mutex::new(false),
            revoked: Mutex::new(Vec::new()),
            assigned: Mutex::new(Vec::new()),
            closing: Mutex::new(false),
            members: Mutex::new(Vec::new()),
        };
        let consumer: BaseConsumer<GroupContext> = config
            .create_with_context(context)
            .map_err(|e| TopicError::Config(format!("cannot create the Kafka consumer: {e}")))?;
        let topics: Vec<String> = match subscription {
            Subscription::Topics(t) => t.clone(),
            Subscription::Pattern(p) => vec![anchored(p)],
        };
        let refs: Vec<&str> = topics.iter().map(String::as_str).collect();
        consumer
            .subscribe(&refs)
            .map_err(|e| TopicError::Consume(format!("cannot subscribe to {topics:?}: {e}")))?;
        let leave = departures.map(|d| (d, group.to_owned()));
        let thread = std::thread::Builder::new()
            .name(format!("consumer-{group}"))
            .spawn(move || {
                run(&consumer, max_records.max(1));
                close(consumer, leave);
            })
            .map_err(|e| TopicError::Consume(format!("cannot start the consumer thread: {e}")))?;
        let waker = thread.thread().clone();
        Ok(Self { events, commands, revoking: false, waker, thread: Some(thread) })
    }

    async fn request(&self, make: impl FnOnce(Reply) -> Command) -> Result<(), TopicError> {
        let (tx, rx) = oneshot::channel();
        self.commands
            .send(make(tx))
            .map_err(|_| TopicError::Consume("the consumer thread has stopped".into()))?;
        self.waker.unpark();
        rx.await.map_err(|_| TopicError::Consume("the consumer thread has stopped".into()))?
    }
}

/// A `topics.regex` as librdkafka wants it: a leading `^` marks a pattern, and Kafka
/// matches the whole topic name.
fn anchored(pattern: &str) -> String {
    let mut p = pattern.to_owned();
    if !p.starts_with('^') {
        p.insert(0, '^');
    }
    if !p.ends_with('$') {
        p.push('$');
    }
    p
}

/// The consumer thread: polls, batches records, serves commands.
///
/// Messages of assigned partitions are read in batches from a [`MessageQueue`]; the
/// consumer's own poll serves rebalances, commit results and errors, and returns the
/// messages a partition fetched before its queue was forwarded (older than any in the
/// batch queue, so they are taken first). Returns when the task closes the consumer or is
/// gone; the caller then closes the client.
fn run(consumer: &BaseConsumer<GroupContext>, max_records: usize) {
    let mut queue = MessageQueue::new(consumer);
    let mut batch: Vec<InRecord> = Vec::new();
    loop {
        loop {
            let command = consumer.context().commands.lock().expect("not poisoned").try_recv();
            match command {
                Ok(Command::Close) | Err(std_mpsc::TryRecvError::Disconnected) => {
                    return;
                }
                Ok(other) => serve(consumer, consumer.context(), other),
                Err(std_mpsc::TryRecvError::Empty) => break,
            }
        }
        if *consumer.context().closing.lock().expect("not poisoned") {
            return;
        }
        let polled = consumer.poll(Duration::ZERO);
        let assigned =
            std::mem::take(&mut *consumer.context().assigned.lock().expect("not poisoned"));
        if !assigned.is_empty() {
            queue.forward(&assigned);
        }
        let revoked =
            std::mem::take(&mut *consumer.context().revoked.lock().expect("not poisoned"));
        if !revoked.is_empty() {
            batch.retain(|r| {
                !revoked.iter().any(|tp| *tp.topic == *r.topic && tp.partition == r.partition)
            });
        }
        match polled {
            Some(Ok(message)) => {
                batch.push(to_record(&message));
                if batch.len() < max_records {
                    continue;
                }
            }
            // Transient (a broker away); librdkafka logs the cause and reconnects.
            Some(Err(e)) => tracing::debug!(error = %e, "Consumer error"),
            None => {}
        }
        let room = max_records.saturating_sub(batch.len());
        let wait = if batch.is_empty() { POLL_INTERVAL } else { Duration::ZERO };
        let taken = queue.consume(wait, room, &mut batch);
        if taken > 0 && batch.len() < max_records {
            continue;
        }
        if !batch.is_empty() {
            let records = std::mem::take(&mut batch);
            if !send_event(consumer, consumer.context(), ConsumerEvent::Records(records)) {
                return;
            }
        }
    }
}

/// Leaves the group (serving the revocation callback of leaving, then dropping the
/// client), and hands every member id the consumer had to `leave`'s departures.
fn close(consumer: BaseConsumer<GroupContext>, leave: Option<(Departures, String)>) {
    consumer.context().note_member(&consumer);
    let members = std::mem::take(&mut *consumer.context().members.lock().expect("not poisoned"));
    consumer.unsubscribe();
    let _ = consumer.poll(Duration::ZERO);
    drop(consumer);
    if let Some((departures, group)) = leave {
        for member in members {
            departures.depart(&group, &member);
        }
    }
}

fn to_record(m: &rdkafka::message::BorrowedMessage<'_>) -> InRecord {
    let headers = m
        .headers()
        .map(|hs| {
            hs.iter()
                .map(|h| Header { key: h.key.to_owned(), value: h.value.map(<[u8]>::to_vec) })
                .collect()
        })
        .unwrap_or_default();
    InRecord {
        topic: Arc::from(m.topic()),
        partition: m.partition(),
        offset: m.offset(),
        timestamp: m.timestamp().to_millis(),
        key: m.key().map(Bytes::copy_from_slice),
        value: m.payload().map(Bytes::copy_from_slice),
        headers,
    }
}

#[async_trait]
impl RecordConsumer for KafkaConsumer {
    async fn next(
        &mut self,
        timeout: Duration,
        _max_records: usize,
    ) -> Result<Option<ConsumerEvent>, TopicError> {
        if std::mem::take(&mut self.revoking) {
            let _ = self.commands.send(Command::RevokeDone);
            self.waker.unpark();
        }
        match tokio::time::timeout(timeout, self.events.recv()).await {
            Err(_) => Ok(None),
            Ok(None) => Err(TopicError::Consume("the consumer thread has stopped".into())),
            Ok(Some(event)) => {
                // The channel has room again.
                self.waker.unpark();
                self.revoking = matches!(event, ConsumerEvent::Revoked(_));
                Ok(Some(event))
            }
        }
    }

    async fn commit(&mut self, offsets: Vec<TopicPartitionOffset>) -> Result<(), TopicError> {
        let sync = self.revoking;
        self.request(|reply| Command::Commit(offsets, sync, reply)).await
    }

    async fn pause(&mut self) -> Result<(), TopicError> {
        self.request(Command::Pause).await
    }

    async fn resume(&mut self) -> Result<(), TopicError> {
        self.request(Command::Resume).await
    }

    async fn close(mut self: Box<Self>) {
        let _ = self.commands.send(Command::Close);
        self.waker.unpark();
        // Drain events so a thread blocked on a full channel can see the command.
        self.events.close();
        if let Some(thread) = self.thread.take() {
            let _ = tokio::task::spawn_blocking(move || thread.join()).await;
        }
    }
}

impl Drop for KafkaConsumer {
    fn drop(&mut self) {
        let _ = self.commands.send(Command::Close);
        self.waker.unpark();
    }
}
