//! `/connectors`: create, read, update and delete connectors, their config, status and
//! tasks, pause/resume/stop, and the restart endpoints (KIP-745). Each handler parses,
//! calls the herder (within the request timeout) and maps the answer; none holds state.

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use axum::{Extension, Router};
use serde_json::{Value, json};

use super::RestState;
use super::dto::{self, CreateConnector, Info, StateInfo, TaskId, TaskInfo};
use super::error::ApiError;
use super::extract::{Body, Path, QueryParams};
use super::listing::{Expand, Listings};
use crate::herder::{HerderError, HerderHandle, RestartOutcome};

type Result<T> = std::result::Result<T, ApiError>;

/// The routes of this file.
pub fn routes() -> Router<RestState> {
    Router::new()
        .route("/connectors", get(list).post(create))
        .route("/connectors/{name}", get(info).delete(delete))
        .route("/connectors/{name}/config", get(config).put(put_config).patch(patch_config))
        .route("/connectors/{name}/status", get(status))
        .route("/connectors/{name}/tasks", get(tasks))
        .route("/connectors/{name}/tasks/{task}/status", get(task_status))
        .route("/connectors/{name}/tasks/{task}/restart", post(restart_task))
        .route("/connectors/{name}/pause", put(pause))
        .route("/connectors/{name}/resume", put(resume))
        .route("/connectors/{name}/stop", put(stop))
        .route("/connectors/{name}/restart", post(restart))
}

fn json<T: serde::Serialize>(status: StatusCode, body: T) -> Response {
    (status, axum::Json(body)).into_response()
}

fn created(name: &str, body: Info) -> Response {
    let mut r = json(StatusCode::CREATED, body);
    if let Ok(v) = HeaderValue::from_str(&format!("/connectors/{}", urlencode(name))) {
        r.headers_mut().insert(header::LOCATION, v);
    }
    r
}

fn urlencode(s: &str) -> String {
    form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>().replace('+', "%20")
}

fn task_id(name: &str, task: &str) -> Result<u32> {
    task.parse().map_err(|_| ApiError::not_found(format!("Unknown task: {name}-{task}")))
}

async fn list(
    State(s): State<RestState>,
    Extension(listings): Extension<Arc<Listings>>,
    q: QueryParams,
) -> Result<Response> {
    let expand = q.all("expand");
    let (with_status, with_info) = (expand.contains(&"status"), expand.contains(&"info"));
    let wanted = Expand { status: with_status, info: with_info };
    if let Some(body) = listings.body(&s.herder, wanted).await {
        let content_type = [(header::CONTENT_TYPE, "application/json")];
        return Ok((StatusCode::OK, content_type, body).into_response());
    }
    // The herder's loop answers: connector by connector, as it always did.
    let names = s.within(s.herder.connectors()).await?;
    if !with_status && !with_info {
        return Ok(json(StatusCode::OK, names));
    }
    let out = s.within(expanded(&s.herder, names, wanted)).await?;
    Ok(json(StatusCode::OK, out))
}

/// The expanded list, connector by connector; a connector the herder cannot answer for
/// (deleted meanwhile) is left out. Never an error: the caller bounds it in time.
async fn expanded(
    herder: &HerderHandle,
    names: Vec<String>,
    wanted: Expand,
) -> std::result::Result<serde_json::Map<String, Value>, HerderError> {
    let mut out = serde_json::Map::new();
    for name in names {
        let mut entry = serde_json::Map::new();
        if wanted.status {
            match herder.connector_status(&name).await {
                Ok(st) => entry.insert("status".into(), json!(StateInfo::from(st))),
                Err(_) => continue,
            };
        }
        if wanted.info {
            match herder.connector_info(&name).await {
                Ok(i) => entry.insert("info".into(), json!(Info::from(i))),
                Err(_) => continue,
            };
        }
        out.insert(name, Value::Object(entry));
    }
    Ok(out)
}

async fn create(State(s): State<RestState>, Body(req): Body<CreateConnector>) -> Result<Response> {
    let name = req.name.unwrap_or_default().trim().to_owned();
    let config = dto::properties(req.config.unwrap_or_default())?;
    let initial = req.initial_state.as_deref().map(dto::initial_state).transpose()?;
    let out = s.within(s.herder.put_connector_config(&name, config, initial, false)).await?;
    Ok(created(&name, out.info.into()))
}

async fn info(State(s): State<RestState>, Path(name): Path<String>) -> Result<Response> {
    let i = s.within(s.herder.connector_info(&name)).await?;
    Ok(json(StatusCode::OK, Info::from(i)))
}

async fn config(State(s): State<RestState>, Path(name): Path<String>) -> Result<Response> {
    let i = s.within(s.herder.connector_info(&name)).await?;
    Ok(json(StatusCode::OK, i.config))
}

async fn put_config(
    State(s): State<RestState>,
    Path(name): Path<String>,
    Body(config): Body<BTreeMap<String, Value>>,
) -> Result<Response> {
    let config = dto::properties(config)?;
    let out = s.within(s.herder.put_connector_config(&name, config, None, true)).await?;
    Ok(if out.created {
        created(&name, out.info.into())
    } else {
        json(StatusCode::OK, Info::from(out.info))
    })
}

async fn patch_config(
    State(s): State<RestState>,
    Path(name): Path<String>,
    Body(patch): Body<BTreeMap<String, Value>>,
) -> Result<Response> {
    let mut config = s.within(s.herder.connector_info(&name)).await?.config;
    for (k, v) in patch {
        match v {
            Value::Null => {
                config.remove(&k);
            }
            v => {
                config.extend(dto::properties(BTreeMap::from([(k, v)]))?);
            }
        }
    }
    let out = s.within(s.herder.put_connector_config(&name, config, None, true)).await?;
    Ok(json(StatusCode::OK, Info::from(out.info)))
}

async fn delete(State(s): State<RestState>, Path(name): Path<String>) -> Result<StatusCode> {
    s.within(s.herder.delete_connector(&name)).await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn status(State(s): State<RestState>, Path(name): Path<String>) -> Result<Response> {
    let st = s.within(s.herder.connector_status(&name)).await?;
    Ok(json(StatusCode::OK, StateInfo::from(st)))
}

async fn tasks(State(s): State<RestState>, Path(name): Path<String>) -> Result<Response> {
    let configs = s.within(s.herder.task_configs(&name)).await?;
    let out: Vec<TaskInfo> = configs
        .into_iter()
        .enumerate()
        .map(|(i, config)| TaskInfo {
            id: TaskId { connector: name.clone(), task: i as u32 },
            config,
        })
        .collect();
    Ok(json(StatusCode::OK, out))
}

async fn task_status(
    State(s): State<RestState>,
    Path((name, task)): Path<(String, String)>,
) -> Result<Response> {
    let id = task_id(&name, &task)
        .map_err(|_| ApiError::not_found(format!("No status found for task {name}-{task}")))?;
    let st = s.herder.task_status(&name, id)?;
    // The plugin's version when the herder knows it; only a timeout is an error.
    let info = async { Ok(s.herder.connector_info(&name).await.ok()) };
    let version = s.within(info).await?.and_then(|i| i.version);
    Ok(json(StatusCode::OK, dto::InstanceState::new(Some(id), &st, version)))
}

async fn restart_task(
    State(s): State<RestState>,
    Path((name, task)): Path<(String, String)>,
) -> Result<StatusCode> {
    let id = task_id(&name, &task)?;
    s.within(s.herder.restart_task(&name, id)).await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn pause(State(s): State<RestState>, Path(name): Path<String>) -> Result<StatusCode> {
    s.within(s.herder.pause(&name)).await?;
    Ok(StatusCode::ACCEPTED)
}

async fn resume(State(s): State<RestState>, Path(name): Path<String>) -> Result<StatusCode> {
    s.within(s.herder.resume(&name)).await?;
    Ok(StatusCode::ACCEPTED)
}

async fn stop(State(s): State<RestState>, Path(name): Path<String>) -> Result<StatusCode> {
    s.within(s.herder.stop(&name)).await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn restart(
    State(s): State<RestState>,
    Path(name): Path<String>,
    q: QueryParams,
) -> Result<Response> {
    let include_tasks = q.bool("includeTasks", false)?;
    let only_failed = q.bool("onlyFailed", false)?;
    match s.within(s.herder.restart_connector(&name, include_tasks, only_failed)).await? {
        RestartOutcome::Restarted => Ok(StatusCode::NO_CONTENT.into_response()),
        RestartOutcome::Accepted(st) => Ok(json(StatusCode::ACCEPTED, StateInfo::from(st))),
    }
}
