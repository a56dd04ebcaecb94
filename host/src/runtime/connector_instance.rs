//! The typed handle of a connector instance: the calls of the WIT `connector` interface.

use super::error::InstanceError;
use super::instance::{Instance, guest};
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
                    let name = guest!(live, "name", connector.call_name())?;
                    let version = guest!(live, "version", connector.call_version())?;
                    let keys =
                        guest!(live, "config-definition", connector.call_config_definition())?;
                    let def = ConfigDef { keys: keys.into_iter().map(Into::into).collect() };
                    Ok((name, version, def))
                })
            })
            .await
    }

    /// The plugin's own validation of `config`.
    pub async fn validate(&self, config: Config) -> Result<Vec<ConfigProblem>, InstanceError> {
        self.0
            .call("validate", move |live| {
                Box::pin(async move {
                    let problems = guest!(live, "validate", connector.call_validate(&config))?;
                    Ok(problems.into_iter().map(Into::into).collect())
                })
            })
            .await
    }

    /// Starts the connector.
    pub async fn start(&self, config: Config) -> Result<(), InstanceError> {
        self.0
            .call("start", move |live| {
                Box::pin(async move {
                    guest!(live, "start", connector.call_start(&config))?.map_err(|e| e.into())
                })
            })
            .await
    }

    /// Asks for at most `max_tasks` task configs. The count is the caller's to check.
    pub async fn task_configs(&self, max_tasks: u32) -> Result<Vec<Config>, InstanceError> {
        self.0
            .call("task-configs", move |live| {
                Box::pin(async move {
                    guest!(live, "task-configs", connector.call_task_configs(max_tasks))?
                        .map_err(|e| e.into())
                })
            })
            .await
    }

    /// Stops the connector and discards the instance.
    pub async fn stop(self) -> Result<(), InstanceError> {
        self.0
            .call("stop", |live| {
                Box::pin(async move { guest!(live, "stop", connector.call_stop()) })
            })
            .await
    }
}
