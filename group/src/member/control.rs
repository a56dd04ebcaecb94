//! The member loop's inputs besides the broker: commands from the handles and the
//! events receiver's liveness.
//!
//! [`Control`] runs each step of the loop (a request, a wait) while listening to them, so
//! a JoinGroup that the broker holds for a whole rebalance timeout never delays a leave.
//! It records rejoin requests and the reason to stop; it decides nothing else.

use std::future::Future;
use std::pin::pin;

use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

use super::{GroupEvent, MemberCommand};

/// Why the loop stops.
#[derive(Debug)]
pub(super) enum Stop {
    /// [`super::MemberHandle::leave`]: answer once left.
    Leave(oneshot::Sender<()>),
    /// Nobody reads the events any more.
    EventsDropped,
}

/// What ended a wait.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Wake {
    /// The deadline passed.
    Deadline,
    /// A rejoin was requested (its reason is in [`Control::take_rejoin`]).
    Rejoin,
    /// Joining was stopped ([`Control::joining_stopped`]).
    JoiningStopped,
}

/// The commands receiver and the events sender's liveness.
#[derive(Debug)]
pub(super) struct Control {
    commands: mpsc::UnboundedReceiver<MemberCommand>,
    /// Every handle dropped: nothing more will come, and `recv` must not be polled again.
    commands_closed: bool,
    events: mpsc::UnboundedSender<GroupEvent>,
    rejoin: Option<String>,
    /// [`super::MemberHandle::stop_joining`] was called.
    joining_stopped: bool,
    stop: Option<Stop>,
}

impl Control {
    /// Listens to `commands` and watches `events` for its receiver being dropped.
    pub(super) fn new(
        commands: mpsc::UnboundedReceiver<MemberCommand>,
        events: mpsc::UnboundedSender<GroupEvent>,
    ) -> Self {
        Self {
            commands,
            commands_closed: false,
            events,
            rejoin: None,
            joining_stopped: false,
            stop: None,
        }
    }

    /// Runs `step` to completion unless the loop must stop first (`None`; `step` is
    /// dropped). Rejoin requests meanwhile are recorded.
    pub(super) async fn guard<F: Future>(&mut self, step: F) -> Option<F::Output> {
        let mut step = pin!(step);
        loop {
            tokio::select! {
                biased;
                () = self.events.closed() => {
                    self.stop.get_or_insert(Stop::EventsDropped);
                    return None;
                }
                command = self.commands.recv(), if !self.commands_closed => {
                    if self.on_command(command) {
                        return None;
                    }
                }
                output = &mut step => return Some(output),
            }
        }
    }

    /// Waits until `deadline` (forever if `None`); with `wake_on_rejoin`, a rejoin request
    /// ends the wait early, and a [`super::MemberHandle::stop_joining`] always does.
    /// `None` when the loop must stop.
    pub(super) async fn sleep_until(
        &mut self,
        deadline: Option<Instant>,
        wake_on_rejoin: bool,
    ) -> Option<Wake> {
        if wake_on_rejoin && self.rejoin.is_some() {
            return Some(Wake::Rejoin);
        }
        let sleep = async {
            match deadline {
                Some(deadline) => tokio::time::sleep_until(deadline).await,
                None => std::future::pending().await,
            }
        };
        let mut sleep = pin!(sleep);
        loop {
            tokio::select! {
                biased;
                () = self.events.closed() => {
                    self.stop.get_or_insert(Stop::EventsDropped);
                    return None;
                }
                command = self.commands.recv(), if !self.commands_closed => {
                    let was_joining = !self.joining_stopped;
                    if self.on_command(command) {
                        return None;
                    }
                    if was_joining && self.joining_stopped {
                        return Some(Wake::JoiningStopped);
                    }
                    if wake_on_rejoin && self.rejoin.is_some() {
                        return Some(Wake::Rejoin);
                    }
                }
                () = &mut sleep => return Some(Wake::Deadline),
            }
        }
    }

    /// The pending rejoin request's reason, if any, clearing it.
    pub(super) fn take_rejoin(&mut self) -> Option<String> {
        self.rejoin.take()
    }

    /// Whether [`super::MemberHandle::stop_joining`] was called: no JoinGroup any more.
    pub(super) fn joining_stopped(&self) -> bool {
        self.joining_stopped
    }

    /// Why the loop stops (`None` when [`Control::guard`] or [`Control::sleep_until`] has
    /// not returned `None`).
    pub(super) fn take_stop(&mut self) -> Option<Stop> {
        self.stop.take()
    }

    /// Records a command; true when it stops the loop.
    fn on_command(&mut self, command: Option<MemberCommand>) -> bool {
        match command {
            None => {
                self.commands_closed = true;
                false
            }
            Some(MemberCommand::Rejoin(reason)) => {
                self.rejoin.get_or_insert(reason);
                false
            }
            Some(MemberCommand::StopJoining) => {
                self.joining_stopped = true;
                false
            }
            Some(MemberCommand::Leave(reply)) => {
                self.stop = Some(Stop::Leave(reply));
                true
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn control()
    -> (Control, mpsc::UnboundedSender<MemberCommand>, mpsc::UnboundedReceiver<GroupEvent>) {
        let (commands_tx, commands) = mpsc::unbounded_channel();
        let (events_tx, events) = mpsc::unbounded_channel();
        (Control::new(commands, events_tx), commands_tx, events)
    }

    #[tokio::test(start_paused = true)]
    async fn leave_interrupts_a_step_the_broker_holds() {
        let (mut control, commands, _events) = control();
        let (reply, _answered) = oneshot::channel();
        commands.send(MemberCommand::Rejoin("first".to_owned())).unwrap();
        commands.send(MemberCommand::Leave(reply)).unwrap();
        let held = tokio::time::sleep(Duration::from_secs(3600));
        assert!(control.guard(held).await.is_none());
        assert!(matches!(control.take_stop(), Some(Stop::Leave(_))));
        assert_eq!(control.take_rejoin().as_deref(), Some("first"));
    }

    #[tokio::test(start_paused = true)]
    async fn a_step_completes_and_rejoins_are_kept_for_later() {
        let (mut control, commands, _events) = control();
        commands.send(MemberCommand::Rejoin("new connectors".to_owned())).unwrap();
        commands.send(MemberCommand::Rejoin("again".to_owned())).unwrap();
        let step = async {
            tokio::time::sleep(Duration::from_secs(1)).await;
            7
        };
        assert_eq!(control.guard(step).await, Some(7));
        assert_eq!(control.take_rejoin().as_deref(), Some("new connectors"));
        assert_eq!(control.take_rejoin(), None);
    }

    #[tokio::test(start_paused = true)]
    async fn sleep_wakes_on_rejoin_only_when_asked() {
        let (mut control, commands, _events) = control();
        commands.send(MemberCommand::Rejoin("r".to_owned())).unwrap();
        let deadline = Some(Instant::now() + Duration::from_secs(1));
        assert_eq!(control.sleep_until(deadline, false).await, Some(Wake::Deadline));
        assert_eq!(control.sleep_until(None, true).await, Some(Wake::Rejoin));
    }

    #[tokio::test(start_paused = true)]
    async fn stop_joining_ends_a_wait_once_and_a_leave_still_stops() {
        let (mut control, commands, _events) = control();
        assert!(!control.joining_stopped());
        commands.send(MemberCommand::StopJoining).unwrap();
        let later = Some(Instant::now() + Duration::from_secs(3600));
        assert_eq!(control.sleep_until(later, false).await, Some(Wake::JoiningStopped));
        assert!(control.joining_stopped());
        commands.send(MemberCommand::StopJoining).unwrap();
        let soon = Some(Instant::now() + Duration::from_secs(1));
        assert_eq!(control.sleep_until(soon, false).await, Some(Wake::Deadline));
        let (reply, _answered) = oneshot::channel();
        commands.send(MemberCommand::Leave(reply)).unwrap();
        assert!(control.sleep_until(None, false).await.is_none());
        assert!(matches!(control.take_stop(), Some(Stop::Leave(_))));
    }

    #[tokio::test(start_paused = true)]
    async fn dropped_events_receiver_stops_and_dropped_handles_do_not() {
        let (mut control, commands, events) = control();
        drop(commands);
        let deadline = Some(Instant::now() + Duration::from_secs(1));
        assert_eq!(control.sleep_until(deadline, true).await, Some(Wake::Deadline));
        drop(events);
        assert!(control.sleep_until(None, true).await.is_none());
        assert!(matches!(control.take_stop(), Some(Stop::EventsDropped)));
    }
}
