//! The herder's access to the config topic: durable writes of [`ConfigRecord`]s (as futures
//! the write pipeline runs off the loop), and a follower task that reads every record, in
//! order, into a channel the herder drains.
//!
//! Under exactly-once source support (`preparing`, `enabled`) in a group, the leader's
//! privileged writes go through its [`LeaderWriter`] (transactions of its own producer);
//! every other write goes through the topic as before.
//!
//! The follower owns the reader, so no record is ever lost to a cancelled read. A sync
//! request makes it read to the end and then send a marker: once the herder has seen the
//! marker it has applied everything written before the request, its own writes included.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;

use super::leader_writer::LeaderWriter;
use crate::store::{
    ConfigRecord, LogEntry, LogReader, LogRecord, LogTopic, StoreError, oversized_config_record,
};

/// What the follower sends.
pub enum FollowerMsg {
    /// Records, in order.
    Entries(Vec<LogEntry>),
    /// Everything up to a sync request has been sent.
    Synced(u64),
    /// Reading failed; the follower retries.
    Error(StoreError),
}

/// How long one follower poll waits for new records.
const POLL: Duration = Duration::from_millis(100);

/// Writes to the config topic and requests syncs from its follower.
pub struct ConfigLog {
    topic: Arc<dyn LogTopic>,
    /// The leader's privileged writer, when the worker runs a transactional leader.
    leader: Option<LeaderWriter>,
    sync_tx: mpsc::UnboundedSender<u64>,
    next_sync: u64,
}

impl ConfigLog {
    /// Starts the follower on `reader` (positioned after the initial read).
    pub fn start(
        topic: Arc<dyn LogTopic>,
        mut reader: Box<dyn LogReader>,
    ) -> (Self, mpsc::UnboundedReceiver<FollowerMsg>) {
        let (tx, rx) = mpsc::unbounded_channel();
        let (sync_tx, mut sync_rx) = mpsc::unbounded_channel::<u64>();
        tokio::spawn(async move {
            loop {
                while let Ok(id) = sync_rx.try_recv() {
                    if !sync(reader.as_mut(), &tx, id).await {
                        return;
                    }
                }
                if tx.is_closed() {
                    return;
                }
                // A sync request ends the wait at once: the herder waits on it (a write's
                // read-back, a restart's answer), so it must not wait out the poll. A poll
                // cut short loses nothing: readers keep what they took for the next call.
                let polled = tokio::select! {
                    biased;
                    id = sync_rx.recv() => match id {
                        Some(id) if sync(reader.as_mut(), &tx, id).await => continue,
                        _ => return,
                    },
                    polled = reader.poll(POLL) => polled,
                };
                let msg = match polled {
                    Ok(e) if e.is_empty() => continue,
                    Ok(e) => FollowerMsg::Entries(e),
                    Err(e) => {
                        tokio::time::sleep(POLL).await;
                        FollowerMsg::Error(e)
                    }
                };
                if tx.send(msg).is_err() {
                    return;
                }
            }
        });
        (Self { topic, leader: None, sync_tx, next_sync: 0 }, rx)
    }

    /// Privileged writes go in transactions of the leader's producer while this worker
    /// leads the group `group_id` (its client id `client_id`).
    pub fn with_leader(mut self, group_id: &str, client_id: &str) -> Self {
        self.leader = Some(LeaderWriter::new(self.topic.clone(), group_id, client_id));
        self
    }

    /// This worker leads, or no longer does (see [`LeaderWriter::set_leading`]).
    pub fn set_leading(&self, leading: bool) {
        if let Some(leader) = &self.leader {
            leader.set_leading(leading);
        }
    }

    /// Appends records; the future, which borrows nothing, completes once they are
    /// durable (or the store gives up). The herder runs it off its loop. A record over
    /// [`MAX_CONFIG_RECORD_BYTES`](crate::store::MAX_CONFIG_RECORD_BYTES), on any backend,
    /// fails the write before anything of it is sent.
    pub fn write_owned(
        &self,
        records: Vec<ConfigRecord>,
    ) -> impl std::future::Future<Output = Result<(), StoreError>> + Send + 'static {
        let topic = self.topic.clone();
        let leader = self.leader.clone().filter(|l| l.takes(&records));
        let records: Vec<LogRecord> = records.iter().map(ConfigRecord::to_log_record).collect();
        let refused = records.iter().find_map(oversized_config_record);
        async move {
            match (refused, leader) {
                (Some(e), _) => Err(e),
                (None, Some(leader)) => leader.send(records).await,
                (None, None) => topic.send(records).await,
            }
        }
    }

    /// Asks the follower to read to the end; returns the id its marker will carry.
    pub fn request_sync(&mut self) -> u64 {
        self.next_sync += 1;
        let _ = self.sync_tx.send(self.next_sync);
        self.next_sync
    }
}

/// Reads to the end and sends what was read, then the marker `id`. `false` once the herder
/// is gone.
async fn sync(
    reader: &mut dyn LogReader,
    tx: &mpsc::UnboundedSender<FollowerMsg>,
    id: u64,
) -> bool {
    match reader.read_to_end().await {
        Ok(e) if e.is_empty() => {}
        Ok(e) => {
            if tx.send(FollowerMsg::Entries(e)).is_err() {
                return false;
            }
        }
        Err(e) => {
            let _ = tx.send(FollowerMsg::Error(e));
        }
    }
    tx.send(FollowerMsg::Synced(id)).is_ok()
}
