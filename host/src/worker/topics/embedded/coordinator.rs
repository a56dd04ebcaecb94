//! [`Coordinator`]: the consumer groups of one embedded store, in process (in standalone
//! mode one worker process owns the file, so it can coordinate every member itself), and
//! the topic listing their assignments are computed from.
//!
//! Members join when a consumer is opened and leave when it is closed or dropped; each
//! join, leave or change of topics rebalances the groups (see `group.rs`). The topics are
//! listed again at most every [`TOPIC_REFRESH`], or at once when this process created
//! one, so a topic created later that matches a `topics.regex` is picked up within ~1 s.
//! Locks are never held across an await. It must not read records or commit offsets.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use tokio::sync::watch;
use tokio::time::Instant;

use super::group::{Group, Step};
use super::subscription::Matcher;
use crate::model::TopicPartition;
use crate::store::{EmbeddedBackend, StoreError, TopicInfo};

/// How old the topic listing may get before a member's `next` lists the topics again.
pub(super) const TOPIC_REFRESH: Duration = Duration::from_secs(1);

/// The consumer groups of one store.
#[derive(Debug)]
pub(super) struct Coordinator {
    state: Mutex<State>,
    /// How long a member may hold partitions it should give up.
    revoke_timeout: Duration,
    /// The next member id (unique within the process).
    next_id: AtomicU64,
}

#[derive(Debug, Default)]
struct State {
    groups: HashMap<String, Group>,
    /// The topics as last listed.
    topics: Vec<TopicInfo>,
    /// When they were listed.
    listed_at: Option<Instant>,
    /// The backend's created-topics counter at that time.
    created_seen: u64,
}

impl Coordinator {
    /// No groups yet; members get `revoke_timeout` to release revoked partitions.
    pub(super) fn new(revoke_timeout: Duration) -> Self {
        Self { state: Mutex::default(), revoke_timeout, next_id: AtomicU64::new(1) }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Lists the topics again when `force`, when the listing is older than
    /// [`TOPIC_REFRESH`] or when `created` (the backend's created-topics counter) moved,
    /// and rebalances every group if they changed.
    pub(super) async fn refresh(
        &self,
        backend: &EmbeddedBackend,
        created: u64,
        force: bool,
    ) -> Result<(), StoreError> {
        let now = Instant::now();
        {
            let mut state = self.state();
            let stale = state.listed_at.is_none_or(|at| now >= at + TOPIC_REFRESH);
            if !force && !stale && created == state.created_seen {
                return Ok(());
            }
            // Claimed: concurrent members do not list again meanwhile.
            state.listed_at = Some(now);
            state.created_seen = created;
        }
        let topics = backend.list_topics().await?;
        let mut state = self.state();
        if state.topics != topics {
            let State { groups, .. } = &mut *state;
            for group in groups.values_mut() {
                group.rebalance(&topics, now);
            }
            state.topics = topics;
        }
        Ok(())
    }

    /// Adds a member subscribed to `matcher` to `group`; returns its id and the group's
    /// change channel.
    pub(super) fn join(&self, group: &str, matcher: Arc<Matcher>) -> (u64, watch::Receiver<u64>) {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let mut state = self.state();
        let State { groups, topics, .. } = &mut *state;
        let entry =
            groups.entry(group.to_owned()).or_insert_with(|| Group::new(self.revoke_timeout));
        entry.join(id, matcher, topics, Instant::now());
        (id, entry.changes())
    }

    /// Removes member `id` from `group`; its partitions go to the others.
    pub(super) fn leave(&self, group: &str, id: u64) {
        let mut state = self.state();
        let State { groups, topics, .. } = &mut *state;
        if let Some(entry) = groups.get_mut(group) {
            entry.leave(id, topics, Instant::now());
            if entry.is_empty() {
                groups.remove(group);
            }
        }
    }

    /// Releases the partitions member `id` was told are revoked.
    pub(super) fn release(&self, group: &str, id: u64) {
        if let Some(entry) = self.state().groups.get_mut(group) {
            entry.release(id, Instant::now());
        }
    }

    /// What member `id` of `group` should report next.
    pub(super) fn step(&self, group: &str, id: u64) -> Step {
        match self.state().groups.get_mut(group) {
            Some(entry) => entry.step(id, group, Instant::now()),
            None => Step::Idle { retry_at: None },
        }
    }

    /// The partitions of `partitions` that member `id` does not hold.
    pub(super) fn not_held<'a>(
        &self,
        group: &str,
        id: u64,
        partitions: impl IntoIterator<Item = &'a TopicPartition>,
    ) -> Vec<TopicPartition> {
        let state = self.state();
        let entry = state.groups.get(group);
        partitions
            .into_iter()
            .filter(|tp| !entry.is_some_and(|g| g.holds(id, tp)))
            .cloned()
            .collect()
    }

    /// Whether `group` has members in this process.
    pub(super) fn has_members(&self, group: &str) -> bool {
        self.state().groups.get(group).is_some_and(|g| !g.is_empty())
    }
}
