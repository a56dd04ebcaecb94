//! Which converter a connector uses for its keys and its values: its own
//! ([`connector_own`], read once with its config, whose validation reports one that cannot
//! be built), else the worker's ([`worker_default`]).
//!
//! This module owns Kafka Connect's precedence rule: a connector's own `key.converter` /
//! `value.converter` wins over the worker's, and a converter's settings (`key.converter.*`)
//! come from the same config as its class. Name resolution and settings parsing are
//! `class`'s.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::class::ConverterClass;
use super::{ConvertError, Converter};
use crate::model::Properties;

/// Which side of a record a converter handles.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    /// Record keys (`key.converter`).
    Key,
    /// Record values (`value.converter`).
    Value,
}

impl Side {
    /// The config key naming this side's converter class: `key.converter` or
    /// `value.converter`; its settings are the keys under `<this>.`.
    pub fn config_key(self) -> &'static str {
        match self {
            Side::Key => "key.converter",
            Side::Value => "value.converter",
        }
    }

    /// `key` or `value`, as metrics label the side.
    pub fn label(self) -> &'static str {
        match self {
            Side::Key => "key",
            Side::Value => "value",
        }
    }
}

/// The connector's own converter for `side` (its `key.converter` / `value.converter`, with
/// that key's settings); `None` when the connector sets none and the worker's is used.
pub fn connector_own(
    side: Side,
    connector: &Properties,
) -> Option<Result<Arc<dyn Converter>, ConvertError>> {
    let key = side.config_key();
    let class = connector.get(key)?;
    Some(build(key, class, settings(key, connector.iter())))
}

/// The worker's converter for `side`: `worker_class` with `worker_props` (prefix already
/// stripped).
pub fn worker_default(
    side: Side,
    worker_class: &str,
    worker_props: &BTreeMap<String, String>,
) -> Result<Arc<dyn Converter>, ConvertError> {
    let props = worker_props.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    build(side.config_key(), worker_class, props)
}

/// The `<key>.*` settings among `config`, prefix stripped.
fn settings<'a>(
    key: &str,
    config: impl Iterator<Item = (&'a String, &'a String)>,
) -> BTreeMap<&'a str, &'a str> {
    config
        .filter_map(|(k, v)| {
            let name = k.strip_prefix(key)?.strip_prefix('.')?;
            Some((name, v.as_str()))
        })
        .collect()
}

fn build(
    key: &str,
    class: &str,
    settings: BTreeMap<&str, &str>,
) -> Result<Arc<dyn Converter>, ConvertError> {
    let Some(converter) = ConverterClass::resolve(class) else {
        return Err(ConvertError::UnknownClass { key: key.to_owned(), class: class.to_owned() });
    };
    converter.build(key, &settings)
}
