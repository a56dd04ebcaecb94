//! The herder's side of distributed mode: what it does when the member loop reports a
//! rebalance, a lost membership or a needed rejoin, and what it tells the member loop
//! (the `ConfigView` the leader assigns from, rejoin requests).
//!
//! A completed rebalance is accepted only once the config topic has been read at least as
//! far as the assignment's offset; revoked work is stopped before the second cooperative
//! round is requested; a lost membership stops everything, so no zombie keeps working. A
//! fatal report (the brokers refused the login or a certificate) stops everything too,
//! ends the link and is published for the process to exit ([`HerderHandle::fatal`]).
//! Owns no state of its own: the link's is `group_link`'s, the herder's the actor's.
//!
//! [`HerderHandle::fatal`]: super::HerderHandle::fatal

use wasm_connect_group::{Assigned, AssignmentError, GroupEvent};

use super::actor::Herder;
use super::group_link::{GroupLink, config_view};
use super::membership::{allocates, instances};
use super::writes::AfterSync;

impl Herder {
    /// Publishes the config view to the member loop. When the connectors or their task
    /// counts changed, the group must rebalance: asks for a rejoin.
    pub(super) fn publish_view(&mut self) {
        let view = config_view(&self.config, self.config_offset);
        let Some(link) = self.group.as_mut() else { return };
        if link.publish(view) {
            self.request_rebalance("the connectors or their task configs changed");
        }
    }

    /// Asks the member loop for a rebalance; requests that need it wait meanwhile.
    pub(super) fn request_rebalance(&mut self, reason: &str) {
        if let Some(link) = self.group.as_mut() {
            tracing::debug!(reason, "Requesting a rebalance");
            link.rejoin(reason);
        }
    }

    /// Whether a rebalance is under way or needed.
    pub(super) fn rebalance_pending(&self) -> bool {
        self.group.as_ref().is_some_and(GroupLink::pending)
    }

    /// Handles one report of the member loop.
    pub(super) fn group_event(&mut self, event: GroupEvent) {
        match event {
            GroupEvent::Rebalancing => {
                if let Some(link) = self.group.as_mut() {
                    link.rebalancing();
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
                self.group = None;
                self.fail(format!("cannot stay in the group: {reason}"));
            }
            GroupEvent::Assigned(a) => self.assigned(a),
        }
    }

    /// Nothing runs here as far as the group is concerned: stops everything.
    fn lose_membership(&mut self) {
        self.member.lost();
        if let Some(link) = self.group.as_mut() {
            link.lost();
        }
        // Whatever is assigned here next starts afresh, failed instances included.
        self.forget_failures(|_| true);
        self.mark_all_dirty();
    }

    fn assigned(&mut self, a: Assigned) {
        if a.error == AssignmentError::ConfigMismatch || self.config_offset < a.config_offset {
            // Catch up before accepting: the assignment was computed from configs this
            // worker has not read yet. The loop goes on meanwhile.
            self.writes.after_sync(AfterSync::Assigned(a));
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
        // The leader claims its write privileges on the config topic (KIP-618).
        self.writes.set_leading(self.member.is_leader());
        // A revoked instance that failed here starts afresh wherever it goes next, here too.
        let gone = &a.revoked;
        self.forget_failures(|id| allocates(gone, id));
        let revoked = !(a.revoked.connectors.is_empty() && a.revoked.tasks.is_empty());
        // Revoked work still runs here, so marking everything known or running covers it.
        self.mark_all_dirty();
        let behind = self.config_offset < a.config_offset;
        if let Some(link) = self.group.as_mut() {
            link.completed(revoked.then_some(a.revoked), behind);
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
        let Some(revoked) = self.group.as_ref().and_then(GroupLink::revoking) else { return };
        let stopping = instances(revoked).any(|id| self.instances.is_running(&id));
        if !stopping {
            if let Some(link) = self.group.as_mut() {
                link.revoked();
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
