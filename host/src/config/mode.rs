//! The mode-specific part of the worker config: where standalone keeps its state (one
//! SQLite file) and the default retention of its data topics (`log.retention.*`), and what distributed mode needs (a group, three internal topics, and the
//! session keys and signatures of requests between workers, `inter.worker.*`).
//!
//! Keys of the other mode are accepted and listed as ignored, without checking their
//! values, so one file can serve both modes. Nothing here opens a file or a connection.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use crate::config::reader::Reader;
use crate::model::{CleanupPolicy, Retention, parse_limit};

/// What `log.retention.ms` and `log.retention.bytes` take.
const RETENTION_EXPECTED: &str = "-1 (no limit) or a non-negative integer";

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
// One value per process, read once: boxing the larger variant would buy nothing.
#[allow(clippy::large_enum_variant)]
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
    /// The retention of the embedded store's data topics that set none of their own, as a
    /// broker's defaults: `log.retention.ms` (7 days; `-1`: forever), `log.retention.bytes`
    /// (per partition; `-1`, the default: no bound) and `log.cleanup.policy` (`delete`).
    pub retention: Retention,
    /// `log.retention.check.interval.ms`: how often the cleaner applies retention (Kafka's
    /// default, 5 minutes).
    pub retention_check_interval: Duration,
}

impl StandaloneConfig {
    /// The database at `database_file`, every other setting at its default.
    pub fn at(database_file: impl Into<PathBuf>) -> Self {
        Self {
            database_file: database_file.into(),
            retention: Retention::default(),
            retention_check_interval: DEFAULT_RETENTION_CHECK_INTERVAL,
        }
    }
}

/// Default `log.retention.check.interval.ms` (the broker's).
pub const DEFAULT_RETENTION_CHECK_INTERVAL: Duration = Duration::from_millis(300_000);

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
/// Default `inter.worker.key.ttl.ms`: one hour.
pub const DEFAULT_INTER_WORKER_KEY_TTL: Duration = Duration::from_millis(3_600_000);
/// The one algorithm the `inter.worker.*` keys accept, and their default: session keys,
/// signatures and verification are all HMAC-SHA256.
pub const INTER_WORKER_ALGORITHM: &str = crate::model::HMAC_SHA256;
/// The smallest `inter.worker.key.size` (bits), as Java's HMAC key generator requires.
pub const MIN_INTER_WORKER_KEY_BITS: u32 = 40;
/// The largest `inter.worker.key.size` (bits). HMAC hashes a key longer than its 512-bit
/// block first, so larger keys add nothing; the cap stops a typo from allocating gigabytes.
pub const MAX_INTER_WORKER_KEY_BITS: u32 = 65_536;

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
    /// `inter.worker.key.ttl.ms`: how long the leader uses a session key before it writes a
    /// new one (default one hour).
    pub inter_worker_key_ttl: Duration,
    /// `inter.worker.key.generation.algorithm`: how session keys are made; only
    /// `HmacSHA256` (the default).
    pub inter_worker_key_generation_algorithm: String,
    /// `inter.worker.key.size`: session key length in bits, at least 40; `None` (the
    /// default) is the algorithm's own, 256 bits.
    pub inter_worker_key_size: Option<u32>,
    /// `inter.worker.signature.algorithm`: how this worker signs internal requests; only
    /// `HmacSHA256` (the default).
    pub inter_worker_signature_algorithm: String,
    /// `inter.worker.verification.algorithms`: the signature algorithms accepted on
    /// internal requests (comma-separated); only `HmacSHA256` (the default).
    pub inter_worker_verification_algorithms: Vec<String>,
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
    "connect.protocol",
    "inter.worker.key.ttl.ms",
    "inter.worker.key.generation.algorithm",
    "inter.worker.key.size",
    "inter.worker.signature.algorithm",
    "inter.worker.verification.algorithms",
];

/// Keys only standalone mode reads.
const STANDALONE_KEYS: &[&str] = &[
    "offset.storage.file.filename",
    "log.retention.ms",
    "log.retention.bytes",
    "log.cleanup.policy",
    "log.retention.check.interval.ms",
];

/// Reads the settings of `mode`, and marks the other mode's keys as ignored.
pub(super) fn read(r: &mut Reader<'_>, mode: Mode) -> ModeConfig {
    match mode {
        Mode::Standalone => {
            DISTRIBUTED_KEYS.iter().for_each(|&k| r.skip(k));
            let database_file = r
                .string("offset.storage.file.filename")
                .map_or_else(|| PathBuf::from(DEFAULT_DATABASE_FILE), PathBuf::from);
            let defaults = Retention::default();
            let long = |v: &str| parse_limit("", v).ok();
            let retention = Retention {
                ms: r.parsed("log.retention.ms", RETENTION_EXPECTED, long).unwrap_or(defaults.ms),
                bytes: r
                    .parsed("log.retention.bytes", RETENTION_EXPECTED, long)
                    .unwrap_or(defaults.bytes),
                policy: r
                    .parsed("log.cleanup.policy", "delete, compact or compact,delete", |v| {
                        CleanupPolicy::parse(v).ok()
                    })
                    .unwrap_or(defaults.policy),
            };
            let retention_check_interval =
                r.millis("log.retention.check.interval.ms", DEFAULT_RETENTION_CHECK_INTERVAL);
            ModeConfig::Standalone(StandaloneConfig {
                database_file,
                retention,
                retention_check_interval,
            })
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
        inter_worker_key_ttl: r.millis("inter.worker.key.ttl.ms", DEFAULT_INTER_WORKER_KEY_TTL),
        inter_worker_key_generation_algorithm: algorithm(
            r,
            "inter.worker.key.generation.algorithm",
        ),
        inter_worker_key_size: key_size(r),
        inter_worker_signature_algorithm: algorithm(r, "inter.worker.signature.algorithm"),
        inter_worker_verification_algorithms: verification_algorithms(r),
    };
    connect_protocol(r);
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

const SESSIONED: &str = "sessioned";

/// `connect.protocol`: Kafka Connect also has `eager` and `compatible`, which sign no
/// internal requests; this worker speaks only `sessioned` (any case, as Kafka reads it).
fn connect_protocol(r: &mut Reader<'_>) {
    let Some(value) = r.raw("connect.protocol") else { return };
    if value.eq_ignore_ascii_case(SESSIONED) {
        return;
    }
    let why = if ["eager", "compatible"].iter().any(|p| value.eq_ignore_ascii_case(p)) {
        format!(
            "only {SESSIONED:?} is supported: this worker signs and verifies requests between workers (KIP-507), got {value:?}"
        )
    } else {
        format!("expected {SESSIONED:?} (the only protocol this worker supports), got {value:?}")
    };
    r.problem("connect.protocol", why);
}

fn only_algorithm(s: &str) -> Option<String> {
    s.eq_ignore_ascii_case(INTER_WORKER_ALGORITHM).then(|| INTER_WORKER_ALGORITHM.to_owned())
}

const ONLY_ALGORITHM: &str = "HmacSHA256 (the only algorithm this worker supports)";

/// An `inter.worker.*.algorithm` key: `HmacSHA256` in any case (Java's algorithm names are
/// case-insensitive), stored in its canonical spelling.
fn algorithm(r: &mut Reader<'_>, key: &'static str) -> String {
    r.parsed(key, ONLY_ALGORITHM, only_algorithm)
        .unwrap_or_else(|| INTER_WORKER_ALGORITHM.to_owned())
}

fn key_size(r: &mut Reader<'_>) -> Option<u32> {
    let expected = format!(
        "an integer from {MIN_INTER_WORKER_KEY_BITS} to {MAX_INTER_WORKER_KEY_BITS} (bits)"
    );
    r.parsed("inter.worker.key.size", &expected, |s| {
        s.parse::<u32>()
            .ok()
            .filter(|b| (MIN_INTER_WORKER_KEY_BITS..=MAX_INTER_WORKER_KEY_BITS).contains(b))
    })
}

/// `inter.worker.verification.algorithms`: a comma list of at least one algorithm, each
/// `HmacSHA256`.
fn verification_algorithms(r: &mut Reader<'_>) -> Vec<String> {
    const KEY: &str = "inter.worker.verification.algorithms";
    let default = || vec![INTER_WORKER_ALGORITHM.to_owned()];
    let Some(raw) = r.raw(KEY) else { return default() };
    let entries: Vec<&str> = raw.split(',').map(str::trim).filter(|e| !e.is_empty()).collect();
    if entries.is_empty() {
        r.problem(KEY, "at least one signature verification algorithm must be given");
        return default();
    }
    let mut out: Vec<String> = Vec::new();
    for entry in entries {
        match only_algorithm(entry) {
            Some(a) if !out.contains(&a) => out.push(a),
            Some(_) => {}
            None => {
                r.problem(KEY, format!("expected {ONLY_ALGORITHM}, got {entry:?}"));
                return default();
            }
        }
    }
    out
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

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::config::{WorkerConfig, properties};

    const MINIMAL: &str = "bootstrap.servers=b:9092\ngroup.id=g\nconfig.storage.topic=c\n\
        offset.storage.topic=o\nstatus.storage.topic=s\nplugin.path=p\n";

    fn build(extra: &str, mode: Mode) -> Result<WorkerConfig, Vec<(String, String)>> {
        let props = properties::parse(&format!("{MINIMAL}{extra}"), Path::new("t")).unwrap();
        WorkerConfig::from_properties(&props, mode)
            .map_err(|e| e.problems().iter().map(|p| (p.key.clone(), p.message.clone())).collect())
    }

    fn distributed(extra: &str) -> DistributedConfig {
        match build(extra, Mode::Distributed).unwrap_or_else(|p| panic!("{p:?}")).mode {
            ModeConfig::Distributed(d) => d,
            other => panic!("{other:?}"),
        }
    }

    fn problems(extra: &str) -> Vec<(String, String)> {
        build(extra, Mode::Distributed).map(|c| panic!("expected problems: {c:?}")).unwrap_err()
    }

    #[test]
    fn inter_worker_defaults() {
        let d = distributed("");
        assert_eq!(d.inter_worker_key_ttl, Duration::from_secs(3600));
        assert_eq!(d.inter_worker_key_generation_algorithm, "HmacSHA256");
        assert_eq!(d.inter_worker_key_size, None);
        assert_eq!(d.inter_worker_signature_algorithm, "HmacSHA256");
        assert_eq!(d.inter_worker_verification_algorithms, ["HmacSHA256"]);
    }

    #[test]
    fn inter_worker_keys_are_read() {
        let d = distributed(
            "connect.protocol=Sessioned\ninter.worker.key.ttl.ms=60000\n\
             inter.worker.key.generation.algorithm=hmacsha256\ninter.worker.key.size=512\n\
             inter.worker.signature.algorithm=HmacSHA256\n\
             inter.worker.verification.algorithms=HmacSHA256, HMACSHA256,\n",
        );
        assert_eq!(d.inter_worker_key_ttl, Duration::from_secs(60));
        assert_eq!(d.inter_worker_key_generation_algorithm, "HmacSHA256");
        assert_eq!(d.inter_worker_key_size, Some(512));
        assert_eq!(d.inter_worker_verification_algorithms, ["HmacSHA256"]);
    }

    #[test]
    fn only_hmac_sha256_and_the_sessioned_protocol() {
        let only = "expected HmacSHA256 (the only algorithm this worker supports)";
        assert_eq!(
            problems(
                "inter.worker.key.generation.algorithm=HmacSHA512\n\
                 inter.worker.signature.algorithm=HmacSHA1\n\
                 inter.worker.verification.algorithms=HmacSHA256,HmacSHA512\n\
                 inter.worker.key.size=32\ninter.worker.key.ttl.ms=-1\nconnect.protocol=eager\n"
            ),
            [
                ("inter.worker.key.ttl.ms".into(), "expected a non-negative integer (milliseconds), got \"-1\"".into()),
                ("inter.worker.key.generation.algorithm".into(), format!("{only}, got \"HmacSHA512\"")),
                ("inter.worker.key.size".into(), "expected an integer from 40 to 65536 (bits), got \"32\"".into()),
                ("inter.worker.signature.algorithm".into(), format!("{only}, got \"HmacSHA1\"")),
                ("inter.worker.verification.algorithms".into(), format!("{only}, got \"HmacSHA512\"")),
                (
                    "connect.protocol".into(),
                    "only \"sessioned\" is supported: this worker signs and verifies requests between workers (KIP-507), got \"eager\"".into()
                ),
            ]
        );
        assert_eq!(
            problems("connect.protocol=COMPATIBLE\n")[0].1,
            "only \"sessioned\" is supported: this worker signs and verifies requests between workers (KIP-507), got \"COMPATIBLE\""
        );
        assert_eq!(
            problems("connect.protocol=v2\n")[0].1,
            "expected \"sessioned\" (the only protocol this worker supports), got \"v2\""
        );
        assert_eq!(
            problems("inter.worker.verification.algorithms= , \n"),
            [(
                "inter.worker.verification.algorithms".into(),
                "at least one signature verification algorithm must be given".into()
            )]
        );
    }

    #[test]
    fn standalone_ignores_them_without_checking() {
        let c = build(
            "connect.protocol=eager\ninter.worker.key.size=1\ninter.worker.key.ttl.ms=x\n",
            Mode::Standalone,
        )
        .unwrap();
        assert!(
            ["connect.protocol", "inter.worker.key.size", "inter.worker.key.ttl.ms"]
                .iter()
                .all(|k| c.ignored_keys.iter().any(|i| i == k)),
            "{:?}",
            c.ignored_keys
        );
    }

    #[test]
    fn typos_of_inter_worker_keys_are_caught() {
        assert_eq!(
            problems("inter.worker.key.tll.ms=1\n"),
            [(
                "inter.worker.key.tll.ms".into(),
                "unknown key; did you mean \"inter.worker.key.ttl.ms\"?".into()
            )]
        );
    }
}
