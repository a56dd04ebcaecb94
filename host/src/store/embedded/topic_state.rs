//! [`TopicState`]: what every handle and reader of one embedded topic in this process
//! shares: its row and the channel that wakes readers after a write. No SQL here.

use tokio::sync::watch;

use super::writer::TopicRow;

/// What the handles and readers of one topic share within this process.
#[derive(Debug)]
pub(super) struct TopicState {
    /// Topic name.
    pub(super) name: String,
    /// The topic as the database remembers it.
    pub(super) row: TopicRow,
    /// Bumped after every committed write of this process, to wake its readers.
    pub(super) appended: watch::Sender<u64>,
}

impl TopicState {
    /// The state of topic `name`, stored as `row`.
    pub(super) fn new(name: String, row: TopicRow) -> Self {
        Self { name, row, appended: watch::channel(0).0 }
    }
}
