//! HTTPS between workers: three `wasm-connect distributed` processes with `https://`
//! listeners only (Kafka Connect's `listeners.https.ssl.*` keys, PEM key and trust stores,
//! client certificates required), on the real broker. The group forms with `https://`
//! URLs, a create on a follower is forwarded to the leader, task configs of connectors on
//! followers reach the leader as signed internal requests, and a killed worker's work moves
//! to the others. A worker that does not trust its peers' CA cannot forward: 500 naming the
//! TLS problem.
//!
//! Certificates are generated here with rcgen: a CA, and a certificate for 127.0.0.1 and
//! localhost signed by it that every worker uses as server and client certificate.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::{Duration, Instant};

use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose, IsCa,
    KeyPair, KeyUsagePurpose,
};
use serde_json::{Value, json};

use crate::cluster::{Cluster, ClusterSettings, ClusterTls, all_running};
use crate::harness::{bootstrap, shared_cache_dir};

/// A CA and one worker certificate it signed, as PEM files in `dir`: `<name>-ca.pem` (the
/// trust store) and `<name>-worker.pem` (the keystore: private key, then the chain).
fn pki(dir: &Path, name: &str) -> ClusterTls {
    let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.distinguished_name.push(DnType::CommonName, format!("wasm-connect test CA {name}"));
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::DigitalSignature];
    let ca = CertifiedIssuer::self_signed(ca, KeyPair::generate().unwrap()).unwrap();

    let mut worker = CertificateParams::new(vec!["127.0.0.1".into(), "localhost".into()]).unwrap();
    worker.distinguished_name.push(DnType::CommonName, format!("worker {name}"));
    worker.extended_key_usages =
        vec![ExtendedKeyUsagePurpose::ServerAuth, ExtendedKeyUsagePurpose::ClientAuth];
    let key = KeyPair::generate().unwrap();
    let cert = worker.signed_by(&key, &ca).unwrap();

    let keystore = dir.join(format!("{name}-worker.pem"));
    let truststore = dir.join(format!("{name}-ca.pem"));
    std::fs::write(&keystore, format!("{}{}{}", key.serialize_pem(), cert.pem(), ca.pem()))
        .unwrap();
    std::fs::write(&truststore, ca.pem()).unwrap();
    ClusterTls { keystore, truststore, client_auth: true }
}

fn https_settings(tls: ClusterTls) -> ClusterSettings {
    let mut settings = ClusterSettings::new(bootstrap(), 1000, shared_cache_dir());
    settings.tls = Some(tls);
    settings
}

fn idle_source(tasks: u32) -> Value {
    json!({"connector.class": "ChaosSource", "tasks.max": tasks.to_string(), "chaos.mode": "ok", "batch.size": "0"})
}

/// The leader, once every running worker has completed a rebalance in which it leads.
async fn wait_leader(cluster: &Cluster) -> usize {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Some(leader) = cluster.leader() {
            return leader;
        }
        assert!(Instant::now() < deadline, "no leader\n{}", cluster.logs());
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

fn worker_id(cluster: &Cluster, i: usize) -> String {
    format!("127.0.0.1:{}", cluster.workers[i].port)
}

/// The workers (`host:port`) running the connector or a task of each status.
fn hosts(statuses: &[Value]) -> BTreeSet<String> {
    let mut hosts = BTreeSet::new();
    for s in statuses {
        hosts.insert(s["connector"]["worker_id"].as_str().unwrap().to_owned());
        for t in s["tasks"].as_array().unwrap() {
            hosts.insert(t["worker_id"].as_str().unwrap().to_owned());
        }
    }
    hosts
}

/// Polls the statuses of `names` through worker `i` until `done` holds for them.
async fn wait_statuses(
    cluster: &Cluster,
    i: usize,
    names: &[&str],
    what: &str,
    done: impl Fn(&[Value]) -> bool,
) -> Vec<Value> {
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        let mut statuses = Vec::new();
        for name in names {
            statuses.push(cluster.status(i, name).await);
        }
        if done(&statuses) {
            return statuses;
        }
        assert!(Instant::now() < deadline, "{what}: {statuses:?}\n{}", cluster.logs());
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_workers_on_https_only_forward_balance_and_fail_over() {
    let dir = tempfile::tempdir().unwrap();
    let mut cluster = Cluster::start(3, https_settings(pki(dir.path(), "a"))).await;
    let leader = wait_leader(&cluster).await;
    // Every worker learns the leader's https:// URL from the group.
    let leader_url = format!("leader_url=https://{}", worker_id(&cluster, leader));
    let deadline = Instant::now() + Duration::from_secs(60);
    for i in 0..3 {
        while !cluster
            .log(i)
            .lines()
            .any(|l| l.contains("Rebalance completed") && l.contains(&leader_url))
        {
            assert!(
                Instant::now() < deadline,
                "worker {i} has no {leader_url}\n{}",
                cluster.logs()
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    // Creates through each follower are forwarded to the leader over HTTPS.
    let followers: Vec<usize> = (0..3).filter(|&i| i != leader).collect();
    let names = ["tls-0", "tls-1", "tls-2"];
    for (n, name) in names.iter().enumerate() {
        let (code, body) = cluster.create(followers[n % 2], name, idle_source(3)).await;
        assert_eq!(code, 201, "{name}: {body}\n{}", cluster.logs());
        assert_eq!(body["name"], *name);
    }

    // Every worker runs work, and connectors on followers have RUNNING tasks: their task
    // configs reached the leader, signed, over HTTPS.
    let ids: BTreeSet<String> = (0..3).map(|i| worker_id(&cluster, i)).collect();
    let statuses = wait_statuses(&cluster, leader, &names, "not balanced", |s| {
        s.iter().all(|s| all_running(s, 3)) && hosts(s) == ids
    })
    .await;
    let on_followers = statuses
        .iter()
        .filter(|s| s["connector"]["worker_id"] != worker_id(&cluster, leader).as_str())
        .count();
    assert!(on_followers >= 1, "no connector on a follower: {statuses:?}");

    // A killed follower's work moves to the two others.
    let victim = followers[0];
    let gone = worker_id(&cluster, victim);
    cluster.kill(victim);
    wait_statuses(&cluster, leader, &names, "no failover", |s| {
        s.iter().all(|s| all_running(s, 3)) && !hosts(s).contains(&gone)
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_that_does_not_trust_the_leaders_ca_cannot_forward_to_it() {
    let dir = tempfile::tempdir().unwrap();
    let trusted = pki(dir.path(), "a");
    let other = pki(dir.path(), "b");
    let mut cluster = Cluster::start(1, https_settings(trusted.clone())).await;
    assert_eq!(wait_leader(&cluster).await, 0);
    // Worker 1 shows a certificate from CA a (so the leader and the test's client accept
    // it) but trusts CA b only; it asks callers for no certificate, so that the test's
    // client (CA a) can reach it.
    let distrustful = ClusterTls { truststore: other.truststore, client_auth: false, ..trusted };
    let i = cluster.add_worker_with(Some(distrustful)).await;
    let url = format!("leader_url=https://{}", worker_id(&cluster, 0));
    let deadline = Instant::now() + Duration::from_secs(60);
    while !cluster.log(i).lines().any(|l| l.contains("Rebalance completed") && l.contains(&url)) {
        assert!(Instant::now() < deadline, "worker {i} did not join\n{}", cluster.logs());
        tokio::time::sleep(Duration::from_millis(200)).await;
    }

    let (code, body) = cluster.create(i, "untrusted", idle_source(1)).await;
    assert_eq!(code, 500, "{body}");
    let message = body["message"].as_str().unwrap_or_default();
    assert!(message.starts_with("IO Error trying to forward REST request: "), "{message}");
    assert!(message.contains("invalid peer certificate"), "{message}");
    assert!(message.contains("UnknownIssuer"), "{message}");
    // The leader itself still creates.
    let (code, body) = cluster.create(0, "trusted", idle_source(1)).await;
    assert_eq!(code, 201, "{body}");
}
