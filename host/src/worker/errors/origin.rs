//! The task a failure is reported for, as the errors log and the dead letter queue's
//! context headers name it. A plain value.

/// The task a reporter works for, as logs and context headers name it.
pub(super) struct Origin {
    pub connector: String,
    pub task: u32,
    pub plugin: String,
}
