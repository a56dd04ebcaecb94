//! The typed handle of a connector instance: the calls of the WIT `connector` interface,
//! and of a source plugin's optional `exactly-once` interface (a plugin without it answers
//! [`ConnectorSupport::Unknown`] and `false`, as Kafka Connect's defaults do).

use super::error::InstanceError;
use super::instance::Instance;
use crate::model::{Config, ConfigDef, ConfigProblem, ConnectorSupport};

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

    /// Whether the connector supports exactly-once delivery with `config` (Kafka Connect's
    /// `SourceConnector.exactlyOnceSupport`). May be asked before `start`.
    pub async fn exactly_once_support(
        &self,
        config: Config,
    ) -> Result<ConnectorSupport, InstanceError> {
        self.0
            .call("exactly-once-support", move |live| {
                Box::pin(async move {
                    if live.exports.exactly_once.is_none() {
                        return Ok(ConnectorSupport::Unknown);
                    }
                    let answer = live
                        .guest("exactly-once-support", |g, s| {
                            Box::pin(async move {
                                let e = g.exactly_once.as_ref().expect("checked above");
                                e.call_exactly_once_support(s, &config).await
                            })
                        })
                        .await?;
                    Ok(answer.into())
                })
            })
            .await
    }

    /// Whether the connector's tasks define their own transaction boundaries with
    /// `config` (Kafka Connect's `SourceConnector.canDefineTransactionBoundaries`,
    /// `SUPPORTED` as `true`). May be asked before `start`.
    pub async fn can_define_transaction_boundaries(
        &self,
        config: Config,
    ) -> Result<bool, InstanceError> {
        self.0
            .call("can-define-transaction-boundaries", move |live| {
                Box::pin(async move {
                    if live.exports.exactly_once.is_none() {
                        return Ok(false);
                    }
                    live.guest("can-define-transaction-boundaries", |g, s| {
                        Box::pin(async move {
                            let e = g.exactly_once.as_ref().expect("checked above");
                            e.call_can_define_transaction_boundaries(s, &config).await
                        })
                    })
                    .await
                })
            })
            .await
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
