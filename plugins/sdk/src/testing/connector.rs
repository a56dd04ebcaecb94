//! [`ConnectorHarness`]: drives a [`Connector`] through the SDK's `connector` glue, as the
//! worker does. It owns the connector's glue slot while it lives; it runs no task.

use std::marker::PhantomData;

use super::{Kind, SlotGuard};
use crate::bindings::source::exports::wasm_connect::connector::exactly_once::Support;
use crate::glue::convert::{config_to_wit, error_from_wit, problem_from_wit};
use crate::glue::{CONNECTOR, connector as glue, exactly_once, with_state};
use crate::{Config, ConfigDef, ConfigProblem, Connector, ExactlyOnceSupport, Result};

/// Drives connector `C` as the worker does: one instance created with `Default` on the
/// first call, dropped by [`stop`](Self::stop) (a later call creates a fresh one).
///
/// ```
/// # use wasm_connect_sdk::{Config, ConfigDef, ConfigKey, Connector, Range, Result};
/// # #[derive(Default)]
/// # struct Mine(Config);
/// # impl Connector for Mine {
/// #     fn name(&self) -> &str { "Mine" }
/// #     fn version(&self) -> &str { "1" }
/// #     fn config_definition(&self) -> ConfigDef {
/// #         ConfigDef::new().define(ConfigKey::int("n").default_value(1).ensure(Range::at_least(1)))
/// #     }
/// #     fn start(&mut self, c: Config) -> Result<()> { self.0 = c; Ok(()) }
/// #     fn task_configs(&mut self, _max: u32) -> Result<Vec<Config>> { Ok(vec![self.0.clone()]) }
/// #     fn stop(&mut self) {}
/// # }
/// use wasm_connect_sdk::testing::ConnectorHarness;
///
/// let mut connector = ConnectorHarness::<Mine>::new();
/// assert_eq!(connector.validate(&Config::new().with("n", "0")).len(), 1);
/// connector.start(Config::new()).unwrap();
/// let tasks = connector.task_configs(4).unwrap();
/// assert_eq!(tasks[0].get("n"), Some("1"), "defaults are filled in before start");
/// ```
pub struct ConnectorHarness<C: Connector> {
    _slot: SlotGuard,
    _connector: PhantomData<fn() -> C>,
}

impl<C: Connector> Default for ConnectorHarness<C> {
    fn default() -> Self {
        Self::new()
    }
}

impl<C: Connector> ConnectorHarness<C> {
    /// A harness with no instance yet. Panics if another `ConnectorHarness` is alive on
    /// this thread.
    pub fn new() -> Self {
        Self { _slot: SlotGuard::take(Kind::Connector), _connector: PhantomData }
    }

    /// The plugin name, as the `name` export returns it.
    pub fn name(&self) -> String {
        glue::name::<C>()
    }

    /// The plugin version, as the `version` export returns it.
    pub fn version(&self) -> String {
        glue::version::<C>()
    }

    /// The configuration definition, with its validators. The `config-definition`
    /// export's conversion runs too, so a definition the worker cannot read fails here.
    pub fn config_definition(&self) -> ConfigDef {
        let exported = glue::config_definition::<C>();
        let def = with_state(&CONNECTOR, |c: &mut C| c.config_definition());
        assert_eq!(exported.len(), def.keys().len(), "every key crosses the WIT boundary");
        def
    }

    /// The problems the `validate` export reports for `config`: the definition's checks
    /// ([`ConfigDef::validate`]), then the plugin's own
    /// ([`Connector::validate`](crate::Connector::validate)). The worker adds its own
    /// checks of framework keys (`tasks.max`, `errors.*`, ...), which this does not run.
    pub fn validate(&self, config: &Config) -> Vec<ConfigProblem> {
        let problems = glue::validate::<C>(config_to_wit(config.clone()));
        problems.into_iter().map(problem_from_wit).collect()
    }

    /// The answer of the `exactly-once-support` export for `config` (a source plugin's).
    pub fn exactly_once_support(&self, config: &Config) -> Option<ExactlyOnceSupport> {
        let answer = exactly_once::exactly_once_support::<C>(config_to_wit(config.clone()));
        answer.map(|a| match a {
            Support::Supported => ExactlyOnceSupport::Supported,
            Support::Unsupported => ExactlyOnceSupport::Unsupported,
        })
    }

    /// The answer of the `can-define-transaction-boundaries` export for `config`.
    pub fn can_define_transaction_boundaries(&self, config: &Config) -> bool {
        exactly_once::can_define_transaction_boundaries::<C>(config_to_wit(config.clone()))
    }

    /// Starts the connector with `config`, the declared defaults of unset keys filled in
    /// first, as the worker does. It does not validate: call [`validate`](Self::validate)
    /// for that.
    pub fn start(&mut self, config: Config) -> Result<()> {
        let config = self.config_definition().with_defaults(&config);
        glue::start::<C>(config_to_wit(config)).map_err(error_from_wit)
    }

    /// The task configs for at most `max_tasks` tasks. Panics, with the worker's message,
    /// if the connector returns more: the worker would fail it.
    pub fn task_configs(&mut self, max_tasks: u32) -> Result<Vec<Config>> {
        let configs = glue::task_configs::<C>(max_tasks).map_err(error_from_wit)?;
        assert!(
            configs.len() <= max_tasks as usize,
            "The connector {} has generated {} tasks, which is greater than {max_tasks}, the \
             maximum number of tasks it is configured to create.",
            self.name(),
            configs.len()
        );
        Ok(configs.into_iter().map(Config::from).collect())
    }

    /// Stops the connector and drops the instance.
    pub fn stop(&mut self) {
        glue::stop::<C>();
    }
}
