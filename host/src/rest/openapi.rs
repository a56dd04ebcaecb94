//! `GET /openapi.json`: an OpenAPI 3.0 document of the whole API, kept true by a test that
//! compares it with the routes this module's files declare, and by `scripts/schemathesis.sh`,
//! which checks a running worker's answers against it.

use axum::Router;
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;

use super::RestState;

/// The document, maintained by hand next to the routes.
pub const DOCUMENT: &str = include_str!("openapi.json");

/// The routes of this file.
pub fn routes() -> Router<RestState> {
    Router::new().route(
        "/openapi.json",
        get(|| async { ([(header::CONTENT_TYPE, "application/json")], DOCUMENT).into_response() }),
    )
}

/// The answers the API fuzzing against this document found wrong.
#[cfg(test)]
#[path = "api_tests.rs"]
mod api_tests;

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::DOCUMENT;

    /// The sources that declare routes; `internal.rs` is left out on purpose (the
    /// inter-worker endpoints are hidden, as in Kafka Connect), and so is `ui.rs` (the
    /// dashboard's pages are HTML, not API).
    const SOURCES: &[&str] = &[
        include_str!("connectors.rs"),
        include_str!("plugins.rs"),
        include_str!("root.rs"),
        include_str!("topics.rs"),
        include_str!("offsets.rs"),
        include_str!("loggers.rs"),
        include_str!("metrics.rs"),
        include_str!("openapi.rs"),
        include_str!("catalog.rs"),
    ];

    /// (method, path) of every `.route("PATH", method(..).method(..))` in the sources.
    fn declared() -> BTreeSet<(String, String)> {
        let mut out = BTreeSet::new();
        for src in SOURCES {
            let flat = src.split_whitespace().collect::<Vec<_>>().join(" ");
            for chunk in flat.split(".route(").skip(1) {
                let Some(chunk) = chunk.trim_start().strip_prefix('"') else { continue };
                let Some((path, rest)) = chunk.split_once('"') else { continue };
                if !path.starts_with('/') {
                    continue;
                }
                let call = rest.split(".route(").next().unwrap_or(rest);
                let call = call.split(" } ").next().unwrap_or(call);
                for m in ["get", "post", "put", "patch", "delete"] {
                    let mut found = false;
                    for prefix in ["(", " ", "."] {
                        if call.contains(&format!("{prefix}{m}(")) {
                            found = true;
                        }
                    }
                    if found {
                        out.insert((m.to_string(), path.to_string()));
                    }
                }
            }
        }
        out
    }

    fn documented() -> BTreeSet<(String, String)> {
        let doc: serde_json::Value = serde_json::from_str(DOCUMENT).expect("the document is JSON");
        let mut out = BTreeSet::new();
        for (path, ops) in doc["paths"].as_object().expect("paths") {
            for method in ops.as_object().expect("operations").keys() {
                out.insert((method.clone(), path.clone()));
            }
        }
        out
    }

    #[test]
    fn the_document_lists_exactly_the_routes() {
        let declared = declared();
        let documented = documented();
        assert!(declared.len() > 20, "the route scan found too little: {declared:?}");
        let missing: Vec<_> = declared.difference(&documented).collect();
        let extra: Vec<_> = documented.difference(&declared).collect();
        assert!(missing.is_empty(), "routes missing from openapi.json: {missing:?}");
        assert!(extra.is_empty(), "openapi.json documents routes that do not exist: {extra:?}");
    }

    /// Every `$ref`, `operationId` link and `type` in `v`, each with its JSON pointer.
    fn walk(v: &serde_json::Value, at: &str, out: &mut Vec<(String, String, serde_json::Value)>) {
        match v {
            serde_json::Value::Object(map) => {
                for (k, x) in map {
                    if matches!(k.as_str(), "$ref" | "type" | "operationId") {
                        out.push((format!("{at}/{k}"), k.clone(), x.clone()));
                    }
                    walk(x, &format!("{at}/{}", k.replace('~', "~0").replace('/', "~1")), out);
                }
            }
            serde_json::Value::Array(items) => {
                for (i, x) in items.iter().enumerate() {
                    walk(x, &format!("{at}/{i}"), out);
                }
            }
            _ => {}
        }
    }

    #[test]
    fn references_resolve_and_types_are_openapi_3_0() {
        let doc: serde_json::Value = serde_json::from_str(DOCUMENT).unwrap();
        let mut found = Vec::new();
        walk(&doc, "", &mut found);
        let ops: Vec<&serde_json::Value> = doc["paths"]
            .as_object()
            .unwrap()
            .values()
            .flat_map(|ops| ops.as_object().unwrap().values())
            .collect();
        let ids: BTreeSet<&str> =
            ops.iter().map(|op| op["operationId"].as_str().unwrap()).collect();
        assert_eq!(ids.len(), ops.len(), "operationIds are unique");
        for (at, key, value) in &found {
            match key.as_str() {
                "$ref" => {
                    let target = value.as_str().unwrap().strip_prefix('#').unwrap();
                    assert!(doc.pointer(target).is_some(), "{at}: {value} resolves to nothing");
                }
                // 3.0 has no type lists (`["string", "null"]` is 3.1): `nullable` instead.
                "type" if !at.ends_with("/properties/type") => {
                    assert!(value.is_string(), "{at}: {value} is not one type");
                }
                "operationId" if at.contains("/links/") => {
                    assert!(ids.contains(value.as_str().unwrap()), "{at}: no operation {value}");
                }
                _ => {}
            }
        }
        assert!(found.iter().any(|(at, ..)| at.contains("/links/")), "the scan found no link");
    }

    #[test]
    fn every_operation_documents_its_answers() {
        let doc: serde_json::Value = serde_json::from_str(DOCUMENT).unwrap();
        assert_eq!(doc["openapi"], "3.0.3");
        for (path, ops) in doc["paths"].as_object().unwrap() {
            for (method, op) in ops.as_object().unwrap() {
                let responses =
                    op["responses"].as_object().unwrap_or_else(|| panic!("{method} {path}"));
                assert!(
                    responses.keys().any(|c| c.starts_with('2')),
                    "{method} {path} has no success answer"
                );
            }
        }
    }
}
