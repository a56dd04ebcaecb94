//! The `exactly-once` interface of the `source-connector` world: the connector's answers,
//! from [`Connector::exactly_once_support`] and
//! [`Connector::can_define_transaction_boundaries`], on the connector's instance state.

use super::convert::config_from_wit;
use super::{CONNECTOR, Glue, with_state};
use crate::bindings::source::exports::wasm_connect::connector::exactly_once::{Guest, Support};
use crate::bindings::source::wasm_connect::connector::types as wit;
use crate::{Connector, ExactlyOnceSupport};

pub(crate) fn exactly_once_support<C: Connector>(config: wit::Config) -> Option<Support> {
    let config = config_from_wit(config);
    let answer = with_state(&CONNECTOR, |c: &mut C| c.exactly_once_support(&config));
    answer.map(|a| match a {
        ExactlyOnceSupport::Supported => Support::Supported,
        ExactlyOnceSupport::Unsupported => Support::Unsupported,
    })
}

pub(crate) fn can_define_transaction_boundaries<C: Connector>(config: wit::Config) -> bool {
    let config = config_from_wit(config);
    with_state(&CONNECTOR, |c: &mut C| c.can_define_transaction_boundaries(&config))
}

impl<C: Connector, T> Guest for Glue<C, T> {
    fn exactly_once_support(config: wit::Config) -> Option<Support> {
        exactly_once_support::<C>(config)
    }

    fn can_define_transaction_boundaries(config: wit::Config) -> bool {
        can_define_transaction_boundaries::<C>(config)
    }
}
