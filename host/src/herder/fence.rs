//! A zombie fencing round (KIP-618) executed by the leader, as Kafka Connect's
//! `DistributedHerder.fenceZombieSourceTasks`: refused unless exactly-once source support is
//! enabled and the connector is a known source; planned (`zombie_fencing`) once the config
//! topic is read to its end; the producers fenced off the loop (`fence_producers`); then,
//! unless new task configs were committed meanwhile, the task-count record written and the
//! request answered once it is read back.
//!
//! One round per connector at a time: a request that comes while one runs (every worker
//! holding a task of the new generation asks) joins it and gets its answer; one planned for
//! a newer generation is answered as a new generation is (the asker asks again). A second
//! round started beside the first would fence, after the first released the new tasks, the
//! producers those tasks had just registered.

use super::HerderError;
use super::actor::{Herder, Internal};
use super::command::Reply;
use super::writes::{AfterSync, Then, Write};
use super::zombie_fencing::{ZombieFencing, check};

/// Kafka Connect's answer when task configs of a new generation came during the fencing.
const NEW_GENERATION: &str =
    "Fencing failed because new task configurations were generated for the connector";

impl Herder {
    /// Checks the request, then plans it once the config topic is read to its end.
    pub(super) fn fence_request(&mut self, name: String, reply: Reply<()>) {
        if let Err(e) = self.fence_check(&name) {
            let _ = reply.send(Err(e));
            return;
        }
        self.writes.after_sync(AfterSync::Fence(name, reply));
    }

    /// The config topic is read to its end: fence, record, or nothing.
    pub(super) fn fence_synced(&mut self, name: String, reply: Reply<()>) {
        if let Err(e) = self.fence_check(&name) {
            let _ = reply.send(Err(e));
            return;
        }
        let Some(fencing) = self.fencing.clone() else {
            let error = format!("Cannot fence zombies for connector {name}: not in a group");
            let _ = reply.send(Err(HerderError::Failed(error)));
            return;
        };
        match ZombieFencing::plan(&self.config, &fencing.group_id, &name) {
            ZombieFencing::Nothing => drop(reply.send(Ok(()))),
            ZombieFencing::Record { tasks } => self.write_task_count(name, tasks, reply),
            ZombieFencing::FenceThenRecord { ids, tasks, generation } => {
                match self.fence_joiners.get_mut(&name) {
                    Some((running, joiners)) if *running == generation => {
                        joiners.push(reply);
                        return;
                    }
                    Some(_) => {
                        // The running round is an older generation's, which it will not
                        // finish: this one asks again once it has given way.
                        let _ = reply.send(Err(HerderError::Conflict(NEW_GENERATION.to_owned())));
                        return;
                    }
                    None => {}
                }
                self.fence_joiners.insert(name.clone(), (generation, Vec::new()));
                // The round's own answer comes back through the loop, to be shared.
                let (answer, answered) = tokio::sync::oneshot::channel();
                let forward = self.internal_tx.clone();
                let connector = name.clone();
                tokio::spawn(async move {
                    let result = answered.await.unwrap_or_else(|_| {
                        Err(HerderError::Failed("the fencing round was dropped".into()))
                    });
                    let _ = reply.send(result.clone());
                    let _ = forward.send(Internal::FenceAnswered { connector, result });
                });
                let reply = answer;
                let settings = fencing.settings;
                let tx = self.internal_tx.clone();
                tracing::info!(connector = %name, producers = ids.len(), "Fencing out the previous task generation's producers");
                tokio::spawn(async move {
                    let result = wasm_connect_group::fence_producers(&settings, &ids)
                        .await
                        .map_err(|e| e.to_string());
                    let _ = tx.send(Internal::ZombiesFenced {
                        connector: name,
                        tasks,
                        generation,
                        result,
                        reply,
                    });
                });
            }
        }
    }

    /// The round of `name` was answered: the requests that joined it get the same answer.
    pub(super) fn fence_answered(&mut self, name: String, result: Result<(), HerderError>) {
        for joiner in self.fence_joiners.remove(&name).map(|(_, j)| j).unwrap_or_default() {
            let _ = joiner.send(result.clone());
        }
    }

    /// The producers are fenced (or not): write the task-count record unless a new task
    /// generation was committed meanwhile.
    pub(super) fn zombies_fenced(
        &mut self,
        name: String,
        tasks: u32,
        generation: u64,
        result: Result<(), String>,
        reply: Reply<()>,
    ) {
        if let Err(e) = result {
            tracing::warn!(connector = %name, error = %e, "Zombie fencing failed");
            let error = format!("Failed to fence zombies for connector {name}: {e}");
            let _ = reply.send(Err(HerderError::Failed(error)));
            return;
        }
        if self.config.task_config_generation(&name) != generation {
            let _ = reply.send(Err(HerderError::Conflict(NEW_GENERATION.to_owned())));
            return;
        }
        self.write_task_count(name, tasks, reply);
    }

    fn write_task_count(&mut self, name: String, tasks: u32, reply: Reply<()>) {
        let plan = ZombieFencing::Record { tasks };
        self.write(Write {
            records: plan.record(&name).into_iter().collect(),
            context: "Error writing task count record to the config topic".into(),
            then: Then::Done(reply),
        });
    }

    fn fence_check(&self, name: &str) -> Result<(), HerderError> {
        let kind = self.info(name).and_then(|info| info.kind);
        check(self.settings.exactly_once_source_support, &self.config, kind, name)
    }
}
