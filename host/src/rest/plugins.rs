//! `/connector-plugins`: the installed plugins, every version (and, with
//! `connectorsOnly=false`, the built-in converters), their config definitions (of the
//! version `?version=` picks, KIP-891), and config validation answered in
//! Kafka Connect's `ConfigInfos` shape, filled from the plugin's own definition and
//! `validate` call. Sensitive values show as `[hidden]`. On a group's leader, validate
//! also names the other workers that lack the version of the connector's plugin
//! (`peer_plugins`).

use std::collections::BTreeMap;

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, put};
use serde_json::{Value, json};

use super::RestState;
use super::dto;
use super::error::ApiError;
use super::extract::{Body, Path, QueryParams};
use super::peer_plugins;
use crate::herder::{Placed, alias_keys, class_keys, groups, placed_keys, recommended_versions};
use crate::model::{ConfigProblem, PluginKind, Properties, VersionRequirement};
use crate::runtime::Plugin;
use crate::worker::connector_config::no_connector_type;
use crate::worker::version_keys::no_match;
use crate::worker::{PluginRegistry, convert};
use wasm_connect_transforms::header_converter::HeaderConverter;
use wasm_connect_transforms::registry;

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
    // While the plugin path loads, the list waits for it (up to the request timeout, then
    // it answers what is loaded).
    let loaded = tokio::time::timeout(s.request_timeout, s.herder.plugins_loaded()).await;
    let registry = loaded.unwrap_or_else(|_| s.herder.plugins());
    Ok(axum::Json(listing(&registry, connectors_only)).into_response())
}

/// `GET /connector-plugins`: the connectors (sinks before sources, as Kafka Connect lists
/// them), then with `connectorsOnly=false` the converters, the header converters, the
/// transformations (built-in and plugins) and the predicates, each sorted by class, as
/// Kafka Connect lists them.
fn listing(registry: &PluginRegistry, connectors_only: bool) -> Vec<Value> {
    let mut plugins: Vec<&Plugin> = registry.plugins().collect();
    plugins.sort_by_key(|p| (p.info().kind != PluginKind::Sink, p.info().name.clone()));
    let mut out: Vec<Value> = plugins
        .iter()
        .map(|p| json!({ "class": p.info().name, "type": dto::kind(Some(p.info().kind)), "version": p.info().version }))
        .collect();
    if !connectors_only {
        let builtin = |class: &str, ty: &str| json!({ "class": class, "type": ty, "version": env!("CARGO_PKG_VERSION") });
        out.extend(convert::CLASSES.iter().map(|c| builtin(c, "converter")));
        out.extend(HeaderConverter::CLASSES.iter().map(|c| builtin(c, "header_converter")));
        // Sorted by class; a plugin's versions stay in the registry's (Kafka Connect's) order.
        let mut transforms: Vec<(String, String)> = registry::transforms()
            .into_iter()
            .map(|d| (d.class.to_owned(), env!("CARGO_PKG_VERSION").to_owned()))
            .chain(registry.transforms().map(|p| (p.info().name.clone(), p.info().version.clone())))
            .collect();
        transforms.sort_by(|a, b| a.0.cmp(&b.0));
        out.extend(transforms.into_iter().map(
            |(class, version)| json!({ "class": class, "type": "transformation", "version": version }),
        ));
        out.extend(registry::predicates().into_iter().map(|d| builtin(d.class, "predicate")));
    }
    out
}

/// The `version` query parameter (KIP-891): a version, a range or `latest` (the default).
fn requirement(name: &str, q: &QueryParams) -> Result<VersionRequirement> {
    VersionRequirement::parse(q.get("version"))
        .map_err(|e| ApiError::bad_request(format!("Invalid version range for {name}: {e}")))
}

/// What a version asked for of plugin `name` that is not installed answers: a 400 naming
/// the installed versions, as Kafka Connect answers it.
fn no_version(name: &str, q: &QueryParams, installed: &[String]) -> ApiError {
    let spec = q.get("version").unwrap_or("latest");
    ApiError::bad_request(no_match(&format!("Plugin {name}"), spec, installed))
}

/// Kafka Connect's `ConfigKeyInfo`. A key outside any group (every plugin key: the
/// contract has no groups) has `group: null` and `order_in_group: -1`, as Kafka's
/// `ConfigDef` gives a key defined without one.
fn key_info(p: &Placed) -> Value {
    let k = &p.key;
    json!({
        "name": k.name,
        "type": k.ty.to_string(),
        "required": k.required && k.default_value.is_none(),
        "default_value": k.default_value,
        "importance": k.importance.to_string(),
        "documentation": k.documentation,
        "group": p.group,
        "order_in_group": p.order,
        "width": p.width,
        "display_name": p.display,
        "dependents": [],
    })
}

/// The values validate recommends for a key: the installed converters for a converter
/// key, and the installed versions of its plugin for a version key (KIP-891), as Kafka
/// Connect does; none for the others.
fn recommended(key: &str, config: &Properties, plugins: &PluginRegistry) -> Vec<String> {
    let classes: &[&str] = match key {
        "key.converter" | "value.converter" => convert::CLASSES,
        "header.converter" => &HeaderConverter::CLASSES,
        _ => return recommended_versions(key, config, plugins).unwrap_or_default(),
    };
    classes.iter().map(|c| c.to_string()).collect()
}

/// `GET /connector-plugins/{plugin}/config[?version=]`: the definition of the version of
/// the plugin that `version` picks (the newest it allows; the newest when absent).
async fn config(
    State(s): State<RestState>,
    Path(name): Path<String>,
    q: QueryParams,
) -> Result<Response> {
    let requirement = requirement(&name, &q)?;
    let registry =
        s.within(async { Ok(s.herder.plugins_for(&name, q.get("version")).await) }).await?;
    let keys = match class_keys(&name, &registry, &requirement) {
        Some(keys) => keys.map_err(|installed| no_version(&name, &q, &installed))?,
        None => {
            let unknown = || ApiError::not_found(format!("Unknown plugin {name}."));
            let versions = registry.versions(&name).ok_or_else(unknown)?;
            let plugin = versions
                .pick(&requirement)
                .map_err(|installed| no_version(&name, &q, &installed))?;
            let latest = versions.newest().map(|p| p.info().version.as_str());
            placed_keys(plugin.info(), latest)
        }
    };
    let out: Vec<Value> = keys.iter().map(key_info).collect();
    Ok(axum::Json(out).into_response())
}

async fn validate(
    State(s): State<RestState>,
    Path(name): Path<String>,
    headers: HeaderMap,
    Body(config): Body<BTreeMap<String, Value>>,
) -> Result<Response> {
    // Kafka Connect means a 400 here (its BadRequestException), with its message. A
    // plugin the plugin path is still loading is waited for.
    let version = config.get("connector.plugin.version").and_then(Value::as_str);
    let registry = s.within(async { Ok(s.herder.plugins_for(&name, version).await) }).await?;
    let p = registry
        .resolve(&name)
        .ok_or_else(|| ApiError::bad_request(registry.not_found(&name)))?
        .clone();
    let config = dto::properties(config)?;
    let strip =
        |n: &str| n.rsplit('.').next().unwrap_or(n).trim_end_matches("Connector").to_owned();
    match config.get("connector.class") {
        Some(class)
            if strip(class) != strip(&name)
                && registry.resolve(class).map(|x| &x.info().name) != Some(&p.info().name) =>
        {
            return Err(ApiError::bad_request(format!(
                "Included connector type {class} does not match request type {name}"
            )));
        }
        None => {
            return Err(ApiError::bad_request(no_connector_type(&config)));
        }
        _ => {}
    }
    let mut problems = s.within(s.herder.validate(&config)).await?;
    // In a group, the leader names the other workers that lack the version.
    let auth = headers.get(header::AUTHORIZATION).cloned();
    let lacking = peer_plugins::lacking(&s, auth, &p.info().name, &config);
    problems.extend(s.within(async { Ok(lacking.await) }).await?);
    // A create fills `name` in from the request; a config validated on its own must have it.
    match config.get("name").map(|n| n.trim()) {
        None => problems.push(ConfigProblem {
            key: "name".into(),
            message: "Missing required configuration \"name\" which has no default value.".into(),
        }),
        Some("") => problems.push(ConfigProblem {
            key: "name".into(),
            message: "Invalid value  for configuration name: String may not be empty".into(),
        }),
        Some(_) => {}
    }
    let mut errors: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for pr in &problems {
        errors.entry(pr.key.clone()).or_default().push(pr.message.clone());
    }
    // The definition of the version `connector.plugin.version` picks (the newest when it
    // picks none: validate reports that on the key).
    let versions = registry.versions(&p.info().name);
    let picked =
        VersionRequirement::parse(config.get("connector.plugin.version").map(|v| v.as_str()))
            .ok()
            .and_then(|r| versions.and_then(|v| v.pick(&r).ok()))
            .unwrap_or(&p);
    let mut keys = placed_keys(picked.info(), Some(p.info().version.as_str()));
    keys.extend(alias_keys(&config, &registry));
    let mut configs: Vec<Value> = keys
        .iter()
        .map(|placed| {
            let k = &placed.key;
            let value = config
                .get(&k.name)
                .map(|v| if k.is_secret() { "[hidden]".to_string() } else { v.clone() });
            json!({
                "definition": key_info(placed),
                "value": {
                    "name": k.name,
                    "value": value.or_else(|| k.default_value.clone()),
                    "recommended_values": recommended(&k.name, &config, &registry),
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
        "groups": groups(&keys),
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
        let of = |ty: &str| -> Vec<&str> {
            all.iter().filter(|p| p["type"] == ty).map(|p| p["class"].as_str().unwrap()).collect()
        };
        assert_eq!(of("converter"), convert::CLASSES);
        assert!(of("converter").contains(&"org.apache.kafka.connect.json.JsonConverter"));
        assert_eq!(of("header_converter"), HeaderConverter::CLASSES);
        let transforms = of("transformation");
        assert!(transforms.contains(&"org.apache.kafka.connect.transforms.InsertField$Value"));
        assert!(transforms.is_sorted(), "{transforms:?}");
        assert!(
            of("predicate")
                .contains(&"org.apache.kafka.connect.transforms.predicates.HasHeaderKey")
        );
        assert!(all.iter().all(|p| p["version"] == env!("CARGO_PKG_VERSION")));
    }
}
