//! What one source task may hand the worker (issue 34): a task returning huge batches keeps
//! no more than its `buffer.memory` in flight while a light pipeline beside it makes
//! progress, and the per-second rates (`wasm.poll.records.per.second`,
//! `wasm.poll.bytes.per.second`) bound what a task polls. Counts come from the worker's
//! `/metrics` (records polled and records produced per task); deadlines are generous, and
//! every assertion is a bound that a slow machine can only make easier to meet.

use std::time::Instant;

use wasm_connect::app::App;
use wasm_connect::model::{Properties, State};

use crate::harness::{Backing, eventually, props, t, wait_state};

/// A task's counter from the worker's `/metrics` (0 until the task emits it).
pub(crate) async fn counter(app: &App, metric: &str, connector: &str) -> u64 {
    let body = reqwest::get(format!("http://{}/metrics", app.rest_addr))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let prefix = format!(
        "wasm_connect_source_records_{metric}_total{{connector=\"{connector}\",task=\"0\"}}"
    );
    body.lines()
        .find(|l| l.starts_with(&prefix))
        .and_then(|l| l.rsplit(' ').next())
        .map_or(0, |v| v.parse::<f64>().unwrap() as u64)
}

fn chaos(topic: &str, extra: &[(&str, &str)]) -> Properties {
    let mut p = props(&[("connector.class", "ChaosSource"), ("topic", topic), ("tasks.max", "1")]);
    p.extend(props(extra));
    p
}

async fn create(app: &App, name: &str, config: Properties) {
    app.herder.put_connector_config(name, config, None, false).await.unwrap();
    wait_state(app, t(name, 0), State::Running).await;
}

/// Records of one `huge` batch of the fixture: 8 MiB in 64 KiB records.
const HUGE_RECORDS: u64 = 128;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_heavy_source_keeps_its_buffer_and_a_light_one_beside_it_progresses() {
    let dir = tempfile::tempdir().unwrap();
    let app = Backing::embedded(&dir).start().await;
    // A buffer smaller than one batch: one batch at a time in flight (before, eight).
    let heavy = chaos(
        "heavy",
        &[
            ("chaos.mode", "huge"),
            ("chaos.huge.bytes", &(8u64 << 20).to_string()),
            ("producer.override.buffer.memory", "1048576"),
        ],
    );
    create(&app, "heavy", heavy).await;
    create(&app, "light", chaos("light", &[("batch.size", "100")])).await;
    let mut most_in_flight = 0;
    let light_done = 3_000;
    eventually(240, "both sources to produce records side by side", async || {
        // Two scrapes: `produced` can only have grown since `polled` was read, so the
        // difference is at most what was in flight then.
        let polled = counter(&app, "polled", "heavy").await;
        let produced = counter(&app, "produced", "heavy").await;
        most_in_flight = most_in_flight.max(polled.saturating_sub(produced));
        // Both make progress: the light one its records, the heavy one at least a batch
        // (which a slow machine may finish after the light one is done).
        let light = counter(&app, "produced", "light").await;
        (light >= light_done && produced > 0).then_some(())
    })
    .await;
    // One batch in flight, plus one polled between the two reads above.
    assert!(
        most_in_flight <= 2 * HUGE_RECORDS,
        "the heavy source had {most_in_flight} records ({} batches) in flight with a 1 MiB buffer",
        most_in_flight / HUGE_RECORDS
    );
    app.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_rates_bound_what_a_source_polls_per_second() {
    let dir = tempfile::tempdir().unwrap();
    let app = Backing::embedded(&dir).start().await;
    let started = Instant::now();
    // 100 records a poll against 200 records a second.
    let records = chaos("r", &[("batch.size", "100"), ("wasm.poll.records.per.second", "200")]);
    create(&app, "records", records).await;
    // 10 records of 1,000 bytes a poll against 20,000 bytes (20 records) a second.
    let bytes = chaos(
        "b",
        &[("batch.size", "10"), ("value.size", "1000"), ("wasm.poll.bytes.per.second", "20000")],
    );
    create(&app, "bytes", bytes).await;
    eventually(240, "both rate-bound sources to poll", async || {
        let r = counter(&app, "polled", "records").await;
        let b = counter(&app, "polled", "bytes").await;
        (r >= 800 && b >= 80).then_some(())
    })
    .await;
    let polled_r = counter(&app, "polled", "records").await;
    let polled_b = counter(&app, "polled", "bytes").await;
    let secs = started.elapsed().as_secs_f64();
    // The rate over the whole time, one second of burst, and one batch charged after the
    // fact. Each key is a few bytes, each value 1,000.
    let bound_r = 200.0 * secs + 200.0 + 100.0;
    assert!((polled_r as f64) <= bound_r, "{polled_r} records in {secs:.1} s at 200/s");
    let bound_b = 20.0 * secs + 20.0 + 10.0;
    assert!((polled_b as f64) <= bound_b, "{polled_b} records of 1 kB in {secs:.1} s at 20 kB/s");
    // A bad value is refused at the task's start, naming the key.
    let bad = chaos("x", &[("wasm.poll.records.per.second", "fast")]);
    app.herder.put_connector_config("bad", bad, None, false).await.unwrap();
    let trace = eventually(60, "the bad task to fail", async || {
        let status = app.herder.task_status("bad", 0).ok()?;
        (status.state == State::Failed).then(|| status.trace.unwrap_or_default())
    })
    .await;
    assert!(trace.contains("wasm.poll.records.per.second"), "{trace}");
    app.shutdown().await;
}
