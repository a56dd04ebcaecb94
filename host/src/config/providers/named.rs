//! [`ConfigProviders`]: the providers the worker file names, read from Kafka's keys:
//! `config.providers` (a comma-separated list of names), `config.providers.<name>.class`
//! and `config.providers.<name>.param.<parameter>`.
//!
//! Stricter than Kafka, which skips what it cannot use: a listed provider without a class,
//! an unknown class, a class or parameter for a provider not listed, an unknown parameter
//! and any other key under `config.providers.` stop the worker with a problem naming the
//! key.

use std::collections::BTreeMap;

use super::provider::{CLASSES, Provider};
use crate::config::reader::Reader;

/// The key listing the providers.
pub const CONFIG_PROVIDERS: &str = "config.providers";
/// The prefix of each provider's own keys.
const PREFIX: &str = "config.providers.";

/// The providers by name. Empty (the default): no provider, every reference stays as
/// written.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConfigProviders {
    pub(super) by_name: BTreeMap<String, Provider>,
}

impl ConfigProviders {
    /// A set of named providers (tests and embedders).
    pub fn new(providers: impl IntoIterator<Item = (String, Provider)>) -> Self {
        Self { by_name: providers.into_iter().collect() }
    }

    /// Whether no provider is configured.
    pub fn is_empty(&self) -> bool {
        self.by_name.is_empty()
    }

    /// The names configured, in order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.by_name.keys().map(String::as_str)
    }

    /// Reads the provider keys, recording a problem for each wrong one.
    pub(in crate::config) fn read(r: &mut Reader<'_>) -> Self {
        let names: Vec<String> =
            r.list(CONFIG_PROVIDERS, "a comma-separated list of provider names", |e| {
                Ok(e.to_owned())
            })
            .unwrap_or_default();
        let mut classes: BTreeMap<&str, &str> = BTreeMap::new();
        let mut params: BTreeMap<&str, BTreeMap<String, String>> = BTreeMap::new();
        let mut param_keys: BTreeMap<(&str, String), &str> = BTreeMap::new();
        for (key, value) in r.prefixed(PREFIX, CONFIG_PROVIDERS) {
            let rest = &key[PREFIX.len()..];
            let (name, param) = match (rest.strip_suffix(".class"), rest.split_once(".param.")) {
                (Some(name), _) => (name, None),
                (None, Some((name, param))) if !param.is_empty() => (name, Some(param)),
                _ => {
                    r.problem(
                        key,
                        "unknown key; expected config.providers.<name>.class or \
                         config.providers.<name>.param.<parameter>",
                    );
                    continue;
                }
            };
            let Some(name) = names.iter().find(|n| *n == name) else {
                r.problem(key, format!("no provider named {name:?} in {CONFIG_PROVIDERS}"));
                continue;
            };
            match param {
                None => {
                    classes.insert(name.as_str(), value);
                }
                Some(param) => {
                    params
                        .entry(name.as_str())
                        .or_default()
                        .insert(param.to_owned(), value.to_owned());
                    param_keys.insert((name.as_str(), param.to_owned()), key);
                }
            }
        }
        let mut by_name = BTreeMap::new();
        for name in &names {
            let class_key = format!("{PREFIX}{name}.class");
            let Some(&written) = classes.get(name.as_str()) else {
                r.problem(
                    &class_key,
                    format!("missing: the provider {name:?} is listed in {CONFIG_PROVIDERS}"),
                );
                continue;
            };
            let Some(class) = Provider::class_of(written) else {
                let available: Vec<String> = CLASSES
                    .iter()
                    .map(|c| format!("org.apache.kafka.common.config.provider.{c}"))
                    .collect();
                r.problem(
                    &class_key,
                    format!(
                        "Failed to find any class that implements ConfigProvider and which name \
                         matches {written}, available ConfigProviders are: {}",
                        available.join(", ")
                    ),
                );
                continue;
            };
            let own = params.remove(name.as_str()).unwrap_or_default();
            match Provider::build(class, &own) {
                Ok(provider) => {
                    by_name.insert(name.clone(), provider);
                }
                Err((param, message)) => {
                    let key =
                        param_keys.get(&(name.as_str(), param)).copied().unwrap_or(&class_key);
                    r.problem(key, message);
                }
            }
        }
        Self { by_name }
    }
}
