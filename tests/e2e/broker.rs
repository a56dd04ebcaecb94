//! A broker that goes away and comes back: the worker keeps running, a config write made
//! while the broker is down is reported as a failure (never as a success), and writes
//! work again once it is back (after the worker has rejoined its group), and a sink's
//! partitions come back without waiting for the consumer closed during the outage. Uses
//! private brokers so other tests are not disturbed.

use std::process::Command;
use std::time::Duration;

use wasm_connect::herder::HerderError;
use wasm_connect::model::{InstanceId, State};

use crate::harness::{Backing, eventually, props, wait_state};
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
    // Recovery, not its speed, is what this asserts: the broker's start and the worker's
    // return to its group take longer on a loaded machine.
    let mut created = false;
    for _ in 0..120 {
        if app.herder.put_connector_config("after", config.clone(), None, true).await.is_ok() {
            created = true;
            break;
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    assert!(created, "writes did not recover after the broker came back");
    let after = InstanceId::Task("after".into(), 0);
    eventually(120, "the task created after the outage to run", async || {
        (crate::harness::state(&app, &after).await == Some(State::Running)).then_some(())
    })
    .await;
    let names = app.herder.connectors().await.unwrap();
    assert!(
        names.contains(&"before".to_string()) && names.contains(&"after".to_string()),
        "{names:?}"
    );
    app.shutdown().await;
}

/// A sink whose consumer was closed during a broker outage (its worker lost the group and
/// stopped its tasks) gets its partitions back as soon as the broker returns. The closed
/// consumer's own LeaveGroup is lost when it reaches the restarted broker while the group
/// is still loading (which depends on timing, so this test can pass without the fix on a
/// quiet machine; `group/tests/broker.rs` shows the departure on its own, deterministically);
/// the worker then sends it again until it lands. Without that, the new consumer's join
/// waits for the old member's session timeout, set here to 5 minutes (Kafka's default is
/// 45 s) so that the wait cannot fit the deadline.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sink_resumes_after_an_outage_without_waiting_for_its_closed_consumer() {
    let broker = PrivateBroker::start_free();
    let app = Backing::kafka_at(&format!("127.0.0.1:{}", broker.port)).start().await;
    let dir = tempfile::tempdir().unwrap();
    let (input, output) = (dir.path().join("in.txt"), dir.path().join("out.txt"));
    std::fs::write(&input, "before\n").unwrap();
    let topic = format!("outage-{}", std::process::id());
    let source = props(&[
        ("connector.class", "FileStreamSource"),
        ("file", input.to_str().unwrap()),
        ("topic", &topic),
    ]);
    let sink = props(&[
        ("connector.class", "FileStreamSink"),
        ("file", output.to_str().unwrap()),
        ("topics", &topic),
        ("consumer.override.session.timeout.ms", "300000"),
    ]);
    app.herder.put_connector_config("src", source, None, false).await.unwrap();
    app.herder.put_connector_config("snk", sink, None, false).await.unwrap();
    let delivered = |line: &'static str| {
        let output = output.clone();
        async move || std::fs::read_to_string(&output).ok()?.contains(line).then_some(())
    };
    eventually(120, "the line before the outage to reach the sink", delivered("before\n")).await;

    broker.kafka(&["stop", "--keep-data"]);
    // Past `heartbeat.interval.ms` (3 s) of failed group requests the worker has lost its
    // group and stopped its tasks, closing the sink's consumer while no broker answers.
    tokio::time::sleep(Duration::from_secs(15)).await;
    broker.kafka(&["start"]);
    std::fs::write(&input, "before\nafter\n").unwrap();
    eventually(150, "the line written after the outage to reach the sink", delivered("after\n"))
        .await;
    app.shutdown().await;
}
