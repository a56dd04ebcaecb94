//! [`TaskSettings`]: what a connector's tasks are built with, read from the connector
//! config by the module that owns each rule (converters and their version keys, error
//! policy, transformation chain, topic creation, the sink's subscription and group, client
//! overrides).

use std::sync::Arc;

use super::Problems;
use crate::model::{Config, PluginKind, Properties, sink_group};

use crate::worker::PluginRegistry;
use crate::worker::convert::{self, ConvertError, Converter, Side};
use crate::worker::errors::ErrorPolicy;
use crate::worker::topic_creation::TopicCreation;
use crate::worker::topics::Subscription;
use crate::worker::transforms::ChainSpec;
use crate::worker::version_keys;

/// A connector's task-level settings. A bad one is kept as its problems: the tasks fail
/// at start with them (the connector runs), and validation reports them.
#[derive(Clone)]
pub struct TaskSettings {
    /// The connector's own `key.converter` (with its settings); `None`: the worker's.
    pub key_converter: Option<Result<Arc<dyn Converter>, ConvertError>>,
    /// The connector's own `value.converter` (with its settings); `None`: the worker's.
    pub value_converter: Option<Result<Arc<dyn Converter>, ConvertError>>,
    /// The problems of the converters' version keys (KIP-891): a value that is no version
    /// or range, or that does not allow the worker's version (the only one installed).
    pub converter_versions: Problems,
    /// The `errors.*` keys (the dead letter queue for a sink).
    pub errors: Result<ErrorPolicy, Problems>,
    /// `header.converter` and the `transforms` / `predicates` chain.
    pub chain: Result<ChainSpec, Problems>,
    /// A source's `topic.creation.*` settings (a sink's: none configured).
    pub topic_creation: Result<TopicCreation, Problems>,
    /// A sink's `topics` or, when that is empty, `topics.regex` (`None`: neither, or a
    /// source).
    pub subscription: Option<Subscription>,
    /// A sink's consumer group (`consumer.override.group.id`, else `connect-<name>`).
    pub sink_group: String,
    /// `producer.override.*`, prefix stripped, in key order.
    pub producer_overrides: Config,
    /// `consumer.override.*`, prefix stripped, in key order.
    pub consumer_overrides: Config,
}

impl TaskSettings {
    /// Reads connector `name`'s config `raw` for a plugin of `kind`; transform classes
    /// resolve in `registry`.
    pub fn read(name: &str, raw: &Properties, kind: PluginKind, registry: &PluginRegistry) -> Self {
        let pairs: Config = raw.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        let sink = kind == PluginKind::Sink;
        let topic_creation = match kind {
            PluginKind::Source => TopicCreation::from_config(&pairs),
            _ => TopicCreation::from_config(&[]),
        };
        Self {
            key_converter: convert::connector_own(Side::Key, raw),
            value_converter: convert::connector_own(Side::Value, raw),
            converter_versions: version_keys::converter_problems(raw),
            errors: ErrorPolicy::from_config(&pairs, sink),
            chain: ChainSpec::read(raw, registry),
            topic_creation,
            subscription: if sink { subscription(raw) } else { None },
            sink_group: sink_group(name, raw),
            producer_overrides: overrides(raw, "producer.override."),
            consumer_overrides: overrides(raw, "consumer.override."),
        }
    }
}

/// `producer.override.*` or `consumer.override.*` keys, prefix stripped.
fn overrides(raw: &Properties, prefix: &str) -> Config {
    raw.iter().filter_map(|(k, v)| Some((k.strip_prefix(prefix)?.to_owned(), v.clone()))).collect()
}

/// A sink's `topics` (a comma-separated list) or, when that is empty, `topics.regex`.
fn subscription(config: &Properties) -> Option<Subscription> {
    let get = |k: &str| config.get(k).filter(|t| !t.trim().is_empty());
    if let Some(topics) = get("topics") {
        let list = topics.split(',').map(str::trim).filter(|t| !t.is_empty()).map(String::from);
        return Some(Subscription::Topics(list.collect()));
    }
    get("topics.regex").map(|p| Subscription::Pattern(p.trim().to_owned()))
}
