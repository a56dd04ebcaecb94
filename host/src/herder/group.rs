//! The herder's side of distributed mode: what it does when the member loop reports a
//! rebalance, a lost membership or a needed rejoin, and what it tells the member loop
//! (the [`ConfigView`] the leader assigns from, rejoin requests).
//!
//! A completed rebalance is accepted only once the config topic has been read at least as
//! far as the assignment's offset; revoked work is stopped before the second cooperative
//! round is requested; a lost membership stops everything, so no zombie keeps working. A
//! fatal report (the brokers refused the login or a certificate) stops everything too,
//! ends the link and is published for the process to exit ([`HerderHandle::fatal`]).
//! Owns no connection: [`GroupLink`] only holds the member loop's handle and channels.
//!
//! [`HerderHandle::fatal`]: super::HerderHandle::fatal

use std::collections::BTreeMap;

use tokio::sync::{mpsc, watch};
use wasm_connect_group::{
    Allocation, Assigned, AssignmentError, ConfigView, GroupEvent, GroupMember, MemberHandle,
    MemberSettings,
};

use super::actor::Herder;
use super::membership::{allocates, instances};
use super::writes::AfterSync;
use crate::model::TargetState;
use crate::store::ConfigState;

/// How this worker takes part in the cluster.
// Built once per process and moved into the herder: the group variant's size is no cost.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum MemberSpec {
    /// A group of one (standalone mode): leads and runs everything.
    Single {
        /// `host:port` written into statuses.
        worker_id: String,
        /// Advertised REST URL.
        url: String,
    },
    /// One member of a Kafka group (distributed mode).
    Group {
        /// `host:port` written into statuses.
        worker_id: String,
        /// How to join (the advertised REST URL is `settings.url`).
        settings: MemberSettings,
        /// How to reach the other workers.
        peers: super::Peers,
    },
}

/// The herder's link to the member loop.
pub(super) struct GroupLink {
    pub handle: MemberHandle,
    pub events: mpsc::UnboundedReceiver<GroupEvent>,
    view: watch::Sender<ConfigView>,
    /// A rebalance is under way or needed: requests that need the leader or a stable
    /// assignment wait ([`super::gate`]).
    pub pending: bool,
    /// Revoked work still stopping; the next round is requested once it has stopped.
    revoking: Option<Allocation>,
    /// Where a fatal report's reason goes, for the process to exit.
    fatal: watch::Sender<Option<String>>,
}

impl GroupLink {
    /// Starts the member loop with the config read so far; a fatal report's reason will
    /// be sent to `fatal`.
    pub fn start(
        settings: MemberSettings,
        view: ConfigView,
        fatal: watch::Sender<Option<String>>,
    ) -> Self {
        let (view_tx, view_rx) = watch::channel(view);
        let (handle, events) = GroupMember::spawn(settings, view_rx);
        Self { handle, events, view: view_tx, pending: true, revoking: None, fatal }
    }
}

/// The leader's input: every connector with its committed task count (none while
/// STOPPED), and how far the config topic has been read.
pub(super) fn config_view(config: &ConfigState, offset: i64) -> ConfigView {
    let connectors: BTreeMap<String, u32> = config
        .connectors()
        .map(|name| {
            let tasks = if config.target_state(name) == TargetState::Stopped {
                0
            } else {
                config.task_configs(name).len() as u32
            };
            (name.to_owned(), tasks)
        })
        .collect();
    ConfigView { offset, connectors }
}

impl Herder {
    /// Publishes the config view to the member loop. When the connectors or their task
    /// counts changed, the group must rebalance: asks for a rejoin.
    pub(super) fn publish_view(&mut self) {
        let view = config_view(&self.config, self.config_offset);
        let Some(link) = self.group.as_mut() else { return };
        let mut changed = false;
        link.view.send_if_modified(|old| {
            changed = old.connectors != view.connectors;
            let modified = *old != view;
            *old = view;
            modified
        });
        if changed {
            self.request_rebalance("the connectors or their task configs changed");
        }
    }

    /// Asks the member loop for a rebalance; requests that need it wait meanwhile.
    pub(super) fn request_rebalance(&mut self, reason: &str) {
        if let Some(link) = self.group.as_mut() {
            tracing::debug!(reason, "Requesting a rebalance");
            link.pending = true;
            link.handle.rejoin(reason);
        }
    }

    /// Whether a rebalance is under way or needed.
    pub(super) fn rebalance_pending(&self) -> bool {
        self.group.as_ref().is_some_and(|l| l.pending)
    }

    /// Handles one report of the member loop.
    pub(super) fn group_event(&mut self, event: GroupEvent) {
        match event {
            GroupEvent::Rebalancing => {
                if let Some(link) = self.group.as_mut() {
                    link.pending = true;
                }
            }
            GroupEvent::Lost { reason } => {
                tracing::warn!(reason = %reason, "Lost group membership; stopping every connector and task here");
                self.lose_membership();
            }
            GroupEvent::Fatal { reason } => {
                tracing::error!(reason = %reason, "Cannot stay in the group; stopping every connector and task here");
                self.lose_membership();
                // The member loop has ended: no more events, and no second report of it.
                if let Some(link) = self.group.take() {
                    link.fatal.send_replace(Some(reason));
                }
            }
            GroupEvent::Assigned(a) => self.assigned(a),
        }
    }

    /// Nothing runs here as far as the group is concerned: stops everything.
    fn lose_membership(&mut self) {
        self.member.lost();
        if let Some(link) = self.group.as_mut() {
            link.pending = true;
            link.revoking = None;
        }
        // Whatever is assigned here next starts afresh, failed instances included.
        self.forget_failures(|_| true);
        self.mark_all_dirty();
    }

    fn assigned(&mut self, a: Assigned) {
        if a.error == AssignmentError::ConfigMismatch || self.config_offset < a.config_offset {
            // Catch up before accepting: the assignment was computed from configs this
            // worker has not read yet. The loop goes on meanwhile.
            self.after_sync(AfterSync::Assigned(a));
        } else {
            self.assigned_caught_up(a);
        }
    }

    /// Accepts an assignment once the config topic has been read as far as possible.
    pub(super) fn assigned_caught_up(&mut self, a: Assigned) {
        if a.error == AssignmentError::ConfigMismatch || self.config_offset < a.config_offset {
            self.publish_view();
        }
        if a.error == AssignmentError::ConfigMismatch {
            tracing::info!("The leader was behind the config topic; rejoining");
            self.request_rebalance("the leader could not read the latest configs");
            return;
        }
        if self.config_offset < a.config_offset {
            tracing::warn!(
                read = self.config_offset,
                assignment = a.config_offset,
                "Still behind the assignment's config offset; rejoining"
            );
        }
        tracing::info!(
            generation = a.generation,
            leader = a.is_leader,
            leader_url = %a.leader_url,
            assigned_connectors = a.assigned.connectors.len(),
            assigned_tasks = a.assigned.tasks.len(),
            revoked_connectors = a.revoked.connectors.len(),
            revoked_tasks = a.revoked.tasks.len(),
            delay_ms = a.delay.as_millis() as u64,
            "Rebalance completed"
        );
        self.member.assigned(&a);
        // A revoked instance that failed here starts afresh wherever it goes next, here too.
        let gone = &a.revoked;
        self.forget_failures(|id| allocates(gone, id));
        let revoked = !(a.revoked.connectors.is_empty() && a.revoked.tasks.is_empty());
        // Revoked work still runs here, so marking everything known or running covers it.
        self.mark_all_dirty();
        let behind = self.config_offset < a.config_offset;
        if let Some(link) = self.group.as_mut() {
            link.pending = revoked || behind;
            link.revoking = revoked.then_some(a.revoked);
        }
        if behind {
            self.request_rebalance("this worker is behind the config topic");
        }
        if self.member.is_leader() {
            self.leader_duties();
        }
    }

    /// Once revoked work has stopped, asks for the second cooperative round, in which the
    /// leader hands it to other workers.
    pub(super) fn finish_revocation(&mut self) {
        let Some(link) = self.group.as_ref() else { return };
        let Some(revoked) = &link.revoking else { return };
        let stopping = instances(revoked).any(|id| self.instances.is_running(&id));
        if !stopping {
            if let Some(link) = self.group.as_mut() {
                link.revoking = None;
            }
            self.request_rebalance("revoked connectors and tasks have stopped");
        }
    }

    /// Marks every connector known or running here for reconciliation.
    pub(super) fn mark_all_dirty(&mut self) {
        let names: Vec<String> = self
            .config
            .connectors()
            .map(str::to_owned)
            .chain(self.instances.connectors())
            .collect();
        self.dirty.extend(names);
    }

    /// What the leader does after each rebalance: makes sure a valid session key is in
    /// the config topic.
    fn leader_duties(&mut self) {
        self.rotate_session_key();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Properties;
    use crate::store::ConfigRecord;

    fn connector(state: &mut ConfigState, name: &str, tasks: u32, target: TargetState) {
        let config = Properties::from([("connector.class".to_string(), "X".to_string())]);
        state.apply(ConfigRecord::Connector { name: name.into(), config: Some(config) });
        for task in 0..tasks {
            let config = Some(Properties::new());
            state.apply(ConfigRecord::Task { connector: name.into(), task, config });
        }
        state.apply(ConfigRecord::Commit { connector: name.into(), tasks });
        state.apply(ConfigRecord::TargetState { connector: name.into(), state: Some(target) });
    }

    #[test]
    fn the_view_lists_every_connector_with_its_tasks_and_none_while_stopped() {
        let mut state = ConfigState::default();
        connector(&mut state, "running", 3, TargetState::Started);
        connector(&mut state, "paused", 2, TargetState::Paused);
        connector(&mut state, "stopped", 0, TargetState::Stopped);
        let view = config_view(&state, 42);
        assert_eq!(view.offset, 42);
        let expected = [("paused", 2), ("running", 3), ("stopped", 0)];
        assert_eq!(view.connectors, expected.map(|(n, t)| (n.to_string(), t)).into());
    }
}
