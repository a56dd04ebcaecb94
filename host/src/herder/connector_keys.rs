//! The keys of a connector's definition as `/connector-plugins/{p}/config` and validate
//! show them: the plugin's own keys, then the framework's (Kafka Connect's
//! `ConnectorConfig`, `SinkConnectorConfig` and the error-handling keys, plus this worker's
//! retry and restart keys; KIP-891's version keys after the class keys they version), each
//! placed in Kafka Connect's group with its order in the group, width and display name. REST renders them. It only describes keys; checking
//! values is `validate`'s.

use super::plugin_version_keys;
use crate::model::{ConfigKey, ConfigType, Importance, PluginInfo, PluginKind, RELOAD_ACTION};

/// A key with where Kafka Connect's `ConfigKeyInfo` places it.
#[derive(Clone, Debug)]
pub struct Placed {
    /// The key.
    pub key: ConfigKey,
    /// Its group; `None` for a plugin's own keys (the contract has no groups).
    pub group: Option<String>,
    /// Its order in the group, from 1; -1 outside any group (Kafka's `ConfigDef` default).
    pub order: i32,
    /// `NONE`, `SHORT`, `MEDIUM` or `LONG`.
    pub width: &'static str,
    /// The label Kafka Connect shows; the key's name when it has none.
    pub display: String,
}

/// Every key of `plugin`: its own keys first (those the framework also defines, such as a
/// sink's `topics`, are listed once, as the framework's), then the framework's by group.
/// `latest` is the plugin's newest installed version, the default of
/// `connector.plugin.version`.
pub fn placed_keys(plugin: &PluginInfo, latest: Option<&str>) -> Vec<Placed> {
    let mut framework = Vec::new();
    for key in framework_keys(plugin.kind) {
        let version = plugin_version_keys::after_class_key(&key.name, latest);
        framework.push(key);
        framework.extend(version);
    }
    let own =
        plugin.config_def.keys.iter().filter(|k| !framework.iter().any(|f| f.name == k.name)).map(
            |k| Placed {
                key: k.clone(),
                group: None,
                order: -1,
                width: "NONE",
                display: k.name.clone(),
            },
        );
    let mut next_order: Vec<(&'static str, i32)> = Vec::new();
    let own: Vec<Placed> = own.collect();
    let placed = framework.into_iter().map(|key| {
        let (group, width, display) = layout(&key.name);
        let order = match next_order.iter_mut().find(|(g, _)| *g == group) {
            Some((_, n)) => {
                *n += 1;
                *n
            }
            None => {
                next_order.push((group, 1));
                1
            }
        };
        let display = display.map(str::to_owned).unwrap_or_else(|| key.name.clone());
        Placed { key, group: Some(group.to_owned()), order, width, display }
    });
    own.into_iter().chain(placed).collect()
}

/// The groups of `keys`, in the order they first appear (validate's `groups`).
pub fn groups(keys: &[Placed]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for g in keys.iter().filter_map(|k| k.group.as_deref()) {
        if !out.iter().any(|o| o == g) {
            out.push(g.to_owned());
        }
    }
    out
}

/// Kafka Connect's `ConnectorConfig.COMMON_GROUP`.
const COMMON: &str = "Common";
/// Kafka Connect's `ConnectorConfig.TRANSFORMS_GROUP`.
const TRANSFORMS: &str = "Transforms";
/// Kafka Connect's `ConnectorConfig.PREDICATES_GROUP`.
const PREDICATES: &str = "Predicates";
/// Kafka Connect's `ConnectorConfig.ERROR_GROUP`.
const ERRORS: &str = "Error Handling";
/// Kafka Connect's `SourceConnectorConfig` topic creation group.
const TOPIC_CREATION: &str = "Topic Creation";
/// Kafka Connect's `SourceConnectorConfig.EXACTLY_ONCE_SUPPORT_GROUP`.
const EXACTLY_ONCE: &str = "Exactly Once Support";
/// Kafka Connect's `SourceConnectorConfig.OFFSETS_TOPIC_GROUP`.
const OFFSETS_TOPIC: &str = "offsets.topic";
/// This worker's task-configs retry keys (KAFKA-14732).
const RECONFIGURATION: &str = "Task Reconfiguration";
/// This worker's restart policy keys.
const RESTARTS: &str = "Restarts";

/// The group, width and display name Kafka Connect gives a framework key; this worker's
/// own keys get groups of their own.
fn layout(name: &str) -> (&'static str, &'static str, Option<&'static str>) {
    if let Some((width, display)) = plugin_version_keys::layout(name) {
        return (COMMON, width, Some(display));
    }
    match name {
        "name" => (COMMON, "MEDIUM", Some("Connector name")),
        "connector.class" => (COMMON, "LONG", Some("Connector class")),
        "tasks.max" => (COMMON, "SHORT", Some("Tasks max")),
        "key.converter" => (COMMON, "SHORT", Some("Key converter class")),
        "value.converter" => (COMMON, "SHORT", Some("Value converter class")),
        "topics" => (COMMON, "LONG", Some("Topics")),
        "header.converter" => (COMMON, "SHORT", Some("Header converter class")),
        "transforms" => (TRANSFORMS, "LONG", Some("Transforms")),
        "predicates" => (PREDICATES, "LONG", Some("Predicates")),
        "topics.regex" => (COMMON, "LONG", Some("Topics regex")),
        "errors.retry.timeout" => (ERRORS, "MEDIUM", Some("Retry Timeout for Errors")),
        "errors.retry.delay.max.ms" => {
            (ERRORS, "MEDIUM", Some("Maximum Delay Between Retries for Errors"))
        }
        "errors.tolerance" => (ERRORS, "SHORT", Some("Error Tolerance")),
        "errors.log.enable" => (ERRORS, "SHORT", Some("Log Errors")),
        "errors.log.include.messages" => (ERRORS, "SHORT", Some("Log Error Details")),
        "errors.deadletterqueue.topic.name" => {
            (ERRORS, "MEDIUM", Some("Dead Letter Queue Topic Name"))
        }
        "errors.deadletterqueue.topic.replication.factor" => {
            (ERRORS, "MEDIUM", Some("Dead Letter Queue Topic Replication Factor"))
        }
        "errors.deadletterqueue.context.headers.enable" => {
            (ERRORS, "MEDIUM", Some("Enable Error Context Headers"))
        }
        "config.action.reload" => (COMMON, "MEDIUM", Some("Reload Action")),
        "topic.creation.groups" => (TOPIC_CREATION, "LONG", Some("Topic Creation Groups")),
        "exactly.once.support" => (EXACTLY_ONCE, "SHORT", Some("Exactly once support")),
        "transaction.boundary" => (EXACTLY_ONCE, "SHORT", Some("Transaction Boundary")),
        "transaction.boundary.interval.ms" => {
            (EXACTLY_ONCE, "SHORT", Some("Transaction boundary interval"))
        }
        "offsets.storage.topic" => (OFFSETS_TOPIC, "LONG", Some("Offsets topic")),
        n if n.starts_with("task.reconfiguration.") => (RECONFIGURATION, "SHORT", None),
        n if n.starts_with("restart.") => (RESTARTS, "SHORT", None),
        _ => (COMMON, "NONE", None),
    }
}

/// A key the framework defines: optional, not sensitive, granting nothing.
pub(super) fn key(
    name: &str,
    ty: ConfigType,
    default: Option<&str>,
    importance: Importance,
    doc: &str,
) -> ConfigKey {
    ConfigKey {
        name: name.into(),
        ty,
        default_value: default.map(Into::into),
        importance,
        documentation: doc.into(),
        required: false,
        sensitive: false,
        grant: None,
    }
}

/// The framework's own connector keys, after the plugin's.
fn framework_keys(kind: PluginKind) -> Vec<ConfigKey> {
    let mut keys = vec![
        ConfigKey {
            required: true,
            ..key(
                "name",
                ConfigType::String,
                None,
                Importance::High,
                "Globally unique name to use for this connector.",
            )
        },
        ConfigKey {
            required: true,
            ..key(
                "connector.class",
                ConfigType::String,
                None,
                Importance::High,
                "Name of the plugin (or the class name of a Kafka Connect connector it stands for).",
            )
        },
        key(
            "tasks.max",
            ConfigType::Int,
            Some("1"),
            Importance::High,
            "Maximum number of tasks to use for this connector.",
        ),
        key(
            "key.converter",
            ConfigType::Class,
            None,
            Importance::Low,
            "Converter class for record keys; the worker's when unset.",
        ),
        key(
            "value.converter",
            ConfigType::Class,
            None,
            Importance::Low,
            "Converter class for record values; the worker's when unset.",
        ),
        key(
            "header.converter",
            ConfigType::Class,
            None,
            Importance::Low,
            "HeaderConverter class that writes the headers transforms add; \
             org.apache.kafka.connect.storage.SimpleHeaderConverter when unset.",
        ),
        key(
            "transforms",
            ConfigType::List,
            Some(""),
            Importance::Low,
            "Aliases for the transformations to be applied to records.",
        ),
        key(
            "predicates",
            ConfigType::List,
            Some(""),
            Importance::Low,
            "Aliases for the predicates used by transformations.",
        ),
        key(
            RELOAD_ACTION,
            ConfigType::String,
            Some("restart"),
            Importance::Low,
            "The action to take on the connector when a config provider reports that a value \
             it gave expires: none or restart. Kafka's file, directory and environment \
             providers give no expiry, so neither happens.",
        ),
    ];
    keys.extend([
        key(
            "task.reconfiguration.backoff.initial.ms",
            ConfigType::Long,
            Some("250"),
            Importance::Low,
            "Delay before the first retry of a failed task-configs call; the worker's when unset.",
        ),
        key(
            "task.reconfiguration.backoff.max.ms",
            ConfigType::Long,
            Some("60000"),
            Importance::Low,
            "Cap of the task-configs retry delay.",
        ),
        key(
            "task.reconfiguration.backoff.multiplier",
            ConfigType::Double,
            Some("2"),
            Importance::Low,
            "Growth of the task-configs retry delay per attempt.",
        ),
        key(
            "task.reconfiguration.backoff.jitter",
            ConfigType::Double,
            Some("0"),
            Importance::Low,
            "Fraction of random spread on each task-configs retry delay.",
        ),
        key(
            "task.reconfiguration.retries.max",
            ConfigType::Int,
            Some("-1"),
            Importance::Low,
            "Task-configs retries before the connector fails; -1 retries forever.",
        ),
        key(
            "restart.policy",
            ConfigType::String,
            Some("none"),
            Importance::Medium,
            "none, or on-failure to restart FAILED instances automatically.",
        ),
        key(
            "restart.backoff.initial.ms",
            ConfigType::Long,
            Some("250"),
            Importance::Low,
            "Delay before the first automatic restart.",
        ),
        key(
            "restart.backoff.max.ms",
            ConfigType::Long,
            Some("60000"),
            Importance::Low,
            "Cap of the automatic restart delay.",
        ),
        key(
            "restart.backoff.multiplier",
            ConfigType::Double,
            Some("2"),
            Importance::Low,
            "Growth of the automatic restart delay.",
        ),
        key(
            "restart.backoff.jitter",
            ConfigType::Double,
            Some("0"),
            Importance::Low,
            "Fraction of random spread on each automatic restart delay.",
        ),
        key(
            "restart.retries.max",
            ConfigType::Int,
            Some("-1"),
            Importance::Low,
            "Automatic restarts before giving up; -1 has no limit.",
        ),
        key(
            "restart.healthy.after.ms",
            ConfigType::Long,
            Some("60000"),
            Importance::Low,
            "Running time after which the restart count resets.",
        ),
    ]);
    keys.extend(crate::worker::errors::keys::config_keys(kind == PluginKind::Sink));
    if kind == PluginKind::Source {
        keys.push(key(
            "topic.creation.groups",
            ConfigType::List,
            Some(""),
            Importance::Low,
            "Groups of topic.creation.<group>.* settings for topics this connector creates (KIP-158).",
        ));
        keys.extend(exactly_once_keys());
    }
    if kind == PluginKind::Sink {
        keys.push(key(
            "topics",
            ConfigType::List,
            Some(""),
            Importance::High,
            "List of topics to consume, separated by commas.",
        ));
        keys.push(key(
            "topics.regex",
            ConfigType::String,
            Some(""),
            Importance::High,
            "Regular expression giving topics to consume.",
        ));
    }
    keys
}

/// A source connector's KIP-618 keys, as Kafka Connect's `SourceConnectorConfig` defines
/// them (values checked by `validate`'s `exactly_once`).
fn exactly_once_keys() -> [ConfigKey; 4] {
    [
        key(
            "exactly.once.support",
            ConfigType::String,
            Some("requested"),
            Importance::Medium,
            "Permitted values are requested, required. If set to \"required\", forces a \
             preflight check for the connector to ensure that it can provide exactly-once \
             semantics with the given configuration. Some connectors may be capable of providing \
             exactly-once semantics but not signal to Connect that they support this; in that \
             case, documentation for the connector should be consulted carefully before creating \
             it, and the value for this property should be set to \"requested\". Additionally, \
             if the value is set to \"required\" but the worker that performs preflight \
             validation does not have exactly-once support enabled for source connectors, \
             requests to create or validate the connector will fail.",
        ),
        key(
            "transaction.boundary",
            ConfigType::String,
            Some("poll"),
            Importance::Medium,
            "Permitted values are: poll, interval, connector. If set to 'poll', a new producer \
             transaction will be started and committed for every batch of records that each task \
             from this connector provides to Connect. If set to 'connector', relies on \
             connector-defined transaction boundaries; note that not all connectors are capable \
             of defining their own transaction boundaries, and in that case, attempts to \
             instantiate a connector with this value will fail. Finally, if set to 'interval', \
             commits transactions only after a user-defined time interval has passed.",
        ),
        key(
            "transaction.boundary.interval.ms",
            ConfigType::Long,
            None,
            Importance::Low,
            "If 'transaction.boundary' is set to 'interval', determines the interval for \
             producer transaction commits by connector tasks. If unset, defaults to the value \
             of the worker-level 'offset.flush.interval.ms' property. It has no effect if a \
             different transaction.boundary is specified.",
        ),
        key(
            "offsets.storage.topic",
            ConfigType::String,
            None,
            Importance::Low,
            "The name of a separate offsets topic to use for this connector. If empty or not \
             specified, the worker's global offsets topic name will be used. If specified, the \
             offsets topic will be created if it does not already exist on the Kafka cluster \
             targeted by this connector.",
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ConfigDef, Language};

    impl PluginInfo {
        fn for_tests(name: &str, kind: PluginKind, keys: Vec<ConfigKey>) -> Self {
            Self {
                name: name.into(),
                version: "1".into(),
                kind,
                language: Language::Rust,
                file: "p.wasm".into(),
                digest: String::new(),
                config_def: ConfigDef { keys },
                imports: Vec::new(),
            }
        }
    }

    fn layout_of(kind: PluginKind) -> Vec<(String, Option<String>, i32, &'static str)> {
        let info = PluginInfo::for_tests("p", kind, vec![]);
        placed_keys(&info, Some("1"))
            .into_iter()
            .map(|p| (p.key.name, p.group, p.order, p.width))
            .collect()
    }

    #[test]
    fn framework_keys_sit_in_kafka_connects_groups_numbered_per_group() {
        let keys = layout_of(PluginKind::Sink);
        let find = |n: &str| keys.iter().find(|k| k.0 == n).unwrap().clone();
        assert_eq!(find("name"), ("name".into(), Some(COMMON.into()), 1, "MEDIUM"));
        assert_eq!(find("connector.class").2, 2);
        assert_eq!(
            find("connector.plugin.version"),
            ("connector.plugin.version".into(), Some(COMMON.into()), 3, "MEDIUM")
        );
        assert_eq!(find("key.converter").2 + 1, find("key.converter.plugin.version").2);
        assert_eq!(find("header.converter").2 + 1, find("header.converter.plugin.version").2);
        assert_eq!(
            find("errors.retry.timeout"),
            ("errors.retry.timeout".into(), Some(ERRORS.into()), 1, "MEDIUM")
        );
        let names: Vec<&str> = keys.iter().map(|k| k.0.as_str()).collect();
        let mut unique = names.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), names.len(), "no key twice: {names:?}");
        assert!(names.contains(&"topics") && !names.contains(&"topic.creation.groups"));
        assert!(layout_of(PluginKind::Source).iter().any(|k| k.0 == "topic.creation.groups"));
        assert!(!names.contains(&"exactly.once.support"), "a sink has no exactly-once keys");
        let source = layout_of(PluginKind::Source);
        let find = |n: &str| source.iter().find(|k| k.0 == n).unwrap().clone();
        assert_eq!(find("exactly.once.support").1.as_deref(), Some(EXACTLY_ONCE));
        assert_eq!(find("transaction.boundary.interval.ms").2, 3);
        assert_eq!(
            find("offsets.storage.topic"),
            ("offsets.storage.topic".into(), Some(OFFSETS_TOPIC.into()), 1, "LONG")
        );
    }

    #[test]
    fn converters_are_classes_and_the_dlq_factor_a_short() {
        let keys = framework_keys(PluginKind::Sink);
        let ty = |n: &str| keys.iter().find(|k| k.name == n).unwrap().ty;
        assert_eq!(ty("key.converter"), ConfigType::Class);
        assert_eq!(ty("value.converter"), ConfigType::Class);
        assert_eq!(ty("errors.deadletterqueue.topic.replication.factor"), ConfigType::Short);
    }

    #[test]
    fn a_plugin_key_the_framework_defines_is_listed_once_as_the_frameworks() {
        let own = ConfigKey {
            name: "topics".into(),
            ty: ConfigType::List,
            default_value: None,
            importance: Importance::High,
            documentation: "mine".into(),
            required: false,
            sensitive: false,
            grant: None,
        };
        let info = PluginInfo::for_tests("p", PluginKind::Sink, vec![own]);
        let topics: Vec<Placed> =
            placed_keys(&info, None).into_iter().filter(|p| p.key.name == "topics").collect();
        assert_eq!(topics.len(), 1);
        assert_eq!(topics[0].group.as_deref(), Some(COMMON));
        assert_eq!(
            groups(&placed_keys(&info, None)),
            [COMMON, TRANSFORMS, PREDICATES, RECONFIGURATION, RESTARTS, ERRORS]
        );
    }
}
