//! `GET /ui` and `GET /ui/{asset}`: the web dashboard (a wasm-connect addition), a few
//! static files from `host/ui/` embedded in the binary, so every installation has it and it
//! works without a network. The page is plain ES modules that call this same origin's REST
//! API, so it sits behind the same basic authentication and TLS as the API.
//!
//! Every answer carries its content type, `Cache-Control: no-cache` with an `ETag` (a
//! browser revalidates and gets a `304` while the binary is unchanged),
//! `X-Content-Type-Options: nosniff` and a content security policy allowing only this
//! origin. An unknown asset is a 404 in the API's error body. This module serves bytes; it
//! calls no herder and holds no state.
//!
//! For work on the dashboard itself, `WASM_CONNECT_UI_DIR=host/ui` makes the worker read
//! the same files (only those names) from that directory at each request instead, so an
//! edit shows on reload without a rebuild.

use axum::Router;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use super::error::ApiError;
use super::extract::Path;

/// One embedded file.
struct Asset {
    name: &'static str,
    content_type: &'static str,
    bytes: &'static [u8],
    /// FNV-1a of the bytes, the `ETag`.
    hash: u64,
}

macro_rules! asset {
    ($name:literal, $content_type:expr) => {{
        const BYTES: &[u8] = include_bytes!(concat!("../../ui/", $name));
        Asset { name: $name, content_type: $content_type, bytes: BYTES, hash: fnv1a(BYTES) }
    }};
}

const JS: &str = "text/javascript; charset=utf-8";

/// The files, by the name after `/ui/`; `index.html` is also `/ui` itself.
const ASSETS: &[Asset] = &[
    asset!("index.html", "text/html; charset=utf-8"),
    asset!("style.css", "text/css; charset=utf-8"),
    asset!("favicon.svg", "image/svg+xml"),
    asset!("app.js", JS),
    asset!("api.js", JS),
    asset!("dom.js", JS),
    asset!("connectors.js", JS),
    asset!("connector.js", JS),
    asset!("actions.js", JS),
    asset!("editor.js", JS),
    asset!("plugins.js", JS),
    asset!("metrics.js", JS),
    asset!("chart.js", JS),
    asset!("converters.js", JS),
];

/// Only this origin: scripts, styles, images and API calls.
const POLICY: &str = "default-src 'self'; img-src 'self' data:; style-src 'self'; \
                      script-src 'self'; connect-src 'self'; frame-ancestors 'none'; \
                      base-uri 'none'; form-action 'none'";

const fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash = 0xcbf2_9ce4_8422_2325_u64;
    let mut i = 0;
    while i < bytes.len() {
        hash ^= bytes[i] as u64;
        hash = hash.wrapping_mul(0x0100_0000_01b3);
        i += 1;
    }
    hash
}

/// The routes of this file; they need no state.
pub fn routes<S: Clone + Send + Sync + 'static>() -> Router<S> {
    Router::new()
        .route("/ui", get(|headers: HeaderMap| async move { serve("index.html", &headers) }))
        .route(
            "/ui/{*asset}",
            get(|Path(name): Path<String>, headers: HeaderMap| async move {
                serve(&name, &headers)
            }),
        )
}

fn serve(name: &str, headers: &HeaderMap) -> Response {
    let Some(asset) = ASSETS.iter().find(|a| a.name == name) else {
        return ApiError::not_found(format!("No dashboard file {name}")).into_response();
    };
    let from_disk = std::env::var_os("WASM_CONNECT_UI_DIR")
        .and_then(|dir| std::fs::read(std::path::Path::new(&dir).join(asset.name)).ok());
    let (bytes, hash) = match from_disk {
        Some(bytes) => {
            let hash = fnv1a(&bytes);
            (std::borrow::Cow::Owned(bytes), hash)
        }
        None => (std::borrow::Cow::Borrowed(asset.bytes), asset.hash),
    };
    let etag = format!("\"{hash:016x}\"");
    let fresh = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == etag || t.trim() == "*"));
    let mut response = if fresh {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        ([(header::CONTENT_TYPE, asset.content_type)], bytes).into_response()
    };
    let h = response.headers_mut();
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    h.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(POLICY));
    if let Ok(v) = HeaderValue::from_str(&etag) {
        h.insert(header::ETAG, v);
    }
    response
}

#[cfg(test)]
#[path = "ui_tests.rs"]
mod ui_tests;
