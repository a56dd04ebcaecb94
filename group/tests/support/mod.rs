//! Shared by the broker tests: settings with short timings, a stand-in herder per worker
//! ([`Worker`]), a Kafka-aware TCP proxy that can be cut ([`proxy::Proxy`]) and the secure
//! listeners' addresses and logins ([`secure`]).

#![allow(dead_code)] // each test binary uses part of it

pub mod proxy;
pub mod secure;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use tokio::sync::watch;
use wasm_connect_group::{
    Allocation, Assigned, AssignmentError, ConfigView, GroupEvent, GroupMember, MemberHandle,
    MemberSettings, Security, TaskId,
};

/// How long any awaited condition may take before the test fails. Generous: each
/// rebalance can wait for a member's rejoin, and a departed member's session (6 s).
pub const WAIT: Duration = Duration::from_secs(45);

/// The broker under test, from `KAFKA_BOOTSTRAP`.
pub fn bootstrap() -> String {
    std::env::var("KAFKA_BOOTSTRAP").unwrap_or_else(|_| "127.0.0.1:9092".to_owned())
}

/// Fails (never skips) when the broker is not there. Also sets up logging (`RUST_LOG`,
/// default debug for this crate), captured per test.
pub async fn require_broker() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| "wasm_connect_group=debug".into());
    let _ = tracing_subscriber::fmt().with_env_filter(filter).with_test_writer().try_init();
    let addr = bootstrap();
    let connected =
        tokio::time::timeout(Duration::from_secs(5), tokio::net::TcpStream::connect(&addr)).await;
    assert!(
        matches!(connected, Ok(Ok(_))),
        "no Kafka broker at {addr} (KAFKA_BOOTSTRAP); start one with scripts/kafka.sh start"
    );
}

/// A group id no other test run uses.
pub fn unique_group(name: &str) -> String {
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_nanos();
    format!("wasm-connect-group-test-{name}-{}-{nanos}", std::process::id())
}

/// Short timings: the broker's minimum session timeout is 6 s.
pub fn settings(bootstrap: &str, group_id: &str, url: &str, max_delay: Duration) -> MemberSettings {
    MemberSettings {
        bootstrap_servers: vec![bootstrap.to_owned()],
        group_id: group_id.to_owned(),
        client_id: format!("test-{url}"),
        url: url.to_owned(),
        session_timeout: Duration::from_secs(6),
        rebalance_timeout: Duration::from_secs(10),
        heartbeat_interval: Duration::from_millis(500),
        scheduled_rebalance_max_delay: max_delay,
        worker_sync_timeout: Duration::from_secs(2),
        security: Security::default(),
    }
}

/// A config view of `connectors` (name, task count) at `offset`.
pub fn view(offset: i64, connectors: &[(&str, u32)]) -> ConfigView {
    ConfigView {
        offset,
        connectors: connectors.iter().map(|(name, tasks)| ((*name).to_owned(), *tasks)).collect(),
    }
}

/// Everything `view` configures, as one allocation.
pub fn everything(view: &ConfigView) -> Allocation {
    Allocation {
        connectors: view.connectors.keys().cloned().collect(),
        tasks: view
            .connectors
            .iter()
            .flat_map(|(c, n)| (0..*n).map(|task| TaskId { connector: c.clone(), task }))
            .collect(),
    }
}

/// What a stand-in herder has seen.
#[derive(Debug, Default)]
pub struct Seen {
    /// What runs here: assigned minus revoked, cleared on Lost.
    pub running: Allocation,
    /// Every Assigned, in order.
    pub assigned: Vec<Assigned>,
    /// Every Lost reason, in order.
    pub lost: Vec<String>,
    /// Every Fatal reason, in order.
    pub fatal: Vec<String>,
    /// How many Rebalancing.
    pub rebalancing: usize,
    /// Every event, in order.
    pub events: Vec<GroupEvent>,
    /// The events channel ended.
    pub ended: bool,
}

/// One group member with a stand-in herder: it applies assignments, and rejoins after
/// revocations and on CONFIG_MISMATCH, as the real herder does.
pub struct Worker {
    pub url: String,
    pub handle: MemberHandle,
    pub config: watch::Sender<ConfigView>,
    pub seen: Arc<Mutex<Seen>>,
}

impl Worker {
    /// Starts a member with `settings`, assigning from `view` when it leads.
    pub fn start(settings: MemberSettings, view: ConfigView) -> Self {
        let url = settings.url.clone();
        let (config, config_rx) = watch::channel(view);
        let (handle, mut events) = GroupMember::spawn(settings, config_rx);
        let seen = Arc::new(Mutex::new(Seen::default()));
        let herder_seen = seen.clone();
        let herder_handle = handle.clone();
        tokio::spawn(async move {
            while let Some(event) = events.recv().await {
                let mut seen = herder_seen.lock().unwrap();
                seen.events.push(event.clone());
                match event {
                    GroupEvent::Rebalancing => seen.rebalancing += 1,
                    GroupEvent::Lost { reason } => {
                        seen.running = Allocation::default();
                        seen.lost.push(reason);
                    }
                    GroupEvent::Fatal { reason } => {
                        seen.running = Allocation::default();
                        seen.fatal.push(reason);
                    }
                    GroupEvent::Assigned(assigned) => {
                        seen.running.apply(&assigned.revoked, &assigned.assigned);
                        if assigned.error == AssignmentError::ConfigMismatch {
                            herder_handle.rejoin("config mismatch");
                        } else if !assigned.revoked.connectors.is_empty()
                            || !assigned.revoked.tasks.is_empty()
                        {
                            herder_handle.rejoin("revoked work stopped");
                        }
                        seen.assigned.push(assigned);
                    }
                }
            }
            herder_seen.lock().unwrap().ended = true;
        });
        Self { url, handle, config, seen }
    }

    /// What runs here now.
    pub fn running(&self) -> Allocation {
        self.seen.lock().unwrap().running.clone()
    }

    /// The last Assigned, if any.
    pub fn last_assigned(&self) -> Option<Assigned> {
        self.seen.lock().unwrap().assigned.last().cloned()
    }
}

/// Polls `condition` every 50 ms until it holds; panics with `what` after [`WAIT`].
pub async fn wait_for(what: &str, mut condition: impl FnMut() -> bool) {
    let deadline = tokio::time::Instant::now() + WAIT;
    while !condition() {
        assert!(tokio::time::Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Whether `workers` together run exactly `view`'s work, each item once, balanced
/// (connectors and tasks each differ by at most one between workers).
pub fn settled(workers: &[&Worker], view: &ConfigView) -> bool {
    let running: Vec<Allocation> = workers.iter().map(|w| w.running()).collect();
    covers_once(&running, &everything(view)) && balanced(&running)
}

/// Whether `running` together hold `all`, each item exactly once.
pub fn covers_once(running: &[Allocation], all: &Allocation) -> bool {
    let connectors: usize = running.iter().map(|a| a.connectors.len()).sum();
    let tasks: usize = running.iter().map(|a| a.tasks.len()).sum();
    let union_c: BTreeSet<&String> = running.iter().flat_map(|a| &a.connectors).collect();
    let union_t: BTreeSet<&TaskId> = running.iter().flat_map(|a| &a.tasks).collect();
    connectors == all.connectors.len()
        && tasks == all.tasks.len()
        && union_c == all.connectors.iter().collect()
        && union_t == all.tasks.iter().collect()
}

/// Whether connectors and tasks are each spread within one of even.
pub fn balanced(running: &[Allocation]) -> bool {
    let spread = |counts: Vec<usize>| {
        counts.iter().max().unwrap_or(&0) - counts.iter().min().unwrap_or(&0) <= 1
    };
    spread(running.iter().map(|a| a.connectors.len()).collect())
        && spread(running.iter().map(|a| a.tasks.len()).collect())
}

/// Every worker's running allocation, for failure messages.
pub fn describe(workers: &[&Worker]) -> BTreeMap<String, Allocation> {
    workers.iter().map(|w| (w.url.clone(), w.running())).collect()
}
