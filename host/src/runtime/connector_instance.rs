//! The typed handle of a connector instance: the calls of the WIT `connector` interface.

use super::error::InstanceError;
use super::instance::Instance;
use crate::model::{Config, ConfigDef, ConfigProblem};

/// A running (or validation) connector instance.
pub struct ConnectorInstance(pub(crate) Instance);

impl ConnectorInstance {
    /// The underlying instance.
    pub fn instance(&self) -> &Instance {
        &self.0
    }

    /// Name, version and config definition, as the plugin declares them.
    pub async fn describe(&self) -> Result<(String, String, ConfigDef), InstanceError> {
        self.0
            .call("describe", |live| {
                Box::pin(async move {
                    let name =
                        live.guest("name", |g, s| Box::pin(g.connector().call_name(s))).await?;
                    let version = live
                        .guest("version", |g, s| Box::pin(g.connector().call_version(s)))
                        .await?;
                    let keys = live
                        .guest("config-definition", |g, s| {
                            Box::pin(g.connector().call_config_definition(s))
                        })
                        .await?;
                    let def = ConfigDef { keys: keys.into_iter().map(Into::into).collect() };
                    Ok((name, version, def))
                })
            })
            .await
    }

    /// The plugin's own validation of `config`.
    pub async fn validate(&self, config: Config) -> Result<Vec<ConfigProblem>, InstanceError> {
        let problems = self
            .0
            .guest("validate", move |g, s| {
                Box::pin(async move { g.connector().call_validate(s, &config).await })
            })
            .await?;
        Ok(problems.into_iter().map(Into::into).collect())
    }

    /// Starts the connector.
    pub async fn start(&self, config: Config) -> Result<(), InstanceError> {
        self.0
            .guest("start", move |g, s| {
                Box::pin(async move { g.connector().call_start(s, &config).await })
            })
            .await?
            .map_err(Into::into)
    }

    /// Asks for at most `max_tasks` task configs. The count is the caller's to check.
    pub async fn task_configs(&self, max_tasks: u32) -> Result<Vec<Config>, InstanceError> {
        self.0
            .guest("task-configs", move |g, s| {
                Box::pin(g.connector().call_task_configs(s, max_tasks))
            })
            .await?
            .map_err(Into::into)
    }

    /// Stops the connector and discards the instance.
    pub async fn stop(self) -> Result<(), InstanceError> {
        self.0.guest("stop", |g, s| Box::pin(g.connector().call_stop(s))).await
    }
}
