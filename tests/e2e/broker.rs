//! A broker that goes away and comes back: the worker keeps running, a config write made
//! while the broker is down is reported as a failure (never as a success), and writes
//! work again once it is back (after the worker has rejoined its group). Uses a private broker so other tests are not disturbed.

use std::process::Command;
use std::time::Duration;

use wasm_connect::herder::HerderError;
use wasm_connect::model::{InstanceId, State};

use crate::harness::{Backing, props, wait_state};
use crate::support::root;

/// A broker of a test's own, stopped when dropped.
pub struct PrivateBroker {
    /// Its port.
    pub port: u16,
}

impl PrivateBroker {
    /// Runs `scripts/kafka.sh` with `args` for this broker.
    pub fn kafka(&self, args: &[&str]) {
        let status = Command::new(root().join("scripts/kafka.sh"))
            .args(args)
            .env("KAFKA_PORT", self.port.to_string())
            .status()
            .expect("scripts/kafka.sh runs");
        assert!(status.success(), "scripts/kafka.sh {args:?} failed");
    }

    /// Starts a broker on `port` (and `port + 1` for its controller).
    pub fn start(port: u16) -> Self {
        let b = Self { port };
        b.kafka(&["start"]);
        b
    }

    /// Starts a broker on a port found free, with the four after it (its controller and
    /// secure listeners, `scripts/kafka.sh`) free too.
    pub fn start_free() -> Self {
        Self::start(free_ports(5))
    }
}

/// The first of `n` consecutive loopback ports that are free now.
fn free_ports(n: u16) -> u16 {
    let bind = |p: u16| std::net::TcpListener::bind(("127.0.0.1", p));
    for _ in 0..100 {
        let first = bind(0).unwrap().local_addr().unwrap().port();
        if first.checked_add(n).is_some() && (1..n).all(|i| bind(first + i).is_ok()) {
            return first;
        }
    }
    panic!("no {n} consecutive free ports");
}

impl Drop for PrivateBroker {
    fn drop(&mut self) {
        let _ = Command::new(root().join("scripts/kafka.sh"))
            .arg("stop")
            .env("KAFKA_PORT", self.port.to_string())
            .status();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_worker_survives_a_broker_restart() {
    let broker = PrivateBroker::start(19192);
    let backing = Backing::kafka_at(&format!("127.0.0.1:{}", broker.port));
    let app = backing.start().await;
    let config = props(&[("connector.class", "ChaosSource"), ("tasks.max", "1")]);
    app.herder.put_connector_config("before", config.clone(), None, false).await.unwrap();
    wait_state(&app, InstanceId::Task("before".into(), 0), State::Running).await;

    broker.kafka(&["stop", "--keep-data"]);
    let started = std::time::Instant::now();
    let err =
        app.herder.put_connector_config("during", config.clone(), None, false).await.unwrap_err();
    // A store failure, or, once the worker has lost its group, no leader to write.
    assert!(
        matches!(err, HerderError::Store { .. } | HerderError::NotHere { url: None, .. }),
        "expected a store failure, got {err:?}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "the failure took {:?}",
        started.elapsed()
    );
    // The restart endpoint cannot record its request durably: never 202. Either the write
    // fails (500), or the worker has already lost its group and knows no leader (409).
    let url = format!("http://{}/connectors/before/restart?includeTasks=true", app.rest_addr);
    let resp = reqwest::Client::new().post(url).send().await.unwrap();
    let status = resp.status().as_u16();
    let body: serde_json::Value = resp.json().await.unwrap();
    assert_eq!(body["error_code"], status);
    let message = body["message"].as_str().unwrap();
    match status {
        500 => assert!(message.contains("restart request"), "{body}"),
        409 => assert!(message.contains("no known leader URL"), "{body}"),
        _ => panic!("expected 500 or 409, got {body}"),
    }

    broker.kafka(&["start"]);
    let mut created = false;
    for _ in 0..30 {
        if app.herder.put_connector_config("after", config.clone(), None, true).await.is_ok() {
            created = true;
            break;
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    assert!(created, "writes did not recover after the broker came back");
    wait_state(&app, InstanceId::Task("after".into(), 0), State::Running).await;
    let names = app.herder.connectors().await.unwrap();
    assert!(
        names.contains(&"before".to_string()) && names.contains(&"after".to_string()),
        "{names:?}"
    );
    app.shutdown().await;
}
