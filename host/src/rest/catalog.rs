//! `GET /wasm-connect/plugins`: what the worker knows of each installed plugin component
//! beyond Kafka Connect's `GET /connector-plugins` (a wasm-connect addition, under a path
//! of its own so Kafka Connect's stay untouched): its language, the file and digest it was
//! loaded from, the WASI interfaces it imports and the capabilities a user may grant it.
//! The dashboard's plugin catalog reads it; the config definition stays at
//! `/connector-plugins/{plugin}/config`.

use axum::Router;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::{Value, json};

use super::RestState;
use super::dto;
use crate::runtime::Plugin;

/// The routes of this file.
pub fn routes() -> Router<RestState> {
    Router::new().route("/wasm-connect/plugins", get(list))
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
