//! The herder's shutdown: its deadlines, the last steps after the instances have stopped
//! (the statuses written, the group left), and the lines that say what could not be
//! completed. Every step is bounded, so a shutdown ends even with the broker gone.
//!
//! The bounds are Kafka Connect's ([`ShutdownTimeouts`]): the instances get
//! `task.shutdown.graceful.timeout.ms` plus the connectors' 5 s from the moment shutdown
//! begins, and are abandoned after it; the whole stop ends within Kafka Connect's herder
//! stop timeout (`worker.sync.timeout.ms` + `task.shutdown.graceful.timeout.ms` + 5 s +
//! 10 s), which bounds the status flush and then the leave (each given at least 1 s). The
//! statuses are flushed before the group is left, as before this bound: otherwise a new
//! owner could write RUNNING before this worker's last UNASSIGNED, which would then win.
//! What did not complete is logged once each, and the stop goes on.
//!
//! Owns the deadlines and the reply to the shutdown request; it decides nothing about
//! instances (the loop stops them) and must not retry.

use std::time::Duration;

use tokio::sync::oneshot;
use tokio::time::Instant;

use super::group_link::GroupLink;
use crate::model::InstanceId;
use crate::store::StatusStore;

/// Kafka Connect's `Worker.CONNECTOR_GRACEFUL_SHUTDOWN_TIMEOUT_MS`: how long a connector
/// instance may take to stop.
pub const CONNECTOR_SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(5);

/// The margin Kafka Connect's herder stop timeout adds to the steps it bounds
/// (`DistributedHerder.herderExecutorTimeoutMs`).
const STOP_MARGIN: Duration = Duration::from_secs(10);

/// The least time the statuses and the leave are given, even when stopping the instances
/// took the whole budget: a healthy broker answers well within it.
const LAST_STEPS_FLOOR: Duration = Duration::from_secs(1);

/// How long each step of a shutdown may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShutdownTimeouts {
    /// `task.shutdown.graceful.timeout.ms`: tasks, all together.
    pub tasks: Duration,
    /// `worker.sync.timeout.ms` in distributed mode (zero in standalone mode, which has
    /// no group to sync with).
    pub worker_sync: Duration,
}

impl ShutdownTimeouts {
    /// The bounds for `task.shutdown.graceful.timeout.ms` and `worker.sync.timeout.ms`.
    pub fn new(tasks: Duration, worker_sync: Duration) -> Self {
        Self { tasks, worker_sync }
    }

    /// How long the instances may take to stop: the tasks' graceful timeout, then the
    /// connectors' (Kafka Connect stops tasks, then connectors, each within its own).
    pub fn instances(&self) -> Duration {
        self.tasks + CONNECTOR_SHUTDOWN_TIMEOUT
    }

    /// The whole stop, Kafka Connect's herder stop timeout: `worker.sync.timeout.ms` +
    /// `task.shutdown.graceful.timeout.ms` + 5 s + 10 s.
    pub fn herder(&self) -> Duration {
        self.worker_sync + self.instances() + STOP_MARGIN
    }
}

impl Default for ShutdownTimeouts {
    /// Kafka Connect's defaults: 5 s for tasks, 3 s of worker sync.
    fn default() -> Self {
        Self::new(Duration::from_secs(5), Duration::from_secs(3))
    }
}

/// A shutdown under way.
pub(super) struct Shutdown {
    /// Answered once the herder has stopped.
    done: Option<oneshot::Sender<()>>,
    began: Instant,
    timeouts: ShutdownTimeouts,
    /// Whether instances were abandoned.
    abandoned: bool,
}

impl Shutdown {
    /// A shutdown beginning now; `done` is answered at its end.
    pub fn begin(timeouts: ShutdownTimeouts, done: Option<oneshot::Sender<()>>) -> Self {
        tracing::info!(
            instances_within = ?timeouts.instances(),
            herder_within = ?timeouts.herder(),
            "Herder shutting down"
        );
        Self { done, began: Instant::now(), timeouts, abandoned: false }
    }

    /// When instances still running are abandoned.
    pub fn instances_due(&self) -> Instant {
        self.began + self.timeouts.instances()
    }

    /// Whether the instances' time is up.
    pub fn instances_overdue(&self, now: Instant) -> bool {
        now >= self.instances_due()
    }

    /// Logs, once, the instances that did not stop in time; the loop then ends without
    /// them (their handles are dropped, and they end on their own or with the process).
    pub fn abandon<'a>(&mut self, running: impl IntoIterator<Item = &'a InstanceId>) {
        let running: Vec<String> = running.into_iter().map(ToString::to_string).collect();
        if running.is_empty() || self.abandoned {
            return;
        }
        self.abandoned = true;
        tracing::warn!(
            instances = %running.join(", "),
            timeout = ?self.timeouts.instances(),
            "Could not stop {} instances within task.shutdown.graceful.timeout.ms plus the \
             connectors' 5 s; abandoning them",
            running.len()
        );
    }

    /// The last steps, each bounded by what is left of the herder's stop timeout (at least
    /// [`LAST_STEPS_FLOOR`]): the statuses written so far reach the status topic, then the
    /// group is left (LeaveGroup, once), so that the instances' new owners write their
    /// statuses after this worker's last ones. Logs what could not be completed, then
    /// answers the shutdown request.
    pub async fn finish(mut self, status: &StatusStore, group: Option<GroupLink>) {
        let end = self.began + self.timeouts.herder();
        let left = end.saturating_duration_since(Instant::now()).max(LAST_STEPS_FLOOR);
        if let Err(unwritten) = status.flush_within(left).await {
            tracing::warn!(
                records = unwritten.records,
                error = %unwritten.reason,
                "Could not write {} statuses before shutdown: {}",
                unwritten.records,
                unwritten.reason
            );
        }
        if let Some(link) = group {
            let left = end.saturating_duration_since(Instant::now()).max(LAST_STEPS_FLOOR);
            if tokio::time::timeout(left, link.leave()).await.is_err() {
                tracing::warn!(timeout = ?left, "Could not leave the group before shutdown");
            }
        }
        tracing::info!(took = ?self.began.elapsed(), "Herder stopped");
        if let Some(done) = self.done.take() {
            let _ = done.send(());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bounds_are_kafka_connects() {
        let t = ShutdownTimeouts::default();
        assert_eq!(t.instances(), Duration::from_secs(10));
        // DistributedHerder.herderExecutorTimeoutMs with the defaults.
        assert_eq!(t.herder(), Duration::from_secs(23));
        let standalone = ShutdownTimeouts::new(Duration::from_secs(2), Duration::ZERO);
        assert_eq!(standalone.herder(), Duration::from_secs(17));
    }
}
