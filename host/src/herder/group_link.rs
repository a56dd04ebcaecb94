//! The herder's link to the group member loop (distributed mode): the loop's handle and
//! reports, the [`ConfigView`] the leader assigns from, whether a rebalance is under way,
//! and the revoked work still stopping.
//!
//! Owns no connection and decides nothing: the herder's handling of the reports is `group`,
//! which tells the link what it learned through these methods.

use std::collections::BTreeMap;

use tokio::sync::{mpsc, watch};
use wasm_connect_group::{
    Allocation, ConfigView, GroupEvent, GroupMember, MemberHandle, MemberSettings,
};

use crate::model::TargetState;
use crate::store::ConfigState;

/// The herder's link to the member loop.
pub(super) struct GroupLink {
    handle: MemberHandle,
    events: mpsc::UnboundedReceiver<GroupEvent>,
    view: watch::Sender<ConfigView>,
    /// A rebalance is under way or needed: requests that need the leader or a stable
    /// assignment wait (`gate`).
    pending: bool,
    /// Revoked work still stopping; the next round is requested once it has stopped.
    revoking: Option<Allocation>,
}

impl GroupLink {
    /// Starts the member loop with the config read so far.
    pub fn start(settings: MemberSettings, view: ConfigView) -> Self {
        let (view_tx, view_rx) = watch::channel(view);
        let (handle, events) = GroupMember::spawn(settings, view_rx);
        Self { handle, events, view: view_tx, pending: true, revoking: None }
    }

    /// The member loop's next report; `None` once it has ended.
    pub async fn next_event(&mut self) -> Option<GroupEvent> {
        self.events.recv().await
    }

    /// Whether a rebalance is under way or needed.
    pub fn pending(&self) -> bool {
        self.pending
    }

    /// A rebalance has begun (or is needed, the membership being lost).
    pub fn rebalancing(&mut self) {
        self.pending = true;
    }

    /// Asks the member loop for a rebalance.
    pub fn rejoin(&mut self, reason: &str) {
        self.pending = true;
        self.handle.rejoin(reason);
    }

    /// Publishes `view` to the member loop. Returns whether the connectors or their task
    /// counts changed (the group must then rebalance).
    pub fn publish(&mut self, view: ConfigView) -> bool {
        let mut changed = false;
        self.view.send_if_modified(|old| {
            changed = old.connectors != view.connectors;
            let modified = *old != view;
            *old = view;
            modified
        });
        changed
    }

    /// The membership was lost: a rebalance is needed and nothing is being revoked.
    pub fn lost(&mut self) {
        self.pending = true;
        self.revoking = None;
    }

    /// A rebalance completed: `revoked` work (if any) still has to stop, and a rebalance
    /// stays pending while it does or while this worker is `behind` the config topic.
    pub fn completed(&mut self, revoked: Option<Allocation>, behind: bool) {
        self.pending = revoked.is_some() || behind;
        self.revoking = revoked;
    }

    /// The revoked work still stopping, if any.
    pub fn revoking(&self) -> Option<&Allocation> {
        self.revoking.as_ref()
    }

    /// The revoked work has stopped.
    pub fn revoked(&mut self) {
        self.revoking = None;
    }

    /// Sends no JoinGroup any more (shutdown): the group is left once, later.
    pub fn stop_joining(&mut self) {
        self.handle.stop_joining();
    }

    /// Leaves the group.
    pub async fn leave(self) {
        self.handle.leave().await;
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
