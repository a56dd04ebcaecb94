//! The `connector` interface, for both worlds: each world's bindings carry their own copy
//! of the `Guest` trait, so one macro implements both by delegating to shared functions.

use super::convert::{config_from_wit, config_to_wit, key_to_wit, problem_to_wit, result_to_wit};
use super::{CONNECTOR, Glue, drop_state, with_state};
use crate::Connector;
use crate::bindings::source::wasm_connect::connector::types as wit;

pub(crate) fn name<C: Connector>() -> String {
    with_state(&CONNECTOR, |c: &mut C| c.name().to_owned())
}

pub(crate) fn version<C: Connector>() -> String {
    with_state(&CONNECTOR, |c: &mut C| c.version().to_owned())
}

pub(crate) fn config_definition<C: Connector>() -> Vec<wit::ConfigKey> {
    let def = with_state(&CONNECTOR, |c: &mut C| c.config_definition());
    def.into_keys().into_iter().map(key_to_wit).collect()
}

/// The definition's checks ([`ConfigDef::validate`](crate::ConfigDef::validate)), then
/// the plugin's own.
pub(crate) fn validate<C: Connector>(config: wit::Config) -> Vec<wit::ConfigProblem> {
    let config = config_from_wit(config);
    let problems = with_state(&CONNECTOR, |c: &mut C| {
        let mut problems = c.config_definition().validate(&config);
        problems.extend(c.validate(&config));
        problems
    });
    problems.into_iter().map(problem_to_wit).collect()
}

pub(crate) fn start<C: Connector>(config: wit::Config) -> Result<(), wit::Error> {
    let config = config_from_wit(config);
    result_to_wit(with_state(&CONNECTOR, |c: &mut C| c.start(config)))
}

pub(crate) fn task_configs<C: Connector>(max_tasks: u32) -> Result<Vec<wit::Config>, wit::Error> {
    let configs = result_to_wit(with_state(&CONNECTOR, |c: &mut C| c.task_configs(max_tasks)))?;
    Ok(configs.into_iter().map(config_to_wit).collect())
}

pub(crate) fn stop<C: Connector>() {
    with_state(&CONNECTOR, |c: &mut C| c.stop());
    drop_state(&CONNECTOR);
}

macro_rules! impl_connector_guest {
    ($($world:ident)::+) => {
        impl<C: Connector, T> $($world)::+::exports::wasm_connect::connector::connector::Guest
            for Glue<C, T>
        {
            fn name() -> String {
                name::<C>()
            }

            fn version() -> String {
                version::<C>()
            }

            fn config_definition() -> Vec<wit::ConfigKey> {
                config_definition::<C>()
            }

            fn validate(config: wit::Config) -> Vec<wit::ConfigProblem> {
                validate::<C>(config)
            }

            fn start(config: wit::Config) -> Result<(), wit::Error> {
                start::<C>(config)
            }

            fn task_configs(max_tasks: u32) -> Result<Vec<wit::Config>, wit::Error> {
                task_configs::<C>(max_tasks)
            }

            fn stop() {
                stop::<C>()
            }
        }
    };
}

impl_connector_guest!(crate::bindings::source);
impl_connector_guest!(crate::bindings::sink);
