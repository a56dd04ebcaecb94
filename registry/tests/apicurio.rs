//! The client against a real registry: Apicurio Registry's Confluent-compatible API, started
//! by `scripts/schema-registry.sh` (the test command exports `SCHEMA_REGISTRY_URL`). Each
//! test uses subjects of its own, so they run in parallel on one registry.

use std::time::{Duration, Instant, SystemTime};

use wasm_connect_registry::{RegistryClient, RegistryConfig, RegistryError, Retry};

/// The registry's base URL, or `None` (the test is skipped) when none was started.
fn registry() -> Option<String> {
    let url = std::env::var("SCHEMA_REGISTRY_URL").ok();
    if url.is_none() {
        eprintln!("SCHEMA_REGISTRY_URL unset (scripts/schema-registry.sh start): skipped");
    }
    url
}

/// A subject no other test (or earlier run against the same registry) uses.
fn subject(name: &str) -> String {
    let nanos = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).unwrap().as_nanos();
    format!("{name}-{nanos}-value")
}

/// A URL nothing listens on: a port bound and released.
fn dead_url() -> String {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    format!("http://127.0.0.1:{port}")
}

fn record(name: &str, fields: &[(&str, &str)]) -> String {
    let fields: Vec<_> =
        fields.iter().map(|(n, t)| serde_json::json!({"name": n, "type": t})).collect();
    serde_json::json!({"type": "record", "name": name, "fields": fields}).to_string()
}

fn fast_retry() -> Retry {
    Retry { max_retries: 1, wait: Duration::from_millis(10), max_wait: Duration::from_millis(10) }
}

#[tokio::test]
async fn registers_looks_up_and_fetches_schemas_by_id() {
    let Some(url) = registry() else { return };
    let client = RegistryClient::new(&RegistryConfig::new(vec![url])).unwrap();
    let subject = subject("orders");
    let v1 = record("Order", &[("id", "long")]);
    let id = client.register(&subject, &v1, None).await.unwrap();
    assert_eq!(client.register(&subject, &v1, None).await.unwrap(), id, "the same schema again");

    let found = client.lookup(&subject, &v1, None).await.unwrap();
    assert_eq!((found.id, found.version), (id, Some(1)));
    let by_id = client.schema(id).await.unwrap();
    assert_eq!(by_id.id, id);
    assert_eq!(by_id.schema_type, None, "AVRO is sent without schemaType");
    let parsed: serde_json::Value = serde_json::from_str(&by_id.schema).unwrap();
    assert_eq!(parsed["name"], "Order");

    let v2 = record("Order", &[("id", "long"), ("sku", "string")]);
    let id2 = client.register(&subject, &v2, None).await.unwrap();
    assert_ne!(id2, id);
    let latest = client.latest(&subject).await.unwrap();
    assert_eq!((latest.id, latest.version), (id2, Some(2)));
}

#[tokio::test]
async fn protobuf_and_json_schemas_carry_their_type() {
    let Some(url) = registry() else { return };
    let client = RegistryClient::new(&RegistryConfig::new(vec![url])).unwrap();
    let proto = "syntax = \"proto3\";\nmessage Order {\n  int64 id = 1;\n}\n";
    let id = client.register(&subject("proto"), proto, Some("PROTOBUF")).await.unwrap();
    assert_eq!(client.schema(id).await.unwrap().schema_type.as_deref(), Some("PROTOBUF"));
    let json = r#"{"type":"object","properties":{"id":{"type":"integer"}}}"#;
    let id = client.register(&subject("json"), json, Some("JSON")).await.unwrap();
    assert_eq!(client.schema(id).await.unwrap().schema_type.as_deref(), Some("JSON"));
}

#[tokio::test]
async fn an_error_answer_is_refused_at_once_and_not_retriable() {
    let Some(url) = registry() else { return };
    let mut config = RegistryConfig::new(vec![url]);
    config.retry = Retry { max_retries: 3, wait: Duration::from_secs(5), ..Retry::default() };
    let client = RegistryClient::new(&config).unwrap();
    let started = Instant::now();
    let e = client.schema(u32::MAX - 7).await.unwrap_err();
    assert!(e.is_not_found() && !e.is_retriable(), "{e:?}");
    assert!(started.elapsed() < Duration::from_secs(5), "a 404 was retried");
    assert_eq!(client.requests(), 1);
    let e = client.latest(&subject("never-registered")).await.unwrap_err();
    assert!(matches!(e, RegistryError::Refused { status: 404, .. }), "{e:?}");
    let e = client.register(&subject("bad"), "{not a schema", None).await.unwrap_err();
    assert!(matches!(e, RegistryError::Refused { status: 400..=499, .. }), "{e:?}");
}

#[tokio::test]
async fn an_incompatible_schema_is_refused_under_backward_compatibility() {
    let Some(url) = registry() else { return };
    let client = RegistryClient::new(&RegistryConfig::new(vec![url.clone()])).unwrap();
    let subject = subject("compat");
    client.register(&subject, &record("Order", &[("id", "long")]), None).await.unwrap();
    // A new required field without a default cannot read the old data: not BACKWARD.
    let breaking = record("Order", &[("id", "long"), ("sku", "string")]);
    // Apicurio's default level is NONE: anything is registered.
    let other = format!("{subject}-none");
    client.register(&other, &record("Order", &[("id", "long")]), None).await.unwrap();
    client.register(&other, &breaking, None).await.unwrap();

    let put = reqwest::Client::new()
        .put(format!("{url}/config/{subject}"))
        .header("Content-Type", "application/vnd.schemaregistry.v1+json")
        .body(r#"{"compatibility":"BACKWARD"}"#)
        .send()
        .await
        .unwrap();
    assert!(put.status().is_success(), "{put:?}");
    assert!(!client.is_compatible(&subject, &breaking, None).await.unwrap());
    let e = client.register(&subject, &breaking, None).await.unwrap_err();
    assert!(matches!(e, RegistryError::Refused { status: 409, .. }), "{e:?}");
    let compatible = record("Order", &[("id", "long")]);
    assert!(client.is_compatible(&subject, &compatible, None).await.unwrap());
}

#[tokio::test]
async fn fails_over_to_the_next_url_and_stays_there() {
    let Some(url) = registry() else { return };
    let mut config = RegistryConfig::new(vec![dead_url(), url]);
    config.retry = fast_retry();
    let client = RegistryClient::new(&config).unwrap();
    let subject = subject("failover");
    let id = client.register(&subject, &record("A", &[("a", "int")]), None).await.unwrap();
    assert_eq!(client.requests(), 2, "the dead URL, then the live one");
    client.schema(id).await.unwrap();
    assert_eq!(client.requests(), 3, "the live URL is tried first from then on");
}

#[tokio::test]
async fn no_url_answering_is_unavailable_and_retriable_after_the_retries() {
    let mut config = RegistryConfig::new(vec![dead_url(), dead_url()]);
    config.retry = fast_retry();
    let client = RegistryClient::new(&config).unwrap();
    let e = client.schema(1).await.unwrap_err();
    assert!(e.is_retriable(), "{e:?}");
    assert_eq!(client.requests(), 4, "two rounds over two URLs");
}

#[test]
fn refuses_urls_with_credentials_and_never_shows_secrets() {
    let config = RegistryConfig::new(vec!["http://fred:s3cret@127.0.0.1:1".into()]);
    let e = RegistryClient::new(&config).err().expect("credentials in the URL are refused");
    assert!(!e.to_string().contains("s3cret"), "{e}");
    for bad in ["ftp://127.0.0.1", "not a url"] {
        assert!(RegistryClient::new(&RegistryConfig::new(vec![bad.into()])).is_err(), "{bad}");
    }
    let mut config = RegistryConfig::new(vec!["http://127.0.0.1:1".into()]);
    config.auth =
        wasm_connect_registry::Auth::Basic { user: "fred".into(), password: "s3cret".into() };
    assert!(!format!("{config:?}").contains("s3cret"));
}
