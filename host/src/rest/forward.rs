//! Forwarding of requests this worker cannot execute to the worker that can (Kafka
//! Connect's `HerderRequestHandler`, reference §1.4): a write on a follower goes to the
//! leader, a restart to the worker running the instance.
//!
//! A middleware around every route. Handlers stay unaware: when one answers with a
//! [`HerderError::NotHere`](crate::herder::HerderError::NotHere), its [`ApiError`] carries a
//! [`NotHere`] marker, and [`layer`] re-sends the request (same method, same body bytes,
//! same path and query) to the named worker:
//! - a user request (no `forward` parameter) goes on with `forward=true`;
//! - a request already forwarded once (`forward=true`) goes on with `forward=false`;
//! - a request forwarded twice (`forward=false`) answers 409: two hops at most;
//! - with no known target, the handler's 409 (no known leader) stands.
//!
//! Only `Authorization` and the two signature headers are copied. The other worker's answer
//! is relayed: its 2xx status and body (a create stays 201), or its error status and body.
//! GET and HEAD are never forwarded. The marker never leaves this layer. This module holds
//! no state and calls no herder method.

use axum::body::{Body, Bytes};
use axum::extract::{FromRequest, Request, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::error::{ApiError, NotHere};
use super::extract::unreadable_body;
use crate::cluster::{
    ALGORITHM_HEADER, ForwardReply, ForwardRequest, InterWorkerClient, SIGNATURE_HEADER,
};

/// The 409 message of a request that did not reach its target within two hops.
pub const CONFLICTING: &str =
    "Cannot complete request because of a conflicting operation (e.g. worker rebalance)";

/// The headers copied to a forwarded request.
const COPIED: [&str; 3] = ["authorization", SIGNATURE_HEADER, ALGORITHM_HEADER];

/// The middleware: buffers the body of requests that may be forwarded (within the body
/// limit), runs the handler, and forwards when its answer carries a [`NotHere`] marker.
pub async fn layer(
    State(client): State<InterWorkerClient>,
    request: Request,
    next: Next,
) -> Response {
    if !forwardable(request.method()) {
        let mut response = next.run(request).await;
        response.extensions_mut().remove::<NotHere>();
        return response;
    }
    let (parts, body) = request.into_parts();
    let body = match Bytes::from_request(Request::from_parts(parts.clone(), body), &()).await {
        Ok(body) => body,
        Err(e) => return unreadable_body(e).into_response(),
    };
    let mut response = next.run(Request::from_parts(parts.clone(), Body::from(body.clone()))).await;
    let Some(NotHere { url }) = response.extensions_mut().remove::<NotHere>() else {
        return response;
    };
    let (method, path, query) = (parts.method, parts.uri.path(), parts.uri.query());
    let Some(flag) = next_hop(query) else {
        tracing::error!(method = %method, path, "Request could not reach the worker that executes it within two hops between workers");
        return ApiError::new(StatusCode::CONFLICT, CONFLICTING).into_response();
    };
    let Some(base) = url else {
        return response;
    };
    let url = target_url(&base, path, query, flag);
    tracing::debug!(method = %method, url = %url, "Forwarding a request");
    let request = ForwardRequest { method, url, headers: copied(&parts.headers), body };
    match client.forward(request).await {
        Ok(reply) => relay(reply),
        Err(e) => ApiError::from(e).into_response(),
    }
}

/// Whether requests with `method` may be forwarded (every write; never a read).
fn forwardable(method: &Method) -> bool {
    [Method::POST, Method::PUT, Method::PATCH, Method::DELETE].contains(method)
}

/// The `forward` value of the next hop, or `None` when the request has made its two hops.
/// Like Kafka Connect, the first `forward` value counts, and anything but `true` (in any
/// case) is false.
fn next_hop(query: Option<&str>) -> Option<bool> {
    let forward = form_urlencoded::parse(query.unwrap_or("").as_bytes())
        .find(|(k, _)| k == "forward")
        .map(|(_, v)| v.eq_ignore_ascii_case("true"));
    match forward {
        None => Some(true),
        Some(true) => Some(false),
        Some(false) => None,
    }
}

/// `base` + `path` + `?forward=<flag>`, then the request's other query parameters as
/// they came (restart flags and the like).
fn target_url(base: &str, path: &str, query: Option<&str>, flag: bool) -> String {
    let mut url = format!("{}{path}?forward={flag}", base.trim_end_matches('/'));
    for pair in query.unwrap_or("").split('&').filter(|p| !p.is_empty()) {
        let key = pair.split('=').next().unwrap_or(pair);
        if form_urlencoded::parse(key.as_bytes()).next().is_some_and(|(k, _)| k == "forward") {
            continue;
        }
        url.push('&');
        url.push_str(pair);
    }
    url
}

fn copied(headers: &HeaderMap) -> HeaderMap {
    COPIED
        .iter()
        .filter_map(|&name| {
            let value = headers.get(name)?.clone();
            // `try_from` lowercases, as header names are stored.
            Some((HeaderName::try_from(name).ok()?, value))
        })
        .collect()
}

/// The other worker's successful answer, as this worker's.
fn relay(reply: ForwardReply) -> Response {
    let has_body = !reply.body.is_empty();
    let mut response = (reply.status, reply.body).into_response();
    let headers = response.headers_mut();
    headers.remove(header::CONTENT_TYPE);
    match reply.content_type {
        Some(v) => drop(headers.insert(header::CONTENT_TYPE, v)),
        None if has_body => {
            drop(headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json")))
        }
        None => {}
    }
    if let Some(v) = reply.location {
        headers.insert(header::LOCATION, v);
    }
    response
}

#[cfg(test)]
#[path = "forward_tests.rs"]
mod tests;
