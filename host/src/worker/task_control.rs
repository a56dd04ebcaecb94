//! What a task's supervisor tells its data path and how a data path ends: the commands
//! (`Cmd`), their application to the task's target state, and the `Exit` a data path
//! returns. Shared by `task.rs`, `source_task.rs` and `sink_task.rs`; it runs nothing.

use tokio::sync::mpsc;

use crate::model::TargetState;

/// What the herder tells a running task.
pub(super) enum Cmd {
    /// Pause or resume.
    SetTarget(TargetState),
    /// Stop (commit what can be committed first).
    Stop,
}

/// Applies one command received (`None`: the handle was dropped): a target change goes
/// to `target`; `Some` when the task must stop.
pub(super) fn apply(command: Option<Cmd>, target: &mut TargetState) -> Option<Exit> {
    match command {
        Some(Cmd::SetTarget(t)) => {
            tracing::debug!(from = %target, to = %t, "Task target state changed");
            *target = t;
            None
        }
        Some(Cmd::Stop) => Some(Exit::Stopped),
        None => Some(Exit::Dropped),
    }
}

/// Applies every pending command without waiting; `Some` when the task must stop.
pub(super) fn drain(
    commands: &mut mpsc::UnboundedReceiver<Cmd>,
    target: &mut TargetState,
) -> Option<Exit> {
    loop {
        let command = match commands.try_recv() {
            Ok(command) => Some(command),
            Err(mpsc::error::TryRecvError::Empty) => return None,
            Err(mpsc::error::TryRecvError::Disconnected) => None,
        };
        if let Some(exit) = apply(command, target) {
            return Some(exit);
        }
    }
}

/// How a task's data path ended.
pub(super) enum Exit {
    /// Stopped on request.
    Stopped,
    /// The handle was dropped (the herder replaced or abandoned the task): nothing to report.
    Dropped,
    /// Failed, with this trace.
    Failed(String),
}
