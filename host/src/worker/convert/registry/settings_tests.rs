use super::*;

fn read_value(pairs: &[(&str, &str)]) -> Result<RegistrySettings, ConvertError> {
    read(SchemaType::Avro, "value.converter", &pairs.iter().copied().collect())
}

const URL: (&str, &str) = ("schema.registry.url", "http://127.0.0.1:8081");

#[test]
fn defaults_are_confluents() {
    let s = read_value(&[URL]).unwrap();
    assert!(s.auto_register && !s.use_latest && s.latest_strict);
    assert_eq!((s.strategy, s.cache_size), (SubjectStrategy::Topic, 1000));
    assert_eq!(s.client.urls, vec!["http://127.0.0.1:8081"]);
    assert_eq!(s.client.retry, Retry::default());
    assert!(matches!(s.client.auth, Auth::None));
    assert!(s.client.tls.is_none());
}

#[test]
fn reads_several_urls_and_the_side_s_strategy() {
    let urls = ("schema.registry.url", " http://a:1 ,http://b:2/apis/ccompat/v7");
    let strategy = (
        "value.subject.name.strategy",
        "io.confluent.kafka.serializers.subject.RecordNameStrategy",
    );
    let other_side = ("key.subject.name.strategy", "not read on the value side");
    let s = read_value(&[urls, strategy, other_side]).unwrap();
    assert_eq!(s.client.urls, vec!["http://a:1", "http://b:2/apis/ccompat/v7"]);
    assert_eq!(s.strategy, SubjectStrategy::Record);
    let e = read_value(&[URL, ("value.subject.name.strategy", "Nope")]).unwrap_err();
    assert_eq!(e.config_key(), Some("value.converter.value.subject.name.strategy"));
}

#[test]
fn an_unknown_or_missing_key_is_an_error_naming_it() {
    let e = read_value(&[URL, ("schema.registry.urls", "x")]).unwrap_err();
    assert_eq!(e.config_key(), Some("value.converter.schema.registry.urls"));
    let e = read_value(&[]).unwrap_err();
    assert_eq!(e.config_key(), Some("value.converter.schema.registry.url"));
    let e = read_value(&[URL, ("auto.register.schemas", "sometimes")]).unwrap_err();
    assert!(e.to_string().contains("either true or false"), "{e}");
    let e = read_value(&[URL, ("max.retries", "-1")]).unwrap_err();
    assert_eq!(e.config_key(), Some("value.converter.max.retries"));
}

#[test]
fn basic_auth_from_user_info_or_the_url_and_never_shown() {
    let s = read_value(&[
        URL,
        ("basic.auth.credentials.source", "USER_INFO"),
        ("basic.auth.user.info", "fred:s3:cret"),
    ])
    .unwrap();
    let Auth::Basic { user, password } = &s.client.auth else { panic!("{:?}", s.client.auth) };
    assert_eq!((user.as_str(), password.as_str()), ("fred", "s3:cret"));
    assert!(!format!("{s:?}").contains("s3:cret"));

    let s = read_value(&[("schema.registry.url", "http://fred:p%40ss@reg:8081/x")]).unwrap();
    let Auth::Basic { user, password } = &s.client.auth else { panic!("{:?}", s.client.auth) };
    assert_eq!((user.as_str(), password.as_str()), ("fred", "p@ss"));
    assert_eq!(s.client.urls, vec!["http://reg:8081/x"], "credentials are taken out");

    let e = read_value(&[
        URL,
        ("basic.auth.credentials.source", "USER_INFO"),
        ("basic.auth.user.info", "no-colon-s3cret"),
    ])
    .unwrap_err();
    assert!(!e.to_string().contains("s3cret"), "{e}");
    let e = read_value(&[URL, ("basic.auth.credentials.source", "SASL_INHERIT")]).unwrap_err();
    assert_eq!(e.config_key(), Some("value.converter.basic.auth.credentials.source"));
}

#[test]
fn a_static_bearer_token() {
    let s = read_value(&[
        URL,
        ("bearer.auth.credentials.source", "STATIC_TOKEN"),
        ("bearer.auth.token", "t0ken"),
    ])
    .unwrap();
    assert!(matches!(&s.client.auth, Auth::Bearer(t) if t == "t0ken"));
    assert!(!format!("{s:?}").contains("t0ken"));
    let e = read_value(&[URL, ("bearer.auth.credentials.source", "OAUTHBEARER")]).unwrap_err();
    assert_eq!(e.config_key(), Some("value.converter.bearer.auth.credentials.source"));
}

#[test]
fn tls_keys_under_schema_registry_ssl() {
    let e = read_value(&[
        ("schema.registry.url", "https://reg:8081"),
        ("schema.registry.ssl.truststore.location", "/nonexistent/trust.p12"),
        ("schema.registry.ssl.truststore.password", "hunter2"),
    ])
    .unwrap_err();
    assert!(e.to_string().contains("schema.registry.ssl.truststore.location"), "{e}");
    assert!(!e.to_string().contains("hunter2"), "{e}");
    let s = read_value(&[("schema.registry.url", "https://reg:8081")]).unwrap();
    assert!(s.client.tls.is_some(), "https with the system's roots");
}
