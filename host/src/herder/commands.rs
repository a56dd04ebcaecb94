//! Requests from [`HerderHandle`](super::HerderHandle): reads answered from the config
//! state, writes made durable in the config topic and applied before the reply.

use super::actor::Herder;
use super::{
    Command, ConnectorInfo, ConnectorStatus, HerderError, PutOutcome, RestartOutcome,
    RestartRequest,
};
use crate::model::{InstanceId, TargetState};
use crate::store::{ConfigRecord, Properties, StoreError};

fn not_found(name: &str) -> HerderError {
    HerderError::NotFound(format!("Connector {name} not found"))
}

fn store(context: impl Into<String>) -> impl FnOnce(StoreError) -> HerderError {
    let context = context.into();
    move |source| HerderError::Store { context, source }
}

impl Herder {
    pub(super) async fn command(&mut self, command: Command) {
        match command {
            Command::Connectors(reply) => {
                let _ = reply.send(Ok(self.config.connectors().map(str::to_owned).collect()));
            }
            Command::Info(name, reply) => {
                let _ = reply.send(self.info(&name).ok_or_else(|| not_found(&name)));
            }
            Command::TaskConfigs(name, reply) => {
                let r = if self.config.contains(&name) {
                    Ok(self.config.task_configs(&name).to_vec())
                } else {
                    Err(not_found(&name))
                };
                let _ = reply.send(r);
            }
            Command::PutConfig { name, config, initial, replace, reply } => {
                let _ = reply.send(self.put_config(name, config, initial, replace).await);
            }
            Command::Delete(name, reply) => {
                let _ = reply.send(self.delete(&name).await);
            }
            Command::SetTarget(name, target, reply) => {
                let _ = reply.send(self.set_target(&name, target).await);
            }
            Command::Restart { request, reply } => {
                if !request.include_tasks && !request.only_failed {
                    self.restart_connector_now(&request.connector, reply);
                } else {
                    let _ = reply.send(self.record_restart(request).await);
                }
            }
            Command::RestartTask(name, task, reply) => self.restart_task_now(&name, task, reply),
            Command::SubmitTaskConfigs(name, configs, reply) => {
                let _ = reply.send(self.submit_task_configs(&name, configs).await);
            }
            Command::Offsets(name, reply) => self.connector_offsets(&name, reply),
            Command::AlterOffsets { name, offsets, reply } => {
                self.alter_offsets(&name, offsets, reply).await
            }
            Command::ResetOffsets(name, reply) => self.reset_offsets(&name, reply).await,
            Command::ClusterLoggerLevel(namespace, level, reply) => {
                let _ = reply.send(self.cluster_logger_level(namespace, level).await);
            }
            Command::Shutdown(done) => self.begin_shutdown(Some(done)),
        }
    }

    fn info(&self, name: &str) -> Option<ConnectorInfo> {
        let config = self.config.connector_config(name)?.clone();
        let plugin = config.get("connector.class").and_then(|c| self.worker.registry().resolve(c));
        let kind = plugin.map(|p| p.info().kind);
        let version = plugin.map(|p| p.info().version.clone());
        let tasks = (0..self.config.task_configs(name).len() as u32).collect();
        Some(ConnectorInfo { name: name.to_owned(), config, tasks, kind, version })
    }

    async fn put_config(
        &mut self,
        name: String,
        config: Properties,
        initial: Option<TargetState>,
        replace: bool,
    ) -> Result<PutOutcome, HerderError> {
        let exists = self.config.contains(&name);
        if exists && !replace {
            return Err(HerderError::AlreadyExists(name));
        }
        let mut records = Vec::new();
        if let Some(state) = initial {
            records.push(ConfigRecord::TargetState { connector: name.clone(), state: Some(state) });
        }
        records.push(ConfigRecord::Connector { name: name.clone(), config: Some(config) });
        self.config_log
            .write(&records)
            .await
            .map_err(store("Error writing connector configuration to the config topic"))?;
        // The answer lists the tasks before they are regenerated, as Kafka Connect's does.
        let tasks = (0..self.config.task_configs(&name).len() as u32).collect();
        self.sync_config().await?;
        let mut info = self.info(&name).ok_or_else(|| not_found(&name))?;
        info.tasks = tasks;
        Ok(PutOutcome { created: !exists, info })
    }

    async fn delete(&mut self, name: &str) -> Result<(), HerderError> {
        if !self.config.contains(name) {
            return Err(not_found(name));
        }
        let records = [
            ConfigRecord::Connector { name: name.to_owned(), config: None },
            ConfigRecord::TargetState { connector: name.to_owned(), state: None },
        ];
        self.config_log
            .write(&records)
            .await
            .map_err(store("Error removing connector configuration from the config topic"))?;
        self.sync_config().await
    }

    async fn set_target(&mut self, name: &str, target: TargetState) -> Result<(), HerderError> {
        if !self.config.contains(name) {
            return Err(HerderError::NotFound(format!("Unknown connector {name}")));
        }
        let mut records = Vec::new();
        if target == TargetState::Stopped {
            // KIP-875: empty the task configs first; a STOPPED connector with tasks is
            // not a state the topic may ever show.
            records.push(ConfigRecord::Commit { connector: name.to_owned(), tasks: 0 });
        }
        records.push(ConfigRecord::TargetState { connector: name.to_owned(), state: Some(target) });
        self.config_log
            .write(&records)
            .await
            .map_err(store(format!("Error writing target state of {name} to the config topic")))?;
        self.sync_config().await
    }

    /// Case A: restart the connector instance now; answer once it has started again.
    fn restart_connector_now(&mut self, name: &str, reply: super::Reply<RestartOutcome>) {
        if !self.config.contains(name) {
            let _ = reply.send(Err(HerderError::NotFound(format!("Unknown connector: {name}"))));
            return;
        }
        let (tx, rx) = tokio::sync::oneshot::channel();
        let id = InstanceId::Connector(name.to_owned());
        self.forget_failures(|i| *i == id);
        self.waiters.entry(id).or_default().push(tx);
        self.stop_connector(name, true);
        tokio::spawn(async move {
            let r = rx
                .await
                .unwrap_or(Err(HerderError::ShuttingDown))
                .map(|()| RestartOutcome::Restarted);
            let _ = reply.send(r);
        });
    }

    /// Case B: record the request in the config topic, execute it here, and answer with
    /// the statuses as `GET /connectors/{name}/status` shows them from then on: every
    /// instance the plan restarts RESTARTING (here or, for instances of other workers,
    /// until they execute the record), every other instance its current state.
    async fn record_restart(
        &mut self,
        request: RestartRequest,
    ) -> Result<RestartOutcome, HerderError> {
        let name = request.connector.clone();
        if !self.config.contains(&name) {
            return Err(HerderError::NotFound(format!("Unknown connector: {name}")));
        }
        self.config_log
            .write(&[ConfigRecord::Restart(request.clone())])
            .await
            .map_err(store(format!("Error writing {request} to the config topic")))?;
        // Apply the record, then execute it before answering: the plan and the statuses
        // the answer shows are read from one state, with nothing run in between.
        self.sync_config().await?;
        let executed = if self.rebalance_pending() { Vec::new() } else { self.process_restarts() };
        let connector = self.status.get(&InstanceId::Connector(name.clone())).ok_or_else(|| {
            HerderError::NotFound(format!("Status for connector {name} not found"))
        })?;
        let tasks = self.status.tasks(&name);
        let plan = match executed.into_iter().find(|p| p.request.connector == name) {
            Some(plan) => plan,
            // Not executed yet (a rebalance is pending): planned from the same statuses.
            None => {
                let states = tasks.iter().map(|(t, s)| (*t, s.state)).collect();
                request.plan(Some(connector.state), &states).expect("a connector status exists")
            }
        };
        let (kind, version) = self.info(&name).map(|i| (i.kind, i.version)).unwrap_or_default();
        let tasks = tasks.into_iter().collect();
        let status = ConnectorStatus { name, connector, tasks, kind, version };
        Ok(RestartOutcome::Accepted(plan.shown(status)))
    }

    /// Writes task configs generated on another worker, as the leader.
    async fn submit_task_configs(
        &mut self,
        name: &str,
        configs: Vec<Properties>,
    ) -> Result<(), HerderError> {
        if !self.member.is_leader() {
            return Err(HerderError::NotHere {
                message: "Cannot submit task configs: this worker is not the leader".into(),
                url: self.member.leader_url().map(str::to_owned),
            });
        }
        if !self.config.contains(name) {
            return Err(not_found(name));
        }
        if !configs.is_empty() && self.config.target_state(name) == TargetState::Stopped {
            return Err(HerderError::BadRequest(format!(
                "Cannot submit non-empty set of task configs for stopped connector {name}"
            )));
        }
        self.config_log
            .write(&super::reconfigure::task_records(name, &configs))
            .await
            .map_err(store("Error writing task configurations to the config topic"))?;
        self.sync_config().await
    }

    /// KIP-976. In a group: the record only, not read back (every worker, this one
    /// included, applies it from its follower). Standalone: applied here, nothing written.
    async fn cluster_logger_level(
        &mut self,
        namespace: String,
        level: String,
    ) -> Result<(), HerderError> {
        if !self.member.in_group() {
            return match self.settings.loggers.set(&namespace, &level) {
                Ok(_) => Ok(()),
                Err(e) => Err(HerderError::Failed(e.to_string())),
            };
        }
        self.config_log
            .write(&[ConfigRecord::LoggerLevel { namespace, level }])
            .await
            .map_err(store("Error writing logger level to the config topic"))
    }

    fn restart_task_now(&mut self, name: &str, task: u32, reply: super::Reply<()>) {
        if !self.config.contains(name) {
            let _ = reply.send(Err(HerderError::NotFound(format!("Unknown connector: {name}"))));
            return;
        }
        if task as usize >= self.config.task_configs(name).len() {
            let _ = reply.send(Err(HerderError::NotFound(format!("Unknown task: {name}-{task}"))));
            return;
        }
        let (tx, rx) = tokio::sync::oneshot::channel();
        let id = InstanceId::Task(name.to_owned(), task);
        self.forget_failures(|i| *i == id);
        self.waiters.entry(id).or_default().push(tx);
        self.stop_task(name, task, true);
        tokio::spawn(async move {
            let _ = reply.send(rx.await.unwrap_or(Err(HerderError::ShuttingDown)));
        });
    }
}
