//! [`DataChanges`]: what a `watch` channel of the backend tells waiting data readers
//! (consumers) about this process's writes: a counter per topic bumped by each committed
//! append, and a counter of created topics.
//!
//! Readers compare the counters of the topics they read with the ones they last saw, so
//! a write to another topic wakes them without making them query the database. It knows
//! nothing of the database; writes of another process never show here.

use std::collections::HashMap;

use tokio::sync::watch;

/// Counters of this process's data writes, as seen through
/// [`EmbeddedBackend::data_changes`](super::EmbeddedBackend::data_changes).
#[derive(Clone, Debug, Default)]
pub struct DataChanges {
    /// Committed appends per topic.
    appended: HashMap<String, u64>,
    /// Topics created.
    created: u64,
}

impl DataChanges {
    /// How many appends to `topic` were committed (a counter; only changes matter).
    pub fn appended(&self, topic: &str) -> u64 {
        self.appended.get(topic).copied().unwrap_or(0)
    }

    /// How many topics were created (a counter; only changes matter).
    pub fn topics_created(&self) -> u64 {
        self.created
    }
}

/// Records a committed append to `topics` and the creation of `created` topics, waking
/// every receiver.
pub(super) fn notify<'a>(
    changes: &watch::Sender<DataChanges>,
    topics: impl IntoIterator<Item = &'a str>,
    created: usize,
) {
    changes.send_modify(|changes| {
        for topic in topics {
            match changes.appended.get_mut(topic) {
                Some(count) => *count += 1,
                None => {
                    changes.appended.insert(topic.to_owned(), 1);
                }
            }
        }
        changes.created += created as u64;
    });
}
