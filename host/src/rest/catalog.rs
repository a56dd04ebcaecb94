//! `GET /wasm-connect/plugins`: what the worker knows of each installed plugin component
//! beyond Kafka Connect's `GET /connector-plugins` (a wasm-connect addition, under a path
//! of its own so Kafka Connect's stay untouched): its language, the file and digest it was
//! loaded from, the WASI interfaces it imports and the capabilities a user may grant it.
//! The dashboard's plugin catalog reads it; the config definition stays at
//! `/connector-plugins/{plugin}/config`.
//!
//! Beside it: `GET /wasm-connect/plugins/failures`, the files of the plugin path that did
//! not load and why; `GET /wasm-connect/plugins/loading`, whether a scan is loading files
//! (at start: the whole path) and which are not loaded yet; and `POST /wasm-connect/plugins/rescan`, which scans this worker's
//! plugin path now (the worker also does at `plugin.scan.interval.ms`) and answers once
//! the result is applied: the plugins added and removed, and the failures. Both concern
//! this worker only; no request is forwarded.

use axum::Router;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};

use super::RestState;
use super::dto;
use super::error::ApiError;
use crate::runtime::Plugin;
use crate::worker::PluginRef;

/// The routes of this file.
pub fn routes() -> Router<RestState> {
    Router::new()
        .route("/wasm-connect/plugins", get(list))
        .route("/wasm-connect/plugins/failures", get(failures))
        .route("/wasm-connect/plugins/loading", get(loading))
        .route("/wasm-connect/plugins/rescan", post(rescan))
}

async fn failures(State(s): State<RestState>) -> Response {
    axum::Json(json!({ "failures": s.herder.plugins().failures() })).into_response()
}

/// Whether a scan is loading files now, and which it has not loaded yet.
async fn loading(State(s): State<RestState>) -> Response {
    let registry = s.herder.plugins();
    let files = registry.loading();
    axum::Json(json!({ "loading": files.is_some(), "files": files.unwrap_or_default() }))
        .into_response()
}

async fn rescan(State(s): State<RestState>) -> Result<Response, ApiError> {
    let report = s.within(s.herder.rescan_plugins()).await?;
    let refs = |list: &[PluginRef]| -> Vec<Value> { list.iter().map(plugin_ref).collect() };
    Ok(axum::Json(json!({
        "added": refs(&report.added),
        "removed": refs(&report.removed),
        "failures": report.failures,
    }))
    .into_response())
}

/// A plugin a rescan added or removed, its file by name only, as in the listing.
fn plugin_ref(p: &PluginRef) -> Value {
    let file = std::path::Path::new(&p.file).file_name().map(|f| f.to_string_lossy().into_owned());
    json!({ "class": p.name, "type": p.kind, "version": p.version, "file": file })
}

async fn list(State(s): State<RestState>) -> Response {
    let registry = s.herder.plugins();
    let body: Vec<Value> = registry.plugins().chain(registry.transforms()).map(details).collect();
    axum::Json(body).into_response()
}

/// One plugin: Kafka Connect's `class`, `type` and `version`, then ours. The file is its
/// name only: the worker's directories are not the API's business.
fn details(p: &Plugin) -> Value {
    let i = p.info();
    json!({
        "class": i.name,
        "type": dto::kind(Some(i.kind)),
        "version": i.version,
        "language": i.language.to_string(),
        "file": i.file.file_name().map(|f| f.to_string_lossy().into_owned()),
        "digest": i.digest,
        "imports": i.imports,
        "capabilities": i.capabilities(),
    })
}
