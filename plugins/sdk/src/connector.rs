//! [`Connector`]: the half of a plugin that describes itself and splits work into tasks.
//!
//! This module owns the trait and its contract only. It moves no data; the export macros
//! wire an implementation to the WIT `connector` interface.

use crate::{Config, ConfigDef, ConfigProblem, ExactlyOnceSupport, Result};

/// A connector: describes the plugin, checks configs and splits the work into task
/// configs (Kafka Connect's `Connector`).
///
/// The worker creates one instance per running connector with [`Default`], in a sandbox
/// of its own, and never shares it. On a running instance it calls
/// [`start`](Self::start) once, then [`task_configs`](Self::task_configs) any number of
/// times, then [`stop`](Self::stop) at most once (not at all if `start` failed). It also
/// creates short-lived instances, without any sandbox grant, that only see
/// [`name`](Self::name), [`version`](Self::version),
/// [`config_definition`](Self::config_definition) and [`validate`](Self::validate) (and,
/// for a source plugin, [`exactly_once_support`](Self::exactly_once_support) and
/// [`can_define_transaction_boundaries`](Self::can_define_transaction_boundaries)), so
/// those must work without `start`. Calls never overlap.
pub trait Connector: Default + 'static {
    /// The plugin name users write in `connector.class`, e.g. `Datagen`. A plugin that
    /// stands in for a Kafka Connect connector returns its class name, e.g.
    /// `org.apache.kafka.connect.file.FileStreamSourceConnector`; the worker then also
    /// accepts the aliases Kafka Connect derives from it (`FileStreamSourceConnector`,
    /// `FileStreamSource`).
    fn name(&self) -> &str;

    /// The plugin version, e.g. `env!("CARGO_PKG_VERSION")`.
    fn version(&self) -> &str;

    /// The configuration definition. The worker reads it once and caches it, so it must
    /// depend on nothing but the code.
    fn config_definition(&self) -> ConfigDef;

    /// The plugin's own checks of a proposed config, one [`ConfigProblem`] per problem:
    /// rules that span keys or need more than a [`Validator`](crate::Validator).
    ///
    /// The SDK runs [`ConfigDef::validate`] on
    /// [`config_definition`](Self::config_definition) first (types, required keys, each
    /// key's validators) and reports both lists, so do not repeat those checks here. This
    /// runs even when they found problems: read values with the fallible [`Config`]
    /// getters, never `unwrap`. The default finds no problem.
    ///
    /// [`ConfigDef::validate`]: crate::ConfigDef::validate
    fn validate(&self, config: &Config) -> Vec<ConfigProblem> {
        let _ = config;
        Vec::new()
    }

    /// Source connectors: whether the connector delivers exactly once with `config` when
    /// the worker runs exactly-once source (Kafka Connect's
    /// `SourceConnector.exactlyOnceSupport`): its source offsets let a task resume without
    /// repeating a record. `None`, the default, means "cannot say"; with
    /// `exactly.once.support=required` the worker accepts only
    /// `Some(ExactlyOnceSupport::Supported)`. May be called before `start`; answer from
    /// the config alone. Never called for a sink connector.
    fn exactly_once_support(&self, config: &Config) -> Option<ExactlyOnceSupport> {
        let _ = config;
        None
    }

    /// Source connectors: whether the tasks define their own transaction boundaries with
    /// `config`, through [`transaction_context`](crate::transaction_context) (Kafka
    /// Connect's `SourceConnector.canDefineTransactionBoundaries`). Asked only when the
    /// config sets `transaction.boundary=connector`, which the worker refuses when this
    /// answers `false`, the default. May be called before `start`.
    fn can_define_transaction_boundaries(&self, config: &Config) -> bool {
        let _ = config;
        false
    }

    /// Starts the connector with its full config, defaults filled in. Called once.
    fn start(&mut self, config: Config) -> Result<()>;

    /// Returns at most `max_tasks` task configs, one per task to run. Keys that grant
    /// sandbox capabilities must be copied into the task configs that need them: a task
    /// is granted what its own config asks for.
    fn task_configs(&mut self, max_tasks: u32) -> Result<Vec<Config>>;

    /// Stops the connector. The instance is discarded afterwards.
    fn stop(&mut self);
}
