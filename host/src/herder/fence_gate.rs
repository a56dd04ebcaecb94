//! The tasks of an exactly-once source connector held back until the producers of its
//! previous task generation are fenced out (KIP-618), as Kafka Connect's
//! `DistributedHerder.startTask` runs `fenceZombieSourceTasks` before a task's producer
//! starts. A new generation (any task-config commit) leaves the connector pending fencing;
//! until the `tasks-fencing-<connector>` record is read, a start of one of its tasks here
//! asks for one round instead: the leader runs it itself (`fence`), a follower sends
//! `PUT /connectors/{name}/fence` to the leader. The record read back releases the tasks
//! (they start at the next reconcile); a round that failed fails the held tasks with the
//! reason, as Kafka Connect fails the task, and a restart asks again.
//!
//! Only in a group with `exactly.once.source.support=enabled`: standalone has no other
//! worker whose zombies could write, and its embedded store commits records and offsets in
//! one SQLite transaction. It owns this decision; the plan of a round and its execution on
//! the leader are `zombie_fencing` and `fence`.

use tokio::sync::oneshot;

use super::HerderError;
use super::actor::{Herder, Internal};
use super::fence_rounds::RoundError;
use super::reconcile::Action;
use crate::model::{InstanceId, PluginKind};

impl Herder {
    /// Whether the tasks of connector `name` must wait for a fencing round; asks for the
    /// round the first time for the current generation.
    pub(super) fn held_for_fencing(&mut self, name: &str) -> bool {
        if !self.settings.exactly_once_source_support.enabled() || self.fencing.is_none() {
            return false;
        }
        if !self.config.pending_fencing(name) {
            return false;
        }
        if self.info(name).and_then(|info| info.kind) != Some(PluginKind::Source) {
            return false;
        }
        let generation = self.config.task_config_generation(name);
        if self.fence_rounds.wanted(name, generation) {
            self.ask_fence_round(name, generation);
        }
        true
    }

    /// Asks for a round for `name`'s `generation`: runs it here on the leader, else sends
    /// it to the leader; the answer comes back as [`Internal::FenceRoundEnded`].
    fn ask_fence_round(&mut self, name: &str, generation: u64) {
        self.fence_rounds.asked(name, generation);
        let tx = self.internal_tx.clone();
        let connector = name.to_owned();
        if self.member.is_leader() {
            tracing::info!(connector = %name, "Fencing out zombie tasks before starting new ones");
            let (reply, answer) = oneshot::channel();
            self.fence_request(connector.clone(), reply);
            tokio::spawn(async move {
                let result = match answer.await {
                    Ok(Ok(())) => Ok(()),
                    Ok(Err(HerderError::Conflict(_))) => Err(RoundError::NewGeneration),
                    Ok(Err(e)) => Err(RoundError::Failed(e.to_string())),
                    Err(_) => Err(RoundError::Failed("the worker is stopping".to_owned())),
                };
                let _ = tx.send(Internal::FenceRoundEnded { connector, generation, result });
            });
            return;
        }
        let (Some(peers), Some(url)) = (self.peers.clone(), self.member.leader_url()) else {
            let result = Err(RoundError::Failed("the group's leader is not known".to_owned()));
            let _ = tx.send(Internal::FenceRoundEnded { connector, generation, result });
            return;
        };
        let url = url.to_owned();
        tracing::info!(connector = %name, leader = %url, "Asking the leader to fence out zombie tasks before starting new ones");
        tokio::spawn(async move {
            let key = peers.keyring.current();
            let result = match peers.client.fence_zombies(&url, &connector, key.as_ref()).await {
                Ok(()) => Ok(()),
                Err(e) if e.status() == 409 => Err(RoundError::NewGeneration),
                Err(e) => Err(RoundError::Failed(e.to_string())),
            };
            let _ = tx.send(Internal::FenceRoundEnded { connector, generation, result });
        });
    }

    /// A round asked for by this worker ended.
    pub(super) fn fence_round_ended(
        &mut self,
        name: String,
        generation: u64,
        result: Result<(), RoundError>,
    ) {
        if !self.fence_rounds.is_current(&name, generation) {
            return;
        }
        match result {
            Ok(()) => {
                tracing::info!(connector = %name, "Zombie tasks fenced out");
                self.fence_rounds.done(&name, generation);
            }
            Err(RoundError::NewGeneration) => {
                tracing::info!(connector = %name, "Zombie fencing gave way to newer task configs");
                self.fence_rounds.forget(&name);
            }
            Err(RoundError::Failed(e)) => {
                self.fence_rounds.forget(&name);
                let trace = format!(
                    "Failed to fence out the zombie tasks of connector {name} before starting \
                     its tasks: {e}"
                );
                tracing::error!(connector = %name, error = %e, "Zombie fencing failed");
                for id in self.held_tasks(&name) {
                    self.apply(Action::Fail { id, trace: trace.clone() });
                }
            }
        }
        self.dirty.insert(name);
    }

    /// The `tasks-fencing-<name>` record was read: its tasks may start.
    pub(super) fn task_count_recorded(&mut self, name: String) {
        self.fence_rounds.forget(&name);
        self.dirty.insert(name);
    }

    /// Tasks of `name` that this worker owns and would start, but does not run.
    fn held_tasks(&self, name: &str) -> Vec<InstanceId> {
        let count = self.config.task_configs(name).len() as u32;
        (0..count)
            .map(|t| InstanceId::Task(name.to_owned(), t))
            .filter(|id| {
                self.member.owns(&self.config, id)
                    && !self.instances.is_running(id)
                    && !self.instances.is_failed(id)
            })
            .collect()
    }
}
