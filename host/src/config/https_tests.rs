//! Tests of the HTTPS settings: which keys apply (Kafka's all-or-nothing rule), the checks
//! made when the config is read, the keys this worker used to read, the advertised
//! listener, and passwords kept out of problems and `Debug`.

use std::path::Path;

use super::*;
use crate::config::Mode;
use crate::config::test_pki::TestPki;

fn read(lines: &[(String, String)]) -> Result<WorkerConfig, Vec<(String, String)>> {
    let mut props = vec![("plugin.path".to_owned(), "p".to_owned())];
    props.extend_from_slice(lines);
    WorkerConfig::from_properties(&props, Mode::Standalone).map_err(|e| match e {
        crate::config::WorkerConfigError::Invalid { problems, .. } => {
            problems.into_iter().map(|p| (p.key, p.message)).collect()
        }
        other => panic!("{other}"),
    })
}

fn pairs(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

fn https_listener() -> Vec<(String, String)> {
    pairs(&[("listeners", "https://127.0.0.1:8443")])
}

fn pki(dir: &Path) -> TestPki {
    TestPki::new(dir, "a")
}

#[test]
fn an_https_listener_reads_kafka_connects_listener_keys() {
    let dir = tempfile::tempdir().unwrap();
    let mut lines = https_listener();
    lines.extend(pki(dir.path()).props(LISTENER_PREFIX));
    lines.extend(pairs(&[("listeners.https.ssl.client.auth", "required")]));
    let c = read(&lines).unwrap();
    assert!(c.has_https_listener());
    assert_eq!(c.listeners_https_props.len(), 5);
    let ssl = c.https_ssl().unwrap();
    ssl.server_config().unwrap();
    ssl.client_config().unwrap();
}

#[test]
fn without_listener_keys_the_top_level_ssl_keys_apply() {
    let dir = tempfile::tempdir().unwrap();
    let mut lines = https_listener();
    lines.extend(pki(dir.path()).props(""));
    let c = read(&lines).unwrap();
    assert!(c.listeners_https_props.is_empty());
    c.https_ssl().unwrap().server_config().unwrap();
}

#[test]
fn one_listener_key_hides_every_top_level_ssl_key() {
    let dir = tempfile::tempdir().unwrap();
    let mut lines = https_listener();
    lines.extend(pki(dir.path()).props(""));
    lines.extend(pairs(&[("listeners.https.ssl.client.auth", "none")]));
    let problems = read(&lines).unwrap_err();
    assert_eq!(
        problems,
        [(
            "listeners.https.ssl.keystore.location".to_owned(),
            "missing: an https:// listener needs a keystore".to_owned()
        )]
    );
}

#[test]
fn an_https_listener_needs_a_keystore() {
    let problems = read(&https_listener()).unwrap_err();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].0, "listeners.https.ssl.keystore.location");
    // Without an https:// listener, nothing is needed.
    read(&[]).unwrap();
}

#[test]
fn bad_listener_values_name_their_key() {
    let dir = tempfile::tempdir().unwrap();
    let mut lines = https_listener();
    lines.extend(pki(dir.path()).props(LISTENER_PREFIX));
    lines.extend(pairs(&[("listeners.https.ssl.client.auth", "maybe")]));
    let problems = read(&lines).unwrap_err();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].0, "listeners.https.ssl.client.auth");
    // Checked without an https:// listener too: the client to other workers uses them.
    let missing = pairs(&[("listeners.https.ssl.truststore.location", "/nonexistent/ca.pem")]);
    let problems = read(&missing).unwrap_err();
    assert_eq!(problems[0].0, "listeners.https.ssl.truststore.location", "{problems:?}");
}

#[test]
fn the_earlier_certificate_and_key_file_keys_point_to_the_keystore() {
    let lines = pairs(&[
        ("listeners.https.ssl.certificate.location", "/tls/cert.pem"),
        ("listeners.https.ssl.key.location", "/tls/key.pem"),
    ]);
    let problems = read(&lines).unwrap_err();
    assert_eq!(
        problems.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>(),
        ["listeners.https.ssl.certificate.location", "listeners.https.ssl.key.location"]
    );
    assert!(problems[0].1.contains("listeners.https.ssl.keystore.location"), "{problems:?}");
}

#[test]
fn the_advertised_listener_must_exist() {
    let lines = pairs(&[("rest.advertised.listener", "https")]);
    assert_eq!(
        read(&lines).unwrap_err(),
        [("rest.advertised.listener".to_owned(), "no https:// listener in listeners".to_owned())]
    );
    let dir = tempfile::tempdir().unwrap();
    let mut lines = pairs(&[
        ("listeners", "http://127.0.0.1:8083,https://127.0.0.1:8443"),
        ("rest.advertised.listener", "https"),
    ]);
    lines.extend(pki(dir.path()).props(LISTENER_PREFIX));
    let c = read(&lines).unwrap();
    assert_eq!(c.advertised_listener().unwrap().port, 8443);
}

#[test]
fn passwords_stay_out_of_problems_and_debug() {
    let dir = tempfile::tempdir().unwrap();
    let mut lines = pairs(&[("listeners.https.ssl.keystore.password", "hunter2-secret")]);
    lines.extend(pki(dir.path()).props(LISTENER_PREFIX));
    let c = read(&lines).unwrap();
    assert!(!format!("{c:?}").contains("hunter2-secret"), "{c:?}");
    lines.push(("listeners.https.ssl.keystore.type".to_owned(), "PKCS12".to_owned()));
    let problems = read(&lines).unwrap_err();
    assert!(!format!("{problems:?}").contains("hunter2-secret"), "{problems:?}");
}
