//! Transform benchmark: records/s through a source (Datagen) and a sink (ChaosSink, which
//! discards) on the embedded store, with no transform, with a chain of three built-ins
//! (HoistField, InsertField, ReplaceField: each decodes and rebuilds the value), and with
//! one transform plugin (ChaosTransform, which passes records through: the cost of the
//! sandbox crossing and the batch encoding). Prints a Markdown table.
//!
//! Run with `cargo bench --bench transforms` after `scripts/build-guests.sh`.
//! `TRANSFORM_BENCH_RECORDS` sets the record count per row (default 200,000).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use wasm_connect::app::App;
use wasm_connect::config::{Mode, WorkerConfig};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn props(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

async fn worker(dir: &Path) -> App {
    let path = format!(
        "{},{}",
        root().join("build/plugins").display(),
        root().join("build/fixtures").display()
    );
    let p = vec![
        ("plugin.path".to_string(), path),
        ("listeners".into(), "http://127.0.0.1:0".into()),
        ("offset.storage.file.filename".into(), dir.join("bench.db").display().to_string()),
        ("offset.flush.interval.ms".into(), "1000".into()),
        ("key.converter".into(), "org.apache.kafka.connect.storage.StringConverter".into()),
        ("value.converter".into(), "org.apache.kafka.connect.json.JsonConverter".into()),
        ("value.converter.schemas.enable".into(), "true".into()),
    ];
    let config = WorkerConfig::from_properties(&p, Mode::Standalone).unwrap();
    App::start(&config, None).await.unwrap()
}

/// The value of a counter for `connector`, from the Prometheus text.
fn counter(name: &str, connector: &str) -> f64 {
    let handle = wasm_connect::telemetry::prometheus::handle().expect("the recorder");
    let text = wasm_connect::telemetry::prometheus::render(&handle);
    let want = format!("connector=\"{connector}\"");
    text.lines()
        .filter(|l| l.starts_with(name) && l.contains(&want))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum()
}

async fn wait_counter(name: &str, connector: &str, n: usize) {
    while counter(name, connector) < n as f64 {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// The chains compared: (label, transform keys).
fn chains() -> Vec<(&'static str, Vec<(&'static str, &'static str)>)> {
    vec![
        ("no transform", vec![]),
        (
            "3 built-ins",
            vec![
                ("transforms", "hoist,insert,rename"),
                ("transforms.hoist.type", "org.apache.kafka.connect.transforms.HoistField$Value"),
                ("transforms.hoist.field", "line"),
                ("transforms.insert.type", "org.apache.kafka.connect.transforms.InsertField$Value"),
                ("transforms.insert.static.field", "origin"),
                ("transforms.insert.static.value", "bench"),
                (
                    "transforms.rename.type",
                    "org.apache.kafka.connect.transforms.ReplaceField$Value",
                ),
                ("transforms.rename.renames", "line:text"),
            ],
        ),
        ("1 wasm transform", vec![("transforms", "c"), ("transforms.c.type", "ChaosTransform")]),
    ]
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let n: usize = std::env::var("TRANSFORM_BENCH_RECORDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200_000);
    let dir = tempfile::tempdir().unwrap();
    let app = worker(dir.path()).await;
    println!(
        "Datagen records of 100-byte string values, embedded store, JsonConverter with schemas.\n"
    );
    println!("| chain | source records/s | sink records/s |");
    println!("|---|---|---|");
    for (i, (label, keys)) in chains().into_iter().enumerate() {
        let topic = format!("bench-transforms-{i}");
        let mut source = props(&[
            ("connector.class", "Datagen"),
            ("topic", &topic),
            ("records", &n.to_string()),
            ("value.size", "100"),
            ("batch.size", "1000"),
        ]);
        source.extend(props(&keys));
        let (src, snk) = (format!("src-{i}"), format!("snk-{i}"));
        let started = Instant::now();
        app.herder.put_connector_config(&src, source, None, false).await.unwrap();
        wait_counter("wasm_connect_source_records_produced_total", &src, n).await;
        let source_rate = n as f64 / started.elapsed().as_secs_f64();
        // The sink reads the plain topic of the first row, so every sink row starts from
        // the same records.
        let mut sink = props(&[
            ("connector.class", "ChaosSink"),
            ("topics", "bench-transforms-0"),
            ("chaos.mode", "ok"),
            ("chaos.bad.marker", ""),
        ]);
        sink.extend(props(&keys));
        let started = Instant::now();
        app.herder.put_connector_config(&snk, sink, None, false).await.unwrap();
        wait_counter("wasm_connect_sink_records_put_total", &snk, n).await;
        let sink_rate = n as f64 / started.elapsed().as_secs_f64();
        println!("| {label} | {:.0} k | {:.0} k |", source_rate / 1000.0, sink_rate / 1000.0);
        app.herder.delete_connector(&src).await.unwrap();
        app.herder.delete_connector(&snk).await.unwrap();
    }
    app.shutdown().await;
}
