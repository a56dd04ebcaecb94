//! `/connector-plugins`: the installed plugins (and, with `connectorsOnly=false`, the
//! built-in converters), their config definitions, and config validation answered in
//! Kafka Connect's `ConfigInfos` shape, filled from the plugin's own definition and
//! `validate` call. Sensitive values show as `[hidden]`.

use std::collections::BTreeMap;

use axum::Router;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, put};
use serde_json::{Value, json};

use super::RestState;
use super::dto;
use super::error::ApiError;
use super::extract::{Body, QueryParams};
use crate::model::{ConfigKey, ConfigType, Importance, PluginKind};
use crate::runtime::Plugin;
use crate::worker::{PluginRegistry, convert};

type Result<T> = std::result::Result<T, ApiError>;

/// The routes of this file.
pub fn routes() -> Router<RestState> {
    Router::new()
        .route("/connector-plugins", get(list))
        .route("/connector-plugins/{plugin}/config", get(config))
        .route("/connector-plugins/{plugin}/config/validate", put(validate))
}

async fn list(State(s): State<RestState>, q: QueryParams) -> Result<Response> {
    let connectors_only = q.bool("connectorsOnly", true)?;
    Ok(axum::Json(listing(s.herder.plugins(), connectors_only)).into_response())
}

/// `GET /connector-plugins`: the connectors (sinks before sources, as Kafka Connect lists
/// them), then with `connectorsOnly=false` the converters, typed `converter`.
fn listing(registry: &PluginRegistry, connectors_only: bool) -> Vec<Value> {
    let mut plugins: Vec<&Plugin> = registry.plugins().collect();
    plugins.sort_by_key(|p| (p.info().kind != PluginKind::Sink, p.info().name.clone()));
    let mut out: Vec<Value> = plugins
        .iter()
        .map(|p| json!({ "class": p.info().name, "type": dto::kind(Some(p.info().kind)), "version": p.info().version }))
        .collect();
    if !connectors_only {
        out.extend(convert::CLASSES.iter().map(|class| {
            json!({ "class": class, "type": "converter", "version": env!("CARGO_PKG_VERSION") })
        }));
    }
    out
}

fn find<'a>(s: &'a RestState, name: &str) -> Result<&'a Plugin> {
    s.herder
        .plugins()
        .resolve(name)
        .ok_or_else(|| ApiError::not_found(format!("Unknown plugin {name}.")))
}

/// The framework's own connector keys, after the plugin's.
fn framework_keys(kind: PluginKind) -> Vec<ConfigKey> {
    let key = |name: &str, ty, default: Option<&str>, importance, doc: &str| ConfigKey {
        name: name.into(),
        ty,
        default_value: default.map(Into::into),
        importance,
        documentation: doc.into(),
        required: false,
        sensitive: false,
        grant: None,
    };
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
            ConfigType::String,
            None,
            Importance::Low,
            "Converter class for record keys; the worker's when unset.",
        ),
        key(
            "value.converter",
            ConfigType::String,
            None,
            Importance::Low,
            "Converter class for record values; the worker's when unset.",
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

/// Kafka Connect's `ConfigKeyInfo`. A key outside any group (every plugin key: the
/// contract has no groups) has `group: null` and `order_in_group: -1`, as Kafka's
/// `ConfigDef` gives a key defined without one.
fn key_info(k: &ConfigKey, group: Option<&str>, order: i32) -> Value {
    json!({
        "name": k.name,
        "type": k.ty.to_string(),
        "required": k.required && k.default_value.is_none(),
        "default_value": k.default_value,
        "importance": k.importance.to_string(),
        "documentation": k.documentation,
        "group": group,
        "order_in_group": order,
        "width": "NONE",
        "display_name": k.name,
        "dependents": [],
    })
}

/// The framework's group name, Kafka Connect's `ConnectorConfig.COMMON_GROUP`.
const COMMON_GROUP: &str = "Common";

/// Every key of `p` with its group and order in it: the plugin's own keys (no group)
/// first, then the framework's, numbered from 1 in their group.
fn all_keys(p: &Plugin) -> Vec<(ConfigKey, Option<&'static str>, i32)> {
    let own = p.info().config_def.keys.iter().cloned().map(|k| (k, None, -1));
    let common = framework_keys(p.info().kind)
        .into_iter()
        .zip(1..)
        .map(|(k, order)| (k, Some(COMMON_GROUP), order));
    own.chain(common).collect()
}

async fn config(State(s): State<RestState>, Path(name): Path<String>) -> Result<Response> {
    let p = find(&s, &name)?;
    let out: Vec<Value> = all_keys(p).iter().map(|(k, g, order)| key_info(k, *g, *order)).collect();
    Ok(axum::Json(out).into_response())
}

async fn validate(
    State(s): State<RestState>,
    Path(name): Path<String>,
    Body(config): Body<BTreeMap<String, Value>>,
) -> Result<Response> {
    let p = find(&s, &name)?.clone();
    let config = dto::properties(config)?;
    let strip =
        |n: &str| n.rsplit('.').next().unwrap_or(n).trim_end_matches("Connector").to_owned();
    match config.get("connector.class") {
        Some(class)
            if strip(class) != strip(&name)
                && s.herder.plugins().resolve(class).map(|x| &x.info().name)
                    != Some(&p.info().name) =>
        {
            return Err(ApiError::bad_request(format!(
                "Included connector type {class} does not match request type {name}"
            )));
        }
        None => {
            return Err(ApiError::bad_request(format!(
                "Connector config {config:?} contains no connector type"
            )));
        }
        _ => {}
    }
    let problems = s.within(s.herder.validate(&config)).await?;
    let mut errors: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for pr in &problems {
        errors.entry(pr.key.clone()).or_default().push(pr.message.clone());
    }
    let keys = all_keys(&p);
    let mut configs: Vec<Value> = keys
        .iter()
        .map(|(k, g, order)| {
            let value = config
                .get(&k.name)
                .map(|v| if k.is_secret() { "[hidden]".to_string() } else { v.clone() });
            json!({
                "definition": key_info(k, *g, *order),
                "value": {
                    "name": k.name,
                    "value": value.or_else(|| k.default_value.clone()),
                    "recommended_values": [],
                    "errors": errors.remove(&k.name).unwrap_or_default(),
                    "visible": true,
                }
            })
        })
        .collect();
    // Problems with keys neither the plugin nor the framework declares.
    configs.extend(errors.into_iter().map(|(key, errs)| {
        json!({ "definition": null, "value": { "name": key, "value": null, "recommended_values": [], "errors": errs, "visible": true } })
    }));
    // Kafka Connect names the result after the class as the config gives it.
    let class = config.get("connector.class").cloned().unwrap_or_default();
    let body = json!({
        "name": class,
        "error_count": problems.len(),
        "groups": [COMMON_GROUP],
        "configs": configs,
    });
    Ok((StatusCode::OK, axum::Json(body)).into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converters_are_listed_only_when_asked_for() {
        let registry = PluginRegistry::default();
        assert!(listing(&registry, true).is_empty());
        let all = listing(&registry, false);
        let classes: Vec<&str> = all.iter().map(|p| p["class"].as_str().unwrap()).collect();
        assert_eq!(classes, convert::CLASSES);
        assert!(classes.contains(&"org.apache.kafka.connect.json.JsonConverter"));
        for p in &all {
            assert_eq!(p["type"], "converter");
            assert_eq!(p["version"], env!("CARGO_PKG_VERSION"));
        }
    }
}
