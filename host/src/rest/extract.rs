//! Extractors whose rejections are [`ApiError`]s with a message naming the problem, so a
//! malformed body, path or query answers 400 with Kafka Connect's error body, never 500 and
//! never axum's text/plain rejection.

use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection};
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use serde::de::{self, DeserializeOwned};
use serde::{Deserialize, Deserializer};

use super::error::ApiError;

/// A JSON object body (every body of this API is one). Wrong content, bad syntax, a wrong
/// type or a missing field is a 400 whose message says which.
pub struct Body<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for Body<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        let bytes = Bytes::from_request(req, state).await.map_err(unreadable_body)?;
        if bytes.is_empty() {
            return Err(ApiError::bad_request(
                "The request body is empty; a JSON document is required",
            ));
        }
        if bytes.iter().find(|b| !b.is_ascii_whitespace()).is_some_and(|b| *b != b'{') {
            // serde's derived structs would also take an array of their fields in order.
            return Err(ApiError::bad_request(
                "Invalid JSON in the request body: a JSON object is required",
            ));
        }
        let de = &mut serde_json::Deserializer::from_slice(&bytes);
        serde_path_to_error::deserialize(de).map(Body).map_err(|e| {
            let path = e.path().to_string();
            let at = if path == "." { String::new() } else { format!(" at `{path}`") };
            ApiError::bad_request(format!("Invalid JSON in the request body{at}: {}", e.inner()))
        })
    }
}

/// `T` from a JSON object only, for objects nested in a body: serde's derived structs also
/// take an array of their fields in order (`[{...}, null]` for `{"partition": {...},
/// "offset": null}`), which no client means.
#[derive(Debug)]
pub struct Object<T>(pub T);

impl<'de, T: DeserializeOwned> Deserialize<'de> for Object<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let map = serde_json::Map::deserialize(d)?;
        serde_json::from_value(serde_json::Value::Object(map))
            .map(Object)
            .map_err(de::Error::custom)
    }
}

/// The body's bytes, as sent (what a signature covers).
pub struct RawBody(pub Bytes);

impl<S: Send + Sync> FromRequest<S> for RawBody {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        Bytes::from_request(req, state).await.map(RawBody).map_err(unreadable_body)
    }
}

/// The answer to a body that cannot be read: too large (413) or cut short.
pub fn unreadable_body(e: BytesRejection) -> ApiError {
    ApiError::new(e.status(), format!("Cannot read the request body: {}", e.body_text()))
}

/// Path parameters (axum's `Path`), whose rejection is the JSON error body: a segment that
/// is not UTF-8 once percent-decoded (`/connectors/%ff`) is a 400 that says so.
pub struct Path<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned + Send> FromRequestParts<S> for Path<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        match axum::extract::Path::<T>::from_request_parts(parts, state).await {
            Ok(axum::extract::Path(t)) => Ok(Path(t)),
            Err(e) => Err(path_rejection(e)),
        }
    }
}

/// The answer to path parameters that cannot be read, with axum's status and text.
fn path_rejection(e: PathRejection) -> ApiError {
    ApiError::new(e.status(), e.body_text())
}

/// Query parameters, with repeated keys kept (`?expand=status&expand=info`).
pub struct QueryParams(pub Vec<(String, String)>);

impl QueryParams {
    /// The last value of `key`.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.0.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    /// Every value of `key`.
    pub fn all(&self, key: &str) -> Vec<&str> {
        self.0.iter().filter(|(k, _)| k == key).map(|(_, v)| v.as_str()).collect()
    }

    /// A boolean parameter (`true`/`false`, any case), `default` when absent.
    pub fn bool(&self, key: &str, default: bool) -> Result<bool, ApiError> {
        match self.get(key) {
            None => Ok(default),
            Some(v) if v.eq_ignore_ascii_case("true") => Ok(true),
            Some(v) if v.eq_ignore_ascii_case("false") => Ok(false),
            Some(v) => Err(ApiError::bad_request(format!(
                "Query parameter '{key}' must be true or false, got '{v}'"
            ))),
        }
    }
}

impl<S: Send + Sync> FromRequestParts<S> for QueryParams {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        let q = parts.uri.query().unwrap_or("");
        Ok(Self(form_urlencoded::parse(q.as_bytes()).into_owned().collect()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn booleans_are_strict_but_case_insensitive() {
        let q = QueryParams(vec![("a".into(), "TRUE".into()), ("b".into(), "yes".into())]);
        assert!(q.bool("a", false).unwrap());
        assert!(!q.bool("missing", false).unwrap());
        assert_eq!(q.bool("b", false).unwrap_err().status, axum::http::StatusCode::BAD_REQUEST);
    }
}
