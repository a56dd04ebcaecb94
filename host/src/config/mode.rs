//! The mode-specific part of the worker config: where standalone keeps its state (one
//! SQLite file) and what distributed mode needs (a group and three internal topics).
//!
//! Keys of the other mode are accepted and listed as ignored, without checking their
//! values, so one file can serve both modes. Nothing here opens a file or a connection.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use crate::config::reader::Reader;

/// How the worker runs, chosen by the command (`wasm-connect standalone|distributed`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// One worker; connector configs come from files; state in an embedded database.
    Standalone,
    /// A group of workers sharing state through Kafka topics.
    Distributed,
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Standalone => "standalone",
            Self::Distributed => "distributed",
        })
    }
}

/// The settings only one mode uses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModeConfig {
    /// Standalone settings.
    Standalone(StandaloneConfig),
    /// Distributed settings.
    Distributed(DistributedConfig),
}

impl ModeConfig {
    /// Which mode this is.
    pub fn kind(&self) -> Mode {
        match self {
            Self::Standalone(_) => Mode::Standalone,
            Self::Distributed(_) => Mode::Distributed,
        }
    }
}

/// Default `offset.storage.file.filename`: in the working directory.
pub const DEFAULT_DATABASE_FILE: &str = "wasm-connect.db";

/// Standalone settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StandaloneConfig {
    /// `offset.storage.file.filename`: Kafka standalone's offsets file. Here it names the
    /// embedded SQLite database that holds connector configs, statuses, source offsets and,
    /// when `bootstrap.servers` is absent, the standalone topics. Default
    /// [`DEFAULT_DATABASE_FILE`]; a relative path is relative to the working directory.
    pub database_file: PathBuf,
}

/// A replication factor or partition count for an internal topic the worker creates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TopicCount {
    /// `-1`: the broker's `default.replication.factor` / `num.partitions`.
    BrokerDefault,
    /// An explicit count, at least 1.
    Exactly(u32),
}

impl TopicCount {
    /// The value Kafka's CreateTopics request takes (`-1` for the broker default).
    pub fn to_kafka(self) -> i32 {
        match self {
            Self::BrokerDefault => -1,
            Self::Exactly(n) => i32::try_from(n).unwrap_or(i32::MAX),
        }
    }
}

/// Default replication factor of the internal topics (Kafka Connect's).
pub const DEFAULT_REPLICATION_FACTOR: TopicCount = TopicCount::Exactly(3);
/// Default partitions of the offsets topic (Kafka Connect's).
pub const DEFAULT_OFFSET_STORAGE_PARTITIONS: TopicCount = TopicCount::Exactly(25);
/// Default partitions of the status topic (Kafka Connect's).
pub const DEFAULT_STATUS_STORAGE_PARTITIONS: TopicCount = TopicCount::Exactly(5);
/// Default `worker.sync.timeout.ms`.
pub const DEFAULT_WORKER_SYNC_TIMEOUT: Duration = Duration::from_millis(3_000);
/// Default `scheduled.rebalance.max.delay.ms`: five minutes.
pub const DEFAULT_SCHEDULED_REBALANCE_MAX_DELAY: Duration = Duration::from_millis(300_000);
/// Default `session.timeout.ms`.
pub const DEFAULT_SESSION_TIMEOUT: Duration = Duration::from_millis(10_000);
/// Default `heartbeat.interval.ms`.
pub const DEFAULT_HEARTBEAT_INTERVAL: Duration = Duration::from_millis(3_000);
/// Default `rebalance.timeout.ms`.
pub const DEFAULT_REBALANCE_TIMEOUT: Duration = Duration::from_millis(60_000);

/// Distributed settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DistributedConfig {
    /// `group.id` (required): the Connect cluster's id; workers with the same id share
    /// connectors.
    pub group_id: String,
    /// `config.storage.topic` (required): the compacted, single-partition config log.
    pub config_storage_topic: String,
    /// `offset.storage.topic` (required): source offsets.
    pub offset_storage_topic: String,
    /// `status.storage.topic` (required): connector and task statuses.
    pub status_storage_topic: String,
    /// `config.storage.replication.factor` (default 3; -1 = broker default).
    pub config_storage_replication_factor: TopicCount,
    /// `offset.storage.replication.factor` (default 3; -1 = broker default).
    pub offset_storage_replication_factor: TopicCount,
    /// `status.storage.replication.factor` (default 3; -1 = broker default).
    pub status_storage_replication_factor: TopicCount,
    /// `offset.storage.partitions` (default 25; -1 = broker default).
    pub offset_storage_partitions: TopicCount,
    /// `status.storage.partitions` (default 5; -1 = broker default).
    pub status_storage_partitions: TopicCount,
    /// `worker.sync.timeout.ms`: how long a worker waits to catch up with the config log
    /// before giving up its assignment.
    pub worker_sync_timeout: Duration,
    /// `scheduled.rebalance.max.delay.ms`: how long the leader keeps a departed worker's
    /// connectors and tasks unassigned, waiting for it to return (0: reassign at once).
    pub scheduled_rebalance_max_delay: Duration,
    /// `session.timeout.ms`: a worker silent this long is removed from the group.
    pub session_timeout: Duration,
    /// `heartbeat.interval.ms`: how often a worker heartbeats; below `session.timeout.ms`.
    pub heartbeat_interval: Duration,
    /// `rebalance.timeout.ms`: how long the group waits for every worker to rejoin.
    pub rebalance_timeout: Duration,
}

const DISTRIBUTED_REQUIRED: &str = "required in distributed mode";
const REPLICATION: &str = "-1 (broker default) or an integer from 1 to 32767";
const PARTITIONS: &str = "-1 (broker default) or an integer of at least 1";

/// Keys only distributed mode reads, in [`DistributedConfig`] field order.
const DISTRIBUTED_KEYS: &[&str] = &[
    "group.id",
    "config.storage.topic",
    "offset.storage.topic",
    "status.storage.topic",
    "config.storage.replication.factor",
    "offset.storage.replication.factor",
    "status.storage.replication.factor",
    "offset.storage.partitions",
    "status.storage.partitions",
    "worker.sync.timeout.ms",
    "scheduled.rebalance.max.delay.ms",
    "session.timeout.ms",
    "heartbeat.interval.ms",
    "rebalance.timeout.ms",
];

/// Keys only standalone mode reads.
const STANDALONE_KEYS: &[&str] = &["offset.storage.file.filename"];

/// Reads the settings of `mode`, and marks the other mode's keys as ignored.
pub(super) fn read(r: &mut Reader<'_>, mode: Mode) -> ModeConfig {
    match mode {
        Mode::Standalone => {
            DISTRIBUTED_KEYS.iter().for_each(|&k| r.skip(k));
            let database_file = r
                .string("offset.storage.file.filename")
                .map_or_else(|| PathBuf::from(DEFAULT_DATABASE_FILE), PathBuf::from);
            ModeConfig::Standalone(StandaloneConfig { database_file })
        }
        Mode::Distributed => {
            STANDALONE_KEYS.iter().for_each(|&k| r.skip(k));
            ModeConfig::Distributed(read_distributed(r))
        }
    }
}

fn read_distributed(r: &mut Reader<'_>) -> DistributedConfig {
    let config = DistributedConfig {
        group_id: r.required("group.id", DISTRIBUTED_REQUIRED),
        config_storage_topic: r.required("config.storage.topic", DISTRIBUTED_REQUIRED),
        offset_storage_topic: r.required("offset.storage.topic", DISTRIBUTED_REQUIRED),
        status_storage_topic: r.required("status.storage.topic", DISTRIBUTED_REQUIRED),
        config_storage_replication_factor: replication(r, "config.storage.replication.factor"),
        offset_storage_replication_factor: replication(r, "offset.storage.replication.factor"),
        status_storage_replication_factor: replication(r, "status.storage.replication.factor"),
        offset_storage_partitions: partitions(
            r,
            "offset.storage.partitions",
            DEFAULT_OFFSET_STORAGE_PARTITIONS,
        ),
        status_storage_partitions: partitions(
            r,
            "status.storage.partitions",
            DEFAULT_STATUS_STORAGE_PARTITIONS,
        ),
        worker_sync_timeout: r.millis("worker.sync.timeout.ms", DEFAULT_WORKER_SYNC_TIMEOUT),
        scheduled_rebalance_max_delay: r
            .millis("scheduled.rebalance.max.delay.ms", DEFAULT_SCHEDULED_REBALANCE_MAX_DELAY),
        session_timeout: r.millis("session.timeout.ms", DEFAULT_SESSION_TIMEOUT),
        heartbeat_interval: r.millis("heartbeat.interval.ms", DEFAULT_HEARTBEAT_INTERVAL),
        rebalance_timeout: r.millis("rebalance.timeout.ms", DEFAULT_REBALANCE_TIMEOUT),
    };
    if config.heartbeat_interval >= config.session_timeout {
        r.problem(
            "heartbeat.interval.ms",
            format!(
                "must be below session.timeout.ms ({} ms), got {} ms",
                config.session_timeout.as_millis(),
                config.heartbeat_interval.as_millis()
            ),
        );
    }
    config
}

fn topic_count(s: &str, max: i64) -> Option<TopicCount> {
    match s.parse::<i64>().ok()? {
        -1 => Some(TopicCount::BrokerDefault),
        n if (1..=max).contains(&n) => u32::try_from(n).ok().map(TopicCount::Exactly),
        _ => None,
    }
}

fn replication(r: &mut Reader<'_>, key: &'static str) -> TopicCount {
    r.parsed(key, REPLICATION, |s| topic_count(s, i64::from(i16::MAX)))
        .unwrap_or(DEFAULT_REPLICATION_FACTOR)
}

fn partitions(r: &mut Reader<'_>, key: &'static str, default: TopicCount) -> TopicCount {
    r.parsed(key, PARTITIONS, |s| topic_count(s, i64::from(i32::MAX))).unwrap_or(default)
}
