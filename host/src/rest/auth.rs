//! Optional HTTP basic authentication of every REST request, as Kafka Connect's
//! `BasicAuthSecurityRestExtension` does with its `PropertyFileLoginModule`.
//!
//! The credentials file (`rest.basic.auth.credentials.file`) is a properties file of
//! `username: password` (or `username=password`) lines with `#` and `!` comments, read
//! with Kafka's grammar, e.g. `admin: admin-secret`. Passwords are compared in constant
//! time against every user, so the answer time does not tell which user exists.
//!
//! As in Kafka Connect, the inter-worker endpoints (`POST /connectors/{name}/tasks` and
//! `PUT /connectors/{name}/fence`) are exempt: they carry a request signature instead
//! (`internal.rs`). Deviation from Kafka Connect: a file without any user is an error at
//! start-up (Kafka lets every request through).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use base64::Engine;
use subtle::{Choice, ConstantTimeEq};

use crate::config::PropertiesError;
use crate::config::properties;
use crate::rest::ApiError;

/// The `WWW-Authenticate` challenge of a 401 answer.
pub const CHALLENGE: &str = "Basic realm=\"wasm-connect\"";
/// The message of a 401 answer (Kafka Connect's).
pub const UNAUTHORIZED: &str = "User cannot access the resource.";

/// Why the credentials file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    /// The file cannot be read or breaks the properties grammar.
    #[error(transparent)]
    Read(#[from] PropertiesError),
    /// The file names no user.
    #[error("{}: no credentials: expected `username: password` lines", file.display())]
    NoUsers {
        /// The file.
        file: PathBuf,
    },
}

/// The users allowed in; cheap to clone.
#[derive(Clone)]
pub struct BasicAuth {
    users: Arc<[(String, String)]>,
}

impl std::fmt::Debug for BasicAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BasicAuth").field("users", &self.users.len()).finish_non_exhaustive()
    }
}

impl BasicAuth {
    /// Reads a credentials file.
    pub fn load(path: &Path) -> Result<BasicAuth, AuthError> {
        let users = properties::read(path)?;
        if users.is_empty() {
            return Err(AuthError::NoUsers { file: path.to_path_buf() });
        }
        Ok(BasicAuth { users: users.into() })
    }

    /// Whether an `Authorization` header value names a user with the right password.
    pub fn allows(&self, authorization: Option<&HeaderValue>) -> bool {
        let Some((user, password)) = authorization.and_then(decode) else {
            return false;
        };
        let mut found = Choice::from(0);
        for (u, p) in self.users.iter() {
            found |= u.as_bytes().ct_eq(&user) & p.as_bytes().ct_eq(&password);
        }
        found.into()
    }

    /// `router` with every request authenticated (add it after the routes, so that it
    /// covers them and the fallbacks).
    pub fn protect<S: Clone + Send + Sync + 'static>(self, router: Router<S>) -> Router<S> {
        router.layer(middleware::from_fn_with_state(self, require))
    }
}

/// The middleware: passes authenticated requests on, answers 401 to the others.
pub async fn require(State(auth): State<BasicAuth>, request: Request, next: Next) -> Response {
    if is_internal(request.method(), request.uri().path())
        || auth.allows(request.headers().get(header::AUTHORIZATION))
    {
        return next.run(request).await;
    }
    tracing::debug!(path = %request.uri().path(), "Request failed authentication");
    let mut response = ApiError::new(StatusCode::UNAUTHORIZED, UNAUTHORIZED).into_response();
    response.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static(CHALLENGE));
    response
}

/// Whether a request is for an inter-worker endpoint, matched as Kafka Connect matches it
/// (one path segment for the name, an optional trailing slash).
fn is_internal(method: &Method, path: &str) -> bool {
    let path = path.strip_suffix('/').unwrap_or(path);
    let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    match segments.as_slice() {
        ["connectors", name, "tasks"] => method == Method::POST && !name.is_empty(),
        ["connectors", name, "fence"] => method == Method::PUT && !name.is_empty(),
        _ => false,
    }
}

/// `Basic <base64(user:password)>` (scheme in any case) → user and password bytes. The
/// user is everything before the first `:` and may not be empty.
fn decode(value: &HeaderValue) -> Option<(Vec<u8>, Vec<u8>)> {
    let (scheme, encoded) = value.to_str().ok()?.split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return None;
    }
    let decoded = base64::engine::general_purpose::STANDARD.decode(encoded.trim()).ok()?;
    let colon = decoded.iter().position(|&b| b == b':').filter(|&i| i > 0)?;
    Some((decoded[..colon].to_vec(), decoded[colon + 1..].to_vec()))
}

#[cfg(test)]
mod tests {
    use axum::body::Body;
    use tower::ServiceExt;

    use super::*;

    fn auth(text: &str) -> (tempfile::TempDir, Result<BasicAuth, AuthError>) {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("credentials.properties");
        std::fs::write(&file, text).unwrap();
        let auth = BasicAuth::load(&file);
        (dir, auth)
    }

    fn basic(user_password: &str) -> String {
        format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(user_password))
    }

    async fn call(auth: &BasicAuth, authorization: Option<&str>) -> (StatusCode, Response) {
        call_at(auth, Method::GET, "/", authorization).await
    }

    async fn call_at(
        auth: &BasicAuth,
        method: Method,
        path: &str,
        authorization: Option<&str>,
    ) -> (StatusCode, Response) {
        let app = auth.clone().protect(Router::new().fallback(|| async { "ok" }));
        let mut request = Request::builder().method(method).uri(path);
        if let Some(value) = authorization {
            request = request.header(header::AUTHORIZATION, value);
        }
        let response = app.oneshot(request.body(Body::empty()).unwrap()).await.unwrap();
        (response.status(), response)
    }

    #[test]
    fn loads_kafka_credentials_files() {
        let text = "# users\n! more comments\nadmin: admin-secret\nuser=p:w \nother secret\n";
        let (_dir, auth) = auth(text);
        let auth = auth.unwrap();
        let allows = |v: &str| auth.allows(Some(&HeaderValue::from_str(v).unwrap()));
        assert!(allows(&basic("admin:admin-secret")));
        assert!(allows(&basic("user:p:w ")), "the password is everything after the first ':'");
        assert!(allows(&basic("other:secret")));
        assert!(allows(&format!("bAsIc  {}", &basic("admin:admin-secret")[6..])));
        for wrong in [
            basic("admin:admin-secreT"),
            basic("admin:"),
            basic("nobody:admin-secret"),
            basic(":admin-secret"),
            basic("admin"),
            "Basic !!!".into(),
            "Bearer admin:admin-secret".into(),
            basic("admin:admin-secret").replace(' ', ""),
        ] {
            assert!(!allows(&wrong), "{wrong}");
        }
        assert!(!auth.allows(None));
    }

    #[test]
    fn unusable_files_are_errors() {
        let (_dir, empty) = auth("# nobody\n\n");
        assert!(matches!(empty, Err(AuthError::NoUsers { .. })));
        assert!(
            empty
                .unwrap_err()
                .to_string()
                .ends_with("no credentials: expected `username: password` lines")
        );
        let missing = BasicAuth::load(Path::new("/nonexistent/credentials.properties"));
        assert!(matches!(missing, Err(AuthError::Read(PropertiesError::Read { .. }))));
    }

    #[tokio::test]
    async fn middleware_answers_401_with_a_challenge_and_kafka_body() {
        let (_dir, auth) = auth("admin: admin-secret\n");
        let auth = auth.unwrap();
        let (status, response) = call(&auth, Some(&basic("admin:admin-secret"))).await;
        assert_eq!(status, StatusCode::OK);
        let body = axum::body::to_bytes(response.into_body(), 1024).await.unwrap();
        assert_eq!(&body[..], b"ok");
        for authorization in [None, Some(basic("admin:wrong"))] {
            let (status, response) = call(&auth, authorization.as_deref()).await;
            assert_eq!(status, StatusCode::UNAUTHORIZED);
            assert_eq!(response.headers()[header::WWW_AUTHENTICATE], CHALLENGE);
            let body = axum::body::to_bytes(response.into_body(), 1024).await.unwrap();
            let body: serde_json::Value = serde_json::from_slice(&body).unwrap();
            assert_eq!(body, serde_json::json!({"error_code": 401, "message": UNAUTHORIZED}));
        }
    }

    #[tokio::test]
    async fn inter_worker_endpoints_are_exempt() {
        let (_dir, auth) = auth("admin: admin-secret\n");
        let auth = auth.unwrap();
        for (method, path) in [
            (Method::POST, "/connectors/c/tasks"),
            (Method::POST, "/connectors/my%20conn/tasks/"),
            (Method::PUT, "/connectors/c/fence"),
        ] {
            assert_eq!(
                call_at(&auth, method.clone(), path, None).await.0,
                StatusCode::OK,
                "{method} {path}"
            );
        }
        for (method, path) in [
            (Method::GET, "/connectors/c/tasks"),
            (Method::POST, "/connectors/c/tasks/0/restart"),
            (Method::POST, "/connectors//tasks"),
            (Method::POST, "/connectors/a/b/tasks"),
            (Method::PUT, "/connectors/c/pause"),
            (Method::GET, "/connectors/c/fence"),
        ] {
            let (status, _) = call_at(&auth, method.clone(), path, None).await;
            assert_eq!(status, StatusCode::UNAUTHORIZED, "{method} {path}");
        }
    }
}
