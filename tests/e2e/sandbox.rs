//! Deny by default: file system, network, environment and clocks are unreachable unless
//! the connector config grants them, and the same call succeeds once granted.

use std::io::Write;

use crate::support::{cfg, fixture, no_host, task};

/// Polls one chaos-source record in `mode` and returns its value as text.
async fn probe(mode: &str, extra: &[(&str, &str)]) -> String {
    let plugin = fixture("chaos-source").await;
    let mut config = cfg(&[("chaos.mode", mode)]);
    config.extend(cfg(extra));
    let t = plugin.source_task(task(&format!("probe-{mode}")), &config, no_host()).await.unwrap();
    t.start(config).await.unwrap();
    let records = t.poll(10).await.expect("a probe poll never fails");
    assert_eq!(records.len(), 1, "{records:?}");
    String::from_utf8(records[0].value.clone().unwrap().into()).unwrap()
}

#[tokio::test]
async fn files_are_unreachable_without_a_grant() {
    let v = probe("open-file", &[]).await;
    assert!(v.starts_with("denied:"), "{v}");
}

#[tokio::test]
async fn a_file_key_grants_exactly_its_directory() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("secret.txt");
    std::fs::File::create(&file).unwrap().write_all(b"hello sandbox").unwrap();
    let v = probe("open-file", &[("chaos.path", file.to_str().unwrap())]).await;
    assert!(v.starts_with("allowed:") && v.contains("hello sandbox"), "{v}");

    // The grant is the file's directory only: `..` does not lead out of it.
    let other = tempfile::tempdir().unwrap();
    let outside = other.path().join("x.txt");
    std::fs::write(&outside, b"x").unwrap();
    let depth = dir.path().components().count() - 1;
    let escape = format!("{}/{}{}", dir.path().display(), "../".repeat(depth), outside.display());
    assert_eq!(std::fs::read(&escape).unwrap(), b"x", "the host resolves the escape path");
    let v = probe("open-file", &[("chaos.path", file.to_str().unwrap()), ("chaos.open", &escape)])
        .await;
    assert!(v.starts_with("denied:"), "escaped the preopen: {v}");
}

#[tokio::test]
async fn sockets_are_unreachable_without_a_grant() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    // Without a grant the same address is refused inside the sandbox.
    let plugin = fixture("chaos-source").await;
    let config = cfg(&[("chaos.mode", "socket")]);
    let t = plugin.source_task(task("socket-denied"), &config, no_host()).await.unwrap();
    t.start(config).await.unwrap();
    let v = String::from_utf8(t.poll(1).await.unwrap()[0].value.clone().unwrap().into()).unwrap();
    assert!(v.starts_with("denied:"), "{v}");

    let v = probe("socket", &[("chaos.address", &addr)]).await;
    assert!(v.starts_with("allowed:"), "a granted address must connect: {v}");
}

#[tokio::test]
async fn the_environment_is_empty_unless_granted() {
    let v = probe("env", &[]).await;
    assert!(v.starts_with("denied:"), "{v}");
    let v = probe("env", &[("wasm.env.GREETING", "hi")]).await;
    assert!(v.starts_with("allowed:") && v.contains("GREETING=hi"), "{v}");
    assert!(!v.contains("HOME="), "the worker's own environment leaked: {v}");
}

#[tokio::test]
async fn clocks_read_zero_unless_granted() {
    let v = probe("clock", &[]).await;
    assert!(v.starts_with("denied:"), "{v}");
    let v = probe("clock", &[("chaos.clock", "true")]).await;
    assert!(v.starts_with("allowed:"), "{v}");
}

#[tokio::test]
async fn a_grant_for_a_missing_directory_is_a_clear_error() {
    let plugin = fixture("chaos-source").await;
    let config = cfg(&[("chaos.mode", "open-file"), ("chaos.path", "/no/such/dir/x")]);
    let err =
        plugin.source_task(task("bad-grant"), &config, no_host()).await.err().expect("refused");
    assert!(err.to_string().contains("chaos.path"), "{err}");
}
