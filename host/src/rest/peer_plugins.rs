//! The leader's part of validate in a group (KIP-891: every worker needs the version a
//! connector asks for). The leader asks each other member for its `GET /connector-plugins`
//! and reports each worker that has no version of the connector's plugin that
//! `connector.plugin.version` allows. The problem goes on that key, in the same words as
//! the failure of a task placed there. A worker that cannot be asked is named too.
//!
//! Only the leader knows the members ([`HerderHandle::peers`](crate::herder::HerderHandle::peers)).
//! On any other worker, and in standalone mode, this adds nothing. The worker's own
//! plugins are checked by the herder's validate, not here. Holds no state. The request
//! carries the caller's `Authorization` header, as a forwarded request does.

use axum::http::{HeaderMap, HeaderValue, Method, header};
use bytes::Bytes;
use serde::Deserialize;
use tokio::task::JoinSet;

use super::RestState;
use crate::cluster::{ForwardRequest, InterWorkerClient};
use crate::model::{ConfigProblem, PluginVersion, Properties, VersionRequirement};
use crate::worker::version_keys::no_match;

/// The key the problems go on.
const KEY: &str = "connector.plugin.version";

/// One entry of a worker's `GET /connector-plugins`.
#[derive(Deserialize)]
struct Listed {
    class: String,
    #[serde(default)]
    version: Option<String>,
}

/// The problems on `connector.plugin.version`: one for each other worker of the group
/// (when this worker leads it) that lacks a version of `plugin` the config allows. An
/// invalid version is left to the herder's validate, which reports it.
pub async fn lacking(
    s: &RestState,
    auth: Option<HeaderValue>,
    plugin: &str,
    config: &Properties,
) -> Vec<ConfigProblem> {
    let spec = config.get(KEY).map(|v| v.as_str());
    let Ok(requirement) = VersionRequirement::parse(spec) else { return Vec::new() };
    let Ok(peers) = s.herder.peers().await else { return Vec::new() };
    let mut asks = JoinSet::new();
    for url in peers {
        let (client, auth) = (s.client.clone(), auth.clone());
        asks.spawn(async move {
            let listed = installed(&client, &url, auth).await;
            (url, listed)
        });
    }
    let mut problems = Vec::new();
    while let Some(done) = asks.join_next().await {
        let Ok((url, listed)) = done else { continue };
        let worker = url.trim_end_matches('/');
        let message = match listed {
            Err(e) => format!("On worker {worker}: its plugins could not be listed: {e}"),
            Ok(listed) => {
                let versions: Vec<String> = listed
                    .into_iter()
                    .filter(|l| l.class == plugin)
                    .filter_map(|l| l.version)
                    .collect();
                if versions.iter().any(|v| requirement.allows(&PluginVersion::parse(v))) {
                    continue;
                }
                let installed = if versions.is_empty() { vec!["none".into()] } else { versions };
                let what = format!("Plugin {plugin}");
                let spec = spec.unwrap_or("latest");
                format!("On worker {worker}: {}", no_match(&what, spec, &installed))
            }
        };
        problems.push(ConfigProblem { key: KEY.into(), message });
    }
    problems.sort_by(|a, b| a.message.cmp(&b.message));
    problems
}

/// The connectors worker `url` lists.
async fn installed(
    client: &InterWorkerClient,
    url: &str,
    auth: Option<HeaderValue>,
) -> Result<Vec<Listed>, String> {
    let mut headers = HeaderMap::new();
    if let Some(auth) = auth {
        headers.insert(header::AUTHORIZATION, auth);
    }
    let url = format!("{}/connector-plugins", url.trim_end_matches('/'));
    let request = ForwardRequest { method: Method::GET, url, headers, body: Bytes::new() };
    let reply = client.forward(request).await.map_err(|e| e.to_string())?;
    serde_json::from_slice(&reply.body).map_err(|e| e.to_string())
}
