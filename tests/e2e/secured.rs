//! A cluster on a secured broker listener: three `wasm-connect distributed` processes that
//! reach Kafka only through the test broker's `SASL_SSL` listener (SCRAM-SHA-512 over TLS,
//! the broker's certificate checked against the test CA), so the group client, the internal
//! topics and the tasks' producers all log in. They join, balance, forward writes to the
//! leader and take over a killed worker's work. A wrong password, or a broker certificate
//! the worker does not trust, ends the worker at start with one clear line.
//!
//! The listener and its files come from `scripts/kafka.sh` through `scripts/test.sh`
//! (`KAFKA_SASL_SSL_BOOTSTRAP`, `KAFKA_TLS_DIR`); a missing variable fails the test.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{Value, json};

use crate::cluster::{Cluster, ClusterSettings, all_running};
use crate::harness::shared_cache_dir;

/// The user `scripts/kafka.sh` creates for every mechanism.
const USER: &str = "connect";
const PASSWORD: &str = "connect-secret";

fn required(name: &str) -> String {
    std::env::var(name).ok().filter(|v| !v.is_empty()).unwrap_or_else(|| {
        panic!(
            "{name} is not set: these tests need the SASL_SSL listener of scripts/kafka.sh's \
             broker (scripts/test.sh exports KAFKA_SASL_SSL_BOOTSTRAP and KAFKA_TLS_DIR)"
        )
    })
}

/// The test CA that signed the broker's certificate.
fn broker_ca() -> PathBuf {
    let path = PathBuf::from(required("KAFKA_TLS_DIR")).join("ca.pem");
    assert!(path.is_file(), "{} is missing", path.display());
    path
}

/// Worker properties for the SASL_SSL listener with `password`, trusting `ca`.
fn security(password: &str, ca: &std::path::Path) -> String {
    format!(
        "security.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-512\n\
         sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required \
         username=\"{USER}\" password=\"{password}\";\n\
         ssl.truststore.type=PEM\nssl.truststore.location={}\n",
        ca.display()
    )
}

fn settings(password: &str, ca: &std::path::Path) -> ClusterSettings {
    let mut s =
        ClusterSettings::new(required("KAFKA_SASL_SSL_BOOTSTRAP"), 2000, shared_cache_dir());
    s.extra = security(password, ca);
    s
}

/// A source that writes 50 records a second per task to a topic the worker creates.
fn paced_source(topic: &str, tasks: u32) -> Value {
    json!({
        "connector.class": "Datagen", "tasks.max": tasks.to_string(), "topic": topic,
        "rate": "50",
        "topic.creation.default.partitions": "1",
        "topic.creation.default.replication.factor": "1",
    })
}

/// The worker ids (`host:port`) running the connector's instances.
fn owners(status: &Value) -> Vec<String> {
    let mut ids = vec![status["connector"]["worker_id"].as_str().unwrap_or("").to_owned()];
    for t in status["tasks"].as_array().into_iter().flatten() {
        ids.push(t["worker_id"].as_str().unwrap_or("").to_owned());
    }
    ids
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_workers_on_sasl_ssl_only_join_balance_forward_and_fail_over() {
    let mut cluster = Cluster::start(3, settings(PASSWORD, &broker_ca())).await;
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap();
    let topic = format!("secured-{}", nanos.as_nanos());
    // One connector created through each worker: the followers forward to the leader.
    for i in 0..3 {
        let (code, body) = cluster.create(i, &format!("sec-{i}"), paced_source(&topic, 2)).await;
        assert_eq!(code, 201, "create through worker {i}: {body}\n{}", cluster.logs());
    }
    let mut statuses = Vec::new();
    for i in 0..3 {
        statuses.push(cluster.wait_running(0, &format!("sec-{i}"), 2, 120).await);
    }
    // Every worker gets a share of the nine instances.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let mut used: Vec<String> = statuses.iter().flat_map(owners).collect();
        used.sort();
        used.dedup();
        if used.len() == 3 && statuses.iter().all(|s| all_running(s, 2)) {
            break;
        }
        assert!(Instant::now() < deadline, "not spread over three workers: {statuses:?}");
        tokio::time::sleep(Duration::from_millis(300)).await;
        statuses.clear();
        for i in 0..3 {
            statuses.push(cluster.status(0, &format!("sec-{i}")).await);
        }
    }
    // Records were produced and their source offsets committed, over SASL_SSL.
    for i in 0..3 {
        let name = format!("sec-{i}");
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let (code, body) =
                cluster.call(0, Method::GET, &format!("/connectors/{name}/offsets"), None).await;
            if code == 200 && body["offsets"].as_array().is_some_and(|o| !o.is_empty()) {
                break;
            }
            assert!(Instant::now() < deadline, "{name} committed no offsets: {code} {body}");
            tokio::time::sleep(Duration::from_millis(300)).await;
        }
    }
    // A killed worker's instances move to the other two.
    let victim = 2;
    let victim_id = format!("127.0.0.1:{}", cluster.workers[victim].port);
    cluster.kill(victim);
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        let mut moved = true;
        for i in 0..3 {
            let s = cluster.status(0, &format!("sec-{i}")).await;
            moved &= all_running(&s, 2) && !owners(&s).contains(&victim_id);
        }
        if moved {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the work of {victim_id} did not move\n{}",
            cluster.logs()
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    // Writes still go through a follower of the smaller cluster.
    let (code, body) = cluster.create(1, "sec-after", paced_source(&topic, 1)).await;
    assert_eq!(code, 201, "{body}\n{}", cluster.logs());
    cluster.wait_running(0, "sec-after", 1, 90).await;
}

/// Lines of `log` that mention `needle`, case-insensitively.
fn lines_with<'l>(log: &'l str, needle: &str) -> Vec<&'l str> {
    let needle = needle.to_ascii_lowercase();
    log.lines().filter(|l| l.to_ascii_lowercase().contains(&needle)).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_password_ends_the_worker_with_one_line() {
    let wrong = "not-the-password";
    let mut cluster = Cluster::start(0, settings(wrong, &broker_ca())).await;
    let (status, log) = cluster.add_failing_worker(60).await;
    assert!(!status.success(), "the worker exited successfully\n{log}");
    let lines = lines_with(&log, "authentication");
    assert!(!lines.is_empty(), "no line says authentication failed\n{log}");
    assert!(lines.len() <= 2, "a retry storm of authentication errors\n{log}");
    assert!(!log.contains(wrong), "the password reached the log\n{log}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_untrusted_broker_certificate_ends_the_worker_with_one_line() {
    // A CA of the test's own, which signed nothing the broker has.
    let key = rcgen::KeyPair::generate().unwrap();
    let mut params = rcgen::CertificateParams::new(Vec::new()).unwrap();
    params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    params.distinguished_name.push(rcgen::DnType::CommonName, "a stranger CA");
    let stranger = params.self_signed(&key).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let ca = dir.path().join("stranger.pem");
    std::fs::write(&ca, stranger.pem()).unwrap();

    let mut cluster = Cluster::start(0, settings(PASSWORD, &ca)).await;
    let (status, log) = cluster.add_failing_worker(60).await;
    assert!(!status.success(), "the worker exited successfully\n{log}");
    let lines = lines_with(&log, "certificate");
    assert!(!lines.is_empty(), "no line names the certificate problem\n{log}");
    assert!(lines.len() <= 2, "a retry storm of certificate errors\n{log}");
}
