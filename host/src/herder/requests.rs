//! How the loop executes each request from [`HerderHandle`](super::HerderHandle) (a
//! [`Command`], admitted by `gate`): reads answered from the config state at once; writes
//! handed to the write pipeline ([`super::writes`]), whose completions the actor dispatches
//! once they are durable and applied, without holding up the loop.

use super::actor::Herder;
use super::command::{Command, Reply};
use super::reconcile::Action;
use super::writes::{AfterSync, Queued, Then, Write};
use super::{ConnectorInfo, HerderError, RestartOutcome, RestartRequest};
use crate::model::{InstanceId, TargetState};
use crate::store::ConfigRecord;

impl Herder {
    /// Executes an admitted request, or queues it behind the write in flight when it writes.
    pub(super) fn command(&mut self, command: Command) {
        if command.writes() && self.writes.busy() {
            self.writes.queue(Queued::Command(command));
            return;
        }
        match command {
            Command::Connectors(reply) => {
                let _ = reply.send(Ok(self.config.connectors().map(str::to_owned).collect()));
            }
            Command::Peers(reply) => {
                let _ = reply.send(Ok(self.member.peers()));
            }
            Command::Info(name, reply) => {
                let _ = reply
                    .send(self.info(&name).ok_or_else(|| HerderError::connector_not_found(&name)));
            }
            Command::TaskConfigs(name, reply) => {
                let r = if self.config.contains(&name) {
                    Ok(self.config.task_configs(&name).to_vec())
                } else {
                    Err(HerderError::connector_not_found(&name))
                };
                let _ = reply.send(r);
            }
            Command::PutConfig { name, config, initial, replace, reply } => {
                let exists = self.config.contains(&name);
                if exists && !replace {
                    let _ = reply.send(Err(HerderError::AlreadyExists(name)));
                    return;
                }
                let mut records = Vec::new();
                if let Some(state) = initial {
                    records.push(ConfigRecord::TargetState {
                        connector: name.clone(),
                        state: Some(state),
                    });
                }
                records.push(ConfigRecord::Connector { name: name.clone(), config: Some(config) });
                // The answer lists the tasks before they are regenerated, as Kafka
                // Connect's does.
                let tasks = (0..self.config.task_configs(&name).len() as u32).collect();
                self.write(Write {
                    records,
                    context: "Error writing connector configuration to the config topic".into(),
                    then: Then::Put { name, created: !exists, tasks, reply },
                });
            }
            Command::Delete(name, reply) => {
                if !self.config.contains(&name) {
                    let _ = reply.send(Err(HerderError::connector_not_found(&name)));
                    return;
                }
                let records = vec![
                    ConfigRecord::Connector { name: name.clone(), config: None },
                    ConfigRecord::TargetState { connector: name, state: None },
                ];
                self.write(Write {
                    records,
                    context: "Error removing connector configuration from the config topic".into(),
                    then: Then::Done(reply),
                });
            }
            Command::SetTarget(name, target, reply) => {
                if !self.config.contains(&name) {
                    let _ =
                        reply.send(Err(HerderError::NotFound(format!("Unknown connector {name}"))));
                    return;
                }
                let mut records = Vec::new();
                if target == TargetState::Stopped {
                    // KIP-875: empty the task configs first; a STOPPED connector with tasks
                    // is not a state the topic may ever show.
                    records.push(ConfigRecord::Commit { connector: name.clone(), tasks: 0 });
                }
                records.push(ConfigRecord::TargetState {
                    connector: name.clone(),
                    state: Some(target),
                });
                self.write(Write {
                    records,
                    context: format!("Error writing target state of {name} to the config topic"),
                    then: Then::Done(reply),
                });
            }
            Command::Restart { request, reply } => {
                if request.is_instance_only() {
                    self.restart_now(
                        InstanceId::Connector(request.connector.clone()),
                        reply,
                        |r| r.map(|()| RestartOutcome::Restarted),
                    );
                } else {
                    self.record_restart(request, reply);
                }
            }
            Command::RestartTask(name, task, reply) => {
                if self.config.contains(&name)
                    && task as usize >= self.config.task_configs(&name).len()
                {
                    let error = HerderError::NotFound(format!("Unknown task: {name}-{task}"));
                    let _ = reply.send(Err(error));
                    return;
                }
                self.restart_now(InstanceId::Task(name, task), reply, |r| r);
            }
            Command::SubmitTaskConfigs(name, configs, reply) => {
                if let Err(e) = self.check_submission(&name, &configs) {
                    let _ = reply.send(Err(e));
                    return;
                }
                self.write(Write {
                    records: super::reconfigure::task_records(&name, &configs),
                    context: "Error writing task configurations to the config topic".into(),
                    then: Then::Done(reply),
                });
            }
            Command::FenceZombies(name, reply) => self.fence_request(name, reply),
            command @ Command::Offsets(..) => self.offsets_now(command),
            command @ (Command::AlterOffsets { .. } | Command::ResetOffsets(..)) => {
                // Read the config topic to its end first: the connector must be STOPPED.
                self.writes.after_sync(AfterSync::Offsets(command))
            }
            Command::ClusterLoggerLevel(namespace, level, reply) => {
                self.cluster_logger_level(namespace, level, reply)
            }
            Command::Shutdown(done) => self.begin_shutdown(Some(done)),
        }
    }

    pub(super) fn info(&self, name: &str) -> Option<ConnectorInfo> {
        super::snapshot::info(&self.config, &self.typed, name)
    }

    /// Restarts one instance now (KIP-745 case A, or a task): answered once it has
    /// started again, or failed.
    fn restart_now<T: Send + 'static>(
        &mut self,
        id: InstanceId,
        reply: Reply<T>,
        answer: impl FnOnce(Result<(), HerderError>) -> Result<T, HerderError> + Send + 'static,
    ) {
        let name = id.connector();
        if !self.config.contains(name) {
            let _ = reply.send(Err(HerderError::NotFound(format!("Unknown connector: {name}"))));
            return;
        }
        let (tx, rx) = tokio::sync::oneshot::channel();
        self.forget_failures(|i| *i == id);
        self.instances.wait(&id, tx);
        self.apply(Action::Restart { id, shown: false });
        tokio::spawn(async move {
            let _ = reply.send(answer(rx.await.unwrap_or(Err(HerderError::ShuttingDown))));
        });
    }

    /// Case B: record the request in the config topic; once it is read back, execute it
    /// and answer ([`Herder::answer_restart`]).
    fn record_restart(&mut self, request: RestartRequest, reply: Reply<RestartOutcome>) {
        let name = &request.connector;
        if !self.config.contains(name) {
            let _ = reply.send(Err(HerderError::NotFound(format!("Unknown connector: {name}"))));
            return;
        }
        self.write(Write {
            records: vec![ConfigRecord::Restart(request.clone())],
            context: format!("Error writing {request} to the config topic"),
            then: Then::Restart { request, reply },
        });
    }

    /// Task configs generated on another worker may be written here: this worker leads,
    /// the connector exists, and a stopped connector gets none.
    fn check_submission(
        &self,
        name: &str,
        configs: &[crate::model::Properties],
    ) -> Result<(), HerderError> {
        if !self.member.is_leader() {
            return Err(HerderError::NotHere {
                message: "Cannot submit task configs: this worker is not the leader".into(),
                url: self.member.leader_url().map(str::to_owned),
            });
        }
        if !self.config.contains(name) {
            return Err(HerderError::connector_not_found(name));
        }
        if !configs.is_empty() && self.config.target_state(name) == TargetState::Stopped {
            return Err(HerderError::BadRequest(format!(
                "Cannot submit non-empty set of task configs for stopped connector {name}"
            )));
        }
        Ok(())
    }

    /// KIP-976. In a group: the record only, not read back (every worker, this one
    /// included, applies it from its follower). Standalone: applied here, nothing written.
    fn cluster_logger_level(&mut self, namespace: String, level: String, reply: Reply<()>) {
        if !self.member.in_group() {
            let r = self.settings.loggers.set(&namespace, &level);
            let _ = reply.send(r.map(|_| ()).map_err(|e| HerderError::Failed(e.to_string())));
            return;
        }
        self.write(Write {
            records: vec![ConfigRecord::LoggerLevel { namespace, level }],
            context: "Error writing logger level to the config topic".into(),
            then: Then::LoggerLevel(reply),
        });
    }
}
