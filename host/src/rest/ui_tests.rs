//! The dashboard's routes: content types, caching, unknown files, and basic authentication
//! over them as over the API.

use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use axum::response::Response;
use tower::ServiceExt;

use super::{ASSETS, routes};
use crate::rest::auth::BasicAuth;

async fn get(app: &axum::Router, path: &str, headers: &[(&str, &str)]) -> Response {
    let mut request = Request::builder().uri(path);
    for (k, v) in headers {
        request = request.header(*k, *v);
    }
    app.clone().oneshot(request.body(Body::empty()).unwrap()).await.unwrap()
}

async fn body(response: Response) -> String {
    let bytes = axum::body::to_bytes(response.into_body(), 1 << 20).await.unwrap();
    String::from_utf8(bytes.to_vec()).unwrap()
}

#[tokio::test]
async fn pages_and_assets_have_their_content_types_and_cache_headers() {
    let app = routes::<()>();
    for (path, content_type) in [
        ("/ui", "text/html; charset=utf-8"),
        ("/ui/index.html", "text/html; charset=utf-8"),
        ("/ui/app.js", "text/javascript; charset=utf-8"),
        ("/ui/style.css", "text/css; charset=utf-8"),
        ("/ui/favicon.svg", "image/svg+xml"),
    ] {
        let response = get(&app, path, &[]).await;
        assert_eq!(response.status(), StatusCode::OK, "{path}");
        let h = response.headers();
        assert_eq!(h[header::CONTENT_TYPE], content_type, "{path}");
        assert_eq!(h[header::CACHE_CONTROL], "no-cache", "{path}");
        assert_eq!(h[header::X_CONTENT_TYPE_OPTIONS], "nosniff", "{path}");
        assert!(
            h[header::CONTENT_SECURITY_POLICY].to_str().unwrap().starts_with("default-src 'self'")
        );
        let etag = h[header::ETAG].to_str().unwrap().to_owned();
        let again = get(&app, path, &[("if-none-match", &etag)]).await;
        assert_eq!(again.status(), StatusCode::NOT_MODIFIED, "{path}");
        assert!(body(again).await.is_empty());
    }
    let page = body(get(&app, "/ui", &[]).await).await;
    assert!(page.contains("<script type=\"module\" src=\"/ui/app.js\"></script>"), "{page}");
    let changed = get(&app, "/ui/app.js", &[("if-none-match", "\"0000000000000000\"")]).await;
    assert_eq!(changed.status(), StatusCode::OK);
}

#[tokio::test]
async fn unknown_files_are_404_in_the_api_error_body() {
    let app = routes::<()>();
    for path in ["/ui/nope.js", "/ui/../Cargo.toml", "/ui/app.js/x", "/ui/%2e%2e/app.js"] {
        let response = get(&app, path, &[]).await;
        assert_eq!(response.status(), StatusCode::NOT_FOUND, "{path}");
        let body: serde_json::Value = serde_json::from_str(&body(response).await).unwrap();
        assert_eq!(body["error_code"], 404, "{path}");
    }
}

#[tokio::test]
async fn basic_authentication_covers_the_dashboard() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("credentials.properties");
    std::fs::write(&file, "admin: admin-secret\n").unwrap();
    let app = BasicAuth::load(&file).unwrap().protect(routes::<()>());
    for path in ["/ui", "/ui/app.js", "/ui/nope.js"] {
        let response = get(&app, path, &[]).await;
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED, "{path}");
        assert!(response.headers().contains_key(header::WWW_AUTHENTICATE));
    }
    let login = "Basic YWRtaW46YWRtaW4tc2VjcmV0";
    let response = get(&app, "/ui", &[("authorization", login)]).await;
    assert_eq!(response.status(), StatusCode::OK);
}

/// Every file under `host/ui/` is embedded, and nothing else.
#[test]
fn every_file_of_the_directory_is_embedded() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("ui");
    let mut on_disk: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    on_disk.sort();
    let mut embedded: Vec<String> = ASSETS.iter().map(|a| a.name.to_owned()).collect();
    embedded.sort();
    assert_eq!(on_disk, embedded);
}
